// The controller loop (controller-runtime's internal controller): keys come
// in through `enqueue` (from informer handlers, see builder.hpp, or from any
// other source), wait in an `async_work_queue`, and are reconciled as
// coroutines on one io_context, at most `max_concurrent_reconciles` at once
// and never two of one key.
//
//   runtime::controller ctl(ex, clock, {.name = "mirror"}, reconcile_fn);
//   ctl.watch(informer, runtime::enqueue_for_object(ctl));
//   co_spawn(ex, ctl.run(), detached);     // the manager does this
//   ...
//   ctl.stop();                            // run() returns once in-flight reconciles finished
//
// (test/integration/header_examples_test.cpp runs it.)
//
// Most controllers are built by the manager (`mgr.controller("name")`,
// server/controller_builder.hpp), which wires metrics, the logger, the event
// recorder and the flags; this class is the loop underneath.
//
// After each reconcile the queue is told what to do by `runtime::decide`
// and `async_work_queue::apply` (controller-runtime's reconcileHandler;
// reconcile_result.hpp has the table):
//   success              -> forget
//   requeue_after(d)     -> forget, add_after(d)
//   requeue()            -> add_rate_limited (5 ms x 2^n, capped at 1000 s)
//   error                -> add_rate_limited; a result returned with it is ignored (logged)
//   terminal error       -> nothing (not requeued), counted in terminal_reconcile_errors_total
//   exception escaping   -> caught, logged, counted as a panic, then handled as an error
// Errors are logged as "Reconciler error" (as controller-runtime logs them).
//
// Reconcilers: either `reconcile_func` (takes the `object_key` only) or
// `reconcile_context_func`, which gets the reconcile_context (ID, logger,
// write hooks, event recorder; reconcile_context.hpp). Both receive a
// reference that stays valid for the whole reconcile (the controller owns
// the context until the reconcile's awaitable completed).
//
// Writes and the hot-loop alarm: every write reported through the context's
// hooks (the controller helpers report theirs) is counted per reconcile. A
// no-op write goes to controller_metrics::noop_write. When one key has more
// than `hot_loop.max_writing_reconciles` writing reconciles within
// `hot_loop.window` (default: more than 10 in 5 minutes), the controller
// logs one warning per key and window naming the key and what was written,
// records a Warning Event `HotLoop` on the object (when `events` and
// `read_primary` are set), and counts controller_metrics::hot_loop_detected
// (kcoro_hot_loop_detected_total). See hot_loop_tracker.hpp.
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
// Sharding (docs/sharding.md; the manager sets `sharding` under
// --sharding-ring): a key is queued only while this replica owns its hash
// (KEP-5866: fnv1a64 of the primary's metadata.uid, from the event or the
// primary cache), and a reconcile STARTS only if `owns(hash)` holds at that
// moment; a key whose hash is unknown (not cached, no event told it) is not
// queued. `drop_ranges` takes a dropped range's keys out of the queue and
// reports once no reconcile of them runs, so the ring's handover never has
// two replicas on one key.
//
// Cache sync: when `options.wait_for_sync` is set (the builder sets it to
// the informers it registered on), run() awaits it with
// `cache_sync_timeout` (default 2 min) before starting workers; an error is
// logged, kept in last_error(), and run() returns without reconciling.
//
// Lifetime: the clock, the metrics sinks and the event recorder must outlive
// the controller; the controller must outlive its run() and every source
// that calls enqueue (handlers registered with `watch()` become no-ops once
// it is destroyed, whichever of the informer and the controller goes first).
// Thread safety: none; every call on the io_context's thread.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/log.hpp>
#include <kcoro/core/metrics_hooks.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/async_work_queue.hpp>
#include <kcoro/runtime/informer.hpp>
#include <kcoro/runtime/hot_loop_tracker.hpp>
#include <kcoro/runtime/rate_limiter.hpp>
#include <kcoro/runtime/reconcile_context.hpp>
#include <kcoro/runtime/reconcile_result.hpp>
#include <kcoro/runtime/runnable.hpp>
#include <kcoro/runtime/shard_ring.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace kcoro::runtime {

