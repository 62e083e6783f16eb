// The transport over real sockets against the scripted server: keep-alive,
// stale connections, faults, deadlines on the manual clock, cancellation,
// 401 token refresh, metrics, and streaming bodies.
#include <kcoro/client/transport.hpp>

#include "run_until.hpp"
#include "scripted_server.hpp"

#include <boost/asio/io_context.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;
using kcoro::test::fault;
using kcoro::test::run;
using kcoro::test::scripted_server;
using kcoro::test::step;

namespace {

struct recorded_metric {
    std::string verb, method, host, code;
};

struct metrics_sink final : kcoro::request_metrics {
    std::vector<recorded_metric> seen;
    void observe(std::string_view verb, std::string_view method, std::string_view host, std::string_view code,
                 double) override {
        seen.push_back({std::string(verb), std::string(method), std::string(host), std::string(code)});
    }
};

kcoro::api_request get(std::string target) {
    kcoro::api_request r;
    r.target = std::move(target);
    r.verb = "get";
    return r;
}

step ok(std::string path, std::string body = R"({"kind":"ConfigMap"})") {
    step s;
    s.expect.method = "GET";
    s.expect.path = std::move(path);
    s.answer.body = std::move(body);
    return s;
}

std::unique_ptr<kcoro::client::http_transport> make(kcoro::io::clock& clk, const scripted_server& srv,
                                               metrics_sink* m = nullptr) {
    kcoro::client::transport_options o;
    o.server = srv.url();
    o.metrics = m;
    auto t = kcoro::client::http_transport::create(clk, o);
    REQUIRE(t.has_value());
    return std::move(*t);
}

} // namespace

TEST_CASE("requests reuse one keep-alive connection and carry the standard headers") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    scripted_server srv(ioc, {ok("/api/v1/namespaces/default/configmaps/a"), ok("/api/v1/namespaces/default/configmaps/b")});
    metrics_sink m;
    auto t = make(clk, srv, &m);
    auto r1 = run(ioc, t->send(get("/api/v1/namespaces/default/configmaps/a")));
    REQUIRE(r1.has_value());
    REQUIRE(r1->has_value());
    CHECK((*r1)->status == 200);
    CHECK((*r1)->body == R"({"kind":"ConfigMap"})");
    CHECK((*r1)->content_type == "application/json");
    CHECK(t->idle_connections() == 1);
    auto r2 = run(ioc, t->send(get("/api/v1/namespaces/default/configmaps/b")));
    REQUIRE(r2.has_value());
    CHECK(r2->has_value());
    CHECK(srv.connections() == 1);
    CHECK(srv.failures().empty());
    REQUIRE(srv.requests().size() == 2);
    CHECK(srv.requests()[0].header("User-Agent") == "kcoro/0.1.0");
    CHECK(srv.requests()[0].header("Accept") == "application/json");
    CHECK(srv.requests()[0].header("Authorization").empty());
    REQUIRE(m.seen.size() == 2);
    CHECK(m.seen[0].verb == "get");
    CHECK(m.seen[0].method == "GET");
    CHECK(m.seen[0].code == "200");
    CHECK(m.seen[0].host == "127.0.0.1:" + std::to_string(srv.port()));
}

TEST_CASE("a non-2xx answer becomes an API error carrying its Status") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    step s = ok("/api/v1/namespaces/default/configmaps/missing");
    s.answer.status = 404;
    s.answer.body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"configmaps \"missing\" not found","reason":"NotFound","details":{"name":"missing","kind":"configmaps"},"code":404})";
    step busy = ok("/x");
    busy.answer.status = 429;
    busy.answer.headers = {{"Retry-After", "3"}};
    busy.answer.body = "slow down";
    scripted_server srv(ioc, {s, busy});
    auto t = make(clk, srv);
    auto r = run(ioc, t->send(get("/api/v1/namespaces/default/configmaps/missing")));
    REQUIRE(r.has_value());
    REQUIRE_FALSE(r->has_value());
    CHECK(kcoro::is_not_found(r->error()));
    REQUIRE(r->error().api_status() != nullptr);
    CHECK(r->error().api_status()->details->name == "missing");
    CHECK(r->error().http_code() == 404);

    auto raw = run(ioc, t->round_trip(get("/x")));
    REQUIRE(raw.has_value());
    REQUIRE(raw->has_value());
    CHECK((*raw)->status == 429);
    REQUIRE((*raw)->retry_after_seconds.has_value());
    CHECK(*(*raw)->retry_after_seconds == 3);
    auto e = kcoro::client::error_from_response(**raw);
    CHECK(kcoro::is_too_many_requests(e));
    CHECK(e.api_status()->details->retry_after_seconds == 3);
}

