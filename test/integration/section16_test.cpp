// Section 16 of ../shared/reference/003 ("a verifiable controller
// correctness check"), as one sequence against kcoro-apiserver: the
// configmap-mirror reconciler running under a controller fed by informers.
//
//   initial   parent exists, child does not
//   R1        the child is created
//   R2        reconcile again: the child is right, no write
//   mutation  someone changes the child
//   R3        it is read and repaired
//   fault     R3's response is lost (the write committed); the queue retries
//   R4        the child is found correct: no create, no update
//   delete    the parent is deleted: the cache answers NotFound, the pass
//             ends cleanly, the owner reference lets the GC collect the child
//
// Assertions are on the server's final state and on the number of writes
// the controller's client sent (every attempt).
#include "mirror_harness.hpp"

#include <kcoro/core/json_merge_patch.hpp>

using namespace mirror_test;

TEST_CASE("section 16: create, no-op repeat, repair, lost response on the repair, parent deleted") {
    harness h;

    // initial + R1: the child is created, with exactly one write.
    auto parent = h.create_parent("demo");
    REQUIRE(h.wait_for([&] { return h.child_ok(parent); }));
    REQUIRE(h.wait_for([&] { return h.idle(); }));
    h.let_run(100ms);
    CHECK(h.counter.writes == 1);
    CHECK(h.children() == 1);
    const auto child_rv = std::string(kcoro::resource_version_of(**h.get("demo-observed")));

    // R2: more events (an explicit enqueue and an update of the parent): no write.
    auto before = h.cur->ctl->stats().reconciles;
    h.cur->ctl->enqueue({"default", "demo"});
    REQUIRE(h.settle_after(before));
    before = h.cur->ctl->stats().reconciles;
    REQUIRE(h.run(h.admin->patch(kcoro::resources::configmaps(), {"default", "demo"},
                                 std::string(R"({"data":{"input":"again"}})"))));
    REQUIRE(h.settle_after(before));
    h.let_run(100ms);
    CHECK(h.counter.writes == 1);
    CHECK(kcoro::resource_version_of(**h.get("demo-observed")) == child_rv);

    // Mutation + R3: repaired with one write.
    before = h.cur->ctl->stats().reconciles;
    h.tamper("demo-observed");
    REQUIRE(h.wait_for([&] { return h.child_ok(parent); }));
    REQUIRE(h.settle_after(before));
    h.let_run(100ms);
    CHECK(h.counter.writes == 2);

    // Fault: the repair's response is lost after the commit; the retry (R4)
    // reads the child, finds it right, and writes nothing more.
    kcoro::apiserver::http::fault_rule lost;
    lost.action = kcoro::apiserver::http::fault_action::drop_after_commit;
    lost.verb = "patch";
    lost.resource = "configmaps";
    lost.name = "demo-observed";
    lost.count = 1;
    h.srv.faults().add(lost);
    const auto errors_before = h.cur->ctl->stats().errors;
    before = h.cur->ctl->stats().reconciles;
    h.tamper("demo-observed", "tampered-again");
    const bool failed = h.wait_for([&] { return h.cur->ctl->stats().errors > errors_before; });
    REQUIRE(failed);  // R3 failed: no answer
    REQUIRE(h.wait_for([&] { return h.child_ok(parent); }));                           // but it committed
    REQUIRE(h.settle_after(before, 2));                                                // R4 ran
    h.let_run(200ms);
    CHECK_FALSE(h.srv.faults().entries().empty());
    // The lost patch, and nothing after it. The transport replays a request
    // whose connection closed before any answer once; the replay carries
    // the resourceVersion read before the commit, so it gets 409 Conflict
    // and never writes twice. Either way the retry's pass writes nothing.
    CHECK(h.counter.writes == 3);
    CHECK((h.counter.log.back() == "PATCH <error>" || h.counter.log.back() == "PATCH 409"));
    CHECK(h.children() == 1);

    // Parent deleted: the pass ends cleanly; the GC collects the child.
    const auto errors_now = h.cur->ctl->stats().errors;
    REQUIRE(h.run(h.admin->remove(kcoro::resources::configmaps(), {"default", "demo"})));
    REQUIRE(h.wait_for([&] { return !h.get("demo-observed"); }));
    REQUIRE(h.wait_for([&] { return h.idle(); }));
    h.let_run(100ms);
    CHECK(h.counter.writes == 3);
    CHECK(h.cur->ctl->stats().errors == errors_now);
    CHECK(h.children() == 0);
    CHECK(h.noop_writes() == 0);
}
