#include <kcoro/io/tls.hpp>

#include <kcoro/io/certs.hpp>

#include <boost/asio/ssl/context.hpp>
#include <doctest/doctest.h>

using kcoro::io::tls_client_options;
using kcoro::io::tls_server_options;

TEST_CASE("client contexts: CA, client certificate, and clear errors for bad PEM") {
    auto ca = kcoro::io::certificate_authority::create("ca");
    REQUIRE(ca.has_value());
    auto cl = ca->issue_client("bob", {"g"});
    REQUIRE(cl.has_value());
    tls_client_options o;
    o.ca_pem = ca->cert_pem();
    o.server_name = "localhost";
    o.client_cert_pem = cl->cert_pem;
    o.client_key_pem = cl->key_pem;
    CHECK(kcoro::io::make_client_tls_context(o).has_value());

    auto bad_ca = o;
    bad_ca.ca_pem = "garbage";
    auto r = kcoro::io::make_client_tls_context(bad_ca);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message().find("certificate-authority") != std::string::npos);

    auto half = o;
    half.client_key_pem.clear();
    CHECK_FALSE(kcoro::io::make_client_tls_context(half).has_value());

    auto other = ca->issue_client("eve");
    REQUIRE(other.has_value());
    auto wrong_key = o;
    wrong_key.client_key_pem = other->key_pem;
    auto w = kcoro::io::make_client_tls_context(wrong_key);
    REQUIRE_FALSE(w.has_value());
    CHECK(w.error().code() == kcoro::kcoro_errc::invalid_config);

    auto no_name = o;
    no_name.server_name.clear();
    CHECK_FALSE(kcoro::io::make_client_tls_context(no_name).has_value());
    no_name.insecure_skip_verify = true;
    CHECK(kcoro::io::make_client_tls_context(no_name).has_value());
}

TEST_CASE("server contexts need a matching key and a client CA for client-cert modes") {
    auto ca = kcoro::io::certificate_authority::create("ca");
    REQUIRE(ca.has_value());
    auto srv = ca->issue_server({"localhost"}, {"127.0.0.1"});
    REQUIRE(srv.has_value());
    tls_server_options o{srv->cert_pem, srv->key_pem, "", kcoro::io::client_cert_mode::none};
    CHECK(kcoro::io::make_server_tls_context(o).has_value());
    o.mode = kcoro::io::client_cert_mode::require;
    CHECK_FALSE(kcoro::io::make_server_tls_context(o).has_value());
    o.client_ca_pem = ca->cert_pem();
    CHECK(kcoro::io::make_server_tls_context(o).has_value());
    o.key_pem = "junk";
    CHECK_FALSE(kcoro::io::make_server_tls_context(o).has_value());
}

TEST_CASE("IP address detection") {
    CHECK(kcoro::io::is_ip_address("127.0.0.1"));
    CHECK(kcoro::io::is_ip_address("::1"));
    CHECK(kcoro::io::is_ip_address("[::1]"));
    CHECK_FALSE(kcoro::io::is_ip_address("localhost"));
    CHECK_FALSE(kcoro::io::is_ip_address(""));
}