TEST_CASE("a reused connection the server closed while idle is replaced, once") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    step first = ok("/a");
    first.answer.close_after = true;  // closes without "Connection: close"
    scripted_server srv(ioc, {first, ok("/b")});
    auto t = make(clk, srv);
    auto r1 = run(ioc, t->send(get("/a")));
    REQUIRE(r1.has_value());
    REQUIRE(r1->has_value());
    CHECK(t->idle_connections() == 1);
    auto r2 = run(ioc, t->send(get("/b")));
    REQUIRE(r2.has_value());
    CHECK(r2->has_value());
    CHECK(srv.connections() == 2);
    CHECK(srv.failures().empty());
}

TEST_CASE("a write whose reused connection closes before any answer is not replayed (it may have committed)") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    step lost;
    lost.expect.method = "PATCH";
    lost.expect.path = "/b";
    lost.answer.fail = fault::close_before_reply;  // the lost acknowledgement
    scripted_server srv(ioc, {ok("/a"), lost, ok("/c")});
    auto t = make(clk, srv);
    auto r1 = run(ioc, t->send(get("/a")));
    REQUIRE(r1.has_value());
    REQUIRE(r1->has_value());
    REQUIRE(t->idle_connections() == 1);
    kcoro::api_request patch;
    patch.method = kcoro::http_method::patch;
    patch.verb = "patch";
    patch.target = "/b";
    patch.content_type = "application/merge-patch+json";
    patch.body = "{}";
    auto r2 = run(ioc, t->send(patch));
    REQUIRE(r2.has_value());
    REQUIRE_FALSE(r2->has_value());
    CHECK(kcoro::is_transport_error(r2->error()));
    // Sent exactly once: the next request is the GET, on a new connection.
    auto r3 = run(ioc, t->send(get("/c")));
    REQUIRE(r3.has_value());
    CHECK(r3->has_value());
    CHECK(srv.connections() == 2);
    CHECK(srv.failures().empty());
}

TEST_CASE("a connection dropped mid-response is a transport error, reported as <error>") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    step cut = ok("/a", std::string(1000, 'x'));
    cut.answer.fail = fault::close_mid_body;
    step before = ok("/b");
    before.answer.fail = fault::close_before_reply;
    scripted_server srv(ioc, {cut, before, ok("/c")});
    metrics_sink m;
    auto t = make(clk, srv, &m);
    auto r = run(ioc, t->send(get("/a")));
    REQUIRE(r.has_value());
    REQUIRE_FALSE(r->has_value());
    CHECK(kcoro::is_transport_error(r->error()));
    CHECK(r->error().message().find("GET http://127.0.0.1") != std::string::npos);
    // A fresh connection closed before any answer is not replayed.
    auto r2 = run(ioc, t->send(get("/b")));
    REQUIRE(r2.has_value());
    REQUIRE_FALSE(r2->has_value());
    CHECK(kcoro::is_transport_error(r2->error()));
    auto r3 = run(ioc, t->send(get("/c")));
    REQUIRE(r3.has_value());
    CHECK(r3->has_value());
    REQUIRE(m.seen.size() == 3);
    CHECK(m.seen[0].code == "<error>");
    CHECK(m.seen[1].code == "<error>");
    CHECK(m.seen[2].code == "200");
}

TEST_CASE("the request deadline runs on the injected clock") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    step hang = ok("/slow");
    hang.answer.fail = fault::hang;
    scripted_server srv(ioc, {hang});
    auto t = make(clk, srv);
    auto req = get("/slow");
    req.timeout = 5s;
    auto out = kcoro::test::start(ioc, t->send(req));
    REQUIRE(kcoro::test::run_until(ioc, [&] { return srv.requests().size() == 1; }));
    clk.advance(4s);
    ioc.poll();
    CHECK_FALSE(out->has_value());
    clk.advance(2s);
    REQUIRE(kcoro::test::run_until(ioc, [&] { return out->has_value(); }));
    REQUIRE_FALSE((*out)->has_value());
    CHECK((*out)->error().code() == kcoro::kcoro_errc::deadline_exceeded);
    CHECK(t->idle_connections() == 0);
}