/// A reconciler that takes the key only.
using reconcile_func =
    std::function<boost::asio::awaitable<result<reconcile_result>>(const object_key& key)>;
/// A reconciler that takes the reconcile context (key, ID, logger).
using reconcile_context_func =
    std::function<boost::asio::awaitable<result<reconcile_result>>(const reconcile_context& ctx)>;

/// The per-key gate of a sharded controller (controller_options::sharding).
struct sharding_gate {
    /// This replica may start a reconcile of a key with this hash now. Empty: not sharded.
    std::function<bool(std::uint64_t hash)> owns{};
    /// The key's hash from the primary cache (fnv1a64 of its uid); nullopt when not cached.
    std::function<std::optional<std::uint64_t>(const object_key& key)> hash_of{};
    /// Set when the key alone decides (sharding by namespace: fnv1a64 of
    /// key.ns): every hash an event tells and hash_of are ignored.
    std::function<std::uint64_t(const object_key& key)> key_hash{};
    /// An event's key was not queued because another replica owns it
    /// (kcoro_shard_unowned_events_total); may be empty.
    std::function<void()> on_unowned{};
};

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
    /// The hot-loop alarm's threshold (hot_loop_tracker.hpp; 0 disables it).
    hot_loop_options hot_loop{};
    /// Handed to every reconcile (reconcile_context::events) and used for
    /// the HotLoop Event; may be null.
    event_recorder* events = nullptr;
    /// The primary object of a key from the cache, for the HotLoop Event and
    /// every reconcile (reconcile_context::read_primary); may be empty.
    std::function<object_ptr(const object_key&)> read_primary{};
    /// Handed to every reconcile (reconcile_context::field_manager, read_owned);
    /// an empty field manager hands over the controller's name.
    std::string field_manager{};
    owned_reader read_owned{};
    /// Empty `owns`: every key is this replica's.
    sharding_gate sharding{};
};

/// Counters for tests and diagnostics (the metrics sinks get the same).
struct controller_stats {
    std::uint64_t reconciles = 0;  // reconciles finished (any outcome)
    std::uint64_t errors = 0;      // reconcile errors (including terminal and panics)
    std::uint64_t terminal = 0;
    std::uint64_t panics = 0;
    std::size_t max_in_flight = 0; // the most reconciles seen in flight at once
    std::uint64_t writes = 0;      // writes reported through the reconciles' hooks
    std::uint64_t noop_writes = 0; // of which changed nothing
    std::uint64_t hot_loops = 0;   // hot-loop alarms raised
    std::uint64_t unowned = 0;     // sharded: keys not queued, or not started, because not ours
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

    /// Queues `key` whose hash the event told (KEP-5866: fnv1a64 of the
    /// primary's uid; of the controller owner reference's uid for children).
    /// Not sharded: enqueue(key).
    void enqueue_hashed(const object_key& key, std::uint64_t hash);
    /// options().sharding is set.
    bool sharded() const noexcept;
    /// Sharded: takes the queued keys whose hash is in `ranges` out of the
    /// queue, then calls `drained` (on this thread, maybe at once) when no
    /// reconcile of such a key is in flight.
    void drop_ranges(const hash_ranges& ranges, std::function<void()> drained);
    /// Reconciles in flight whose key hashes into `ranges`.
    std::size_t in_flight_in(const hash_ranges& ranges) const;

    /// Registers `h` on `inf`; the handlers do nothing once the controller is destroyed.
    handler_id watch(informer& inf, event_handlers h);

    // runnable
    std::string_view name() const override;
    boost::asio::awaitable<void> run() override;
    void stop() override;
    bool needs_leader_election() const override;

    /// Reconciles in flight now.
    std::size_t active_workers() const noexcept;
    /// Nothing to do now: no key ready in the queue, none being processed,
    /// no reconcile in flight (keys waiting for a RequeueAfter or a backoff
    /// may remain: they wait on the clock).
    bool idle() const noexcept;
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
