// The controller loop against kcoro-apiserver with its faults, driving the
// configmap-mirror reconciler: the builder bypassed, watches dropped and
// 410 mid-run, conflicts, 429 storms, a name conflict, a controller
// restarted mid-reconcile, many keys with two reconciles in flight.
// Assertions: the server's final state and the number of writes.
#include "mirror_harness.hpp"

#include <kcoro/runtime/event_sources.hpp>

using namespace mirror_test;

TEST_CASE("without the builder: informer handlers enqueue straight into a controller") {
    harness h;
    h.stop_controller();  // the harness's builder-made one is not used here

    kcoro::runtime::informer_factory factory(*h.op, h.clk, h.ioc.get_executor());
    auto& parents = factory.get_or_create(mirror::parents_key());
    auto& children = factory.get_or_create(mirror::children_key());
    mirror::reconciler rec(*h.op);
    kcoro::runtime::controller_options o;
    o.name = "by-hand";
    o.read_primary = [&](const kcoro::object_key& k) { return parents.cache().get(k); };
    o.wait_for_sync = [&](std::chrono::nanoseconds t) { return factory.wait_for_sync(t); };
    kcoro::runtime::controller ctl(h.ioc.get_executor(), h.clk, o,
                                   [&](const kcoro::runtime::reconcile_context& ctx) { return rec.reconcile(ctx); });
    parents.add_handlers({.on_add = [&](const kcoro::object_ptr& obj) { ctl.enqueue(kcoro::key_of(*obj)); },
                          .on_update = [&](const kcoro::object_ptr&, const kcoro::object_ptr& obj) {
                              ctl.enqueue(kcoro::key_of(*obj));
                          },
                          .on_delete = {}});
    ctl.watch(children, kcoro::runtime::enqueue_for_owner(ctl, {"", "ConfigMap"}));

    bool factory_done = false, ctl_done = false;
    auto fr = factory.run();
    asio::co_spawn(h.ioc, std::move(fr), [&](std::exception_ptr) { factory_done = true; });
    auto cr = ctl.run();
    asio::co_spawn(h.ioc, std::move(cr), [&](std::exception_ptr) { ctl_done = true; });

    auto parent = h.create_parent("manual");
    CHECK(h.wait_for([&] { return h.child_ok(parent); }));
    h.tamper("manual-observed");
    CHECK(h.wait_for([&] { return h.child_ok(parent); }));
    CHECK(h.counter.writes == 2);

    ctl.stop();
    CHECK(h.wait_for([&] { return ctl_done; }));
    factory.stop();
    CHECK(h.wait_for([&] { return factory_done; }));
}

TEST_CASE("unmanaged ConfigMaps are ignored; a name conflict is never adopted") {
    harness h;
    auto unmanaged = h.create_parent("plain", false);
    // Someone else's ConfigMap already holds the child's name.
    auto foreign = json::parse(R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"taken-observed","namespace":"default"},"data":{"owner":"someone"}})");
    REQUIRE(h.run(h.admin->create(kcoro::resources::configmaps(), "default", foreign.as_object())));
    auto parent = h.create_parent("taken");
    REQUIRE(h.wait_for([&] { return h.cur->ctl->stats().errors >= 2; }));  // retried with backoff
    auto c = h.get("taken-observed");
    REQUIRE(c);
    CHECK(kcoro::owner_references_of(**c).empty());
    CHECK((*c)->at("data").at("owner") == "someone");
    CHECK_FALSE(h.get("plain-observed"));
    CHECK(h.counter.writes == 0);
}

TEST_CASE("watch dropped and 410 Gone mid-run: events still arrive, the child stays right") {
    harness h;
    auto parent = h.create_parent("demo");
    REQUIRE(h.wait_for([&] { return h.child_ok(parent); }));
    REQUIRE(h.wait_for([&] { return h.idle(); }));

    h.srv.close_watches();
    h.tamper("demo-observed");
    CHECK(h.wait_for([&] { return h.child_ok(parent); }));

    // Compaction: the informers' next watch gets 410 and relists.
    h.srv.compact();
    h.srv.close_watches();
    h.tamper("demo-observed", "after-compaction");
    CHECK(h.wait_for([&] { return h.child_ok(parent); }));
    REQUIRE(h.wait_for([&] { return h.idle(); }));
    h.let_run(100ms);
    CHECK(h.counter.writes == 3);  // create + two repairs
    CHECK(h.children() == 1);
}

