// The origin an executor carries reaches every coroutine of the thread of
// execution spawned on it (the client's verbs read it there), across
// timers and posts; a plain executor carries none.
#include <kcoro/client/write_origin.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <doctest/doctest.h>

#include <vector>

namespace asio = boost::asio;
using kcoro::client::write_gate;
using kcoro::client::write_origin;
using kcoro::client::write_origin_of;

namespace {

// What a client verb does: read the origin from its caller's executor.
asio::awaitable<const write_origin*> verb() {
    const auto ex = co_await asio::this_coro::executor;
    co_return write_origin_of(ex);
}

// What kcoro's manual clock and user code write, and g++ 12 miscompiles: the
// executor a co_await returns, a temporary inside an aggregate's
// initializer, destroyed twice (docs/toolchain.md). On an executor kept
// inline and trivially destructible, as the origin executor is, the second
// destruction does nothing; on one behind a reference count it freed the
// executor (seen: every sharded manager test crashed under g++ 12).
struct waiter {
    asio::steady_timer timer;
    bool fired = false;
};

asio::awaitable<void> reconcile(std::vector<const write_origin*>* seen) {
    {
        waiter w{asio::steady_timer(co_await asio::this_coro::executor, asio::steady_timer::time_point::min()), false};
        co_await w.timer.async_wait(asio::use_awaitable);
    }
    seen->push_back(co_await verb());
    const auto ex = co_await asio::this_coro::executor;
    asio::steady_timer t(ex, std::chrono::milliseconds(0));
    co_await t.async_wait(asio::use_awaitable);
    seen->push_back(co_await verb());
    co_await asio::post(ex, asio::use_awaitable);
    seen->push_back(co_await verb());
}

} // namespace

TEST_CASE("an executor's write origin is seen by the coroutines spawned on it, after waits; a plain executor has none") {
    asio::io_context ioc;
    const write_origin mirror("mirror", write_gate::shard);
    const write_origin census("census", write_gate::leader);
    std::vector<const write_origin*> a, b, plain;
    asio::co_spawn(kcoro::client::with_write_origin(ioc.get_executor(), &mirror), reconcile(&a), asio::detached);
    asio::co_spawn(kcoro::client::with_write_origin(ioc.get_executor(), &census), reconcile(&b), asio::detached);
    asio::co_spawn(ioc.get_executor(), reconcile(&plain), asio::detached);
    ioc.run();
    CHECK(a == std::vector<const write_origin*>{&mirror, &mirror, &mirror});
    CHECK(b == std::vector<const write_origin*>{&census, &census, &census});
    CHECK(plain == std::vector<const write_origin*>{nullptr, nullptr, nullptr});
}

TEST_CASE("with_write_origin: null leaves the executor as it is; a second origin replaces the first; another executor is not wrapped") {
    asio::io_context ioc;
    const write_origin one("one", write_gate::leader);
    const write_origin two("two", write_gate::shard);
    asio::any_io_executor plain = ioc.get_executor();
    CHECK(write_origin_of(kcoro::client::with_write_origin(plain, nullptr)) == nullptr);
    const auto first = kcoro::client::with_write_origin(plain, &one);
    CHECK(write_origin_of(first) == &one);
    const auto second = kcoro::client::with_write_origin(first, &two);
    CHECK(write_origin_of(second) == &two);
    CHECK(second.target<kcoro::client::origin_executor>()->inner() == ioc.get_executor());
    // Not an io_context's executor: left as it is (its work carries no origin).
    asio::any_io_executor strand = asio::make_strand(ioc);
    CHECK(write_origin_of(kcoro::client::with_write_origin(strand, &one)) == nullptr);
    // The wrapper runs work on the io_context it wraps.
    bool ran = false;
    asio::post(second, [&] { ran = true; });
    CHECK(ioc.run() == 1);
    CHECK(ran);
}
