// The reconcile result model and the pure decision a controller applies to
// its workqueue afterwards, as controller-runtime's reconcileHandler switch
// (pkg/internal/controller/controller.go) does:
//
//   error, terminal          -> nothing (not requeued, not forgotten); counted as terminal
//   error, otherwise         -> add_rate_limited; any result returned with it is ignored
//   requeue_after(d), d > 0  -> forget, then add_after(d)
//   requeue()                -> add_rate_limited
//   success                  -> forget
//
// Pure values; thread-safe as values are.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/metrics_hooks.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/core/time.hpp>

#include <chrono>
#include <iosfwd>

namespace kcoro::runtime {

class work_queue;

/// What a reconcile asks for when it did not fail.
struct reconcile_result {
    bool requeue = false;
    std::chrono::nanoseconds requeue_after{0};
    bool is_zero() const noexcept { return !requeue && requeue_after.count() == 0; }
    friend bool operator==(const reconcile_result&, const reconcile_result&) = default;
};

/// Done: nothing to do until the next event.
inline reconcile_result success() noexcept { return {}; }
/// Run again after `d` (periodic checks, waiting for readiness).
inline reconcile_result requeue_after(std::chrono::nanoseconds d) noexcept { return {false, d}; }
/// Run again with the rate limiter's backoff.
inline reconcile_result requeue() noexcept { return {true, {}}; }

/// An error that must not be retried (bad spec that only a user can fix).
/// The code is kcoro_errc::terminal; the message keeps the cause's text.
error terminal_error(const error& cause);
error terminal_error(std::string message);
bool is_terminal(const error& e) noexcept;

enum class queue_op {
    none,                   // terminal error: leave the key alone
    forget,                 // success
    add_rate_limited,       // error or requeue()
    forget_then_add_after,  // requeue_after(d)
};

struct reconcile_decision {
    queue_op op = queue_op::none;
    std::chrono::nanoseconds after{0};           // for forget_then_add_after
    reconcile_outcome outcome = reconcile_outcome::success;  // metrics label
    bool error = false;           // counts in reconcile_errors_total
    bool terminal = false;        // counts in terminal_reconcile_errors_total
    bool result_ignored = false;  // an error came with a non-zero result: log a warning
    friend bool operator==(const reconcile_decision&, const reconcile_decision&) = default;
};

std::ostream& operator<<(std::ostream& os, const reconcile_result& r);
std::ostream& operator<<(std::ostream& os, queue_op op);
std::ostream& operator<<(std::ostream& os, const reconcile_decision& d);

/// The decision for a reconcile that returned `res` and `err` (empty when it succeeded).
reconcile_decision decide(const reconcile_result& res, const error& err) noexcept;

/// Applies `d` for `key` to `q` (the caller still calls `q.done(key)`).
void apply(const reconcile_decision& d, work_queue& q, const object_key& key, steady_time now);

} // namespace kcoro::runtime
