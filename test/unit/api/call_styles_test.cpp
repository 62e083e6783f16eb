// Every public coroutine, called the three ways users write them, against an
// in-process kcoro-apiserver. The unit suite runs again under ASan + UBSan
// (scripts/kcoro-dev test), which is what this test is for: g++ 12 destroys
// some temporaries of a co_await operand twice (docs/toolchain.md), and a
// lazy coroutine that took its arguments by reference would read freed
// memory when started after the statement that made it.
//
//   inline    co_await c.get(gvr, {"ns", "name"});                 braced temporaries in the operand
//   options   co_await c.remove(gvr, key, delete_options{...});    a braced options object there too
//   deferred  auto op = c.get(resources::configmaps(), {...});     made from temporaries that die
//             co_await std::move(op);                              at the end of the statement
#include <kcoro/client/client.hpp>

#include "server.hpp"

#include <kcoro/client/discovery_client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/requests.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/apply_owned.hpp>
#include <kcoro/runtime/controller_helpers.hpp>
#include <kcoro/runtime/finalizer.hpp>
#include <kcoro/runtime/informer.hpp>
#include <kcoro/runtime/informer_factory.hpp>

#include "run_until.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <type_traits>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using namespace kcoro;

// The types callers write as braced temporaries must not be aggregates: a
// constructor call is what g++ 12 compiles correctly.
static_assert(!std::is_aggregate_v<object_key>);
static_assert(!std::is_aggregate_v<group_version_resource>);
static_assert(!std::is_aggregate_v<group_version_kind>);
static_assert(!std::is_aggregate_v<group_version>);
static_assert(!std::is_aggregate_v<get_options>);
static_assert(!std::is_aggregate_v<list_options>);
static_assert(!std::is_aggregate_v<watch_options>);
static_assert(!std::is_aggregate_v<create_options>);
static_assert(!std::is_aggregate_v<update_options>);
static_assert(!std::is_aggregate_v<patch_options>);
static_assert(!std::is_aggregate_v<delete_options>);
static_assert(!std::is_aggregate_v<delete_preconditions>);
static_assert(!std::is_aggregate_v<api_request>);
static_assert(!std::is_aggregate_v<runtime::helper_options>);
static_assert(!std::is_aggregate_v<runtime::apply_options>);
static_assert(!std::is_aggregate_v<runtime::write_record>);

// A result that must hold a value; its error message otherwise.
#define OK(r) REQUIRE_MESSAGE((r).has_value(), ((r) ? std::string() : (r).error().message()))

namespace {

json::object cm(std::string name) {
    return json::object{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", json::object{{"name", name}, {"namespace", "default"}}},
                        {"data", json::object{{"k", "v"}}}};
}

json::object deployment(std::string name) {
    auto d = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
        "metadata":{"namespace":"default"},
        "spec":{"replicas":1,"selector":{"matchLabels":{"app":"x"}},
                "template":{"metadata":{"labels":{"app":"x"}},
                            "spec":{"containers":[{"name":"c","image":"nginx"}]}}}})").as_object();
    set_name(d, name);
    return d;
}

json::object with_data(const object_ptr& o, std::string key) {
    json::object copy = *o;
    copy["data"].as_object()[key] = "1";
    return copy;
}

struct fixture {
    asio::io_context ioc;
    io::system_clock clk;
    apiserver::server srv{ioc.get_executor(), clk, {}};
    std::unique_ptr<client::client> c;

    fixture() {
        REQUIRE(srv.start());
        client::client_config cfg;
        cfg.server = srv.url();
        c = client::client::create(cfg, clk).value();
    }
    ~fixture() { srv.stop(0ms); }

    void run(asio::awaitable<void> body) {
        bool done = false;
        asio::co_spawn(ioc, std::move(body), [&](std::exception_ptr e) {
            done = true;
            if (e) std::rethrow_exception(e);
        });
        REQUIRE(test::run_until(ioc, [&] { return done; }));
    }
};

