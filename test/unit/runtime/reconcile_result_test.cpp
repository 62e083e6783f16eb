#include <kcoro/runtime/reconcile_result.hpp>
#include <kcoro/runtime/work_queue.hpp>

#include <doctest/doctest.h>

using namespace std::chrono_literals;
using namespace kcoro::runtime;
using kcoro::api_errc;
using kcoro::error;

TEST_CASE("success forgets") {
    auto d = decide(success(), error{});
    CHECK(d == reconcile_decision{queue_op::forget, 0ns, kcoro::reconcile_outcome::success, false, false, false});
}

TEST_CASE("requeue_after forgets then adds after") {
    auto d = decide(requeue_after(30s), error{});
    CHECK(d.op == queue_op::forget_then_add_after);
    CHECK(d.after == 30s);
    CHECK(d.outcome == kcoro::reconcile_outcome::requeue_after);
    CHECK_FALSE(d.error);
}

TEST_CASE("requeue_after wins over requeue; requeue alone is rate limited") {
    CHECK(decide(reconcile_result{true, 1s}, error{}).op == queue_op::forget_then_add_after);
    auto d = decide(requeue(), error{});
    CHECK(d.op == queue_op::add_rate_limited);
    CHECK(d.outcome == kcoro::reconcile_outcome::requeue);
    CHECK_FALSE(d.error);
}

TEST_CASE("an error is rate limited and a result returned with it is ignored") {
    auto d = decide(requeue_after(5s), error(api_errc::conflict));
    CHECK(d.op == queue_op::add_rate_limited);
    CHECK(d.error);
    CHECK(d.result_ignored);
    CHECK(d.outcome == kcoro::reconcile_outcome::error);
    CHECK_FALSE(decide(success(), error(api_errc::conflict)).result_ignored);
}

TEST_CASE("a terminal error is not requeued") {
    auto e = terminal_error(error(api_errc::invalid, "spec.port: must be > 0"));
    CHECK(is_terminal(e));
    CHECK(e.message().find("spec.port") != std::string::npos);
    CHECK_FALSE(is_terminal(error(api_errc::invalid)));
    auto d = decide(success(), e);
    CHECK(d.op == queue_op::none);
    CHECK(d.terminal);
    CHECK(d.error);
}

TEST_CASE("apply drives the queue like reconcileHandler") {
    work_queue q;
    kcoro::object_key k{"ns", "a"};
    kcoro::steady_time t0{};
    q.add(k, t0);
    REQUIRE(q.get(t0) == k);
    apply(decide(success(), error(api_errc::conflict)), q, k, t0);  // failure 1: 5 ms
    CHECK(q.num_requeues(k) == 1);
    q.done(k, t0);
    REQUIRE(q.get(t0 + 5ms) == k);
    apply(decide(requeue_after(1min), error{}), q, k, t0 + 5ms);   // forgets, waits 1 min
    CHECK(q.num_requeues(k) == 0);
    CHECK(q.next_deadline() == t0 + 5ms + 1min);
    q.done(k, t0 + 5ms);
    REQUIRE(q.get(t0 + 2min) == k);
    apply(decide(success(), terminal_error("bad")), q, k, t0 + 2min);
    q.done(k, t0 + 2min);
    CHECK(q.next_deadline() == std::nullopt);
    CHECK(q.len() == 0);
}

TEST_CASE("decisions print readably") {
    std::ostringstream os;
    os << decide(requeue_after(2s), error{});
    CHECK(os.str() == "{op=forget_then_add_after after=2s outcome=3}");
}
