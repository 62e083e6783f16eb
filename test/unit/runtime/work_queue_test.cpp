#include <kcoro/runtime/work_queue.hpp>

#include <doctest/doctest.h>

#include <vector>

using namespace std::chrono_literals;
using kcoro::object_key;
using kcoro::steady_time;
using kcoro::runtime::work_queue;

namespace {
const object_key a{"ns", "a"};
const object_key b{"ns", "b"};
const object_key c{"", "c"};
const steady_time t0{};

struct recording_metrics final : kcoro::workqueue_metrics {
    int adds = 0;
    int retries = 0;
    std::int64_t depth = -1;
    std::vector<double> latencies;
    std::vector<double> durations;
    double unfinished = -1;
    double longest = -1;
    void add() override { ++adds; }
    void set_depth(std::int64_t d) override { depth = d; }
    void queue_latency(double s) override { latencies.push_back(s); }
    void work_duration(double s) override { durations.push_back(s); }
    void set_unfinished_work(double s) override { unfinished = s; }
    void set_longest_running(double s) override { longest = s; }
    void retry() override { ++retries; }
};

work_queue plain_queue() {
    kcoro::runtime::work_queue_options o;
    o.limiter.bucket.reset();
    return work_queue(o);
}
} // namespace

TEST_CASE("FIFO order, and get moves a key to processing") {
    auto q = plain_queue();
    q.add(a, t0);
    q.add(b, t0);
    q.add(c, t0);
    CHECK(q.len() == 3);
    CHECK(q.get(t0) == a);
    CHECK(q.is_processing(a));
    CHECK_FALSE(q.is_dirty(a));
    CHECK(q.get(t0) == b);
    CHECK(q.get(t0) == c);
    CHECK(q.get(t0) == std::nullopt);
}

TEST_CASE("adding a dirty key does nothing") {
    auto q = plain_queue();
    q.add(a, t0);
    q.add(a, t0);
    q.add(a, t0);
    CHECK(q.len() == 1);
    CHECK(q.get(t0) == a);
    CHECK(q.get(t0) == std::nullopt);
}

// Seed 002's diagram: Get -> processing (dirty cleared) -> Add during
// processing? yes: dirty, not queued -> Done -> dirty? yes: queued again;
// no: finished.
TEST_CASE("seed 002 diagram: add during processing is queued again at done, never twice at once") {
    auto q = plain_queue();
    q.add(a, t0);
    REQUIRE(q.get(t0) == a);                // Get: processing, dirty cleared
    CHECK(q.is_processing(a));
    CHECK_FALSE(q.is_dirty(a));
    q.add(a, t0 + 1ms);                     // Add during processing
    CHECK(q.is_dirty(a));                   // marked dirty
    CHECK(q.len() == 0);                    // but not queued
    CHECK(q.get(t0 + 1ms) == std::nullopt); // never two of one key at once
    q.add(a, t0 + 2ms);                     // more adds collapse
    q.done(a, t0 + 3ms);                    // Done: dirty -> queued again
    CHECK_FALSE(q.is_processing(a));
    CHECK(q.len() == 1);
    REQUIRE(q.get(t0 + 4ms) == a);
    q.done(a, t0 + 5ms);                    // Done: not dirty -> finished
    CHECK(q.len() == 0);
    CHECK(q.num_processing() == 0);
    CHECK(q.get(t0 + 6ms) == std::nullopt);
}

TEST_CASE("done of a key that was never handed out is ignored") {
    auto q = plain_queue();
    q.add(a, t0);
    q.done(a, t0);
    q.done(b, t0);
    CHECK(q.len() == 1);
    CHECK(q.get(t0) == a);
}

TEST_CASE("add_after: ready after the delay, earliest ready time wins") {
    auto q = plain_queue();
    q.add_after(a, 10s, t0);
    CHECK(q.next_deadline() == t0 + 10s);
    q.add_after(a, 20s, t0);  // later: ignored
    CHECK(q.next_deadline() == t0 + 10s);
    q.add_after(a, 5s, t0);   // earlier: wins
    CHECK(q.next_deadline() == t0 + 5s);
    CHECK(q.num_waiting() == 1);
    CHECK(q.get(t0 + 4s) == std::nullopt);
    CHECK(q.get(t0 + 5s) == a);
    CHECK(q.next_deadline() == std::nullopt);
}

TEST_CASE("add_after orders several keys by ready time; zero delay adds at once") {
    auto q = plain_queue();
    q.add_after(a, 3s, t0);
    q.add_after(b, 1s, t0);
    q.add_after(c, 0s, t0);
    CHECK(q.len() == 1);
    CHECK(q.get(t0) == c);
    CHECK(q.next_deadline() == t0 + 1s);
    CHECK(q.get(t0 + 10s) == b);
    CHECK(q.get(t0 + 10s) == a);
}

// ADR 0004: an immediate add cancels a pending delayed add of the same key.
TEST_CASE("ADR 0004: an immediate add cancels a pending delayed add") {
    auto q = plain_queue();
    q.add_after(a, 10s, t0);
    q.add(a, t0 + 1s);
    CHECK_FALSE(q.is_waiting(a));
    CHECK(q.next_deadline() == std::nullopt);
    REQUIRE(q.get(t0 + 1s) == a);
    q.done(a, t0 + 2s);
    // Nothing comes back at t0+10s: the rerun decides whether to requeue.
    CHECK(q.get(t0 + 11s) == std::nullopt);
}

