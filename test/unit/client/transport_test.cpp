// The pure parts of the transport: server URL parsing and answer-to-error mapping.
#include <kcoro/client/transport.hpp>

#include <doctest/doctest.h>

using kcoro::client::parse_server_url;

TEST_CASE("server URLs: scheme, host, default ports, IPv6, path prefix") {
    auto a = parse_server_url("https://10.0.0.1:6443");
    REQUIRE(a.has_value());
    CHECK(a->tls);
    CHECK(a->host == "10.0.0.1");
    CHECK(a->port == "6443");
    CHECK(a->path_prefix.empty());
    CHECK(a->host_header == "10.0.0.1:6443");

    auto b = parse_server_url("http://localhost/");
    REQUIRE(b.has_value());
    CHECK_FALSE(b->tls);
    CHECK(b->port == "80");
    CHECK(b->path_prefix.empty());

    auto c = parse_server_url("https://[::1]:8443/k8s/clusters/c-1/");
    REQUIRE(c.has_value());
    CHECK(c->host == "::1");
    CHECK(c->port == "8443");
    CHECK(c->path_prefix == "/k8s/clusters/c-1");
    CHECK(c->host_header == "[::1]:8443");

    auto d = parse_server_url("https://kube.example");
    REQUIRE(d.has_value());
    CHECK(d->port == "443");
}

TEST_CASE("bad server URLs are configuration errors naming the problem") {
    for (const char* bad : {"", "10.0.0.1:6443", "ftp://x", "https://", "https://:6443", "https://h:99999",
                            "https://h:abc", "https://[::1", "https://u@h", "https://h/?q=1"}) {
        auto r = parse_server_url(bad);
        CAPTURE(bad);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code() == kcoro::kcoro_errc::invalid_config);
        CHECK(r.error().message().find("server URL") != std::string::npos);
    }
}

TEST_CASE("answers without a Status get one from the HTTP code; Retry-After is kept") {
    kcoro::client::http_response r;
    r.status = 503;
    r.body = "<html>upstream down</html>";
    r.retry_after_seconds = 7;
    auto e = kcoro::client::error_from_response(r);
    CHECK(e.http_code() == 503);
    CHECK(e.code() == kcoro::api_errc::service_unavailable);
    REQUIRE(e.api_status()->details.has_value());
    CHECK(e.api_status()->details->retry_after_seconds == 7);

    kcoro::client::http_response c;
    c.status = 409;
    c.body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409,"message":"the object has been modified"})";
    auto ce = kcoro::client::error_from_response(c);
    CHECK(kcoro::is_conflict(ce));
    CHECK(ce.message().find("modified") != std::string::npos);
}
