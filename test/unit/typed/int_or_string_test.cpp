#include <kcoro/typed/int_or_string.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

using kcoro::typed::int_or_string;
namespace json = boost::json;

TEST_CASE("an int, a string, or unset") {
    int_or_string none;
    CHECK(none.empty());
    CHECK(none.to_json().is_null());
    int_or_string port = 8080;
    CHECK(port.is_int());
    CHECK(port.int_value() == 8080);
    CHECK(port.string_value().empty());
    CHECK(port.to_json() == 8080);
    int_or_string name = "http";
    CHECK(name.is_string());
    CHECK(name.string_value() == "http");
    CHECK(name.int_value() == 0);
    CHECK(name.to_json() == "http");
    CHECK(int_or_string(std::string("25%")) == int_or_string("25%"));
}

TEST_CASE("decoding: int32 range, strings, nothing else") {
    int_or_string v;
    CHECK(v.assign(json::value(3)));
    CHECK(v.int_value() == 3);
    CHECK(v.assign(json::value("25%")));
    CHECK(v.string_value() == "25%");
    CHECK(v.assign(json::value(4.0)));
    CHECK(v.int_value() == 4);
    CHECK_FALSE(v.assign(json::value(3000000000LL)));
    CHECK_FALSE(v.assign(json::value(1.5)));
    CHECK_FALSE(v.assign(json::value(true)));
    CHECK_FALSE(v.assign(json::parse("[]")));
    json::object s;
    int_or_string::schema(s);
    CHECK(s.at("x-kubernetes-int-or-string") == true);
}