TEST_CASE("cancelling the awaiting coroutine aborts the request") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    step hang = ok("/slow");
    hang.answer.fail = fault::hang;
    scripted_server srv(ioc, {hang, ok("/after")});
    auto t = make(clk, srv);
    asio::cancellation_signal sig;
    auto req = get("/slow");  // outlives the spawned operation
    auto out = kcoro::test::start(ioc, t->send(req), &sig);
    REQUIRE(kcoro::test::run_until(ioc, [&] { return srv.requests().size() == 1; }));
    sig.emit(asio::cancellation_type::terminal);
    REQUIRE(kcoro::test::run_until(ioc, [&] { return out->has_value(); }));
    REQUIRE_FALSE((*out)->has_value());
    CHECK(kcoro::is_cancelled((*out)->error()));
    // The transport stays usable.
    auto r = run(ioc, t->send(get("/after")));
    REQUIRE(r.has_value());
    CHECK(r->has_value());
}

TEST_CASE("a 401 invalidates the token and retries once with a fresh one") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    step denied = ok("/a");
    denied.expect.headers = {{"Authorization", "Bearer old"}};
    denied.answer.status = 401;
    denied.answer.body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Unauthorized","code":401})";
    step good = ok("/a");
    good.expect.headers = {{"Authorization", "Bearer new"}};
    step denied_again = denied;
    denied_again.expect.headers = {{"Authorization", "Bearer new"}};
    step denied_third = denied_again;
    scripted_server srv(ioc, {denied, good, denied_again, denied_third});
    kcoro::client::transport_options o;
    o.server = srv.url();
    std::string token = "old";
    int invalidations = 0;
    o.auth.bearer_token = [&]() -> asio::awaitable<kcoro::result<std::string>> { co_return token; };
    o.auth.invalidate = [&] {
        ++invalidations;
        token = "new";
    };
    auto t = kcoro::client::http_transport::create(clk, o);
    REQUIRE(t.has_value());
    auto r = run(ioc, (*t)->send(get("/a")));
    REQUIRE(r.has_value());
    CHECK(r->has_value());
    CHECK(invalidations == 1);
    // Still 401 after the refresh: reported, not retried forever.
    auto r2 = run(ioc, (*t)->send(get("/a")));
    REQUIRE(r2.has_value());
    REQUIRE_FALSE(r2->has_value());
    CHECK(kcoro::is_unauthorized(r2->error()));
    CHECK(invalidations == 2);
    CHECK(srv.remaining() == 0);
    CHECK(srv.failures().empty());
}

TEST_CASE("a token error fails the request before anything is sent") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    scripted_server srv(ioc, {});
    kcoro::client::transport_options o;
    o.server = srv.url();
    o.auth.bearer_token = []() -> asio::awaitable<kcoro::result<std::string>> {
        co_return kcoro::error(kcoro::kcoro_errc::io_error, "token file unreadable");
    };
    auto t = kcoro::client::http_transport::create(clk, o);
    REQUIRE(t.has_value());
    auto r = run(ioc, (*t)->send(get("/a")));
    REQUIRE(r.has_value());
    REQUIRE_FALSE(r->has_value());
    CHECK(r->error().code() == kcoro::kcoro_errc::io_error);
    CHECK(srv.requests().empty());
}

namespace {
asio::awaitable<kcoro::result<std::vector<std::string>>> read_all(kcoro::client::body_stream& s) {
    std::vector<std::string> pieces;
    for (;;) {
        auto p = co_await s.read_some();
        if (!p) co_return p.error();
        if (p->empty()) co_return pieces;
        pieces.emplace_back(*p);
    }
}
} // namespace

TEST_CASE("a streamed body is read piece by piece as it arrives") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    step w = ok("/api/v1/configmaps");
    w.expect.query = {{"watch", "1"}};
    w.answer.stream = {{"one\n", false}, {"two\n", true}, {"three\n", true}};
    scripted_server srv(ioc, {w});
    auto t = make(clk, srv);
    auto req = get("/api/v1/configmaps?watch=1");
    req.is_watch = true;
    req.verb = "watch";
    auto opened = run(ioc, t->open_stream(req));
    REQUIRE(opened.has_value());
    REQUIRE(opened->has_value());
    auto& stream = **opened;
    auto first = run(ioc, stream->read_some());
    REQUIRE(first.has_value());
    REQUIRE(first->has_value());
    CHECK(**first == "one\n");
    // The second piece waits for the gate: the read is pending, not failed.
    auto second = kcoro::test::start(ioc, stream->read_some());
    ioc.poll();
    CHECK_FALSE(second->has_value());
    srv.open_gate();
    REQUIRE(kcoro::test::run_until(ioc, [&] { return second->has_value(); }));
    REQUIRE((*second)->has_value());
    CHECK(**second == "two\n");
    srv.open_gate();
    auto rest = run(ioc, read_all(*stream));
    REQUIRE(rest.has_value());
    REQUIRE(rest->has_value());
    CHECK(**rest == std::vector<std::string>{"three\n"});
    CHECK(t->idle_connections() == 0);  // watch connections are never pooled
}

