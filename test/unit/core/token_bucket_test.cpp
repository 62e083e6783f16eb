#include <kcoro/core/token_bucket.hpp>

#include <doctest/doctest.h>

using namespace std::chrono_literals;

TEST_CASE("burst is available at once, then tokens come at qps") {
    kcoro::steady_time t0{};
    kcoro::token_bucket b(10, 3, t0);
    CHECK(b.reserve(t0) == 0ns);
    CHECK(b.reserve(t0) == 0ns);
    CHECK(b.reserve(t0) == 0ns);
    CHECK(b.reserve(t0) == 100ms);
    CHECK(b.reserve(t0) == 200ms);  // reservations queue up
    CHECK_FALSE(b.try_take(t0 + 250ms));
    CHECK(b.try_take(t0 + 400ms));
}

TEST_CASE("refill never exceeds burst") {
    kcoro::steady_time t0{};
    kcoro::token_bucket b(100, 2, t0);
    CHECK(b.try_take(t0));
    CHECK(b.try_take(t0));
    CHECK_FALSE(b.try_take(t0));
    auto later = t0 + 1h;
    CHECK(b.try_take(later));
    CHECK(b.try_take(later));
    CHECK_FALSE(b.try_take(later));
}
