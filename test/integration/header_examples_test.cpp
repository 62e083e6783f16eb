// The usage examples at the top of the public headers, compiled and run as
// written against kcoro-apiserver in process. Each block between "as in
// <header>" and "end of example" is the header's example, word for word;
// what is around it only provides the names the example assumes (a client,
// a clock, an executor, a reconcile function). Change both together.
#include "harness.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/apply_owned.hpp>
#include <kcoro/runtime/builder.hpp>
#include <kcoro/runtime/controller.hpp>
#include <kcoro/runtime/event_sources.hpp>
#include <kcoro/runtime/finalizer.hpp>
#include <kcoro/runtime/hot_loop_tracker.hpp>
#include <kcoro/runtime/informer.hpp>
#include <kcoro/runtime/informer_factory.hpp>
#include <kcoro/server/manager.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using namespace kcoro;
using asio::awaitable;
using asio::co_spawn;
using asio::detached;

namespace {

// The shared harness over HTTP (the examples build clients from a
// client_config) on the real clock.
struct fixture : test::harness {
    io::clock& clock = test::harness::clock();
    client::client_config cfg = config_of(server());
    client::client* admin = &test::harness::admin();

    static test::harness_options options() {
        test::harness_options o;
        o.clock = test::clock_kind::steady;
        o.transport = test::transport_kind::http;
        return o;
    }
    static client::client_config config_of(apiserver::server& srv) {
        client::client_config c;
        c.server = srv.url();
        return c;
    }
    fixture() : test::harness(options()) {}

    object_ptr create(const group_version_resource& gvr, std::string_view text) {
        auto r = test::run(ioc, admin->create(gvr, "default", json::parse(text).as_object()));
        REQUIRE(r.has_value());
        REQUIRE(*r);
        return **r;
    }
    template <class Pred>
    bool wait_for(Pred p) {
        return run_until(p);
    }
};

// client.hpp
awaitable<int> client_examples(client::client_config cfg, io::clock& clk) {
    int not_found = 0;
    // as in client.hpp
    auto c = kcoro::client::client::create(cfg, clk).value();
    auto cm = co_await c->get(kcoro::resources::configmaps(), {"default", "x"});
    if (!cm && kcoro::is_not_found(cm.error())) { ++not_found; }
    // end of example
    const auto gvr = kcoro::resources::configmaps();
    const kcoro::object_key key{"default", "x"};
    const kcoro::object_key k{"default", "lease"};
    // as in client.hpp (Arguments)
    co_await c->get(gvr, {"ns", "name"});                  // braced key
    co_await c->remove(gvr, key, kcoro::delete_options{kcoro::deletion_propagation::foreground});
    auto op = c->get(kcoro::resources::leases(), k);       // started later:
    co_await std::move(op);                                // arguments live in the frame
    // end of example
    co_return not_found;
}

} // namespace

TEST_CASE("client.hpp") {
    fixture f;
    auto r = test::run(f.ioc, client_examples(f.cfg, f.clock));
    REQUIRE(r.has_value());
    CHECK(*r == 1);
}

TEST_CASE("controller.hpp and informer.hpp") {
    fixture f;
    auto c = f.make_client();  // counted: settle() waits for its requests
    auto& client = *c;
    auto& clock = f.clock;
    auto ex = f.ioc.get_executor();
    int reconciled = 0, added = 0;
    runtime::reconcile_func reconcile_fn = [&](const object_key&) -> awaitable<result<runtime::reconcile_result>> {
        ++reconciled;
        co_return runtime::success();
    };
    namespace runtime = kcoro::runtime;
    using kcoro::object_ptr;
    namespace resources = kcoro::resources;

    // as in informer.hpp
    runtime::informer inf(client, clock, ex, {.key = {.gvr = resources::configmaps()}});
    inf.add_handlers({.on_add = [&](const object_ptr& o) { added += !kcoro::name_of(*o).empty(); }});
    co_spawn(ex, inf.run(), detached);
    // end of example
    auto& informer = inf;
    // as in controller.hpp
    runtime::controller ctl(ex, clock, {.name = "mirror"}, reconcile_fn);
    ctl.watch(informer, runtime::enqueue_for_object(ctl));
    co_spawn(ex, ctl.run(), detached);     // the manager does this
    // end of example
    // as in informer.hpp (the wait)
    auto wait = [&]() -> awaitable<bool> {
        auto synced = co_await inf.wait_for_sync();   // 403 on the list: error at once
        co_return synced.has_value();
    };
    // end of example
    auto synced = test::run(f.ioc, wait());
    REQUIRE(synced.has_value());
    CHECK(*synced);
    f.create(resources::configmaps(), R"({"metadata":{"name":"a","namespace":"default"}})");
    CHECK(f.wait_for([&] { return reconciled >= 1 && added >= 1; }));
    // as in controller.hpp (the stop)
    ctl.stop();                            // run() returns once in-flight reconciles finished
    // end of example
    inf.stop();
    REQUIRE(f.settle());
    CHECK(f.open_streams() == 0);  // the informer's watch ended
}

