// controller_helpers.hpp's coroutines against kcoro-apiserver: finalizers
// never clobber another writer's, create_or_patch verifies on AlreadyExists
// and refuses foreign objects, status writes only when changed. Assertions
// on the server's state and on the number of writes.
#include <kcoro/runtime/controller_helpers.hpp>

#include "harness.hpp"
#include "recorders.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/io/clock.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using namespace kcoro::runtime;
using kcoro::object_key;

namespace {

using kcoro::test::write_counter;

// The shared harness (real clock, memory transport); `op`'s writes counted.
struct harness : kcoro::test::harness {
    kcoro::apiserver::server& srv = server();
    kcoro::client::client* admin = &kcoro::test::harness::admin();
    write_counter counter;
    std::unique_ptr<kcoro::client::client> op = make_client(counted(&counter));
    int noops = 0;
    helper_options opts;

    static kcoro::test::harness_options options() {
        kcoro::test::harness_options o;
        o.clock = kcoro::test::clock_kind::steady;
        return o;
    }
    static kcoro::test::client_spec counted(write_counter* c) {
        kcoro::test::client_spec spec;
        spec.metrics = c;
        return spec;
    }

    harness() : kcoro::test::harness(options()) {
        opts.on_write = [this](const write_record& w) { noops += w.noop; };
    }

    template <class T>
    T run(asio::awaitable<T> aw) {
        return kcoro::test::harness::run(std::move(aw));
    }

    kcoro::object_ptr create(std::string_view text) {
        auto o = json::parse(text);
        auto r = run(admin->create(kcoro::resources::configmaps(), "default", o.as_object()));
        REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
        return *r;
    }
    kcoro::object_ptr get(std::string_view name) {
        auto r = run(admin->get(kcoro::resources::configmaps(), object_key{"default", std::string(name)}));
        REQUIRE(r);
        return *r;
    }
};

} // namespace

TEST_CASE("finalizers: added once, a concurrent writer's finalizer is kept on add and on remove") {
    harness h;
    auto stale = h.create(R"({"metadata":{"name":"f","namespace":"default"}})");
    // Someone else adds their finalizer after we read the object.
    REQUIRE(h.run(h.admin->patch(kcoro::resources::configmaps(), {"default", "f"},
                                 std::string(R"({"metadata":{"finalizers":["other.io/keep"]}})"))));
    auto r = h.run(ensure_finalizer(*h.op, kcoro::resources::configmaps(), stale, "example.io/mine", h.opts));
    REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    CHECK(h.counter.writes == 2);  // the guarded patch failed its test, then succeeded after a re-read
    auto now = h.get("f");
    CHECK(kcoro::finalizers_of(*now) == std::vector<std::string>{"other.io/keep", "example.io/mine"});

    const int before = h.counter.writes;
    r = h.run(ensure_finalizer(*h.op, kcoro::resources::configmaps(), now, "example.io/mine", h.opts));
    REQUIRE(r);
    CHECK(h.counter.writes == before);  // already there: no write

    // Remove ours from a stale read while the other writer removes theirs.
    REQUIRE(h.run(h.admin->patch(kcoro::resources::configmaps(), {"default", "f"},
                                 std::string(R"({"metadata":{"finalizers":["example.io/mine","third.io/x"]}})"))));
    r = h.run(remove_finalizer(*h.op, kcoro::resources::configmaps(), now, "example.io/mine", h.opts));
    REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    CHECK(kcoro::finalizers_of(*h.get("f")) == std::vector<std::string>{"third.io/x"});
    CHECK(h.noops == 0);
}

