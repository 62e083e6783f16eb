#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/k8s/event.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

#include "typed_samples.hpp"

namespace typed = kcoro::typed;
namespace json = boost::json;

TEST_CASE("an events.k8s.io/v1 Event round-trips, nulls and empties included") {
    auto v = json::parse(kcoro::test::samples::event);
    auto e = typed::from_json<kcoro::k8s::event>(v);
    REQUIRE_MESSAGE(e.has_value(), (e ? "" : typed::describe(e.error())));
    CHECK(e->reason == "CreatedDeployment");
    CHECK(e->series->count == 3);
    CHECK(e->regarding.namespace_ == "default");
    CHECK(e->regarding.api_version == "gateway.kcoro.dev/v1alpha1");
    CHECK_FALSE(e->related.has_value());
    CHECK(e->deprecated_first_timestamp.empty());
    CHECK(typed::to_json(*e) == v);
}

TEST_CASE("another group's Event is refused by apiVersion") {
    auto v = json::parse(kcoro::test::samples::event);
    v.as_object()["apiVersion"] = "v1";
    auto e = typed::from_json<kcoro::k8s::event>(v);
    REQUIRE_FALSE(e.has_value());
    CHECK(typed::describe(e.error()) == "apiVersion: expected \"events.k8s.io/v1\", got \"v1\"");
}
