#include <kcoro/typed/timestamp.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

using namespace kcoro::typed;
namespace json = boost::json;

TEST_CASE("new timestamps are written in UTC at their precision") {
    auto t = kcoro::parse_rfc3339("2026-03-02T09:14:07Z").value() + std::chrono::microseconds(412345);
    CHECK(timestamp(t).str() == "2026-03-02T09:14:07Z");
    CHECK(micro_timestamp(t).str() == "2026-03-02T09:14:07.412345Z");
    CHECK(micro_timestamp(t).time_point() == t);
    CHECK(timestamp().empty());
    CHECK(timestamp().to_json().is_null());
    CHECK(timestamp().time_point() == kcoro::wall_time{});
}

TEST_CASE("received text is kept as it is, offsets included") {
    timestamp t;
    REQUIRE(t.assign(json::value("2026-03-02T11:14:07+02:00")));
    CHECK(t.str() == "2026-03-02T11:14:07+02:00");
    CHECK(t.to_json() == "2026-03-02T11:14:07+02:00");
    CHECK(t.time_point() == kcoro::parse_rfc3339("2026-03-02T09:14:07Z").value());
    CHECK_FALSE(t.assign(json::value("yesterday")));
    CHECK_FALSE(t.assign(json::value(17)));
    CHECK(timestamp::parse("2026-03-02T09:14:07Z").has_value());
    CHECK_FALSE(timestamp::parse("2026-13-02T09:14:07Z").has_value());
    json::object s;
    timestamp::schema(s);
    CHECK(s == json::parse(R"({"type":"string","format":"date-time"})"));
}
