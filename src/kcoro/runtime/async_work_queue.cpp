#include <kcoro/runtime/async_work_queue.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace kcoro::runtime {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;

async_work_queue::async_work_queue(asio::any_io_executor ex, io::clock& clock, work_queue_options opts,
                                   std::size_t max_concurrent)
    : clock_(clock), queue_(opts), max_concurrent_(std::max<std::size_t>(1, max_concurrent)),
      signal_(ex, asio::steady_timer::time_point::max()) {}

void async_work_queue::notify() {
    ++epoch_;
    signal_.cancel();
}

void async_work_queue::add(const object_key& key) {
    queue_.add(key, clock_.now());
    notify();
}

void async_work_queue::add_after(const object_key& key, std::chrono::nanoseconds delay) {
    queue_.add_after(key, delay, clock_.now());
    notify();  // the earliest deadline may have moved
}

void async_work_queue::add_rate_limited(const object_key& key) {
    queue_.add_rate_limited(key, clock_.now());
    notify();
}

void async_work_queue::apply(const reconcile_decision& d, const object_key& key) {
    runtime::apply(d, queue_, key, clock_.now());
    notify();  // a delayed add may have moved the earliest deadline
}

void async_work_queue::done(const object_key& key) {
    if (queue_.is_processing(key) && in_flight_ > 0) {
        --in_flight_;
    }
    queue_.done(key, clock_.now());
    notify();
}

void async_work_queue::shut_down() {
    queue_.shut_down();
    notify();
}

asio::awaitable<void> async_work_queue::wait_signal(std::uint64_t epoch) {
    if (epoch != epoch_) {
        co_return;  // notified between the check and this wait
    }
    co_await signal_.async_wait(asio::as_tuple(asio::use_awaitable));
}

asio::awaitable<std::optional<object_key>> async_work_queue::get() {
    for (;;) {
        auto cs = co_await asio::this_coro::cancellation_state;
        if (cs.cancelled() != asio::cancellation_type::none) {
            co_return std::nullopt;
        }
        std::uint64_t epoch = epoch_;
        if (queue_.finished()) {
            co_return std::nullopt;
        }
        if (in_flight_ < max_concurrent_) {
            if (auto key = queue_.get(clock_.now())) {
                ++in_flight_;
                co_return key;
            }
        }
        auto deadline = queue_.next_deadline();
        if (deadline && in_flight_ < max_concurrent_) {
            // g++ 12 (docs/toolchain.md): awaitables named first, not temporaries in the operand.
            auto signalled = wait_signal(epoch);
            auto timer = clock_.sleep_until(*deadline);
            co_await (std::move(signalled) || std::move(timer));
        } else {
            co_await wait_signal(epoch);
        }
    }
}

asio::awaitable<void> async_work_queue::shut_down_with_drain() {
    queue_.shut_down_with_drain();
    notify();
    while (!queue_.drained()) {
        auto cs = co_await asio::this_coro::cancellation_state;
        if (cs.cancelled() != asio::cancellation_type::none) {
            co_return;
        }
        co_await wait_signal(epoch_);
    }
}

asio::awaitable<void> async_work_queue::run_metrics(std::chrono::nanoseconds period) {
    while (!queue_.shutting_down()) {
        queue_.update_unfinished_work(clock_.now());
        auto ec = co_await clock_.sleep_for(period);
        if (ec) {
            co_return;  // cancelled
        }
    }
}

} // namespace kcoro::runtime
