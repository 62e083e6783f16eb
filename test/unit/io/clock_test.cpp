#include <kcoro/io/clock.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <doctest/doctest.h>

#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;

TEST_CASE("manual clock wakes sleepers in deadline order, only when advanced") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    std::vector<int> woke;
    auto sleeper = [&](int id, std::chrono::milliseconds d) -> asio::awaitable<void> {
        auto ec = co_await clk.sleep_for(d);
        CHECK_FALSE(ec);
        woke.push_back(id);
    };
    asio::co_spawn(ioc, sleeper(1, 30ms), asio::detached);
    asio::co_spawn(ioc, sleeper(2, 10ms), asio::detached);
    asio::co_spawn(ioc, sleeper(3, 20ms), asio::detached);
    ioc.poll();
    CHECK(woke.empty());
    CHECK(clk.sleepers() == 3);
    clk.advance(15ms);
    ioc.poll();
    CHECK(woke == std::vector<int>{2});
    REQUIRE(clk.advance_to_next());
    ioc.poll();
    CHECK(woke == std::vector<int>{2, 3});
    clk.advance(1h);
    ioc.poll();
    CHECK(woke == std::vector<int>{2, 3, 1});
    CHECK_FALSE(clk.advance_to_next());
}

TEST_CASE("a cancelled manual sleep reports operation_aborted") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    boost::system::error_code got;
    bool done = false;
    asio::cancellation_signal sig;
    asio::co_spawn(ioc, [&]() -> asio::awaitable<void> {
        got = co_await clk.sleep_for(10s);
        done = true;
    }, asio::bind_cancellation_slot(sig.slot(), asio::detached));
    ioc.poll();
    sig.emit(asio::cancellation_type::terminal);
    ioc.poll();
    CHECK(done);
    CHECK(got == asio::error::operation_aborted);
    CHECK(clk.sleepers() == 0);
}

TEST_CASE("wall time follows the manual clock") {
    kcoro::io::manual_clock clk;
    auto w0 = clk.wall_now();
    clk.advance(90s);
    CHECK(clk.wall_now() - w0 == 90s);
}
