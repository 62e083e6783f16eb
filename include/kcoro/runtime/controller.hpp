// The controller loop (controller-runtime's internal controller): keys come
// in through `enqueue` (from informer handlers, see builder.hpp, or from any
// other source), wait in an `async_work_queue`, and are reconciled as
// coroutines on one io_context, at most `max_concurrent_reconciles` at once
// and never two of one key.
//
//   runtime::controller ctl(ex, clock, {.name = "mirror"}, reconcile_fn);
//   informer.add_handlers({.on_add = [&](const object_ptr& o) { ctl.enqueue(key_of(*o)); }});
//   co_spawn(ex, ctl.run(), detached);     // the manager does this
//   ...
//   ctl.stop();                            // run() returns once in-flight reconciles finished
//
// After each reconcile the queue is told what to do by `runtime::decide`
// (controller-runtime's reconcileHandler):
//   success              -> forget
//   requeue_after(d)     -> forget, add_after(d)
//   requeue()            -> add_rate_limited (5 ms x 2^n, capped at 1000 s)
//   error                -> add_rate_limited; a result returned with it is ignored (logged)
//   terminal error       -> nothing (not requeued), counted in terminal_reconcile_errors_total
//   exception escaping   -> caught, logged, counted as a panic, then handled as an error
//
// Reconcilers: either `reconcile_func` (takes the `object_key` only: the
// gateway-operator's `reconciler::reconcile` binds to it directly) or
// `reconcile_context_func`, which also gets the reconcile ID and a logger
// with controller, namespace, name and reconcileID bound (log.for_reconcile).
//
// Stop and cancellation:
//  - `stop()` stops intake (the queue shuts down; enqueue does nothing), lets
//    the reconciles in flight finish, and run() returns after that drain.
//    Keys still queued are not started (the informers' initial list enqueues
//    every object again at the next start).
//  - Cancelling the coroutine that awaits run() cancels the in-flight
//    reconciles (their pending I/O completes with operation_aborted; an
//    exception that cancellation causes is not counted as a panic); run()
//    returns once they all returned.
//  - A controller runs once: run() after run() returned does nothing.
//
// Cache sync: when `options.wait_for_sync` is set (the builder sets it to
// the informers it registered on), run() awaits it with
// `cache_sync_timeout` (default 2 min) before starting workers; an error is
// logged, kept in last_error(), and run() returns without reconciling.
//
// Lifetime: the clock and the metrics sinks must outlive the controller; the
// controller must outlive its run() and every source that calls enqueue
// (handlers registered with `watch()` become no-ops once it is destroyed,
// whichever of the informer and the controller goes first).
// Thread safety: none; every call on the io_context's thread.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/log.hpp>
#include <kcoro/core/metrics_hooks.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/async_work_queue.hpp>
#include <kcoro/runtime/informer.hpp>
#include <kcoro/runtime/rate_limiter.hpp>
#include <kcoro/runtime/reconcile_result.hpp>
#include <kcoro/runtime/runnable.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace kcoro::runtime {

/// What one reconcile gets besides its key.
struct reconcile_context {
    object_key key;
    /// Random, UUID-like (8-4-4-4-12 hex), unique per reconcile.
    std::string reconcile_id;
    /// The controller's logger with controller, controllerGroup,
    /// controllerKind, namespace, name and reconcileID bound.
    kcoro::logger log;
};

/// A reconciler that takes the key only.
using reconcile_func =
    std::function<boost::asio::awaitable<result<reconcile_result>>(const object_key& key)>;
/// A reconciler that takes the reconcile context (key, ID, logger).
using reconcile_context_func =
    std::function<boost::asio::awaitable<result<reconcile_result>>(const reconcile_context& ctx)>;

struct controller_options {
    /// Names the controller in logs and metrics (required; unique per manager).
    std::string name{};
    /// The primary's group and kind, for the log fields controllerGroup/controllerKind.
    std::string group{};
    std::string kind{};
    /// Reconciles in flight at once (MaxConcurrentReconciles).
    std::size_t max_concurrent_reconciles = 1;
    /// Per-key exponential backoff and overall bucket of the queue.
    rate_limiter_options rate_limiter{};
    /// Controllers run only on the leader by default.
    bool needs_leader_election = true;
    /// controller_runtime_* and workqueue_* sinks (e.g. from
    /// server::metrics_registry::make_controller_metrics / make_workqueue_metrics);
    /// may be null.
    std::shared_ptr<controller_metrics> metrics{};
    std::shared_ptr<workqueue_metrics> queue_metrics{};
    kcoro::logger log{};
    /// 64 random bits for reconcile IDs; empty: a std::mt19937_64 seeded
    /// from std::random_device. Tests inject a deterministic one.
    std::function<std::uint64_t()> random{};
    /// Awaited before workers start (e.g. the informers' wait_for_sync);
    /// empty: start at once.
    std::function<boost::asio::awaitable<result<void>>(std::chrono::nanoseconds timeout)> wait_for_sync{};
    std::chrono::nanoseconds cache_sync_timeout = std::chrono::minutes(2);
    /// How often unfinished work / longest running are reported (client-go: 500 ms).
    std::chrono::nanoseconds metrics_period = std::chrono::milliseconds(500);
};

/// Counters for tests and diagnostics (the metrics sinks get the same).
struct controller_stats {
    std::uint64_t reconciles = 0;  // reconciles finished (any outcome)
    std::uint64_t errors = 0;      // reconcile errors (including terminal and panics)
    std::uint64_t terminal = 0;
    std::uint64_t panics = 0;
    std::size_t max_in_flight = 0; // the most reconciles seen in flight at once
};

class controller final : public runnable {
public:
    controller(boost::asio::any_io_executor ex, io::clock& clk, controller_options opts, reconcile_func r);
    controller(boost::asio::any_io_executor ex, io::clock& clk, controller_options opts, reconcile_context_func r);
    ~controller() override;
    controller(const controller&) = delete;
    controller& operator=(const controller&) = delete;

    /// Queues a reconcile of `key` (ignored once stopped). Sources call this.
    void enqueue(const object_key& key);
    /// Queues a reconcile of `key` after `delay`.
    void enqueue_after(const object_key& key, std::chrono::nanoseconds delay);

    /// Registers `h` on `inf`; the handlers do nothing once the controller is destroyed.
    handler_id watch(informer& inf, event_handlers h);

    // runnable
    std::string_view name() const override;
    boost::asio::awaitable<void> run() override;
    void stop() override;
    bool needs_leader_election() const override;

    /// Reconciles in flight now.
    std::size_t active_workers() const noexcept;
    const controller_stats& stats() const noexcept;
    /// The cache sync error that ended run(), if any.
    const error& last_error() const noexcept;
    const async_work_queue& queue() const noexcept;
    const controller_options& options() const noexcept;

private:
    /// `h` wrapped so that it does nothing once the controller is gone.
    event_handlers guard(event_handlers h) const;

    struct impl;
    std::unique_ptr<impl> impl_;
};

/// A UUID-like text (8-4-4-4-12 lower-case hex, version 4 and variant bits
/// set) from two 64-bit draws. Pure.
std::string make_reconcile_id(std::uint64_t hi, std::uint64_t lo);

} // namespace kcoro::runtime
