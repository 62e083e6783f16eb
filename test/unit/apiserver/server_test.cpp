#include "server.hpp"

#include <kcoro/io/tls.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

#include <functional>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace json = boost::json;
using asio::ip::tcp;
using namespace kcoro;
using namespace std::chrono_literals;

namespace {

constexpr auto tuple_awaitable = asio::as_tuple(asio::use_awaitable);

bool run_until(asio::io_context& io, const std::function<bool()>& done, std::chrono::milliseconds bound = 10000ms) {
    auto end = std::chrono::steady_clock::now() + bound;
    while (!done()) {
        if (std::chrono::steady_clock::now() > end) return false;
        io.restart();
        io.run_for(5ms);
    }
    return true;
}

/// A TLS client connection with the given credentials.
struct tls_client {
    std::shared_ptr<asio::ssl::context> ctx;
    std::unique_ptr<asio::ssl::stream<tcp::socket>> s;
    beast::flat_buffer buf;

    tls_client(asio::io_context& io, const apiserver::client_credentials& c) {
        io::tls_client_options o;
        o.ca_pem = c.ca_pem;
        o.server_name = "127.0.0.1";
        o.client_cert_pem = c.client_cert_pem;
        o.client_key_pem = c.client_key_pem;
        auto r = io::make_client_tls_context(o);
        REQUIRE(r.has_value());
        ctx = *r;
        s = std::make_unique<asio::ssl::stream<tcp::socket>>(io, *ctx);
    }
    asio::awaitable<bool> connect(std::uint16_t port) {
        auto [ec] = co_await s->next_layer().async_connect({asio::ip::make_address("127.0.0.1"), port}, tuple_awaitable);
        if (ec) co_return false;
        auto [hec] = co_await s->async_handshake(asio::ssl::stream_base::client, tuple_awaitable);
        co_return !hec;
    }
    asio::awaitable<std::pair<unsigned, std::string>> request(bhttp::verb v, std::string target, std::string body = {}) {
        bhttp::request<bhttp::string_body> req{v, target, 11};
        req.set(bhttp::field::host, "127.0.0.1");
        req.set(bhttp::field::content_type, "application/json");
        req.body() = std::move(body);
        req.prepare_payload();
        auto [wec, wn] = co_await bhttp::async_write(*s, req, tuple_awaitable);
        if (wec) co_return std::make_pair(0u, std::string{});
        bhttp::response<bhttp::string_body> res;
        auto [rec, rn] = co_await bhttp::async_read(*s, buf, res, tuple_awaitable);
        if (rec) co_return std::make_pair(0u, std::string{});
        co_return std::make_pair(res.result_int(), res.body());
    }
};

} // namespace

TEST_CASE("server: TLS, client certificates, tokens, watch over a socket, close_watches") {
    asio::io_context io;
    io::manual_clock clk;
    apiserver::server_options opts;
    opts.tls = true;
    apiserver::server srv(io.get_executor(), clk, opts);
    REQUIRE(srv.start().has_value());
    CHECK(srv.port() != 0);
    CHECK(srv.url().rfind("https://127.0.0.1:", 0) == 0);
    CHECK(srv.ca_pem().find("BEGIN CERTIFICATE") != std::string::npos);

    auto alice = srv.credentials_for("alice", {"devs"});
    REQUIRE(alice.has_value());
    CHECK_FALSE(alice->client_cert_pem.empty());
    auto kubeconfig = apiserver::server::kubeconfig_yaml(*alice);
    CHECK(kubeconfig.find("client-certificate-data:") != std::string::npos);
    CHECK(kubeconfig.find("server: " + srv.url()) != std::string::npos);

    // Alice may only read configmaps; the policy is reloaded later.
    auto p = apiserver::http::policy::parse("rules:\n- users: [alice]\n  verbs: [get, list, watch]\n  resources: [configmaps]\n");
    REQUIRE(p.has_value());
    srv.access().set_policy(*p);

    tls_client c(io, *alice);
    unsigned list_code = 0, create_code = 0, create_after = 0;
    std::string list_body;
    bool done = false;
    auto flow = [&]() -> asio::awaitable<void> {
        REQUIRE(co_await c.connect(srv.port()));
        auto [lc, lb] = co_await c.request(bhttp::verb::get, "/api/v1/namespaces/default/configmaps");
        list_code = lc;
        list_body = lb;
        auto [cc, cb] = co_await c.request(bhttp::verb::post, "/api/v1/namespaces/default/configmaps",
                                           R"({"metadata":{"name":"x"},"data":{"a":"b"}})");
        create_code = cc;
        srv.access().set_policy(std::nullopt);  // no policy: every authenticated user may do everything
        auto [c2, b2] = co_await c.request(bhttp::verb::post, "/api/v1/namespaces/default/configmaps",
                                           R"({"metadata":{"name":"x"},"data":{"a":"b"}})");
        create_after = c2;
        done = true;
    };
    asio::co_spawn(io, flow(), asio::detached);
    REQUIRE(run_until(io, [&] { return done; }));
    CHECK(list_code == 200);
    CHECK(json::parse(list_body).as_object()["kind"] == "ConfigMapList");
    CHECK(create_code == 403);
    CHECK(create_after == 201);

    // No certificate and no token: system:anonymous, 403.
    apiserver::client_credentials anon{srv.url(), srv.ca_pem(), {}, {}, {}, {}};
    tls_client a(io, anon);
    unsigned anon_code = 0;
    bool anon_done = false;
    auto anon_flow = [&]() -> asio::awaitable<void> {
        REQUIRE(co_await a.connect(srv.port()));
        auto [code, body] = co_await a.request(bhttp::verb::get, "/api/v1/namespaces");
        anon_code = code;
        anon_done = true;
    };
    asio::co_spawn(io, anon_flow(), asio::detached);
    REQUIRE(run_until(io, [&] { return anon_done; }));
    CHECK(anon_code == 403);

    // A watch over the socket sees a write, then close_watches ends it.
    tls_client w(io, *alice);
    std::string events;
    bool watch_ended = false, watch_started = false;
    auto watch_flow = [&]() -> asio::awaitable<void> {
        REQUIRE(co_await w.connect(srv.port()));
        bhttp::request<bhttp::string_body> req{bhttp::verb::get, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=" +
                                                                   std::to_string(srv.store().current_revision()), 11};
        req.set(bhttp::field::host, "127.0.0.1");
        co_await bhttp::async_write(*w.s, req, tuple_awaitable);
        bhttp::response_parser<bhttp::buffer_body> parser;
        parser.body_limit(boost::none);
        auto [hec, hn] = co_await bhttp::async_read_header(*w.s, w.buf, parser, tuple_awaitable);
        REQUIRE_FALSE(hec);
        watch_started = true;
        char tmp[1024];
        while (!parser.is_done()) {
            parser.get().body().data = tmp;
            parser.get().body().size = sizeof(tmp);
            auto [e, n] = co_await bhttp::async_read_some(*w.s, w.buf, parser, tuple_awaitable);
            if (e && e != bhttp::error::need_buffer) break;
            events.append(tmp, sizeof(tmp) - parser.get().body().size);
        }
        watch_ended = parser.is_done();
    };
    asio::co_spawn(io, watch_flow(), asio::detached);
    REQUIRE(run_until(io, [&] { return watch_started && srv.http_server()->streaming_count() == 1; }));
    apiserver::request_context ctx;
    ctx.now = clk.wall_now();
    ctx.field_manager = "test";
    auto created = srv.store().create(ctx, resources::configmaps(), "default",
                                      json::parse(R"({"metadata":{"name":"y"}})").as_object());
    REQUIRE(created.has_value());
    REQUIRE(run_until(io, [&] { return events.find("\"name\":\"y\"") != std::string::npos; }));
    CHECK(events.rfind("{\"type\":\"ADDED\"", 0) == 0);
    srv.close_watches();
    REQUIRE(run_until(io, [&] { return watch_ended; }));

    srv.stop(0ms);
    CHECK(run_until(io, [&] { return srv.http_server()->session_count() == 0; }));
}