TEST_CASE("a stream answered with an error Status is that error; a cut stream is a transport error") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    step gone = ok("/w");
    gone.answer.status = 410;
    gone.answer.body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","message":"too old resource version","code":410})";
    step endless = ok("/w");
    endless.answer.stream = {{"partial", false}};
    endless.answer.hold_open = true;
    scripted_server srv(ioc, {gone, endless});
    auto t = make(clk, srv);
    auto req = get("/w");
    req.is_watch = true;
    auto r = run(ioc, t->open_stream(req));
    REQUIRE(r.has_value());
    REQUIRE_FALSE(r->has_value());
    CHECK(kcoro::is_gone_or_expired(r->error()));
    CHECK(kcoro::needs_relist(r->error()));

    auto s = run(ioc, t->open_stream(req));
    REQUIRE(s.has_value());
    REQUIRE(s->has_value());
    auto piece = run(ioc, (**s)->read_some());
    REQUIRE(piece.has_value());
    REQUIRE(piece->has_value());
    CHECK(**piece == "partial");
    auto next = kcoro::test::start(ioc, (**s)->read_some());
    ioc.poll();
    CHECK_FALSE(next->has_value());
    srv.stop();
    REQUIRE(kcoro::test::run_until(ioc, [&] { return next->has_value(); }));
    REQUIRE_FALSE((*next)->has_value());
    CHECK(kcoro::is_transport_error((*next)->error()));
}

TEST_CASE("connecting to a closed port fails cleanly") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    unsigned short port = 0;
    {
        scripted_server srv(ioc, {});
        port = srv.port();
    }
    kcoro::client::transport_options o;
    o.server = "http://127.0.0.1:" + std::to_string(port);
    auto t = kcoro::client::http_transport::create(clk, o);
    REQUIRE(t.has_value());
    auto r = run(ioc, (*t)->send(get("/a")));
    REQUIRE(r.has_value());
    REQUIRE_FALSE(r->has_value());
    CHECK(kcoro::is_transport_error(r->error()));
    CHECK(kcoro::is_retryable(r->error()));
}

TEST_CASE("round_trip_streaming hands a 2xx body over as it arrives, on a pooled connection") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    // Larger than the transport's 64 KB read buffer, with Content-Length.
    std::string big(200 * 1024, 'x');
    step chunked = ok("/l2");
    chunked.answer.stream = {{"[1,", false}, {"2]", true}};
    scripted_server srv(ioc, {ok("/l1", big), chunked});
    auto t = make(clk, srv);

    std::string got;
    std::size_t pieces = 0;
    kcoro::client::body_sink sink = [&](std::string_view b) -> kcoro::result<void> {
        got.append(b);
        ++pieces;
        return {};
    };
    auto r = run(ioc, t->round_trip_streaming(get("/l1"), sink));
    REQUIRE(r.has_value());
    REQUIRE(r->has_value());
    CHECK((*r)->status == 200);
    CHECK((*r)->body.empty());
    CHECK(got == big);
    CHECK(pieces >= 4);  // never the whole body at once
    CHECK(t->idle_connections() == 1);

    // Chunked: the first piece reaches the sink before the rest is sent.
    got.clear();
    auto second = kcoro::test::start(ioc, t->round_trip_streaming(get("/l2"), sink));
    REQUIRE(kcoro::test::run_until(ioc, [&] { return got == "[1,"; }));
    CHECK_FALSE(second->has_value());
    srv.open_gate();
    REQUIRE(kcoro::test::run_until(ioc, [&] { return second->has_value(); }));
    REQUIRE((*second)->has_value());
    CHECK(got == "[1,2]");
    CHECK(srv.requests().size() == 2);
    CHECK(srv.requests()[1].connection == srv.requests()[0].connection);  // kept alive
}

