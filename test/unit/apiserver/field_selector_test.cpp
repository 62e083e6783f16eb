#include "store/field_selector.hpp"

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

using namespace kcoro::apiserver;

TEST_CASE("field selectors on name and namespace") {
    auto obj = boost::json::parse(R"({"metadata":{"name":"a","namespace":"default"}})").as_object();
    auto s = field_selector::parse("metadata.name=a,metadata.namespace!=kube-system");
    REQUIRE(s.has_value());
    CHECK(s->matches(obj));
    REQUIRE(s->exact_name());
    CHECK(*s->exact_name() == "a");
    CHECK_FALSE(field_selector::parse("metadata.name==b")->matches(obj));
    CHECK(field_selector::parse("")->empty());
    CHECK(field_selector::parse(" metadata.namespace = default ")->matches(obj));
}

TEST_CASE("unsupported fields and malformed selectors are 400") {
    for (const char* bad : {"spec.x=1", "metadata.name", "status.phase!=Running"}) {
        auto s = field_selector::parse(bad);
        REQUIRE_FALSE(s.has_value());
        CHECK(s.error().http_code() == 400);
    }
}
