#include "gateway_instance.hpp"

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

using namespace gateway;
namespace json = boost::json;

namespace {
json::object gi(std::string_view spec) {
    return json::parse(std::string(R"({"apiVersion":"gateway.kcoro.dev/v1alpha1","kind":"GatewayInstance",
      "metadata":{"name":"g","namespace":"ns","uid":"U1"},"spec":)") + std::string(spec) + "}")
        .as_object();
}
} // namespace

TEST_CASE("defaults apply when fields are absent") {
    auto r = parse_spec(gi(R"({"image":"nginx:1.27"})"));
    REQUIRE(std::holds_alternative<gateway_spec>(r));
    auto s = std::get<gateway_spec>(r);
    CHECK(s.image == "nginx:1.27");
    CHECK(s.replicas == 1);
    CHECK(s.port == 8080);
    CHECK(s.type == service_type::cluster_ip);
    CHECK(s.env.empty());
}

TEST_CASE("a full spec decodes") {
    auto r = parse_spec(gi(R"({"image":"img","replicas":0,"port":65535,"serviceType":"LoadBalancer",
      "resources":{"limits":{"cpu":"500m"}},"env":[{"name":"A","value":"1"},{"name":"B"}]})"));
    REQUIRE(std::holds_alternative<gateway_spec>(r));
    auto s = std::get<gateway_spec>(r);
    CHECK(s.replicas == 0);
    CHECK(s.port == 65535);
    CHECK(s.type == service_type::load_balancer);
    CHECK(s.env == std::vector<env_var>{{"A", "1"}, {"B", ""}});
    CHECK(s.resources.contains("limits"));
}

TEST_CASE("invalid specs name every bad field") {
    auto r = parse_spec(gi(R"({"image":"has space","replicas":51,"port":0,"serviceType":"Ingress",
      "env":[{"name":"1BAD"},{"name":"X"},{"name":"X"}],"resources":{"gpus":{}}})"));
    REQUIRE(std::holds_alternative<std::vector<field_error>>(r));
    auto errs = std::get<std::vector<field_error>>(r);
    std::vector<std::string> fields;
    for (auto& e : errs) fields.push_back(e.field);
    CHECK(fields == std::vector<std::string>{"spec.image", "spec.replicas", "spec.port", "spec.serviceType",
                                             "spec.resources.gpus", "spec.env[0].name", "spec.env[2].name"});
    CHECK(describe(errs).find("spec.replicas: must be between 0 and 50") != std::string::npos);
}

TEST_CASE("a missing or mistyped spec is invalid, never a crash") {
    auto none = json::parse(R"({"metadata":{"name":"g"}})").as_object();
    CHECK(std::holds_alternative<std::vector<field_error>>(parse_spec(none)));
    CHECK(std::holds_alternative<std::vector<field_error>>(parse_spec(gi("[]"))));
    CHECK(std::holds_alternative<std::vector<field_error>>(parse_spec(gi(R"({"image":3})"))));
    CHECK(std::holds_alternative<std::vector<field_error>>(parse_spec(gi(R"({"image":"x","replicas":"2"})"))));
    CHECK(std::holds_alternative<std::vector<field_error>>(parse_spec(gi(R"({"image":"x","env":{}})"))));
}
