#include <kcoro/core/watch_event.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <sstream>

using namespace kcoro;
namespace json = boost::json;

TEST_CASE("event type names round trip") {
    for (auto t : {watch_event_type::added, watch_event_type::modified, watch_event_type::deleted,
                   watch_event_type::bookmark, watch_event_type::error}) {
        CHECK(parse_watch_event_type(to_string(t)) == t);
    }
    CHECK_FALSE(parse_watch_event_type("added"));
    CHECK_FALSE(parse_watch_event_type(""));
}

TEST_CASE("decode an ADDED event, moving the object out") {
    auto v = json::parse(R"({"type":"ADDED","object":{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s","namespace":"ns","resourceVersion":"9"}}})");
    auto ev = decode_watch_event(std::move(v));
    REQUIRE(ev);
    CHECK(ev->type == watch_event_type::added);
    REQUIRE(ev->object);
    CHECK(kind_of(*ev->object) == "Secret");
    CHECK(key_of(*ev->object) == object_key{"ns", "s"});
    CHECK(ev->resource_version == "9");
    CHECK_FALSE(ev->status);
    CHECK_FALSE(ev->initial_events_end);
    std::ostringstream os;
    os << *ev;
    CHECK(os.str() == "ADDED Secret ns/s rv=9");
}

TEST_CASE("decode an ERROR event into a Status and an error value") {
    auto v = json::parse(R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The resourceVersion for the provided watch is too old.","reason":"Gone","code":410}})");
    auto ev = decode_watch_event(std::move(v));
    REQUIRE(ev);
    REQUIRE(ev->status);
    CHECK(ev->status->reason == "Gone");
    auto e = ev->to_error();
    CHECK(is_gone_or_expired(e));
    CHECK(needs_relist(e));
    REQUIRE(e.api_status());
    CHECK(e.api_status()->code == 410);
}

TEST_CASE("malformed events are decode errors with a message") {
    for (const char* s : {"[]", "{}", R"({"type":"ADDED"})", R"({"type":"ADDED","object":[]})",
                          R"({"type":"NOPE","object":{}})", R"({"type":"ERROR","object":{"kind":"Pod"}})"}) {
        CAPTURE(s);
        auto ev = decode_watch_event(json::parse(s));
        REQUIRE_FALSE(ev);
        CHECK(ev.error().code() == make_error_code(kcoro_errc::decode_error));
        CHECK(ev.error().message().find("watch event") != std::string::npos);
    }
}
