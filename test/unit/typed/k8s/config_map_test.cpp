#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/k8s/config_map.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

#include "typed_samples.hpp"

namespace typed = kcoro::typed;
namespace json = boost::json;

TEST_CASE("a ConfigMap with data and binaryData round-trips") {
    auto v = json::parse(kcoro::test::samples::config_map);
    auto cm = typed::from_json<kcoro::k8s::config_map>(v);
    REQUIRE(cm.has_value());
    CHECK(cm->data.at("endpoint") == "demo.default.svc:8080");
    CHECK(cm->binary_data.at("blob").str() == std::string("\0\1\2\3\4", 5));
    CHECK(cm->metadata.labels.size() == 1);
    CHECK(typed::to_json(*cm) == v);
    CHECK(typed::resource_traits<kcoro::k8s::config_map>::gvr() == kcoro::resources::configmaps());
}

TEST_CASE("a ConfigMap's data must be strings") {
    auto r = typed::from_json<kcoro::k8s::config_map>(json::parse(R"({"data":{"n":1}})"));
    REQUIRE_FALSE(r.has_value());
    CHECK(typed::describe(r.error()) == "data[n]: expected a string, got 1");
}
