#include <kcoro/runtime/hot_loop_tracker.hpp>

#include <doctest/doctest.h>

#include <sstream>

using namespace std::chrono_literals;
using namespace kcoro::runtime;
using kcoro::object_key;
using kcoro::steady_time;

namespace {

const object_key k{"default", "x"};
const std::vector<std::string> wrote_status{"updated status of widgets default/x"};

// Records `n` writing reconciles of `key`, `every` apart from `start`; the last alarm seen.
std::optional<hot_loop_alarm> write_n(hot_loop_tracker& t, const object_key& key, steady_time start, int n,
                                      std::chrono::nanoseconds every, int* alarms = nullptr) {
    std::optional<hot_loop_alarm> last;
    for (int i = 0; i < n; ++i) {
        if (auto a = t.record(key, start + i * every, 1, 0, wrote_status)) {
            last = a;
            if (alarms) ++*alarms;
        }
    }
    return last;
}

} // namespace

TEST_CASE("the defaults: more than 10 writing reconciles of one key in 5 minutes") {
    hot_loop_options o;
    CHECK(o.max_writing_reconciles == 10);
    CHECK(o.window == 5min);
}

TEST_CASE("10 writing reconciles in the window are fine; the 11th raises the alarm") {
    hot_loop_tracker t({10, 5min});
    steady_time t0{};
    CHECK_FALSE(write_n(t, k, t0, 10, 20s));  // 10 within 3 minutes
    auto a = t.record(k, t0 + 200s, 2, 1, {"patched deployments default/x"});
    REQUIRE(a);
    CHECK(a->key == k);
    CHECK(a->writing_reconciles == 11);
    CHECK(a->span == 200s);
    CHECK(a->noop_writes == 1);
    // Each description once, most recent last.
    CHECK(a->written == std::vector<std::string>{"updated status of widgets default/x", "patched deployments default/x"});
    CHECK(describe(*a) == "11 writing reconciles of default/x in 200s (1 no-op writes); wrote: updated status of "
                          "widgets default/x, patched deployments default/x");
}

TEST_CASE("writes spread wider than the window never raise it") {
    hot_loop_tracker t({10, 5min});
    steady_time t0{};
    // One writing reconcile every 31 s: 10 per 5 minutes at most.
    int alarms = 0;
    write_n(t, k, t0, 200, 31s, &alarms);
    CHECK(alarms == 0);
}

TEST_CASE("one alarm per key per window, then again while the loop goes on") {
    hot_loop_tracker t({10, 5min});
    steady_time t0{};
    int alarms = 0;
    // A reconcile that writes every 100 ms, for 12 minutes.
    write_n(t, k, t0, 12 * 600, 100ms, &alarms);
    // At 1.0 s, then once the window since it passed: 5 min 1 s, 10 min 1 s.
    CHECK(alarms == 3);
}

TEST_CASE("keys are independent") {
    hot_loop_tracker t({3, 1min});
    steady_time t0{};
    const object_key other{"default", "y"};
    for (int i = 0; i < 3; ++i) {
        CHECK_FALSE(t.record(k, t0 + i * 1s, 1, 0, {}));
        CHECK_FALSE(t.record(other, t0 + i * 1s, 1, 0, {}));
    }
    CHECK(t.record(k, t0 + 3s, 1, 0, {}));
    CHECK(t.record(other, t0 + 3s, 1, 0, {}));
}

TEST_CASE("reconciles that write nothing do not count, and settled keys are forgotten") {
    hot_loop_tracker t({3, 1min});
    steady_time t0{};
    for (int i = 0; i < 100; ++i) {
        CHECK_FALSE(t.record(k, t0 + i * 1ms, 0, 0, {}));
    }
    CHECK(t.tracked_keys() == 0);
    CHECK_FALSE(write_n(t, k, t0, 3, 1s));
    CHECK(t.tracked_keys() == 1);
    // A reconcile without writes a window later drops the key's history...
    CHECK_FALSE(t.record(k, t0 + 2min, 0, 0, {}));
    CHECK(t.tracked_keys() == 0);
    // ...and keys that are never reconciled again are swept once per window.
    for (int i = 0; i < 50; ++i) {
        CHECK_FALSE(t.record({"gone", std::to_string(i)}, t0 + 3min, 1, 0, {}));
    }
    CHECK(t.tracked_keys() == 50);
    CHECK_FALSE(t.record({"other", "z"}, t0 + 5min, 1, 0, {}));
    CHECK(t.tracked_keys() == 1);
}

TEST_CASE("0 disables the alarm") {
    hot_loop_tracker t({0, 5min});
    CHECK_FALSE(write_n(t, k, steady_time{}, 1000, 1ms));
    CHECK(t.tracked_keys() == 0);
}

TEST_CASE("at most five descriptions, the most recent") {
    hot_loop_tracker t({2, 1min});
    steady_time t0{};
    std::optional<hot_loop_alarm> a;
    for (int i = 0; i < 3; ++i) {
        std::vector<std::string> what;
        for (int j = 0; j < 3; ++j) what.push_back("w" + std::to_string(i * 3 + j));
        a = t.record(k, t0 + i * 1s, 3, 0, what);
    }
    REQUIRE(a);
    CHECK(a->written == std::vector<std::string>{"w4", "w5", "w6", "w7", "w8"});
    std::ostringstream os;
    os << *a;
    CHECK(os.str().find("3 writing reconciles of default/x in 2s") == 0);
}

TEST_CASE("descriptions come from the reconciles that can be among an alarm's last five") {
    // A key's first writing reconciles keep no description (most keys write
    // once after a sync): only the last five of a window of 11 are named.
    hot_loop_tracker t({10, 5min});
    steady_time t0{};
    std::optional<hot_loop_alarm> a;
    for (int i = 0; i < 11; ++i) {
        a = t.record(k, t0 + i * 1s, 1, 0, {i < 6 ? "early" : "late"});
    }
    REQUIRE(a);
    CHECK(a->writing_reconciles == 11);
    CHECK(a->written == std::vector<std::string>{"late"});
}