asio::awaitable<void> reads_and_creates(client::client& c) {
    // create
    auto a = co_await c.create(resources::configmaps(), "default", cm("a"));
    OK(a);
    auto b = co_await c.create(resources::configmaps(), "default", cm("b"), create_options{});
    OK(b);
    auto create_op = c.create(resources::configmaps(), std::string("default"), cm("c"));
    auto made = co_await std::move(create_op);
    OK(made);
    CHECK(name_of(**made) == "c");

    // get
    auto g1 = co_await c.get(resources::configmaps(), {"default", "a"});
    OK(g1);
    CHECK(name_of(**g1) == "a");
    auto g2 = co_await c.get(resources::configmaps(), {"default", "b"}, get_options{});
    OK(g2);
    CHECK(name_of(**g2) == "b");
    auto get_op = c.get(resources::configmaps(), {std::string("default"), std::string("c")});
    auto g3 = co_await std::move(get_op);
    OK(g3);
    CHECK(name_of(**g3) == "c");
    auto missing = co_await c.get(resources::configmaps(), {"default", "nope"});
    CHECK((!missing && is_not_found(missing.error())));

    // list and list_all
    auto l1 = co_await c.list(resources::configmaps(), "default");
    OK(l1);
    CHECK(l1->items.size() == 3);
    auto l2 = co_await c.list(resources::configmaps(), "default", list_options{});
    OK(l2);
    CHECK(l2->items.size() == 3);
    auto list_op = c.list(resources::configmaps(), std::string("default"));
    auto l3 = co_await std::move(list_op);
    OK(l3);
    CHECK(l3->items.size() == 3);
    auto a1 = co_await c.list_all(resources::configmaps(), "default");
    OK(a1);
    CHECK(a1->items.size() == 3);
    auto a2 = co_await c.list_all(resources::configmaps(), "default", list_options{});
    OK(a2);
    CHECK(a2->items.size() == 3);
    auto list_all_op = c.list_all(resources::configmaps(), std::string("default"));
    auto a3 = co_await std::move(list_all_op);
    OK(a3);
    CHECK(a3->items.size() == 3);
}

asio::awaitable<void> writes(client::client& c) {
    auto a = co_await c.create(resources::configmaps(), "default", cm("w"));
    OK(a);

    // update: each from the latest read (resourceVersion precondition)
    auto u1 = co_await c.update(resources::configmaps(), with_data(*a, "u1"));
    OK(u1);
    auto u2 = co_await c.update(resources::configmaps(), with_data(*u1, "u2"), update_options{});
    OK(u2);
    auto update_op = c.update(resources::configmaps(), with_data(*u2, "u3"));
    auto u3 = co_await std::move(update_op);
    OK(u3);
    CHECK((*u3)->at("data").as_object().size() == 4);

    // patch
    auto p1 = co_await c.patch(resources::configmaps(), {"default", "w"}, R"({"data":{"p1":"1"}})");
    OK(p1);
    auto p2 = co_await c.patch(resources::configmaps(), {"default", "w"},
                               R"([{"op":"add","path":"/data/p2","value":"1"}])", patch_options{patch_type::json});
    OK(p2);
    auto patch_op = c.patch(resources::configmaps(), {"default", "w"}, std::string(R"({"data":{"p3":"1"}})"),
                            patch_options{patch_type::merge});
    auto p3 = co_await std::move(patch_op);
    OK(p3);
    CHECK((*p3)->at("data").as_object().size() == 7);

    // apply
    auto s1 = co_await c.apply(resources::configmaps(), cm("s"), "tester");
    OK(s1);
    auto s2 = co_await c.apply(resources::configmaps(), cm("s"), "tester", true);
    OK(s2);
    auto apply_op = c.apply(resources::configmaps(), cm("s"), std::string("tester"), true);
    auto s3 = co_await std::move(apply_op);
    OK(s3);
    CHECK(managed_fields_of(**s3) != nullptr);

    // remove
    auto r1 = co_await c.remove(resources::configmaps(), {"default", "w"});
    OK(r1);
    auto r2 = co_await c.remove(resources::configmaps(), {"default", "s"},
                                delete_options{deletion_propagation::foreground});
    OK(r2);
    auto doomed = co_await c.create(resources::configmaps(), "default", cm("d"));
    OK(doomed);
    auto r3 = co_await c.remove(resources::configmaps(), {"default", "d"},
                                delete_options{delete_preconditions{"not-the-uid", ""}});
    CHECK((!r3 && is_conflict(r3.error())));  // the precondition reached the server
    auto remove_op = c.remove(resources::configmaps(), {"default", "d"},
                              delete_options{delete_preconditions{std::string(uid_of(**doomed)), ""}});
    auto r4 = co_await std::move(remove_op);
    OK(r4);
    auto gone = co_await c.get(resources::configmaps(), {"default", "d"});
    CHECK((!gone && is_not_found(gone.error())));
}

