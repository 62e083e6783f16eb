// Reading a GatewayInstance: the typed decode plus the checks of its
// annotations (the CRD's bounds) and validate(). What parse_spec did by
// hand, every rule now written once in api/gateway_instance_types.hpp.
#include "gateway_instance.hpp"

#include <kcoro/typed/validation.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

using namespace gateway;
namespace json = boost::json;
namespace typed = kcoro::typed;

namespace {
json::object gi(std::string_view spec) {
    return json::parse(std::string(R"({"apiVersion":"gateway.kcoro.dev/v1alpha1","kind":"GatewayInstance",
      "metadata":{"name":"g","namespace":"ns","uid":"U1"},"spec":)") + std::string(spec) + "}")
        .as_object();
}
typed::decode_result<gateway_instance> read(const json::object& obj) {
    return typed::decode_valid<gateway_instance>(obj);
}
std::vector<std::string> paths(const typed::field_errors& errors) {
    std::vector<std::string> out;
    for (const auto& e : errors) out.push_back(e.path);
    return out;
}
} // namespace

TEST_CASE("names come from the type") {
    CHECK(gateway_instances() == kcoro::group_version_resource{"gateway.kcoro.dev", "v1alpha1", "gatewayinstances"});
    CHECK(to_string(service_type::cluster_ip) == "ClusterIP");
    CHECK(to_string(service_type::node_port) == "NodePort");
    CHECK(to_string(service_type::load_balancer) == "LoadBalancer");
}

TEST_CASE("defaults apply when fields are absent") {
    auto r = read(gi(R"({"image":"nginx:1.27"})"));
    REQUIRE(r.has_value());
    const auto& s = r->spec;
    CHECK(s.image == "nginx:1.27");
    CHECK(s.replicas == 1);
    CHECK(s.port == 8080);
    CHECK(s.type == service_type::cluster_ip);
    CHECK(s.env.empty());
}

TEST_CASE("a full spec decodes") {
    auto r = read(gi(R"({"image":"img","replicas":0,"port":65535,"serviceType":"LoadBalancer",
      "resources":{"limits":{"cpu":"500m"}},"env":[{"name":"A","value":"1"},{"name":"B"}]})"));
    REQUIRE_MESSAGE(r.has_value(), (r ? "" : typed::describe(r.error())));
    const auto& s = r->spec;
    CHECK(s.replicas == 0);
    CHECK(s.port == 65535);
    CHECK(s.type == service_type::load_balancer);
    REQUIRE(s.env.size() == 2);
    CHECK(s.env[0].name == "A");
    CHECK(s.env[0].value == "1");
    CHECK(s.env[1].name == "B");
    CHECK(s.env[1].value == "");
    CHECK(s.resources.limits.at("cpu").str() == "500m");
}

TEST_CASE("invalid specs name every bad field") {
    auto r = read(gi(R"({"image":"has space","replicas":51,"port":0,
      "env":[{"name":"1BAD"},{"name":"X"},{"name":"X"}]})"));
    REQUIRE_FALSE(r.has_value());
    CHECK(paths(r.error()) == std::vector<std::string>{"spec.image", "spec.replicas", "spec.port", "spec.env[0].name",
                                                       "spec.env[2].name"});
    const auto msg = typed::describe(r.error());
    CHECK(msg.find("spec.replicas: should be less than or equal to 50") != std::string::npos);
    CHECK(msg.find("spec.port: should be greater than or equal to 1") != std::string::npos);
    CHECK(msg.find("spec.image: should match '") != std::string::npos);
    CHECK(msg.find("spec.env[2].name: duplicate name \"X\"") != std::string::npos);

    auto type = read(gi(R"({"image":"x","serviceType":"Ingress"})"));
    REQUIRE_FALSE(type.has_value());
    CHECK(typed::describe(type.error()) ==
          "spec.serviceType: expected one of ClusterIP, NodePort, LoadBalancer, got \"Ingress\"");

    auto long_image = read(gi(R"({"image":")" + std::string(513, 'a') + R"("})"));
    REQUIRE_FALSE(long_image.has_value());
    CHECK(typed::describe(long_image.error()) == "spec.image: may not be more than 512 bytes");

    std::string many = R"({"image":"x","env":[)";
    for (int i = 0; i < 65; ++i) many += (i ? "," : "") + std::string(R"({"name":"E)") + std::to_string(i) + "\"}";
    auto too_many = read(gi(many + "]}"));
    REQUIRE_FALSE(too_many.has_value());
    CHECK(typed::describe(too_many.error()) == "spec.env: must have at most 64 items");
}

TEST_CASE("a missing or mistyped spec is invalid, never a crash") {
    auto none = read(json::parse(R"({"metadata":{"name":"g"}})").as_object());
    REQUIRE_FALSE(none.has_value());
    CHECK(typed::describe(none.error()) == "spec.image: Required value");
    CHECK_FALSE(read(gi("[]")).has_value());
    CHECK_FALSE(read(gi(R"({"image":3})")).has_value());
    CHECK_FALSE(read(gi(R"({"image":"x","replicas":"2"})")).has_value());
    CHECK_FALSE(read(gi(R"({"image":"x","env":{}})")).has_value());
    CHECK_FALSE(read(gi(R"({"image":"x","port":70000})")).has_value());
    CHECK_FALSE(read(gi(R"({"image":"x","env":[{"name":""}]})")).has_value());
    auto wrong = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","spec":{"image":"x"}})").as_object();
    CHECK_FALSE(read(wrong).has_value());
}
