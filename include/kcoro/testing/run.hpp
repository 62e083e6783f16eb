// Driving the test's io_context without sleeps: run handlers until a
// condition holds, or until a coroutine completes. The real-time bound only
// ends a hung test; it is never the synchronisation.
//
//   auto cm = kcoro::testing::run(ioc, client.get(gvr, key));   // optional<result<object_ptr>>
//   CHECK(kcoro::testing::run(ioc, test_body(client)));          // awaitable<void>: true once done
//   bool ok = kcoro::testing::run_until(ioc, [&] { return stamped(); });
//
// Header-only; use from the io_context's thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <utility>

namespace kcoro::testing {

/// Runs `ioc` until `done()` is true; false when `bound` (real time) passed first.
template <class Pred>
bool run_until(boost::asio::io_context& ioc, Pred&& done, std::chrono::milliseconds bound) {
    const auto end = std::chrono::steady_clock::now() + bound;
    while (!done()) {
        if (std::chrono::steady_clock::now() > end) return false;
        if (ioc.stopped()) ioc.restart();
        ioc.run_one_for(std::chrono::milliseconds(20));
    }
    return true;
}
template <class Pred>
bool run_until(boost::asio::io_context& ioc, Pred&& done) {
    return run_until(ioc, std::forward<Pred>(done), std::chrono::seconds(20));
}

/// What a spawned coroutine produced: its value once it completed (an
/// exception it threw is rethrown by get()).
template <class T>
class spawned {
public:
    bool done() const noexcept { return state_->value.has_value() || state_->error != nullptr; }
    T& get() {
        if (state_->error) std::rethrow_exception(state_->error);
        return *state_->value;
    }

private:
    struct state {
        std::optional<T> value;
        std::exception_ptr error;
    };
    template <class U>
    friend spawned<U> spawn(boost::asio::io_context& ioc, boost::asio::awaitable<U> a);
    std::shared_ptr<state> state_ = std::make_shared<state>();
};

/// Starts `a` on `ioc` (it runs when the io_context runs handlers).
template <class T>
spawned<T> spawn(boost::asio::io_context& ioc, boost::asio::awaitable<T> a) {
    spawned<T> s;
    auto st = s.state_;
    boost::asio::co_spawn(ioc, std::move(a), [st](std::exception_ptr e, T v) {
        if (e) {
            st->error = e;
        } else {
            st->value.emplace(std::move(v));
        }
    });
    return s;
}

/// Runs `a` to completion; nullopt when `bound` passed first. An exception
/// thrown by `a` is rethrown here.
template <class T>
std::optional<T> run(boost::asio::io_context& ioc, boost::asio::awaitable<T> a, std::chrono::milliseconds bound) {
    auto s = spawn(ioc, std::move(a));
    if (!run_until(ioc, [&] { return s.done(); }, bound)) return std::nullopt;
    return std::move(s.get());
}
template <class T>
std::optional<T> run(boost::asio::io_context& ioc, boost::asio::awaitable<T> a) {
    return run(ioc, std::move(a), std::chrono::seconds(20));
}

/// A coroutine with no value (a test's body): true once it completed, false
/// when `bound` passed first. An exception it threw is rethrown here.
inline bool run(boost::asio::io_context& ioc, boost::asio::awaitable<void> a, std::chrono::milliseconds bound) {
    auto wrapped = [](boost::asio::awaitable<void> body) -> boost::asio::awaitable<bool> {
        co_await std::move(body);
        co_return true;
    };
    return run(ioc, wrapped(std::move(a)), bound).has_value();
}
inline bool run(boost::asio::io_context& ioc, boost::asio::awaitable<void> a) {
    return run(ioc, std::move(a), std::chrono::seconds(20));
}

} // namespace kcoro::testing