asio::awaitable<void> status_verbs(client::client& c) {
    auto d = co_await c.create(resources::deployments(), "default", deployment("web"));
    OK(d);
    auto st1 = co_await c.get_status(resources::deployments(), {"default", "web"});
    OK(st1);
    auto get_status_op = c.get_status(resources::deployments(), {std::string("default"), std::string("web")});
    auto st2 = co_await std::move(get_status_op);
    OK(st2);

    auto with_status = [](const object_ptr& o, int n) {
        json::object copy = *o;
        copy["status"] = json::object{{"observedGeneration", n}};
        return copy;
    };
    auto us1 = co_await c.update_status(resources::deployments(), with_status(*st2, 1));
    OK(us1);
    auto us2 = co_await c.update_status(resources::deployments(), with_status(*us1, 2), update_options{});
    OK(us2);
    auto update_status_op = c.update_status(resources::deployments(), with_status(*us2, 3));
    auto us3 = co_await std::move(update_status_op);
    OK(us3);
    CHECK((*us3)->at("status").at("observedGeneration") == 3);

    auto ps1 = co_await c.patch_status(resources::deployments(), {"default", "web"}, R"({"status":{"replicas":1}})");
    OK(ps1);
    auto ps2 = co_await c.patch_status(resources::deployments(), {"default", "web"},
                                       R"({"status":{"replicas":2}})", patch_options{patch_type::merge});
    OK(ps2);
    auto patch_status_op =
        c.patch_status(resources::deployments(), {"default", "web"}, std::string(R"({"status":{"replicas":3}})"));
    auto ps3 = co_await std::move(patch_status_op);
    OK(ps3);
    CHECK((*ps3)->at("status").at("replicas") == 3);
}

asio::awaitable<void> watch_and_send(client::client& c) {
    auto seen = co_await c.create(resources::configmaps(), "default", cm("seen"));
    OK(seen);
    // A watch without a resourceVersion starts with ADDED for what exists.
    auto w1 = co_await c.watch(resources::configmaps(), "default");
    OK(w1);
    auto e1 = co_await w1->next();
    OK(e1);
    REQUIRE(e1->has_value());
    CHECK((*e1)->type == watch_event_type::added);
    w1->close();
    auto w2 = co_await c.watch(resources::configmaps(), "default", watch_options{});
    OK(w2);
    w2->close();
    auto watch_op = c.watch(resources::configmaps(), std::string("default"));
    auto w3 = co_await std::move(watch_op);
    OK(w3);
    auto e3 = co_await w3->next();
    OK(e3);
    REQUIRE(e3->has_value());
    CHECK(name_of(*(*e3)->object) == "seen");
    w3->close();

    // send: any request
    auto s1 = co_await c.send(get_request(resources::configmaps(), {"default", "seen"}).value());
    OK(s1);
    CHECK(s1->status == 200);
    auto send_op = c.send(get_request(resources::configmaps(), {"default", "seen"}).value());
    auto s2 = co_await std::move(send_op);
    OK(s2);

    // the transport underneath
    auto t1 = co_await c.http().round_trip(get_request(resources::configmaps(), {"default", "nope"}).value());
    OK(t1);
    CHECK(t1->status == 404);
    auto t2 = co_await c.http().send(get_request(resources::configmaps(), {"default", "seen"}).value());
    OK(t2);
    auto stream_op = c.http().open_stream(watch_request(resources::configmaps(), "default").value());
    auto t3 = co_await std::move(stream_op);
    OK(t3);
    (*t3)->close();
}

