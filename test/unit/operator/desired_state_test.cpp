#include "desired_state.hpp"

#include <kcoro/core/object.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

using namespace gateway;
namespace json = boost::json;

namespace {
json::object instance() {
    return json::parse(R"({"apiVersion":"gateway.kcoro.dev/v1alpha1","kind":"GatewayInstance",
      "metadata":{"name":"g","namespace":"ns","uid":"U1","generation":2},
      "spec":{"image":"nginx:1","replicas":2,"port":9000,"env":[{"name":"A","value":"1"}]}})")
        .as_object();
}
gateway_spec spec() { return std::get<gateway_spec>(parse_spec(instance())); }

// What the API server returns for the desired object: defaults added.
json::object as_served(json::object o) {
    auto& m = kcoro::mutable_metadata(o);
    m["uid"] = "child-uid";
    m["resourceVersion"] = "10";
    if (kcoro::kind_of(o) == "Deployment") {
        auto& s = o["spec"].as_object();
        s["strategy"] = json::object{{"type", "RollingUpdate"}};
        s["revisionHistoryLimit"] = 10;
        auto& c = s["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object();
        c["terminationMessagePath"] = "/dev/termination-log";
        c["imagePullPolicy"] = "IfNotPresent";
        c["resources"] = json::object{};
        o["status"] = json::object{{"replicas", 2}};
    } else if (kcoro::kind_of(o) == "Service") {
        auto& s = o["spec"].as_object();
        s["clusterIP"] = "10.96.0.10";
        s["ports"].as_array()[0].as_object()["nodePort"] = 0;
    }
    return o;
}
} // namespace

TEST_CASE("names and endpoint") {
    CHECK(registration_name("U1") == "gatewayinstance-U1");
    CHECK(endpoint_of("g", "ns", 9000) == "g.ns.svc:9000");
}

TEST_CASE("desired children carry a controller reference to the instance") {
    auto d = desired_deployment(instance(), spec());
    CHECK(kcoro::is_controlled_by(d, "U1"));
    CHECK(kcoro::name_of(d) == "g");
    CHECK(kcoro::namespace_of(d) == "ns");
    CHECK(ownership_of(d, "U1") == ownership::ours);
    CHECK(ownership_of(d, "U2") == ownership::foreign);
    json::object bare{{"metadata", json::object{{"name", "g"}}}};
    CHECK(ownership_of(bare, "U1") == ownership::unowned);
}

TEST_CASE("the registration has no owner reference and carries the uid") {
    auto r = desired_registration(instance(), spec(), "kcoro-system");
    CHECK(kcoro::name_of(r) == "gatewayinstance-U1");
    CHECK(kcoro::namespace_of(r) == "kcoro-system");
    CHECK(kcoro::owner_references_of(r).empty());
    CHECK(registration_belongs_to(r, "U1"));
    CHECK_FALSE(registration_belongs_to(r, "U2"));
    CHECK(r.at("data").at("endpoint") == "g.ns.svc:9000");
}

TEST_CASE("no drift means no patch, whatever defaults the server added") {
    auto d = desired_deployment(instance(), spec());
    CHECK_FALSE(deployment_repair(as_served(d), d));
    auto s = desired_service(instance(), spec());
    CHECK_FALSE(service_repair(as_served(s), s));
    auto r = desired_registration(instance(), spec(), "kcoro-system");
    CHECK_FALSE(registration_repair(as_served(r), r));
}

TEST_CASE("drift on each owned field yields a repair patch") {
    auto d = desired_deployment(instance(), spec());
    auto cur = as_served(d);
    cur["spec"].as_object()["replicas"] = 5;
    auto p = deployment_repair(cur, d);
    REQUIRE(p);
    CHECK(p->at("spec").at("replicas") == 2);

    cur = as_served(d);
    cur["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object()["image"] =
        "evil:latest";
    REQUIRE(deployment_repair(cur, d));

    cur = as_served(d);
    cur["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object().erase(
        "env");
    p = deployment_repair(cur, d);
    REQUIRE(p);
    auto& env = p->at("spec").at("template").at("spec").at("containers").at(0).at("env").as_array();
    CHECK(env[0] == json::object{{"$patch", "replace"}});
    CHECK(env.size() == 2);

    auto s = desired_service(instance(), spec());
    auto scur = as_served(s);
    scur["spec"].as_object()["ports"].as_array()[0].as_object()["port"] = 80;
    REQUIRE(service_repair(scur, s));
    scur = as_served(s);
    scur["spec"].as_object()["type"] = "NodePort";
    REQUIRE(service_repair(scur, s));

    auto r = desired_registration(instance(), spec(), "kcoro-system");
    auto rcur = as_served(r);
    rcur["data"].as_object()["endpoint"] = "stale";
    auto rp = registration_repair(rcur, r);
    REQUIRE(rp);
    CHECK(rp->at("data").at("endpoint") == "g.ns.svc:9000");
}

TEST_CASE("a child missing its container or spec drifts, never crashes") {
    auto d = desired_deployment(instance(), spec());
    json::object empty{{"metadata", json::object{{"name", "g"}}}};
    CHECK(deployment_repair(empty, d));
    CHECK(service_repair(empty, desired_service(instance(), spec())));
    CHECK(registration_repair(empty, desired_registration(instance(), spec(), "x")));
}
