// The hot-loop alarm's bookkeeping: per key, the reconciles that wrote
// something. A controller whose writes keep triggering its own reconciles
// (a timestamp written into the status on every pass, two controllers
// fighting over a field, a server default re-patched forever) loops at the
// rate limiter's pace and never settles; this notices it.
//
//   hot_loop_tracker t({.max_writing_reconciles = 10, .window = 5min});
//   if (auto alarm = t.record(key, now, writes, noop_writes, what)) { warn(*alarm); }
//
// (test/integration/header_examples_test.cpp runs it.)
//
//  - A writing reconcile is one that sent at least one write (no-op writes,
//    answered with the resourceVersion they were sent against, included).
//  - More than `max_writing_reconciles` writing reconciles of one key within
//    `window` raise an alarm, at most one per key per window: after an alarm
//    the key is quiet until `window` has passed since it.
//  - Reconciles that wrote nothing let a key's history expire; keys whose
//    history expired are dropped (memory stays proportional to the keys that
//    wrote within the last window, at most max_writing_reconciles + 1 entries each).
//
// Defaults: more than 10 writing reconciles of one key in 5 minutes. A
// healthy controller writes a key once or twice after each change it sees;
// 10 in 5 minutes means every pass writes. `max_writing_reconciles = 0`
// disables the alarm.
//
// Pure: time is passed in. Thread safety: a value; one thread.
#pragma once

#include <kcoro/core/resource.hpp>
#include <kcoro/core/time.hpp>

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kcoro::runtime {

struct hot_loop_options {
    /// An alarm needs more than this many writing reconciles of one key in
    /// `window`; 0 disables the alarm.
    std::size_t max_writing_reconciles = 10;
    std::chrono::nanoseconds window = std::chrono::minutes(5);
};

struct hot_loop_alarm {
    object_key key;
    /// The writing reconciles the alarm is about (max_writing_reconciles + 1)...
    std::size_t writing_reconciles = 0;
    /// ...the time they took (first to last, within the window)...
    std::chrono::nanoseconds span{0};
    /// ...the no-op writes among their writes...
    std::size_t noop_writes = 0;
    /// ...and what they wrote, most recent last, each description once (at
    /// most five, from the reconciles that could be among an alarm's last five).
    std::vector<std::string> written;
    friend bool operator==(const hot_loop_alarm&, const hot_loop_alarm&) = default;
};

/// "12 writing reconciles of default/x in 3.2s (2 no-op writes); wrote: ..."
std::string describe(const hot_loop_alarm& a);
std::ostream& operator<<(std::ostream& os, const hot_loop_alarm& a);

class hot_loop_tracker {
public:
    explicit hot_loop_tracker(hot_loop_options opts);

    /// One finished reconcile of `key` at `now` that sent `writes` writes,
    /// `noop_writes` of which changed nothing, described by `what`. Returns
    /// the alarm when this reconcile crosses the threshold.
    std::optional<hot_loop_alarm> record(const object_key& key, steady_time now, std::size_t writes,
                                         std::size_t noop_writes, const std::vector<std::string>& what);

    /// Keys with history in the current window (for tests and memory checks).
    std::size_t tracked_keys() const noexcept { return keys_.size(); }
    const hot_loop_options& options() const noexcept { return opts_; }

private:
    struct writing_reconcile {
        steady_time at;
        std::size_t noop_writes = 0;
        std::vector<std::string> what;
    };
    struct history {
        // At most max + 1, oldest first. A vector, not a deque: most keys
        // hold one entry (the create after a sync), and a deque's first
        // chunk is 512 bytes per key (issue 12: ~6 MB at 10,000 keys).
        std::vector<writing_reconcile> recent;
        std::optional<steady_time> alarmed_at;
    };
    bool expired(const history& h, steady_time now) const;
    void sweep(steady_time now);

    hot_loop_options opts_;
    std::map<object_key, history> keys_;
    std::optional<steady_time> last_sweep_;
};

} // namespace kcoro::runtime