asio::awaitable<void> discovery(client::client& c) {
    auto d1 = co_await c.discovery().find(group_version_kind{"apps", "v1", "Deployment"});
    OK(d1);
    CHECK(d1->gvr.resource == "deployments");
    auto d2 = co_await c.discovery().find(resources::configmaps());
    OK(d2);
    CHECK(d2->kind == "ConfigMap");
    auto d3 = co_await c.discovery().resolve("cm");
    OK(d3);
    CHECK(d3->gvr.resource == "configmaps");
    auto find_op = c.discovery().find(group_version_kind{std::string("coordination.k8s.io"), "v1", "Lease"});
    auto d4 = co_await std::move(find_op);
    OK(d4);
    CHECK(d4->gvr.resource == "leases");
    auto resolve_op = c.discovery().resolve(std::string("deployments.apps"));
    auto d5 = co_await std::move(resolve_op);
    OK(d5);
    CHECK(d5->kind == "Deployment");
    auto refresh_op = c.discovery().refresh();
    auto refreshed = co_await std::move(refresh_op);
    CHECK(refreshed.has_value());
}

asio::awaitable<void> helpers(client::client& c) {
    auto owner = co_await c.create(resources::configmaps(), "default", cm("owner"));
    OK(owner);
    auto w1 = co_await runtime::create_or_patch(c, resources::configmaps(), cm("child"), *owner,
                                                runtime::mutate_func(), runtime::helper_options{});
    OK(w1);
    CHECK(w1->op == runtime::write_op::created);
    auto cop_op = runtime::create_or_patch(c, resources::configmaps(), cm("child"), *owner, runtime::mutate_func(),
                                           runtime::helper_options());
    auto w2 = co_await std::move(cop_op);
    OK(w2);
    CHECK(w2->op == runtime::write_op::none);

    auto f1 = co_await runtime::ensure_finalizer(c, resources::configmaps(), w2->object, "example.io/f",
                                                 runtime::helper_options{});
    OK(f1);
    CHECK(has_finalizer(**f1, "example.io/f"));
    auto ensure_op = runtime::ensure_finalizer(c, resources::configmaps(), *f1, std::string("example.io/g"),
                                               runtime::helper_options{});
    auto f2 = co_await std::move(ensure_op);
    OK(f2);
    auto f3 = co_await runtime::remove_finalizer(c, resources::configmaps(), *f2, "example.io/f",
                                                 runtime::helper_options{});
    OK(f3);
    auto remove_op = runtime::remove_finalizer(c, resources::configmaps(), *f3, std::string("example.io/g"),
                                               runtime::helper_options{});
    auto f4 = co_await std::move(remove_op);
    OK(f4);
    CHECK(finalizers_of(**f4).empty());

    auto d = co_await c.create(resources::deployments(), "default", deployment("statusful"));
    OK(d);
    // (an initializer list in a co_await operand does not compile with g++ 12)
    const json::value status = json::parse(R"({"replicas":1})");
    auto s1 = co_await runtime::update_status_if_changed(c, resources::deployments(), *d, status,
                                                         runtime::helper_options{});
    OK(s1);
    CHECK(s1->op == runtime::write_op::updated);
    auto status_op = runtime::update_status_if_changed(c, resources::deployments(), s1->object,
                                                       json::parse(R"({"replicas":1})"), runtime::helper_options{});
    auto s2 = co_await std::move(status_op);
    OK(s2);
    CHECK(s2->op == runtime::write_op::none);
}

