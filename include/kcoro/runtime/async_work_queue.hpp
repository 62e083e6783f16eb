// The coroutine driver of `work_queue`: `co_await get()` suspends on the
// io_context until a key is ready, waking on adds, on `done` and on the
// earliest delayed-add deadline (slept on the injectable `io::clock`, so
// tests drive it with `io::manual_clock`). It bounds the keys in flight
// (controller-runtime's MaxConcurrentReconciles, default 1); the pure queue
// already guarantees one key is never handed out twice at once.
//
// Lifetime: must outlive every coroutine awaiting it; the clock must outlive it.
// Thread safety: none; all calls on the io_context's one thread.
#pragma once

#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/reconcile_result.hpp>
#include <kcoro/runtime/work_queue.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

namespace kcoro::runtime {

class async_work_queue {
public:
    async_work_queue(boost::asio::any_io_executor ex, io::clock& clock, work_queue_options opts = {},
                     std::size_t max_concurrent = 1);

    void add(const object_key& key);
    void add_after(const object_key& key, std::chrono::nanoseconds delay);
    void add_rate_limited(const object_key& key);
    void forget(const object_key& key) { queue_.forget(key); }
    /// work_queue::remove_if.
    std::size_t remove_if(const std::function<bool(const object_key&)>& pred) { return queue_.remove_if(pred); }
    /// Applies a reconcile's decision for `key` (runtime::apply on the queue,
    /// at the clock's now); the caller still calls done(key).
    void apply(const reconcile_decision& d, const object_key& key);
    /// Ends processing of a key returned by get(); frees its in-flight slot.
    void done(const object_key& key);

    /// The next key to process, once one is ready and a slot is free;
    /// nullopt once the queue shut down with nothing left to hand out, or
    /// when the awaiting coroutine is cancelled.
    boost::asio::awaitable<std::optional<object_key>> get();

    /// Stops intake; pending get() calls finish once the queue is empty.
    void shut_down();
    /// Stops intake and completes once nothing is processing.
    boost::asio::awaitable<void> shut_down_with_drain();

    /// Reports unfinished work and the longest running key every `period`
    /// (client-go: 500 ms) until shutdown.
    boost::asio::awaitable<void> run_metrics(std::chrono::nanoseconds period);
    boost::asio::awaitable<void> run_metrics() { return run_metrics(std::chrono::milliseconds(500)); }

    std::size_t in_flight() const noexcept { return in_flight_; }
    std::size_t max_concurrent() const noexcept { return max_concurrent_; }
    const work_queue& queue() const noexcept { return queue_; }

private:
    void notify();
    boost::asio::awaitable<void> wait_signal(std::uint64_t epoch);

    io::clock& clock_;
    work_queue queue_;
    std::size_t max_concurrent_;
    std::size_t in_flight_ = 0;
    // Never expires; cancel() wakes every waiter. `epoch_` counts
    // notifications so a waiter that was about to wait sees it missed one.
    boost::asio::steady_timer signal_;
    std::uint64_t epoch_ = 0;
};

} // namespace kcoro::runtime
