// TLS between the transport and the scripted server, with a CA made by the
// test: trust, host name and IP SAN checks, tls-server-name, client certs.
#include <kcoro/client/transport.hpp>

#include <kcoro/io/certs.hpp>

#include "run_until.hpp"
#include "scripted_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <doctest/doctest.h>

namespace asio = boost::asio;
using kcoro::io::certificate_authority;
using kcoro::test::run;
using kcoro::test::scripted_server;
using kcoro::test::step;

namespace {

struct pki {
    certificate_authority ca = certificate_authority::create("test-ca").value();
    certificate_authority other_ca = certificate_authority::create("other-ca").value();
};

std::shared_ptr<asio::ssl::context> server_ctx(const certificate_authority& ca, std::vector<std::string> dns,
                                               std::vector<std::string> ips,
                                               kcoro::io::client_cert_mode mode = kcoro::io::client_cert_mode::none) {
    auto cert = ca.issue_server(std::move(dns), std::move(ips)).value();
    auto ctx = kcoro::io::make_server_tls_context({cert.cert_pem, cert.key_pem, ca.cert_pem(), mode});
    REQUIRE(ctx.has_value());
    return *ctx;
}

std::vector<step> one_ok(int n = 1) {
    step s;
    s.expect.method = "GET";
    s.expect.path = "/version";
    s.answer.body = R"({"major":"1"})";
    return std::vector<step>(static_cast<std::size_t>(n), s);
}

kcoro::result<kcoro::client::http_response> call(asio::io_context& ioc, kcoro::io::clock& clk,
                                                  kcoro::client::transport_options o) {
    auto t = kcoro::client::http_transport::create(clk, o);
    if (!t) {
        return t.error();
    }
    kcoro::api_request req;
    req.target = "/version";
    req.verb = "get";
    auto r = run(ioc, (*t)->send(req));
    REQUIRE(r.has_value());
    return std::move(*r);
}

} // namespace

TEST_CASE("the right CA passes, another CA fails") {
    pki p;
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    scripted_server srv(ioc, one_ok(), server_ctx(p.ca, {"localhost"}, {"127.0.0.1"}));
    kcoro::client::transport_options o;
    o.server = srv.url();
    o.tls.ca_pem = p.ca.cert_pem();
    auto good = call(ioc, clk, o);
    REQUIRE(good.has_value());
    CHECK(good->body == R"({"major":"1"})");

    o.tls.ca_pem = p.other_ca.cert_pem();
    auto bad = call(ioc, clk, o);
    REQUIRE_FALSE(bad.has_value());
    CHECK(kcoro::is_transport_error(bad.error()));
    CHECK(bad.error().message().find("TLS handshake") != std::string::npos);
    CHECK(srv.requests().size() == 1);
}

TEST_CASE("a certificate without the server's IP fails; tls-server-name selects the DNS name") {
    pki p;
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    // Only a DNS name: connecting to 127.0.0.1 must fail host verification.
    scripted_server srv(ioc, one_ok(), server_ctx(p.ca, {"kube.example"}, {}));
    kcoro::client::transport_options o;
    o.server = srv.url();
    o.tls.ca_pem = p.ca.cert_pem();
    auto wrong_host = call(ioc, clk, o);
    REQUIRE_FALSE(wrong_host.has_value());
    CHECK(kcoro::is_transport_error(wrong_host.error()));

    o.tls.server_name = "other.example";
    CHECK_FALSE(call(ioc, clk, o).has_value());

    o.tls.server_name = "kube.example";
    auto named = call(ioc, clk, o);
    CHECK(named.has_value());
    REQUIRE(srv.requests().size() == 1);
    CHECK(srv.requests()[0].header("Host") == "127.0.0.1:" + std::to_string(srv.port()));
}

TEST_CASE("an IP SAN is accepted for an IP address") {
    pki p;
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    scripted_server srv(ioc, one_ok(), server_ctx(p.ca, {}, {"127.0.0.1"}));
    kcoro::client::transport_options o;
    o.server = srv.url();
    o.tls.ca_pem = p.ca.cert_pem();
    CHECK(call(ioc, clk, o).has_value());
}

TEST_CASE("insecure-skip-tls-verify accepts an untrusted certificate only when set") {
    pki p;
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    scripted_server srv(ioc, one_ok(), server_ctx(p.other_ca, {"nowhere.example"}, {}));
    kcoro::client::transport_options o;
    o.server = srv.url();
    o.tls.ca_pem = p.ca.cert_pem();
    CHECK_FALSE(call(ioc, clk, o).has_value());
    o.tls.insecure_skip_verify = true;
    CHECK(call(ioc, clk, o).has_value());
}

TEST_CASE("client certificates authenticate as CN = user, O = groups") {
    pki p;
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    scripted_server srv(ioc, one_ok(),
                        server_ctx(p.ca, {}, {"127.0.0.1"}, kcoro::io::client_cert_mode::require));
    auto me = p.ca.issue_client("jane", {"system:masters", "ops"}).value();
    kcoro::client::transport_options o;
    o.server = srv.url();
    o.tls.ca_pem = p.ca.cert_pem();

    // No certificate: the server refuses the handshake.
    CHECK_FALSE(call(ioc, clk, o).has_value());
    // A certificate from a CA the server does not trust: refused too.
    auto stranger = p.other_ca.issue_client("mallory").value();
    o.tls.client_cert_pem = stranger.cert_pem;
    o.tls.client_key_pem = stranger.key_pem;
    CHECK_FALSE(call(ioc, clk, o).has_value());

    o.tls.client_cert_pem = me.cert_pem;
    o.tls.client_key_pem = me.key_pem;
    auto r = call(ioc, clk, o);
    REQUIRE(r.has_value());
    REQUIRE(srv.requests().size() == 1);
    CHECK(srv.requests()[0].client_cert_user == "jane");
    CHECK(srv.requests()[0].client_cert_groups == std::vector<std::string>{"system:masters", "ops"});
}

TEST_CASE("bad TLS material is a configuration error at creation") {
    kcoro::io::system_clock clk;
    kcoro::client::transport_options o;
    o.server = "https://127.0.0.1:6443";
    o.tls.ca_pem = "-----BEGIN CERTIFICATE-----\ngarbage\n-----END CERTIFICATE-----\n";
    auto t = kcoro::client::http_transport::create(clk, o);
    REQUIRE_FALSE(t.has_value());
    CHECK(t.error().code() == kcoro::kcoro_errc::invalid_config);
}