asio::awaitable<void> apply_and_finalize(client::client& c) {
    auto owner = co_await c.create(resources::configmaps(), "default", cm("parent"));
    OK(owner);
    auto a1 = co_await runtime::apply_owned(c, resources::configmaps(), cm("owned"), *owner, "tester");
    OK(a1);
    CHECK(a1->op == runtime::write_op::created);
    auto a2 = co_await runtime::apply_owned(c, resources::configmaps(), cm("owned"), *owner, "tester",
                                            runtime::apply_options{});
    OK(a2);
    CHECK(a2->op == runtime::write_op::none);
    runtime::reconcile_context ctx;
    ctx.key = {"default", "parent"};
    ctx.field_manager = "tester";
    auto a3 = co_await runtime::apply_owned(c, ctx, resources::configmaps(), cm("owned"), *owner);
    OK(a3);
    auto apply_op = runtime::apply_owned(c, runtime::reconcile_context(ctx), resources::configmaps(), cm("owned"),
                                         object_ptr(*owner));
    auto a4 = co_await std::move(apply_op);
    OK(a4);
    CHECK(a4->op == runtime::write_op::none);

    // finalizer(): the work function is named first (a capturing lambda
    // temporary in a co_await operand is the one hazard no API can remove).
    int applied = 0;
    runtime::finalizer_reconcile work = [&applied](runtime::finalizer_event,
                                                   object_ptr) -> asio::awaitable<result<runtime::reconcile_result>> {
        ++applied;
        co_return runtime::success();
    };
    auto f1 = co_await runtime::finalizer(c, resources::configmaps(), *owner, "example.io/f", work,
                                          runtime::helper_options{});
    OK(f1);
    auto fresh = co_await c.get(resources::configmaps(), {"default", "parent"});
    OK(fresh);
    auto finalizer_op = runtime::finalizer(c, resources::configmaps(), *fresh, std::string("example.io/f"), work,
                                           runtime::helper_options{});
    auto f2 = co_await std::move(finalizer_op);
    OK(f2);
    CHECK(applied == 2);
    CHECK(has_finalizer(**fresh, "example.io/f"));
}

asio::awaitable<void> informer_waits(runtime::informer& inf, runtime::informer_factory& factory) {
    auto r1 = co_await inf.wait_for_sync();
    CHECK(r1.has_value());
    auto r2 = co_await inf.wait_for_sync(std::chrono::seconds(5));
    CHECK(r2.has_value());
    auto inf_op = inf.wait_for_sync(std::chrono::nanoseconds(std::chrono::seconds(5)));
    auto r3 = co_await std::move(inf_op);
    CHECK(r3.has_value());
    auto f1 = co_await factory.wait_for_sync();
    CHECK(f1.has_value());
    auto factory_op = factory.wait_for_sync(std::chrono::seconds(5));
    auto f2 = co_await std::move(factory_op);
    CHECK(f2.has_value());
}

asio::awaitable<int> run_to_end(runtime::runnable& r) {
    co_await r.run();
    co_return 0;
}

} // namespace

TEST_CASE("client verbs: get, list, list_all, create in every call style") {
    fixture f;
    f.run(reads_and_creates(*f.c));
}

TEST_CASE("client verbs: update, patch, apply, remove in every call style") {
    fixture f;
    f.run(writes(*f.c));
}

TEST_CASE("client verbs: the status subresource in every call style") {
    fixture f;
    f.run(status_verbs(*f.c));
}

TEST_CASE("client verbs: watch, send and the transport in every call style") {
    fixture f;
    f.run(watch_and_send(*f.c));
}

TEST_CASE("discovery in every call style") {
    fixture f;
    f.run(discovery(*f.c));
}

TEST_CASE("controller helpers in every call style") {
    fixture f;
    f.run(helpers(*f.c));
}

TEST_CASE("apply_owned and finalizer in every call style") {
    fixture f;
    f.run(apply_and_finalize(*f.c));
}

TEST_CASE("informer and factory waits in every call style") {
    fixture f;
    runtime::informer_key key;
    key.gvr = resources::configmaps();
    runtime::informer_options io;
    io.key = key;
    runtime::informer inf(*f.c, f.clk, f.ioc.get_executor(), io);
    runtime::informer_factory factory(*f.c, f.clk, f.ioc.get_executor());
    factory.get_or_create(key);
    auto inf_run = test::start(f.ioc, run_to_end(inf));
    auto factory_run = test::start(f.ioc, run_to_end(factory));
    f.run(informer_waits(inf, factory));
    inf.stop();
    factory.stop();
    REQUIRE(test::run_until(f.ioc, [&] { return inf_run->has_value() && factory_run->has_value(); }));
}
