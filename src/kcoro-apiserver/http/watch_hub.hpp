// Wakes watch streams when the store commits. The store's commit hook calls
// notify(); each watch coroutine waits with a deadline (its next bookmark or
// its timeoutSeconds) on the injectable clock.
//
// Thread safety: none; one io_context. Waiters unregister themselves, also
// when cancelled (client gone, server stopping) or destroyed unresumed.
#pragma once

#include <kcoro/io/clock.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <list>
#include <memory>

namespace kcoro::apiserver::http {

class watch_hub {
public:
    /// Wakes every current waiter.
    void notify();
    /// Returns at the next notify() or at `deadline`, whichever is first.
    boost::asio::awaitable<void> wait(io::clock& clk, steady_time deadline);
    std::size_t waiters() const noexcept { return waiters_->size(); }

private:
    using list = std::list<boost::asio::steady_timer*>;
    // Shared with the waiters: a waiting frame destroyed after the hub (the
    // io_context torn down last) still unregisters safely.
    std::shared_ptr<list> waiters_ = std::make_shared<list>();
};

} // namespace kcoro::apiserver::http
