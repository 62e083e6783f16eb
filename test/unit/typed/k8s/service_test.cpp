#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/k8s/service.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

#include "typed_samples.hpp"

namespace typed = kcoro::typed;
namespace json = boost::json;

TEST_CASE("a real server's Service round-trips; acronym names map") {
    auto v = json::parse(kcoro::test::samples::service);
    auto s = typed::from_json<kcoro::k8s::service>(v);
    REQUIRE_MESSAGE(s.has_value(), (s ? "" : typed::describe(s.error())));
    CHECK(s->spec.cluster_ip == "10.96.14.7");
    CHECK(s->spec.cluster_ips == std::vector<std::string>{"10.96.14.7"});
    CHECK(s->spec.type == "NodePort");
    CHECK(s->spec.ports.at(0).target_port.string_value() == "http");
    CHECK(s->spec.ports.at(0).node_port == 31080);
    CHECK(s->spec.ip_families == std::vector<std::string>{"IPv4"});
    CHECK(s->spec.unknown.contains("trafficDistribution"));
    CHECK(typed::to_json(*s) == v);
}

TEST_CASE("a Service built by an operator") {
    kcoro::k8s::service s;
    s.metadata.name = "demo";
    s.spec.selector["app"] = "demo";
    s.spec.ports.push_back({"http", "TCP", "", 80, 8080, std::nullopt, {}});
    s.spec.external_ips = {"1.2.3.4"};
    CHECK(typed::to_json(s) == json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"demo"},
      "spec":{"ports":[{"name":"http","protocol":"TCP","port":80,"targetPort":8080}],"selector":{"app":"demo"},
        "externalIPs":["1.2.3.4"]}})"));
}