TEST_CASE("informer_factory.hpp and builder.hpp") {
    fixture f;
    auto c = f.make_client();  // counted: settle() waits for its requests
    auto& client = *c;
    auto& clock = f.clock;
    auto ex = f.ioc.get_executor();
    namespace runtime = kcoro::runtime;
    namespace resources = kcoro::resources;
    int reconciled = 0;
    runtime::reconcile_func reconcile_fn = [&](const object_key&) -> awaitable<result<runtime::reconcile_result>> {
        ++reconciled;
        co_return runtime::success();
    };
    f.create(resources::configmaps(), R"({"metadata":{"name":"x","namespace":"default"}})");

    // as in informer_factory.hpp
    runtime::informer_factory cache(client, clock, ex, {.namespace_ = "default"});
    auto& cms = cache.get_or_create({.gvr = resources::configmaps()});
    // end of example
    (void)cms;
    auto& factory = cache;
    // as in builder.hpp
    auto ctl = runtime::builder(factory, clock, ex)
                   .named("configmap-mirror")
                   .for_({.gvr = resources::configmaps(), .label_selector = "app.example.io/managed=true"},
                         {"", "ConfigMap"})
                   .owns({.gvr = resources::configmaps(), .label_selector = "app.example.io/child=true"})
                   .with_options({.max_concurrent_reconciles = 2})
                   .complete(reconcile_fn);           // std::unique_ptr<controller>
    // end of example
    auto read = [&]() -> awaitable<bool> {
        // as in informer_factory.hpp (the reads)
        co_spawn(ex, cache.run(), detached);        // the manager does this
        co_await cache.wait_for_sync();
        auto cm = cache.get(resources::configmaps(), {"default", "x"});
        // end of example
        co_return cm != nullptr;
    };
    auto got = test::run(f.ioc, read());
    REQUIRE(got.has_value());
    CHECK(*got);
    co_spawn(ex, ctl->run(), detached);
    f.create(resources::configmaps(),
             R"({"metadata":{"name":"p","namespace":"default","labels":{"app.example.io/managed":"true"}}})");
    CHECK(f.wait_for([&] { return reconciled >= 1; }));
    CHECK(ctl->options().max_concurrent_reconciles == 2);
    ctl->stop();
    cache.stop();
    REQUIRE(f.settle());
    CHECK(f.open_streams() == 0);  // every watch of the factory ended
}

namespace {

using kcoro::runtime::reconcile_result;

awaitable<result<reconcile_result>> delete_external(object_ptr) { co_return runtime::success(); }
awaitable<result<reconcile_result>> converge(object_ptr) { co_return runtime::requeue_after(1min); }

json::object deployment_named(std::string_view name) {
    auto d = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"namespace":"default"},
      "spec":{"replicas":1,"selector":{"matchLabels":{"app":"gw"}},
              "template":{"metadata":{"labels":{"app":"gw"}},"spec":{"containers":[{"name":"gw","image":"nginx"}]}}}})")
                 .as_object();
    set_name(d, name);
    return d;
}

// apply_owned.hpp and finalizer.hpp, inside one reconcile.
awaitable<result<reconcile_result>> child_examples(client::client& client, runtime::reconcile_context ctx,
                                                   object_ptr instance, int* conflicts) {
    namespace runtime = kcoro::runtime;
    namespace resources = kcoro::resources;
    {
        auto desired = deployment_named("gw");
        // as in apply_owned.hpp
        auto w = co_await runtime::apply_owned(client, ctx, resources::deployments(), desired, instance);
        if (!w && runtime::is_name_conflict(w.error())) { /* someone else's object: never adopted */ ++*conflicts; }
        // end of example
        if (!w) co_return w.error();
    }
    {
        auto desired = deployment_named("taken");
        auto w = co_await runtime::apply_owned(client, ctx, resources::deployments(), desired, instance);
        if (!w && runtime::is_name_conflict(w.error())) { ++*conflicts; }
    }
    const auto gvr = resources::configmaps();
    auto obj = instance;
    // as in finalizer.hpp
    auto work = [&](runtime::finalizer_event ev, object_ptr obj) -> awaitable<result<reconcile_result>> {
        if (ev == runtime::finalizer_event::cleanup) co_return co_await delete_external(obj);
        co_return co_await converge(obj);
    };
    co_return co_await runtime::finalizer(client, gvr, obj, "example.io/cleanup", work, ctx.helpers);
    // end of example
}

} // namespace