TEST_CASE("a 409 Conflict on the repair is retried from a fresh read") {
    harness h;
    auto parent = h.create_parent("demo");
    REQUIRE(h.wait_for([&] { return h.child_ok(parent); }));
    REQUIRE(h.wait_for([&] { return h.idle(); }));

    kcoro::apiserver::http::fault_rule conflict;
    conflict.verb = "patch";
    conflict.resource = "configmaps";
    conflict.name = "demo-observed";
    conflict.code = 409;
    conflict.count = 2;
    h.srv.faults().add(conflict);
    const auto errors = h.cur->ctl->stats().errors;
    h.tamper("demo-observed");
    CHECK(h.wait_for([&] { return h.child_ok(parent); }));
    REQUIRE(h.wait_for([&] { return h.idle(); }));
    h.let_run(100ms);
    CHECK(h.cur->ctl->stats().errors == errors + 2);
    CHECK(h.counter.writes == 1 + 3);  // create, two conflicts, the repair
}

TEST_CASE("429 storms: backoff without Retry-After, the client's wait with it; one child in the end") {
    harness h;
    kcoro::apiserver::http::fault_rule storm;
    storm.verb = "create";
    storm.resource = "configmaps";
    storm.code = 429;
    storm.count = 4;
    auto parent = h.create_parent_with_fault("demo", storm);
    REQUIRE(h.wait_for([&] { return h.child_ok(parent); }));
    std::string seen;
    for (auto& e : h.counter.log) seen += "write: " + e + "\n";
    for (auto& e : h.srv.faults().entries()) seen += "fault: " + e + "\n";
    INFO(seen);
    CHECK(h.cur->ctl->stats().errors == 4);  // each 429 went back through the rate limiter

    kcoro::apiserver::http::fault_rule slow;
    slow.verb = "patch";
    slow.resource = "configmaps";
    slow.name = "demo-observed";
    slow.code = 429;
    slow.retry_after_seconds = 1;
    slow.count = 1;
    h.srv.faults().add(slow);
    const auto errors = h.cur->ctl->stats().errors;
    h.tamper("demo-observed");
    CHECK(h.wait_for([&] { return h.child_ok(parent); }));
    REQUIRE(h.wait_for([&] { return h.idle(); }));
    CHECK(h.cur->ctl->stats().errors == errors);  // the client waited and retried: no reconcile error
    CHECK(h.counter.writes == 5 + 2);
    CHECK(h.faults_fired() == 5);
    CHECK(h.children() == 1);
}

TEST_CASE("controller restarted mid-reconcile: the new one converges, no duplicate child") {
    harness h;
    kcoro::apiserver::http::fault_rule slow;
    slow.action = kcoro::apiserver::http::fault_action::delay;
    slow.verb = "create";
    slow.resource = "configmaps";
    slow.delay = 300ms;
    slow.count = 1;
    auto parent = h.create_parent_with_fault("demo", slow);
    REQUIRE(h.wait_for([&] { return h.cur->ctl->active_workers() == 1; }));
    h.let_run(50ms);                   // the create is on the wire
    h.stop_controller(/*hard=*/true);  // killed mid-reconcile
    h.start_controller();
    CHECK(h.wait_for([&] { return h.child_ok(parent); }));
    REQUIRE(h.wait_for([&] { return h.idle(); }));
    h.let_run(400ms);  // the delayed create has landed (or not) by now
    CHECK(h.child_ok(parent));
    CHECK(h.children() == 1);
    CHECK(h.counter.writes <= 2);
    CHECK(h.faults_fired() == 1);
}

TEST_CASE("stop() drains: the reconcile in flight finishes its write") {
    harness h;
    kcoro::apiserver::http::fault_rule slow;
    slow.action = kcoro::apiserver::http::fault_action::delay;
    slow.verb = "create";
    slow.resource = "configmaps";
    slow.delay = 200ms;
    slow.count = 1;
    auto parent = h.create_parent_with_fault("demo", slow);
    REQUIRE(h.wait_for([&] { return h.cur->ctl->active_workers() == 1; }));
    h.cur->ctl->stop();
    CHECK(h.wait_for([&] { return *h.cur->ctl_done; }));
    CHECK(h.child_ok(parent));  // finished before run() returned
    CHECK(h.cur->ctl->stats().errors == 0);
    CHECK(h.faults_fired() == 1);
}

TEST_CASE("many parents, two reconciles in flight: every child once") {
    harness h(2);
    std::vector<kcoro::object_ptr> parents;
    for (int i = 0; i < 20; ++i) parents.push_back(h.create_parent("p" + std::to_string(i)));
    CHECK(h.wait_for([&] {
        for (auto& p : parents)
            if (!h.child_ok(p)) return false;
        return true;
    }));
    REQUIRE(h.wait_for([&] { return h.idle(); }));
    h.let_run(100ms);
    CHECK(h.counter.writes == 20);
    CHECK(h.children() == 20);
    CHECK(h.cur->ctl->stats().max_in_flight <= 2);
}