TEST_CASE("add_after of a key already dirty does nothing; of a processing key waits") {
    auto q = plain_queue();
    q.add(a, t0);
    q.add_after(a, 5s, t0);
    CHECK_FALSE(q.is_waiting(a));
    REQUIRE(q.get(t0) == a);
    q.add_after(a, 5s, t0);  // requeue_after while processing
    CHECK(q.is_waiting(a));
    q.done(a, t0 + 1s);
    CHECK(q.get(t0 + 1s) == std::nullopt);
    CHECK(q.get(t0 + 5s) == a);
}

TEST_CASE("a delayed add that comes due while processing marks the key dirty") {
    auto q = plain_queue();
    q.add(a, t0);
    REQUIRE(q.get(t0) == a);
    q.add_after(a, 1s, t0);
    CHECK(q.get(t0 + 2s) == std::nullopt);  // due, but a is processing
    CHECK(q.is_dirty(a));
    q.done(a, t0 + 3s);
    CHECK(q.get(t0 + 3s) == a);
}

TEST_CASE("rate limited adds back off exponentially per key; forget resets") {
    auto q = plain_queue();
    q.add_rate_limited(a, t0);
    CHECK(q.num_requeues(a) == 1);
    CHECK(q.next_deadline() == t0 + 5ms);
    REQUIRE(q.get(t0 + 5ms) == a);
    q.add_rate_limited(a, t0 + 5ms);
    CHECK(q.next_deadline() == t0 + 15ms);  // 10 ms
    q.done(a, t0 + 6ms);
    REQUIRE(q.get(t0 + 15ms) == a);
    q.forget(a);
    CHECK(q.num_requeues(a) == 0);
    q.add_rate_limited(a, t0 + 20ms);
    CHECK(q.next_deadline() == t0 + 25ms);  // back to 5 ms
    CHECK(q.num_requeues(b) == 0);
}

TEST_CASE("shut_down: adds ignored, delayed adds dropped, queued keys still handed out") {
    auto q = plain_queue();
    q.add(a, t0);
    q.add(b, t0);
    q.add_after(c, 1s, t0);
    REQUIRE(q.get(t0) == a);
    q.add(a, t0);  // dirty while processing, before shutdown
    q.shut_down();
    CHECK(q.shutting_down());
    q.add(c, t0);
    q.add_after(c, 1s, t0);
    q.add_rate_limited(c, t0);
    CHECK(q.next_deadline() == std::nullopt);
    CHECK_FALSE(q.drained());
    CHECK(q.get(t0) == b);
    q.done(b, t0);
    q.done(a, t0);  // dirty: queued again, as client-go's Done does
    CHECK(q.get(t0) == a);
    q.done(a, t0);
    CHECK(q.get(t0 + 2s) == std::nullopt);
    CHECK(q.finished());
    CHECK(q.drained());
}

TEST_CASE("shut_down_with_drain: drained only once processing is empty") {
    auto q = plain_queue();
    q.add(a, t0);
    REQUIRE(q.get(t0) == a);
    q.shut_down_with_drain();
    CHECK(q.state() == kcoro::runtime::queue_state::draining);
    CHECK_FALSE(q.drained());
    q.done(a, t0 + 1s);
    CHECK(q.drained());
}

TEST_CASE("metrics: adds, depth, latency, work duration, unfinished work, retries") {
    recording_metrics m;
    kcoro::runtime::work_queue_options o;
    o.metrics = &m;
    o.limiter.bucket.reset();
    work_queue q(o);
    q.add(a, t0);
    q.add(a, t0);  // dirty: not counted
    q.add(b, t0 + 1s);
    CHECK(m.adds == 2);
    CHECK(m.depth == 2);
    REQUIRE(q.get(t0 + 2s) == a);
    CHECK(m.depth == 1);
    REQUIRE(m.latencies.size() == 1);
    CHECK(m.latencies[0] == doctest::Approx(2.0));
    REQUIRE(q.get(t0 + 4s) == b);
    q.update_unfinished_work(t0 + 5s);
    CHECK(m.unfinished == doctest::Approx(3.0 + 1.0));
    CHECK(m.longest == doctest::Approx(3.0));
    q.done(a, t0 + 6s);
    REQUIRE(m.durations.size() == 1);
    CHECK(m.durations[0] == doctest::Approx(4.0));
    q.add_rate_limited(a, t0 + 6s);
    CHECK(m.retries == 1);
}

TEST_CASE("remove_if: queued, waiting and rerun-pending keys leave; a processing key finishes without a rerun") {
    recording_metrics m;
    kcoro::runtime::work_queue_options o;
    o.limiter.bucket.reset();
    o.metrics = &m;
    work_queue q(o);
    const object_key d{"ns", "d"};
    q.add(a, t0);
    REQUIRE(q.get(t0) == a);  // a processing
    q.add(a, t0);             // ... and dirty: done() would queue it again
    q.add(b, t0);
    q.add(c, t0);
    q.add_after(d, 1s, t0);
    q.add_rate_limited(b, t0);  // b's backoff counted
    REQUIRE(q.num_requeues(b) == 1);
    auto dropped = [&](const object_key& k) { return k == a || k == b || k == d; };
    CHECK(q.remove_if(dropped) == 3);
    CHECK(q.len() == 1);
    CHECK(m.depth == 1);
    CHECK(q.num_waiting() == 0);
    CHECK(q.num_requeues(b) == 0);
    CHECK(q.is_processing(a));
    CHECK_FALSE(q.is_dirty(a));
    q.done(a, t0);
    CHECK(q.get(t0) == c);
    CHECK(q.get(t0 + 2s) == std::nullopt);  // d's delayed add is gone too
    CHECK(q.remove_if(dropped) == 0);
}