TEST_CASE("apply_owned.hpp, reconcile_context.hpp and finalizer.hpp") {
    fixture f;
    auto instance = f.create(resources::configmaps(), R"({"metadata":{"name":"owner","namespace":"default"}})");
    f.create(resources::deployments(), json::serialize(deployment_named("taken")));
    runtime::reconcile_context ctx;
    ctx.key = key_of(*instance);
    ctx.field_manager = "examples";
    int conflicts = 0;
    auto r = test::run(f.ioc, child_examples(*f.admin, ctx, instance, &conflicts));
    REQUIRE(r.has_value());
    REQUIRE(*r);
    CHECK(**r == runtime::requeue_after(1min));
    CHECK(conflicts == 1);
    auto child = test::run(f.ioc, f.admin->get(resources::deployments(), {"default", "gw"}));
    REQUIRE(child.has_value());
    REQUIRE(*child);
    CHECK(is_controlled_by(***child, uid_of(*instance)));

    // reconcile_context.hpp: a reconcile function in the context's terms.
    auto& client = *f.admin;
    auto parent = instance;
    auto desired = json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owner-child","namespace":"default"}})")
                       .as_object();
    namespace resources = kcoro::resources;
    // as in reconcile_context.hpp
    auto fn = [&](const runtime::reconcile_context& ctx) -> awaitable<result<reconcile_result>> {
        auto child = co_await runtime::apply_owned(client, ctx, resources::configmaps(), desired, parent);
        if (!child) co_return child.error();
        co_return runtime::success();
    };
    // end of example
    auto done = test::run(f.ioc, fn(ctx));
    REQUIRE(done.has_value());
    CHECK(*done);
    CHECK(test::run(f.ioc, f.admin->get(resources::configmaps(), {"default", "owner-child"}))->has_value());
}

TEST_CASE("hot_loop_tracker.hpp") {
    using namespace kcoro::runtime;
    const object_key key{"default", "x"};
    std::vector<std::string> what{"updated status of widgets default/x"};
    int warned = 0;
    auto warn = [&](const hot_loop_alarm& a) { warned += a.key == key; };
    // as in hot_loop_tracker.hpp
    hot_loop_tracker t({.max_writing_reconciles = 10, .window = 5min});
    // end of example
    steady_time now{};
    for (int i = 0; i < 11; ++i) {
        std::size_t writes = 1, noop_writes = 0;
        now += 1s;
        // as in hot_loop_tracker.hpp (the record)
        if (auto alarm = t.record(key, now, writes, noop_writes, what)) { warn(*alarm); }
        // end of example
    }
    CHECK(warned == 1);
}

TEST_CASE("controller_builder.hpp and manager.hpp") {
    fixture f;
    auto c = f.make_client();  // counted: settle() waits for its requests
    server::manager_options o;
    o.metrics_bind_address = "0";
    o.health_probe_bind_address = "0";
    server::manager_setup s;
    s.name = "examples";
    s.io_context = &f.ioc;
    s.clock = &f.clock;
    s.client = c.get();
    s.handle_signals = false;
    auto m = server::manager::create(std::move(o), std::move(s));
    REQUIRE(m);
    auto& mgr = **m;
    int reconciled = 0;
    runtime::reconcile_context_func reconcile = [&](const runtime::reconcile_context&)
        -> awaitable<result<runtime::reconcile_result>> {
        ++reconciled;
        co_return runtime::success();
    };
    runtime::informer_key parents_key;
    parents_key.gvr = resources::configmaps();
    parents_key.label_selector = "app.example.io/managed=true";
    runtime::informer_key children_key;
    children_key.gvr = resources::configmaps();
    children_key.label_selector = "app.example.io/child=true";
    // as in controller_builder.hpp
    auto& ctl = mgr.controller("configmap-mirror")
                    .for_(parents_key)                   // kind from mgr.resources()
                    .owns(children_key)
                    .complete(reconcile);                // added to the manager
    // end of example
    (void)ctl;
    auto done = test::start(f.ioc, mgr.run_async());
    f.create(resources::configmaps(),
             R"({"metadata":{"name":"p","namespace":"default","labels":{"app.example.io/managed":"true"}}})");
    CHECK(f.wait_for([&] { return reconciled >= 1; }));
    // manager.hpp's example is main(): the same call, then mgr.run().
    runtime::reconcile_func reconcile_key = [&](const object_key&) -> awaitable<result<runtime::reconcile_result>> {
        co_return runtime::success();
    };
    auto& second = mgr.controller("my-controller").for_(kcoro::resources::configmaps()).complete(reconcile_key);
    CHECK(second.name() == "my-controller");
    mgr.request_stop();
    CHECK(f.wait_for([&] { return done->has_value(); }));
}