TEST_CASE("round_trip_streaming: an error answer is read whole; a sink's error fails the request") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    step missing = ok("/gone");
    missing.answer.status = 404;
    missing.answer.body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404})";
    scripted_server srv(ioc, {missing, ok("/bad", std::string(100 * 1024, 'y')), ok("/after")});
    auto t = make(clk, srv);
    int calls = 0;
    kcoro::client::body_sink sink = [&](std::string_view) -> kcoro::result<void> {
        ++calls;
        return kcoro::error(kcoro::kcoro_errc::decode_error, "list: not a list");
    };
    auto nf = run(ioc, t->round_trip_streaming(get("/gone"), sink));
    REQUIRE(nf.has_value());
    REQUIRE(nf->has_value());
    CHECK((*nf)->status == 404);
    CHECK((*nf)->body.find("NotFound") != std::string::npos);
    CHECK(calls == 0);

    auto bad = run(ioc, t->round_trip_streaming(get("/bad"), sink));
    REQUIRE(bad.has_value());
    REQUIRE_FALSE(bad->has_value());
    CHECK(bad->error().code() == make_error_code(kcoro::kcoro_errc::decode_error));
    CHECK(calls == 1);  // stopped at the first piece
    // The connection with the unread rest of the body is not reused.
    auto after = run(ioc, t->round_trip(get("/after")));
    REQUIRE(after.has_value());
    REQUIRE(after->has_value());
    CHECK(srv.requests().back().connection != srv.requests()[1].connection);
}

TEST_CASE("max_connections: a request waits for a free connection, within its deadline") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    step slow = ok("/a");
    slow.answer.stream = {{R"({"kind":"ConfigMap"})", true}};  // held until the gate opens
    step held_c = ok("/c");
    held_c.answer.stream = {{R"({"kind":"ConfigMap"})", true}};
    scripted_server srv(ioc, {slow, ok("/b"), held_c});
    kcoro::client::transport_options o;
    o.server = srv.url();
    o.max_connections = 1;
    auto t = kcoro::client::http_transport::create(clk, o);
    REQUIRE(t.has_value());
    auto& tr = **t;
    auto first = kcoro::test::start(ioc, tr.round_trip(get("/a")));
    REQUIRE(kcoro::test::run_until(ioc, [&] { return srv.requests().size() == 1; }));
    CHECK(tr.busy_connections() == 1);
    // The second waits: no second connection is opened.
    auto second = kcoro::test::start(ioc, tr.round_trip(get("/b")));
    ioc.poll();
    CHECK_FALSE(second->has_value());
    CHECK(srv.connections() == 1);
    srv.open_gate();
    REQUIRE(kcoro::test::run_until(ioc, [&] { return first->has_value() && second->has_value(); }));
    REQUIRE((*first)->has_value());
    REQUIRE((*second)->has_value());
    CHECK((*second)->value().status == 200);
    CHECK(srv.connections() == 1);  // the second reused the first's connection
    CHECK(tr.busy_connections() == 0);

    // A request that waits past its deadline fails with deadline_exceeded.
    auto held = kcoro::test::start(ioc, tr.round_trip(get("/c")));
    REQUIRE(kcoro::test::run_until(ioc, [&] { return srv.requests().size() == 3; }));
    CHECK(tr.busy_connections() == 1);
    auto late = get("/d");
    late.timeout = std::chrono::seconds(5);
    auto waiting = kcoro::test::start(ioc, tr.round_trip(late));
    ioc.poll();
    CHECK_FALSE(waiting->has_value());
    clk.advance(std::chrono::seconds(6));
    REQUIRE(kcoro::test::run_until(ioc, [&] { return waiting->has_value(); }));
    REQUIRE_FALSE((*waiting)->has_value());
    CHECK((*waiting)->error().code() == make_error_code(kcoro::kcoro_errc::deadline_exceeded));
    CHECK(tr.busy_connections() == 1);  // the waiter held nothing
    srv.open_gate();
    REQUIRE(kcoro::test::run_until(ioc, [&] { return held->has_value(); }));
}

TEST_CASE("max_connections: many waiters, each release hands the connection on (no lost wake-up)") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    std::vector<step> steps;
    for (int i = 0; i < 6; ++i) steps.push_back(ok("/r" + std::to_string(i)));
    scripted_server srv(ioc, steps);
    kcoro::client::transport_options o;
    o.server = srv.url();
    o.max_connections = 1;
    auto t = kcoro::client::http_transport::create(clk, o);
    REQUIRE(t.has_value());
    std::vector<std::shared_ptr<std::optional<kcoro::result<kcoro::client::http_response>>>> got;
    for (int i = 0; i < 6; ++i) got.push_back(kcoro::test::start(ioc, (*t)->round_trip(get("/r" + std::to_string(i)))));
    REQUIRE(kcoro::test::run_until(ioc, [&] {
        return std::all_of(got.begin(), got.end(), [](const auto& g) { return g->has_value(); });
    }));
    for (const auto& g : got) {
        REQUIRE((*g)->has_value());
        CHECK((*g)->value().status == 200);
    }
    CHECK(srv.connections() == 1);
    CHECK((*t)->busy_connections() == 0);
}