TEST_CASE("server: plain HTTP with minted tokens turns authentication on") {
    asio::io_context io;
    io::manual_clock clk;
    apiserver::server srv(io.get_executor(), clk, {});
    REQUIRE(srv.start().has_value());
    CHECK(srv.url().rfind("http://127.0.0.1:", 0) == 0);
    CHECK_FALSE(srv.access().enabled());
    auto bob = srv.credentials_for("bob");
    REQUIRE(bob.has_value());
    CHECK_FALSE(bob->token.empty());
    CHECK(srv.access().enabled());
    auto u = srv.access().authenticate("Bearer " + bob->token, std::nullopt);
    REQUIRE(u.has_value());
    CHECK(u->name == "bob");
    CHECK(apiserver::server::kubeconfig_yaml(*bob).find("token: " + bob->token) != std::string::npos);
    srv.stop(0ms);
    CHECK(run_until(io, [&] { return srv.http_server()->session_count() == 0; }));
}

TEST_CASE("server: the root-CA publisher publishes the serving CA, a generated one without TLS, nothing when off") {
    asio::io_context io;
    io::manual_clock clk;
    const auto cms = resources::configmaps();
    auto ca_in = [&](apiserver::server& srv, std::string_view ns) {
        auto cm = srv.store().get(cms, ns, "kube-root-ca.crt");
        if (!cm) return std::string{};
        const auto* v = find_path(*cm, {"data", "ca.crt"});
        return v && v->is_string() ? std::string(v->get_string()) : std::string{};
    };
    apiserver::server_options tls_opts;
    tls_opts.tls = true;
    tls_opts.root_ca_publisher = true;
    apiserver::server tls(io.get_executor(), clk, tls_opts);
    CHECK(ca_in(tls, "default").empty());  // the CA is known once start() made it
    REQUIRE(tls.start().has_value());
    CHECK_FALSE(tls.ca_pem().empty());
    CHECK(ca_in(tls, "default") == tls.ca_pem());
    CHECK(ca_in(tls, "kube-system") == tls.ca_pem());
    CHECK(tls.store().root_ca() == tls.ca_pem());

    apiserver::server_options plain_opts;
    plain_opts.listen = false;
    plain_opts.root_ca_publisher = true;
    apiserver::server plain(io.get_executor(), clk, plain_opts);
    REQUIRE(plain.start().has_value());
    CHECK(plain.ca_pem().empty());  // no TLS: clients trust nothing
    CHECK(ca_in(plain, "default").starts_with("-----BEGIN CERTIFICATE-----"));

    apiserver::server off(io.get_executor(), clk, apiserver::server_options{.listen = false});
    REQUIRE(off.start().has_value());
    CHECK(off.store().count(cms) == 0);
    tls.stop(0ms);
    plain.stop(0ms);
    off.stop(0ms);
    CHECK(run_until(io, [&] { return tls.http_server()->session_count() == 0; }));
}
