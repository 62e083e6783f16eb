// The client over memory_transport against kcoro-apiserver's handler, with
// no socket, on a manual clock driven by io::run_virtual.
#include <kcoro/client/memory_transport.hpp>

#include "server.hpp"

#include "../../support/run_until.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/requests.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/io/virtual_time.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>
#include <doctest/doctest.h>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using kcoro::client::memory_transport;
using kcoro::client::stream_end;

namespace {

struct fixture {
    asio::io_context io;
    kcoro::io::manual_clock clk;
    kcoro::apiserver::server srv;
    memory_transport* transport = nullptr;
    std::unique_ptr<kcoro::client::client> c;

    static kcoro::apiserver::server_options options() {
        kcoro::apiserver::server_options o;
        o.listen = false;
        return o;
    }
    fixture() : srv(io.get_executor(), clk, options()) {
        REQUIRE(srv.start());
        auto t = std::make_unique<memory_transport>(
            clk, [this](kcoro::io::http_request r) { return srv.handler()(std::move(r)); });
        transport = t.get();
        srv.handler().set_close_streams([this] { transport->close_streams(stream_end::clean); });
        kcoro::client::client_config cfg;
        cfg.server = srv.url();
        kcoro::client::client_options co;
        co.max_retries = 0;
        c = kcoro::client::client::create(cfg, clk, std::move(t), co);
    }
    ~fixture() {
        c.reset();
        srv.stop(0ms);
        kcoro::io::run_virtual_for(io, clk, 1s);
    }

    template <class T>
    T run(asio::awaitable<T> aw) {
        auto out = kcoro::test::start(io, std::move(aw));
        REQUIRE(kcoro::io::run_virtual(io, clk, [&] { return out->has_value(); }, clk.now() + 1h));
        return std::move(**out);
    }
};

json::object configmap(std::string name, std::string value) {
    return json::object{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", {{"name", std::move(name)}, {"namespace", "default"}}},
                        {"data", {{"k", std::move(value)}}}};
}

const auto cms = kcoro::resources::configmaps();

} // namespace

TEST_CASE("every verb reaches the handler without a socket") {
    fixture f;
    CHECK(f.srv.url() == "http://kcoro-apiserver.memory");
    auto created = f.run(f.c->create(cms, "default", configmap("a", "1")));
    REQUIRE_MESSAGE(created, (created ? "" : created.error().message()));
    auto got = f.run(f.c->get(cms, {"default", "a"}));
    REQUIRE(got);
    CHECK((*got)->at("data").at("k") == "1");

    // A stale resourceVersion: the server's 409 arrives as the client's error.
    json::object stale = **created;
    stale["data"] = json::object{{"k", "2"}};
    REQUIRE(f.run(f.c->update(cms, stale)));
    auto conflict = f.run(f.c->update(cms, stale));
    REQUIRE(!conflict);
    CHECK(kcoro::is_conflict(conflict.error()));

    auto listed = f.run(f.c->list(cms, "default"));
    REQUIRE(listed);
    CHECK(listed->items.size() == 1);
    REQUIRE(f.run(f.c->remove(cms, {"default", "a"})));
    auto gone = f.run(f.c->get(cms, {"default", "a"}));
    REQUIRE(!gone);
    CHECK(kcoro::is_not_found(gone.error()));
    CHECK(f.transport->requests() == 7);
}

TEST_CASE("a fault's Retry-After and status come through as on the wire") {
    fixture f;
    kcoro::apiserver::http::fault_rule rule;
    rule.verb = "get";
    rule.code = 429;
    rule.retry_after_seconds = 3;
    f.srv.faults().add(rule);
    auto r = f.run(f.c->http().round_trip(kcoro::get_request(cms, {"default", "x"}, kcoro::get_options()).value()));
    REQUIRE(r.has_value());
    CHECK(r->status == 429);
    CHECK(r->retry_after_seconds == 3);
    CHECK(kcoro::client::error_from_response(*r).api_status()->details->retry_after_seconds == 3);
}

