// The workqueue: client-go's workqueue semantics, pure, with time passed in.
//
//  - `queue` (FIFO of ready keys), `dirty` (keys that need processing) and
//    `processing` (keys handed out by `get` and not yet `done`).
//  - `add` of a dirty key does nothing; `add` of a processing key only marks
//    it dirty, and `done` queues it again; so one key is never handed out
//    twice at once, and adds during processing collapse into one rerun.
//  - `add_after`: a waiting set with one entry per key, earliest ready time
//    wins. An immediate `add` cancels a pending delayed add (ADR 0004).
//  - `add_rate_limited`: the delay of `default_controller_limiter` (per-key
//    5 ms × 2^n up to 1000 s, max'ed with an overall 10 qps / burst 100
//    bucket); `forget` resets the key's count.
//  - `shut_down` / `shut_down_with_drain`: adds are ignored, delayed adds are
//    dropped; keys already queued are still handed out (client-go's Get does
//    the same) and `done` still works, so in-flight work can finish.
//
// Keys are fixed to `kcoro::object_key`: every reconcile request is a
// namespace/name pair (controller-runtime's reconcile.Request), and a
// concrete type keeps the implementation out of the header.
//
// Lifetime: a value; the optional metrics sink must outlive it.
// Thread safety: none; one io_context drives it (see async_work_queue).
#pragma once

#include <kcoro/core/metrics_hooks.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/core/time.hpp>
#include <kcoro/runtime/rate_limiter.hpp>

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

namespace kcoro::runtime {

/// The hash of kcoro/core/resource.hpp, named for the containers below.
struct object_key_hash {
    std::size_t operator()(const object_key& k) const noexcept { return std::hash<object_key>{}(k); }
};

struct work_queue_options {
    rate_limiter_options limiter{};
    /// Optional metrics sink (workqueue_* family); must outlive the queue.
    workqueue_metrics* metrics = nullptr;
};

enum class queue_state { running, shutting_down, draining };

class work_queue {
public:
    explicit work_queue(work_queue_options opts = {});

    /// Marks `key` as needing processing.
    void add(const object_key& key, steady_time now);
    /// Adds `key` once `now + delay` has passed; a non-positive delay adds at once.
    void add_after(const object_key& key, std::chrono::nanoseconds delay, steady_time now);
    /// Adds `key` after its rate-limited delay; counts a retry. Only for
    /// real reconcile failures.
    void add_rate_limited(const object_key& key, steady_time now);
    /// Resets the failure count of `key` (it does not replace `done`).
    void forget(const object_key& key);
    int num_requeues(const object_key& key) const noexcept;
    /// Takes every key matching `pred` out of the queue: not ready, not
    /// waiting for a delayed add, its backoff forgotten; a matching key being
    /// processed stays processing but is not queued again by `done` (a
    /// sharding ring's dropped range: docs/sharding.md). Returns how many
    /// keys were taken out (processing ones included when they were dirty).
    std::size_t remove_if(const std::function<bool(const object_key&)>& pred);

    /// The next ready key (moved to processing), or nullopt when none is
    /// ready at `now`. Delayed keys whose time has come are queued first.
    std::optional<object_key> get(steady_time now);
    /// Ends processing of `key`; queues it again if it was added meanwhile.
    void done(const object_key& key, steady_time now);

    /// The earliest pending delayed add, for the driver's timer.
    std::optional<steady_time> next_deadline() const noexcept;

    void shut_down() noexcept;
    /// Like shut_down, and the driver waits until processing is empty.
    void shut_down_with_drain() noexcept;
    queue_state state() const noexcept { return state_; }
    bool shutting_down() const noexcept { return state_ != queue_state::running; }
    /// Shutting down and nothing processing: a drain is complete.
    bool drained() const noexcept { return shutting_down() && processing_.empty(); }
    /// Shutting down with nothing left to hand out: `get` returns nullopt forever.
    bool finished() const noexcept { return shutting_down() && queue_.empty(); }

    /// Keys ready to be handed out.
    std::size_t len() const noexcept { return queue_.size(); }
    std::size_t num_processing() const noexcept { return processing_.size(); }
    std::size_t num_waiting() const noexcept { return waiting_.size(); }
    bool is_dirty(const object_key& key) const noexcept { return dirty_.contains(key); }
    bool is_processing(const object_key& key) const noexcept { return processing_.contains(key); }
    bool is_waiting(const object_key& key) const noexcept { return waiting_.contains(key); }

    /// Reports unfinished work (sum of processing ages) and the longest
    /// running key to the metrics sink; the driver calls it periodically
    /// (client-go: every 500 ms).
    void update_unfinished_work(steady_time now);
    /// {sum of ages in seconds, longest age in seconds} of processing keys.
    std::pair<double, double> unfinished_work(steady_time now) const noexcept;

private:
    void promote(steady_time now);
    void cancel_waiting(const object_key& key);
    void report_depth();

    work_queue_options opts_;
    default_controller_limiter limiter_;
    queue_state state_ = queue_state::running;
    std::deque<object_key> queue_;
    // dirty key -> when it became dirty (queue latency is measured from it)
    std::unordered_map<object_key, steady_time, object_key_hash> dirty_;
    // processing key -> when `get` handed it out
    std::unordered_map<object_key, steady_time, object_key_hash> processing_;
    // waiting key -> ready time, and the same ordered by time
    std::unordered_map<object_key, steady_time, object_key_hash> waiting_;
    std::set<std::pair<steady_time, object_key>> waiting_by_time_;
};

} // namespace kcoro::runtime
