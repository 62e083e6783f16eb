// run_virtual: ready handlers first, then a jump to the next sleeper, never
// past the bound; done() sees settled states only.
#include <kcoro/io/virtual_time.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <doctest/doctest.h>

#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;
using kcoro::steady_time;

namespace {

asio::awaitable<void> sleeper(kcoro::io::manual_clock& clk, std::chrono::nanoseconds d, std::vector<int>& log,
                              int id) {
    co_await clk.sleep_for(d);
    log.push_back(id);
}

} // namespace

TEST_CASE("an hour of sleepers costs one jump each, in deadline order") {
    asio::io_context io;
    kcoro::io::manual_clock clk;
    std::vector<int> log;
    asio::co_spawn(io, sleeper(clk, 1h, log, 3), asio::detached);
    asio::co_spawn(io, sleeper(clk, 10min, log, 2), asio::detached);
    asio::co_spawn(io, sleeper(clk, 15s, log, 1), asio::detached);
    kcoro::io::virtual_run_stats stats;
    const auto start = clk.now();
    CHECK(kcoro::io::run_virtual(io, clk, [&] { return log.size() == 3; }, start + 2h, &stats));
    CHECK(log == std::vector<int>{1, 2, 3});
    CHECK(clk.now() - start == 1h);
    CHECK(stats.jumps == 3);
}

TEST_CASE("the bound is never passed; nothing left to run ends the run") {
    asio::io_context io;
    kcoro::io::manual_clock clk;
    std::vector<int> log;
    asio::co_spawn(io, sleeper(clk, 1h, log, 1), asio::detached);
    const auto start = clk.now();
    CHECK_FALSE(kcoro::io::run_virtual(io, clk, [&] { return !log.empty(); }, start + 30min));
    CHECK(clk.now() - start == 30min);
    CHECK(log.empty());
    kcoro::io::run_virtual_for(io, clk, 30min);
    CHECK(log == std::vector<int>{1});
    CHECK(clk.now() - start == 1h);
    // Nobody sleeps and nothing is ready: false at once, time unmoved.
    CHECK_FALSE(kcoro::io::run_virtual(io, clk, [] { return false; }, clk.now() + 1h));
    CHECK(clk.now() - start == 1h);
}

TEST_CASE("done() is asked only when no handler is ready") {
    asio::io_context io;
    kcoro::io::manual_clock clk;
    int chain = 0;
    std::function<void()> step = [&] {
        if (++chain < 100) asio::post(io, step);
    };
    asio::post(io, step);
    int asked = 0;
    CHECK(kcoro::io::run_virtual(io, clk, [&] {
        ++asked;
        return chain == 100;
    }, clk.now() + 1s));
    CHECK(asked == 1);
}
