// The watcher driver's lifecycle without a server: requests that fail
// (nothing listens), the backoff sleep on the manual clock, stop() and
// cancellation while sleeping, stop() before run(). The protocol paths
// (pages, watches, 410, 429, bookmarks) are in test/integration/informer_test.cpp.
#include <kcoro/runtime/watcher.hpp>

#include "run_until.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/io/clock.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/errc.hpp>
#include <doctest/doctest.h>

namespace asio = boost::asio;
namespace rt = kcoro::runtime;
using namespace std::chrono_literals;

namespace {

// A port nothing listens on: bind, read the port, close.
std::uint16_t closed_port(asio::io_context& ioc) {
    asio::ip::tcp::acceptor a(ioc, {asio::ip::make_address("127.0.0.1"), 0});
    auto p = a.local_endpoint().port();
    a.close();
    return p;
}

struct fixture {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    std::unique_ptr<kcoro::client::client> c;
    std::vector<std::string> outcomes;
    std::vector<rt::watcher_event> events;

    fixture() {
        kcoro::client::client_config cfg;
        cfg.server = "http://127.0.0.1:" + std::to_string(closed_port(ioc));
        kcoro::client::client_options o;
        o.max_retries = 0;
        c = kcoro::client::client::create(cfg, clk, o).value();
    }

    rt::watcher_hooks hooks() {
        rt::watcher_hooks h;
        h.on_event = [this](const rt::watcher_event& e) { events.push_back(e); };
        h.on_outcome = [this](rt::watcher_phase p, const kcoro::error& e) {
            outcomes.push_back(std::string(rt::to_string(p)) + (e ? " failed" : " ok"));
        };
        return h;
    }

    rt::watcher_options opts() {
        rt::watcher_options o;
        o.random = [] { return 0.5; };
        return o;
    }
};

rt::watcher_target target() {
    return {kcoro::resources::configmaps(), "default", "", ""};
}

} // namespace

TEST_CASE("watcher: a refused list backs off on the clock, relists after the sleep, stops while sleeping") {
    fixture f;
    rt::watcher w(*f.c, f.clk, f.ioc.get_executor(), target(), f.hooks(), f.opts());
    bool done = false;
    asio::co_spawn(f.ioc, w.run(), [&](std::exception_ptr e) {
        done = true;
        if (e) std::rethrow_exception(e);
    });
    REQUIRE(kcoro::test::run_until(f.ioc, [&] { return w.fsm().state() == rt::watcher_state::backing_off; }));
    CHECK(w.lists() == 1);
    CHECK(f.outcomes == std::vector<std::string>{"list failed"});
    CHECK(f.events.empty());
    CHECK(kcoro::is_transport_error(w.fsm().last_error()));

    // 800 ms x 1.5 = 1.2 s: nothing before, a second list after.
    f.clk.advance(1100ms);
    kcoro::test::run_until(f.ioc, [] { return false; }, 50ms);
    CHECK(w.lists() == 1);
    f.clk.advance(100ms);
    REQUIRE(kcoro::test::run_until(f.ioc, [&] { return w.lists() == 2 && f.outcomes.size() == 2; }));
    REQUIRE(kcoro::test::run_until(f.ioc, [&] { return w.fsm().state() == rt::watcher_state::backing_off; }));

    // stop() ends the sleep without the clock moving.
    w.stop();
    REQUIRE(kcoro::test::run_until(f.ioc, [&] { return done; }));
    CHECK(w.fsm().state() == rt::watcher_state::stopped);
    CHECK(f.clk.sleepers() == 0);
    w.stop();  // idempotent
}

TEST_CASE("watcher: cancellation of the awaiting coroutine ends run()") {
    fixture f;
    rt::watcher w(*f.c, f.clk, f.ioc.get_executor(), target(), f.hooks(), f.opts());
    asio::cancellation_signal cancel;
    bool done = false;
    asio::co_spawn(f.ioc, w.run(), asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr e) {
                       done = true;
                       if (e) std::rethrow_exception(e);
                   }));
    REQUIRE(kcoro::test::run_until(f.ioc, [&] { return w.fsm().state() == rt::watcher_state::backing_off; }));
    cancel.emit(asio::cancellation_type::terminal);
    REQUIRE(kcoro::test::run_until(f.ioc, [&] { return done; }));
    CHECK(w.fsm().state() == rt::watcher_state::stopped);
}

TEST_CASE("watcher: stop() before run() returns at once") {
    fixture f;
    rt::watcher w(*f.c, f.clk, f.ioc.get_executor(), target(), f.hooks(), f.opts());
    w.stop();
    bool done = false;
    asio::co_spawn(f.ioc, w.run(), [&](std::exception_ptr) { done = true; });
    REQUIRE(kcoro::test::run_until(f.ioc, [&] { return done; }));
    CHECK(w.lists() == 0);
    CHECK(f.outcomes.empty());
}

TEST_CASE("watcher: restart reasons") {
    kcoro::status gone;
    gone.code = 410;
    gone.reason = "Expired";
    CHECK(rt::restart_reason(kcoro::error::from_status(gone)) == "gone");
    kcoro::status busy;
    busy.code = 429;
    busy.reason = "TooManyRequests";
    CHECK(rt::restart_reason(kcoro::error::from_status(busy)) == "too_many_requests");
    kcoro::status denied;
    denied.code = 403;
    denied.reason = "Forbidden";
    CHECK(rt::restart_reason(kcoro::error::from_status(denied)) == "forbidden");
    CHECK(rt::restart_reason(kcoro::error(make_error_code(boost::system::errc::connection_refused))) == "transport");
    CHECK(rt::restart_reason(kcoro::error(kcoro::kcoro_errc::stream_truncated, "very short watch")) == "short_watch");
    CHECK(rt::restart_reason(kcoro::error()) == "stream_end");
}
