#include <kcoro/server/bind_address.hpp>

#include <doctest/doctest.h>

using kcoro::server::split_bind_address;

TEST_CASE("bind address text: host and port, brackets removed, nothing resolved") {
    auto a = split_bind_address(":8080");
    REQUIRE(a.has_value());
    CHECK(a->host.empty());
    CHECK(a->port == 8080);
    auto b = split_bind_address("[::1]:9443");
    REQUIRE(b.has_value());
    CHECK(b->host == "::1");
    CHECK(b->port == 9443);
    auto c = split_bind_address("example.com:0");
    REQUIRE(c.has_value());
    CHECK(c->host == "example.com");
    CHECK(c->port == 0);
    CHECK(split_bind_address("127.0.0.1:65535")->port == 65535);
    CHECK(kcoro::server::is_disabled_bind_address("0"));
    CHECK_FALSE(kcoro::server::is_disabled_bind_address(":0"));
}

TEST_CASE("bad bind address text says what is wrong") {
    auto why = [](std::string_view t) {
        auto r = split_bind_address(t);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code() == kcoro::kcoro_errc::invalid_config);
        return r.error().message();
    };
    CHECK(why("8080") == "want \":port\" or \"host:port\"");
    CHECK(why("localhost") == "want \":port\" or \"host:port\"");
    CHECK(why("h:") == "bad port");
    CHECK(why("h:8o") == "bad port");
    CHECK(why("h:000080") == "bad port");
    CHECK(why(":-1") == "bad port");
    CHECK(why(":99999") == "port out of range");
}
