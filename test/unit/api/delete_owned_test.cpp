// delete_owned against an in-process kcoro-apiserver: our child deleted once
// (uid precondition, reported, a Deleted Event on the owner), nothing when
// it is absent, someone else's, already being deleted or replaced since the
// read; the cache path sends no GET; the typed overload from a reconcile.
#include <kcoro/runtime/delete_owned.hpp>

#include "server.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/event_recorder.hpp>
#include <kcoro/typed/k8s/config_map.hpp>

#include "run_until.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using namespace kcoro;
using runtime::write_op;

namespace {

struct request_counter final : request_metrics {
    int gets = 0, deletes = 0;
    void observe(std::string_view, std::string_view method, std::string_view, std::string_view, double) override {
        if (method == "GET") ++gets;
        if (method == "DELETE") ++deletes;
    }
};

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

struct fixture {
    asio::io_context ioc;
    io::system_clock clk;
    apiserver::server srv{ioc.get_executor(), clk, {}};
    std::unique_ptr<client::client> admin, op;
    request_counter counter;
    object_ptr owner;
    std::vector<runtime::write_record> reported;

    fixture() {
        REQUIRE(srv.start());
        client::client_config cfg;
        cfg.server = srv.url();
        admin = client::client::create(cfg, clk).value();
        client::client_options oo;
        oo.metrics = &counter;
        op = client::client::create(cfg, clk, oo).value();
        owner = must(run(admin->create(resources::configmaps(), "default",
                                       parse(R"({"metadata":{"name":"owner","namespace":"default"}})"))));
    }
    ~fixture() { srv.stop(0ms); }

    template <class T>
    T run(asio::awaitable<T> aw) {
        auto out = test::run(ioc, std::move(aw));
        REQUIRE(out.has_value());
        return std::move(*out);
    }
    template <class T>
    T must(result<T> r) {
        REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message()));
        return std::move(*r);
    }
    // A ConfigMap child named `name`, controlled by `by` (or by no one).
    object_ptr child(std::string name, const object_ptr& by) {
        json::object cm{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                        {"metadata", json::object{{"name", name}, {"namespace", "default"}}}};
        if (by) {
            REQUIRE(runtime::set_controller_reference(cm, *by));
        }
        return must(run(admin->create(resources::configmaps(), "default", std::move(cm))));
    }
    runtime::delete_owned_options options(std::optional<object_ptr> cached = std::nullopt) {
        runtime::delete_owned_options o;
        o.cached = std::move(cached);
        o.helpers.on_write = [this](const runtime::write_record& w) { reported.push_back(w); };
        return o;
    }
    result<runtime::write_result> remove(std::string name, std::optional<object_ptr> cached = std::nullopt) {
        return run(runtime::delete_owned(*op, resources::configmaps(), {"default", std::move(name)}, owner,
                                         options(std::move(cached))));
    }
    object_ptr get(std::string name) {
        auto r = run(admin->get(resources::configmaps(), {"default", std::move(name)}));
        if (!r && is_not_found(r.error())) return nullptr;
        return must(std::move(r));
    }
};

} // namespace

TEST_CASE("our child: one DELETE with its uid as the precondition, reported; then nothing") {
    fixture f;
    auto ours = f.child("web", f.owner);
    auto w = f.must(f.remove("web"));
    CHECK(w.op == write_op::deleted);
    REQUIRE(w.object);
    CHECK(uid_of(*w.object) == uid_of(*ours));
    CHECK(f.get("web") == nullptr);
    CHECK(f.counter.deletes == 1);
    REQUIRE(f.reported.size() == 1);
    CHECK(f.reported[0].op == write_op::deleted);
    CHECK(f.reported[0].key == object_key{"default", "web"});

    // Gone: a no-op, no DELETE.
    auto again = f.must(f.remove("web"));
    CHECK(again.op == write_op::none);
    CHECK(again.object == nullptr);
    CHECK(f.counter.deletes == 1);
    CHECK(f.reported.size() == 1);
}

TEST_CASE("someone else's object, or no one's, is never deleted") {
    fixture f;
    auto other_owner = f.must(f.run(f.admin->create(resources::configmaps(), "default",
                                                    parse(R"({"metadata":{"name":"other","namespace":"default"}})"))));
    f.child("theirs", other_owner);
    f.child("nobodys", nullptr);
    for (std::string name : {"theirs", "nobodys"}) {
        auto w = f.must(f.remove(name));
        CHECK(w.op == write_op::none);
        REQUIRE(w.object);
        CHECK(name_of(*w.object) == name);
        CHECK(f.get(name) != nullptr);
    }
    CHECK(f.counter.deletes == 0);
    CHECK(f.reported.empty());
}

