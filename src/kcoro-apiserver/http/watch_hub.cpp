#include "http/watch_hub.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace kcoro::apiserver::http {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;

void watch_hub::notify() {
    for (auto* t : *waiters_) {
        t->cancel();
    }
}

asio::awaitable<void> watch_hub::wait(io::clock& clk, steady_time deadline) {
    asio::steady_timer t(co_await asio::this_coro::executor, asio::steady_timer::time_point::max());
    auto it = waiters_->insert(waiters_->end(), &t);
    struct unregister {
        std::shared_ptr<list> l;
        list::iterator it;
        ~unregister() { l->erase(it); }
    } guard{waiters_, it};
    auto op = t.async_wait(asio::as_tuple(asio::use_awaitable)) || clk.sleep_until(deadline);
    co_await std::move(op);
}

} // namespace kcoro::apiserver::http