TEST_CASE("create_or_patch: create, no write when right, patch on drift, AlreadyExists verified, foreign refused") {
    harness h;
    auto owner = h.create(R"({"metadata":{"name":"owner","namespace":"default"}})");
    auto desired = json::parse(R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"child","namespace":"default","labels":{"a":"b"}},"data":{"k":"v"}})").as_object();
    auto r = h.run(create_or_patch(*h.op, kcoro::resources::configmaps(), desired, owner, {}, h.opts));
    REQUIRE(r);
    CHECK(r->op == write_op::created);
    r = h.run(create_or_patch(*h.op, kcoro::resources::configmaps(), desired, owner, {}, h.opts));
    REQUIRE(r);
    CHECK(r->op == write_op::none);
    CHECK(h.counter.writes == 1);

    REQUIRE(h.run(h.admin->patch(kcoro::resources::configmaps(), {"default", "child"},
                                 std::string(R"({"data":{"k":"changed","extra":"x"}})"))));
    r = h.run(create_or_patch(*h.op, kcoro::resources::configmaps(), desired, owner, {}, h.opts));
    REQUIRE(r);
    CHECK(r->op == write_op::patched);
    auto child = h.get("child");
    CHECK(child->at("data").at("k") == "v");
    CHECK(child->at("data").at("extra") == "x");  // not ours to remove
    CHECK(kcoro::is_controlled_by(*child, kcoro::uid_of(*owner)));

    // The create meets AlreadyExists (the object appeared between our get
    // and our create): simulated by a fault on the get answering 404.
    kcoro::apiserver::http::fault_rule miss;
    miss.verb = "get";
    miss.resource = "configmaps";
    miss.name = "child";
    miss.code = 404;
    h.srv.faults().add(miss);
    const int before = h.counter.writes;
    r = h.run(create_or_patch(*h.op, kcoro::resources::configmaps(), desired, owner, {}, h.opts));
    REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    CHECK(r->op == write_op::none);
    CHECK(h.counter.writes == before + 1);  // the create that met AlreadyExists, nothing else

    h.create(R"({"metadata":{"name":"foreign","namespace":"default"},"data":{"k":"theirs"}})");
    auto f = desired;
    kcoro::set_name(f, "foreign");
    r = h.run(create_or_patch(*h.op, kcoro::resources::configmaps(), f, owner, {}, h.opts));
    REQUIRE_FALSE(r);
    CHECK(is_name_conflict(r.error()));
    CHECK(h.get("foreign")->at("data").at("k") == "theirs");
}

TEST_CASE("update_status_if_changed writes only a different status") {
    harness h;
    auto d = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default"},
      "spec":{"replicas":1,"selector":{"matchLabels":{"app":"d"}},
              "template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}})");
    auto created = h.run(h.admin->create(kcoro::resources::deployments(), "default", d.as_object()));
    REQUIRE_MESSAGE(created, (created ? "" : created.error().message()));
    auto cur = *created;
    json::value same = cur->contains("status") ? cur->at("status") : json::value(json::object{});
    auto r = h.run(update_status_if_changed(*h.op, kcoro::resources::deployments(), cur, same, h.opts));
    REQUIRE(r);
    CHECK(r->op == write_op::none);
    CHECK(h.counter.writes == 0);
    json::object st = same.is_object() ? same.as_object() : json::object{};
    st["observedGeneration"] = 1;
    st["replicas"] = 0;
    r = h.run(update_status_if_changed(*h.op, kcoro::resources::deployments(), cur, st, h.opts));
    REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    CHECK(r->op == write_op::updated);
    CHECK(h.counter.writes == 1);
}

TEST_CASE("create_or_patch: server-filled defaults in list items are not drift (a Service port without protocol)") {
    harness h;
    auto owner = h.create(R"({"metadata":{"name":"owner","namespace":"default"}})");
    auto desired = json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default"},
      "spec":{"selector":{"app":"web"},"ports":[{"name":"http","port":80}]}})").as_object();
    auto r = h.run(create_or_patch(*h.op, kcoro::resources::services(), desired, owner, {}, h.opts));
    REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    CHECK(r->op == write_op::created);
    // The server filled in protocol: TCP and targetPort: 80.
    const auto& port = r->object->at("spec").at("ports").as_array()[0];
    CHECK(port.at("protocol") == "TCP");
    CHECK(port.at("targetPort") == 80);
    for (int i = 0; i < 3; ++i) {
        r = h.run(create_or_patch(*h.op, kcoro::resources::services(), desired, owner, {}, h.opts));
        REQUIRE(r);
        CHECK(r->op == write_op::none);
    }
    CHECK(h.counter.writes == 1);

    // A port that really changed is drift: the list is sent whole, and is ours again.
    auto svc = h.run(h.admin->get(kcoro::resources::services(), {"default", "web"}));
    REQUIRE(svc);
    REQUIRE(h.run(h.admin->patch(kcoro::resources::services(), {"default", "web"},
                                 std::string(R"({"spec":{"ports":[{"name":"http","port":81}]}})"))));
    r = h.run(create_or_patch(*h.op, kcoro::resources::services(), desired, owner, {}, h.opts));
    REQUIRE(r);
    CHECK(r->op == write_op::patched);
    r = h.run(create_or_patch(*h.op, kcoro::resources::services(), desired, owner, {}, h.opts));
    REQUIRE(r);
    CHECK(r->op == write_op::none);
    CHECK(h.counter.writes == 2);
}
