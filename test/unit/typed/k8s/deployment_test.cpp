// apps/v1 Deployment, with the pod template (pod.hpp) and label selector it uses.
#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/k8s/deployment.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <doctest/doctest.h>

#include "typed_samples.hpp"

namespace typed = kcoro::typed;
namespace k8s = kcoro::k8s;
namespace json = boost::json;

TEST_CASE("a real server's Deployment decodes and round-trips exactly") {
    auto v = json::parse(kcoro::test::samples::deployment);
    auto d = typed::from_json<k8s::deployment>(v);
    REQUIRE_MESSAGE(d.has_value(), (d ? "" : typed::describe(d.error())));
    CHECK(d->metadata.name == "demo");
    CHECK(d->metadata.is_controlled_by("5f7d2c1a-9b8e-4f3a-a1d2-7c6b5e4f3a21"));
    CHECK(d->spec.replicas == 2);
    CHECK(d->spec.selector.match_labels.at("gateway.kcoro.dev/instance") == "demo");
    CHECK(d->spec.strategy.rolling_update->max_surge.string_value() == "25%");
    const auto& pod = d->spec.template_.spec;
    REQUIRE(pod.containers.size() == 1);
    const auto& c = pod.containers[0];
    CHECK(c.image == "nginx:1.27");
    CHECK(c.ports.at(0).container_port_ == 8080);
    CHECK(c.env.at(1).value_from.contains("fieldRef"));
    CHECK(c.resources.limits.at("memory").str() == "128Mi");
    CHECK(c.liveness_probe->http_get->port.string_value() == "http");
    CHECK(c.readiness_probe->tcp_socket->port.int_value() == 8080);
    CHECK(c.volume_mounts.at(0).read_only == true);
    CHECK(c.unknown.contains("resizePolicy")); // not declared, kept
    CHECK(pod.volumes.at(0).unknown.contains("configMap"));
    CHECK(pod.unknown.contains("topologySpreadConstraints"));
    CHECK(pod.unknown.contains("serviceAccount"));
    CHECK(pod.unknown.at("securityContext") == json::object{}); // present but empty, kept as it was
    CHECK(d->spec.template_.metadata.unknown.at("creationTimestamp").is_null());
    CHECK(d->status.available_replicas == 2);
    CHECK(d->status.conditions.at(1).reason == "NewReplicaSetAvailable");
    CHECK(typed::to_json(*d) == v);
}

TEST_CASE("read, change, write: another writer's fields survive") {
    auto v = json::parse(kcoro::test::samples::deployment);
    auto d = typed::from_json<k8s::deployment>(v).value();
    d.spec.replicas = 5;
    d.spec.template_.spec.containers[0].image = "nginx:1.28";
    auto out = typed::to_object(d);
    auto expected = v.as_object();
    expected["spec"].as_object()["replicas"] = 5;
    expected["spec"].at("template").at("spec").at("containers").at(0).as_object()["image"] = "nginx:1.28";
    CHECK(out == expected);
}

TEST_CASE("a Deployment built by an operator encodes only what it sets") {
    k8s::deployment d;
    d.metadata.name = "demo";
    d.metadata.namespace_ = "default";
    d.spec.replicas = 0;
    d.spec.selector.match_labels["app"] = "demo";
    d.spec.template_.metadata.labels["app"] = "demo";
    k8s::container c;
    c.name = "gateway";
    c.image = "nginx";
    c.ports.push_back({"http", std::nullopt, 8080, "TCP", "", {}});
    c.env.push_back({"MODE", "demo", {}, {}});
    c.resources.limits["cpu"] = typed::quantity("500m");
    k8s::probe p;
    p.http_get = k8s::http_get_action{"/healthz", "http", "", "", {}, {}};
    c.readiness_probe = p;
    d.spec.template_.spec.containers.push_back(c);
    CHECK(typed::to_json(d) == json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"demo","namespace":"default"},
      "spec":{"replicas":0,"selector":{"matchLabels":{"app":"demo"}},
        "template":{"metadata":{"labels":{"app":"demo"}},"spec":{"containers":[{"name":"gateway","image":"nginx",
          "ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],"env":[{"name":"MODE","value":"demo"}],
          "resources":{"limits":{"cpu":"500m"}},"readinessProbe":{"httpGet":{"path":"/healthz","port":"http"}}}]}}}})"));
}

TEST_CASE("errors deep in the pod template name their path") {
    auto v = json::parse(kcoro::test::samples::deployment);
    v.at("spec").at("template").at("spec").at("containers").at(0).as_object()["ports"] =
        json::parse(R"([{"containerPort":"eighty"}])");
    auto d = typed::from_json<k8s::deployment>(v);
    REQUIRE_FALSE(d.has_value());
    CHECK(typed::describe(d.error()) ==
          "spec.template.spec.containers[0].ports[0].containerPort: expected an integer, got \"eighty\"");
}
