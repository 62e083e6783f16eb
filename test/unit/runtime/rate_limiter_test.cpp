#include <kcoro/runtime/rate_limiter.hpp>

#include <doctest/doctest.h>

using namespace std::chrono_literals;
using kcoro::object_key;
using kcoro::steady_time;
using namespace kcoro::runtime;

TEST_CASE("per-item exponential: 5 ms, 10 ms, 20 ms ... capped at 1000 s") {
    item_exponential_limiter l;
    object_key k{"ns", "a"};
    CHECK(l.when(k) == 5ms);
    CHECK(l.when(k) == 10ms);
    CHECK(l.when(k) == 20ms);
    CHECK(l.when(k) == 40ms);
    CHECK(l.num_requeues(k) == 4);
    for (int i = 4; i < 17; ++i) {
        l.when(k);
    }
    // 5 ms × 2^17 = 655.36 s, then the cap.
    CHECK(l.when(k) == 655360ms);
    CHECK(l.when(k) == 1000s);
    for (int i = 0; i < 100; ++i) {
        CHECK(l.when(k) == 1000s);  // no overflow past 2^62
    }
    CHECK(l.when(object_key{"ns", "b"}) == 5ms);  // per key
    l.forget(k);
    CHECK(l.num_requeues(k) == 0);
    CHECK(l.when(k) == 5ms);
}

TEST_CASE("default controller limiter: max of per-item delay and the 10 qps / 100 burst bucket") {
    default_controller_limiter l;
    steady_time t0{};
    // 100 distinct keys fit in the burst: only the per-item 5 ms applies.
    for (int i = 0; i < 100; ++i) {
        CHECK(l.when(object_key{"ns", "k" + std::to_string(i)}, t0) == 5ms);
    }
    // The 101st must wait for a token: 100 ms at 10 qps; the 102nd, 200 ms.
    CHECK(l.when(object_key{"ns", "k100"}, t0) == 100ms);
    CHECK(l.when(object_key{"ns", "k101"}, t0) == 200ms);
    // Much later the bucket is full again and per-item growth dominates.
    object_key k{"ns", "k0"};
    CHECK(l.when(k, t0 + 1h) == 10ms);
}

TEST_CASE("the bucket can be disabled") {
    rate_limiter_options o;
    o.bucket.reset();
    default_controller_limiter l(o);
    steady_time t0{};
    for (int i = 0; i < 1000; ++i) {
        CHECK(l.when(object_key{"ns", "k" + std::to_string(i)}, t0) == 5ms);
    }
}