TEST_CASE("a lost acknowledgement: the write commits, the client sees a reset") {
    fixture f;
    kcoro::apiserver::http::fault_rule rule;
    rule.action = kcoro::apiserver::http::fault_action::drop_after_commit;
    rule.verb = "create";
    f.srv.faults().add(rule);
    auto r = f.run(f.c->create(cms, "default", configmap("lost", "1")));
    REQUIRE(!r.has_value());
    CHECK(kcoro::is_transport_error(r.error()));
    CHECK(f.run(f.c->get(cms, {"default", "lost"})));
}

TEST_CASE("a deadline ends the wait, not the server's work") {
    fixture f;
    kcoro::apiserver::http::fault_rule rule;
    rule.action = kcoro::apiserver::http::fault_action::delay;
    rule.verb = "create";
    rule.delay = 90s;  // past the 60 s request timeout
    f.srv.faults().add(rule);
    const auto start = f.clk.now();
    auto r = f.run(f.c->create(cms, "default", configmap("slow", "1")));
    REQUIRE(!r.has_value());
    CHECK(r.error().code() == kcoro::make_error_code(kcoro::kcoro_errc::deadline_exceeded));
    CHECK(f.clk.now() - start == 60s);
    kcoro::io::run_virtual_for(f.io, f.clk, 31s);
    CHECK(f.run(f.c->get(cms, {"default", "slow"})));
}

TEST_CASE("a watch streams events in order; close_streams ends it cleanly or cuts it") {
    fixture f;
    auto w = f.run(f.c->watch(cms, "default"));
    REQUIRE(w.has_value());
    CHECK(f.transport->open_streams() == 1);
    REQUIRE(f.run(f.c->create(cms, "default", configmap("w1", "1"))));
    REQUIRE(f.run(f.c->create(cms, "default", configmap("w2", "1"))));
    for (auto name : {"w1", "w2"}) {
        auto ev = f.run(w->next());
        REQUIRE(ev.has_value());
        REQUIRE(ev->has_value());
        CHECK((*ev)->type == kcoro::watch_event_type::added);
        CHECK(kcoro::name_of(*(*ev)->object) == name);
    }

    // The fault endpoint's closeWatches: the server ends the body.
    f.srv.close_watches();
    auto end = f.run(w->next());
    REQUIRE(end.has_value());
    CHECK(!end->has_value());
    kcoro::io::run_virtual_for(f.io, f.clk, 1s);
    CHECK(f.transport->open_streams() == 0);

    // A cut connection: a transport error; the body coroutine is stopped.
    auto w2 = f.run(f.c->watch(cms, "default"));
    REQUIRE(w2.has_value());
    f.transport->close_streams(stream_end::cut);
    auto cut = f.run(w2->next());
    REQUIRE(!cut.has_value());
    CHECK(kcoro::is_transport_error(cut.error()));
}

TEST_CASE("closing a watch from the client stops the server's body; a cancelled read says so") {
    fixture f;
    auto w = f.run(f.c->watch(cms, "default"));
    REQUIRE(w.has_value());
    asio::cancellation_signal cancel;
    auto pending = kcoro::test::start(f.io, w->next(), &cancel);
    kcoro::io::run_virtual_for(f.io, f.clk, 1s);
    CHECK(!pending->has_value());
    cancel.emit(asio::cancellation_type::terminal);
    REQUIRE(kcoro::io::run_virtual(f.io, f.clk, [&] { return pending->has_value(); }, f.clk.now() + 1s));
    REQUIRE(!(*pending)->has_value());
    CHECK(kcoro::is_cancelled((*pending)->error()));
    w->close();
    kcoro::io::run_virtual_for(f.io, f.clk, 1s);
    CHECK(f.transport->open_streams() == 0);
}
