#include <kcoro/core/condition_update.hpp>

#include <doctest/doctest.h>

using kcoro::condition_view;
using kcoro::plan_condition_update;

TEST_CASE("nothing changes when every field already has its value") {
    condition_view cur{"True", "Ready", "ok", "2026-01-01T00:00:00Z", 3};
    auto u = plan_condition_update(cur, "True", "Ready", "ok", 3);
    CHECK_FALSE(u.any());
}

TEST_CASE("a status change is a transition") {
    condition_view cur{"True", "Ready", "ok", "2026-01-01T00:00:00Z", 3};
    auto u = plan_condition_update(cur, "False", "Ready", "ok", 3);
    CHECK(u.status);
    CHECK(u.last_transition_time);
    CHECK_FALSE(u.reason);
    CHECK_FALSE(u.message);
    CHECK_FALSE(u.observed_generation);
}

TEST_CASE("reason, message, generation are updated in place without a transition") {
    condition_view cur{"True", "Ready", "ok", "2026-01-01T00:00:00Z", 3};
    auto u = plan_condition_update(cur, "True", "Other", "fine", 4);
    CHECK_FALSE(u.status);
    CHECK_FALSE(u.last_transition_time);
    CHECK(u.reason);
    CHECK(u.message);
    CHECK(u.observed_generation);
}

TEST_CASE("a missing transition time is filled without being a transition") {
    condition_view cur{"True", "Ready", "ok", std::nullopt, 3};
    auto u = plan_condition_update(cur, "True", "Ready", "ok", 3);
    CHECK_FALSE(u.status);
    CHECK(u.last_transition_time);
    condition_view empty_time{"True", "Ready", "ok", "", 3};
    CHECK(plan_condition_update(empty_time, "True", "Ready", "ok", 3).last_transition_time);
}

TEST_CASE("absent fields are written even when the desired value is empty") {
    condition_view cur{"True", std::nullopt, std::nullopt, "2026-01-01T00:00:00Z", std::nullopt};
    auto u = plan_condition_update(cur, "True", "", "", 0);
    CHECK(u.reason);
    CHECK(u.message);
    CHECK(u.observed_generation);
    CHECK_FALSE(u.status);
    condition_view no_status{};
    auto s = plan_condition_update(no_status, "Unknown", "R", "m", 0);
    CHECK(s.status);
    CHECK(s.last_transition_time);
}
