// Driving an io_context from a test without sleeps: spawn a coroutine and
// run handlers until a condition holds, with a real-time bound that only
// guards against a hung test (never used as synchronisation).
#pragma once

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <exception>
#include <memory>
#include <optional>

namespace kcoro::test {

/// Runs `ioc` until `done()` is true; false when the bound passed first.
template <class Pred>
bool run_until(boost::asio::io_context& ioc, Pred done,
               std::chrono::milliseconds bound = std::chrono::seconds(20)) {
    auto end = std::chrono::steady_clock::now() + bound;
    while (!done()) {
        if (std::chrono::steady_clock::now() > end) {
            return false;
        }
        if (ioc.stopped()) {
            ioc.restart();
        }
        ioc.run_one_for(std::chrono::milliseconds(20));
    }
    return true;
}

/// Runs the handlers that are ready, and those they make ready, until none
/// is (no waiting: what waits on a socket or a timer is left waiting).
inline void drain(boost::asio::io_context& ioc) {
    for (;;) {
        if (ioc.stopped()) ioc.restart();
        if (ioc.poll() == 0) return;
    }
}

/// Spawns `a` on `ioc`; the returned optional is filled when it completes.
template <class T>
std::shared_ptr<std::optional<T>> start(boost::asio::io_context& ioc, boost::asio::awaitable<T> a,
                                        boost::asio::cancellation_signal* cancel = nullptr) {
    auto out = std::make_shared<std::optional<T>>();
    auto done = [out](std::exception_ptr e, T v) {
        if (e) {
            std::rethrow_exception(e);
        }
        out->emplace(std::move(v));
    };
    if (cancel) {
        boost::asio::co_spawn(ioc, std::move(a), boost::asio::bind_cancellation_slot(cancel->slot(), done));
    } else {
        boost::asio::co_spawn(ioc, std::move(a), done);
    }
    return out;
}

/// Spawns `a` and runs until it completes (or the bound passes: then nullopt).
template <class T>
std::optional<T> run(boost::asio::io_context& ioc, boost::asio::awaitable<T> a,
                     std::chrono::milliseconds bound = std::chrono::seconds(20)) {
    auto out = start(ioc, std::move(a));
    run_until(ioc, [&] { return out->has_value(); }, bound);
    return std::move(*out);
}

} // namespace kcoro::test
