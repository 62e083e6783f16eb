#include <kcoro/typed/quantity.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

using kcoro::typed::is_quantity;
using kcoro::typed::quantity;
namespace json = boost::json;

TEST_CASE("resource.ParseQuantity's grammar") {
    for (auto s : {"1", "500m", "1Gi", "1.5", ".5", "1.", "-1", "+2k", "1e3", "1E-3", "2Ei", "100M", "0"}) {
        CHECK_MESSAGE(is_quantity(s), s);
    }
    for (auto s : {"", "lots", "1Q", "1gi", "Gi", ".", "+", "1e", "1e+", "1.2.3", "1 Gi", "1ee3"}) {
        CHECK_FALSE_MESSAGE(is_quantity(s), s);
    }
}

TEST_CASE("a quantity keeps its text and its JSON kind") {
    quantity q;
    CHECK(q.empty());
    CHECK(q.to_json().is_null());
    REQUIRE(q.assign(json::value("250m")));
    CHECK(q.str() == "250m");
    CHECK(q.to_json() == "250m");
    REQUIRE(q.assign(json::value(2)));
    CHECK(q.str() == "2");
    CHECK(q.to_json() == 2);
    CHECK(q.to_json().is_int64());
    REQUIRE(q.assign(json::value(0.5)));
    CHECK(q.str() == "0.5");
    CHECK(q.to_json() == 0.5);
    CHECK_FALSE(q.assign(json::value("lots")));
    CHECK_FALSE(q.assign(json::value(true)));
    CHECK_FALSE(q.assign(json::parse("{}")));
    CHECK(quantity("1Gi").str() == "1Gi");
    CHECK(quantity("bad").empty());
    CHECK(quantity("1Gi") == quantity("1Gi"));
    json::object s;
    quantity::schema(s);
    CHECK(s == json::parse(R"({"x-kubernetes-int-or-string":true})"));
}