TEST_CASE("from the cache: absent means no request at all; a replaced object (409) is left alone") {
    fixture f;
    auto w = f.must(f.remove("web", object_ptr()));
    CHECK(w.op == write_op::none);
    CHECK(f.counter.gets == 0);
    CHECK(f.counter.deletes == 0);

    // The cache still holds our child, but the name now holds another object
    // (deleted and made again by someone else): the uid precondition fails.
    auto ours = f.child("web", f.owner);
    f.must(f.run(f.admin->remove(resources::configmaps(), {"default", "web"})));
    auto replacement = f.child("web", f.owner);
    REQUIRE(uid_of(*replacement) != uid_of(*ours));
    auto stale = f.must(f.remove("web", ours));
    CHECK(stale.op == write_op::none);
    CHECK(f.counter.gets == 0);
    CHECK(f.counter.deletes == 1);  // answered 409
    auto still = f.get("web");
    REQUIRE(still);
    CHECK(uid_of(*still) == uid_of(*replacement));
    CHECK(f.reported.empty());
}

TEST_CASE("a child already being deleted (a finalizer holds it) is not deleted again") {
    fixture f;
    json::object cm = parse(R"({"apiVersion":"v1","kind":"ConfigMap",
        "metadata":{"name":"web","namespace":"default","finalizers":["example.com/hold"]}})");
    REQUIRE(runtime::set_controller_reference(cm, *f.owner));
    f.must(f.run(f.admin->create(resources::configmaps(), "default", std::move(cm))));
    f.must(f.run(f.admin->remove(resources::configmaps(), {"default", "web"})));
    REQUIRE(is_being_deleted(*f.get("web")));
    auto w = f.must(f.remove("web"));
    CHECK(w.op == write_op::none);
    CHECK(f.counter.deletes == 0);
}

TEST_CASE("typed, from a reconcile: the context's cache and hooks, and a Deleted Event on the owner") {
    fixture f;
    auto ours = f.child("web", f.owner);
    runtime::event_recorder_options ro;
    ro.aggregator.reporting_controller = "test-controller";
    ro.aggregator.reporting_instance = "test-controller-1";  // required of an Event by the API
    runtime::event_recorder rec(*f.admin, f.clk, std::move(ro));
    bool rec_done = false;
    asio::co_spawn(f.ioc, rec.run(), [&](std::exception_ptr) { rec_done = true; });

    runtime::reconcile_context ctx;
    ctx.key = {"default", "owner"};
    ctx.events = &rec;
    ctx.helpers.on_write = [&](const runtime::write_record& w) { f.reported.push_back(w); };
    ctx.read_owned = [&](const group_version_resource& gvr, const object_key& key) -> std::optional<object_ptr> {
        CHECK(gvr == resources::configmaps());
        CHECK(key == object_key{"default", "web"});
        return ours;
    };
    auto w = f.must(f.run(runtime::delete_owned<k8s::config_map>(*f.op, ctx, object_key{"default", "web"}, f.owner,
                                                                  runtime::owned_events::record)));
    CHECK(w.op == write_op::deleted);
    CHECK(f.counter.gets == 0);  // read from the context's cache
    REQUIRE(f.reported.size() == 1);
    CHECK(f.get("web") == nullptr);

    // The Event: about the owner, the deleted child as its related object.
    REQUIRE(test::run_until(f.ioc, [&] { return rec.written() == 1; }));
    auto events = f.must(f.run(f.admin->list(group_version_resource{"events.k8s.io", "v1", "events"}, "default")));
    REQUIRE(events.items.size() == 1);
    const auto& ev = *events.items[0];
    CHECK(ev.at("reason") == "Deleted");
    CHECK(ev.at("action") == "Delete");
    CHECK(ev.at("note") == "deleted ConfigMap default/web");
    CHECK(ev.at("regarding").at("name") == "owner");
    CHECK(ev.at("related").at("name") == "web");
    rec.stop();
    REQUIRE(test::run_until(f.ioc, [&] { return rec_done; }));
}
