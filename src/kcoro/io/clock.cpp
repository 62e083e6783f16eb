#include <kcoro/io/clock.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>


namespace kcoro::io {
namespace asio = boost::asio;

asio::awaitable<boost::system::error_code> clock::sleep_for(std::chrono::nanoseconds d) {
    co_return co_await sleep_until(now() + d);
}

asio::awaitable<boost::system::error_code> system_clock::sleep_until(steady_time deadline) {
    asio::steady_timer timer(co_await asio::this_coro::executor, deadline);
    auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    co_return ec;
}

struct manual_clock::waiter {
    asio::steady_timer timer;
    bool fired = false;
};

manual_clock::manual_clock(wall_time wall_start) : wall_start_(wall_start) {}

asio::awaitable<boost::system::error_code> manual_clock::sleep_until(steady_time deadline) {
    if (deadline <= now_) {
        co_return boost::system::error_code{};
    }
    waiter w{asio::steady_timer(co_await asio::this_coro::executor, steady_time::max()), false};
    auto key = std::make_pair(deadline, seq_++);
    waiters_.emplace(key, &w);
    auto [ec] = co_await w.timer.async_wait(asio::as_tuple(asio::use_awaitable));
    waiters_.erase(key);
    if (w.fired) {
        co_return boost::system::error_code{};
    }
    co_return ec ? ec : asio::error::operation_aborted;
}

void manual_clock::advance(std::chrono::nanoseconds d) {
    now_ += d;
    for (auto& [key, w] : waiters_) {
        if (key.first > now_) {
            break;
        }
        if (!w->fired) {
            w->fired = true;
            w->timer.cancel();
        }
    }
}

bool manual_clock::advance_to_next() {
    for (auto& [key, w] : waiters_) {
        if (!w->fired) {
            if (key.first > now_) {
                advance(key.first - now_);
            } else {
                advance(std::chrono::nanoseconds(0));
            }
            return true;
        }
    }
    return false;
}

std::optional<steady_time> manual_clock::next_deadline() const noexcept {
    for (const auto& [key, w] : waiters_) {
        if (!w->fired) return key.first;
    }
    return std::nullopt;
}

} // namespace kcoro::io
