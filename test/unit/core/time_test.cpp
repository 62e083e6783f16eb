#include <kcoro/core/time.hpp>

#include <doctest/doctest.h>

using namespace kcoro;

TEST_CASE("RFC 3339 round trip") {
    auto t = parse_rfc3339("2026-11-29T11:23:22Z");
    REQUIRE(t);
    CHECK(format_rfc3339(*t) == "2026-11-29T11:23:22Z");
    auto m = parse_rfc3339("2026-11-29T11:23:22.123456Z");
    REQUIRE(m);
    CHECK(format_rfc3339_micro(*m) == "2026-11-29T11:23:22.123456Z");
    auto off = parse_rfc3339("2026-11-29T12:23:22+01:00");
    REQUIRE(off);
    CHECK(*off == *t);
}

TEST_CASE("malformed timestamps are rejected") {
    for (auto s : {"", "2026-11-29", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-29T11:23:22",
                   "2026-11-29T11:23:22.Z", "2026-11-29T11:23:22Zjunk", "20x6-11-29T11:23:22Z"}) {
        CHECK_MESSAGE(!parse_rfc3339(s), s);
    }
}

TEST_CASE("years a wall_time cannot hold are rejected, not overflowed") {
    CHECK(parse_rfc3339("1678-01-01T00:00:00Z"));
    CHECK(parse_rfc3339("2261-12-31T23:59:59Z"));
    for (auto s : {"2426-03-02T09:14:07Z", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "1677-01-01T00:00:00Z"}) {
        CHECK_MESSAGE(!parse_rfc3339(s), s);
    }
}
