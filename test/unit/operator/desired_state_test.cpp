#include "desired_state.hpp"

#include <kcoro/core/apply_drift.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/validation.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

using namespace gateway;
namespace json = boost::json;
namespace k8s = kcoro::k8s;

namespace {
json::object instance_json() {
    return json::parse(R"({"apiVersion":"gateway.kcoro.dev/v1alpha1","kind":"GatewayInstance",
      "metadata":{"name":"g","namespace":"ns","uid":"U1","generation":2},
      "spec":{"image":"nginx:1","replicas":2,"port":9000,"env":[{"name":"A","value":"1"}]}})")
        .as_object();
}
gateway_instance instance() { return kcoro::typed::decode_valid<gateway_instance>(instance_json()).value(); }

// The applied configuration apply_owned sends for a typed child.
json::object applied(const auto& child) { return kcoro::typed::to_object(child); }

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
k8s::config_map served(const k8s::config_map& cm) {
    auto out = cm;
    out.metadata.uid = "cm-uid";
    out.metadata.resource_version = "10";
    return out;
}
} // namespace

TEST_CASE("names and endpoint") {
    CHECK(registration_name("U1") == "gatewayinstance-U1");
    CHECK(endpoint_of("g", "ns", 9000) == "g.ns.svc:9000");
}

TEST_CASE("desired children: the instance's name, namespace and labels; apply_owned adds the owner reference") {
    auto d = desired_deployment(instance());
    CHECK(d.metadata.name == "g");
    CHECK(d.metadata.namespace_ == "ns");
    CHECK(d.metadata.labels.at("app.kubernetes.io/instance") == "g");
    CHECK(d.metadata.owner_references.empty());
    CHECK(d.spec.replicas == 2);
    CHECK(d.spec.selector.match_labels.at("app.kubernetes.io/name") == "gateway");
    REQUIRE(d.spec.template_.spec.containers.size() == 1);
    const auto& c = d.spec.template_.spec.containers[0];
    CHECK(c.image == "nginx:1");
    CHECK(c.ports.at(0).container_port_ == 9000);
    CHECK(c.env.at(0).name == "A");
    auto s = desired_service(instance());
    CHECK(s.metadata.name == "g");
    CHECK(s.spec.type == "ClusterIP");
    CHECK(s.spec.ports.at(0).port == 9000);
    CHECK(s.spec.ports.at(0).target_port == kcoro::typed::int_or_string(9000));
    // Encoded, only what the operator manages: no status, no server-owned fields.
    auto dj = applied(d);
    CHECK(dj.at("apiVersion") == "apps/v1");
    CHECK(dj.at("kind") == "Deployment");
    CHECK_FALSE(dj.contains("status"));
    CHECK_FALSE(dj.at("spec").as_object().contains("strategy"));
    auto sj = applied(s);
    CHECK_FALSE(sj.at("spec").as_object().contains("clusterIP"));
    CHECK_FALSE(sj.contains("status"));
}

TEST_CASE("the registration has no owner reference and carries the uid") {
    auto r = desired_registration(instance(), "kcoro-system");
    CHECK(r.metadata.name == "gatewayinstance-U1");
    CHECK(r.metadata.namespace_ == "kcoro-system");
    CHECK(r.metadata.owner_references.empty());
    CHECK(registration_belongs_to(r, "U1"));
    CHECK_FALSE(registration_belongs_to(r, "U2"));
    CHECK(r.data.at("endpoint") == "g.ns.svc:9000");
}

// The children are applied configurations: apply_drift (what apply_owned
// decides on) must see no drift in what a server answers for them, and
// drift in every field the operator sets.
TEST_CASE("no drift, no write, whatever defaults the server added") {
    auto d = applied(desired_deployment(instance()));
    CHECK(kcoro::apply_drift(d, as_served(d), "gateway-operator").value_or("") == "");
    auto s = applied(desired_service(instance()));
    CHECK(kcoro::apply_drift(s, as_served(s), "gateway-operator").value_or("") == "");
    auto r = desired_registration(instance(), "kcoro-system");
    CHECK_FALSE(registration_repair(served(r), r));
}

TEST_CASE("drift on each owned field is seen") {
    auto d = applied(desired_deployment(instance()));
    auto container = [](json::object& o) -> json::object& {
        return o["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object();
    };
    auto cur = as_served(d);
    cur["spec"].as_object()["replicas"] = 5;
    CHECK(kcoro::apply_drift(d, cur, "gateway-operator") == std::optional<std::string>(".spec.replicas: 5, want 2"));

    cur = as_served(d);
    container(cur)["image"] = "evil:latest";
    CHECK(kcoro::apply_drift(d, cur, "gateway-operator").has_value());

    cur = as_served(d);
    container(cur).erase("env");
    CHECK(kcoro::apply_drift(d, cur, "gateway-operator") ==
          std::optional<std::string>(R"(.spec.template.spec.containers[name="gateway"].env: missing)"));

    cur = as_served(d);
    container(cur)["ports"].as_array()[0].as_object()["containerPort"] = 1234;
    CHECK(kcoro::apply_drift(d, cur, "gateway-operator").has_value());
    CHECK(kcoro::colliding_items_patch(d, cur).has_value());  // the port named "http" took our place

    auto s = applied(desired_service(instance()));
    auto scur = as_served(s);
    scur["spec"].as_object()["ports"].as_array()[0].as_object()["targetPort"] = 80;
    CHECK(kcoro::apply_drift(s, scur, "gateway-operator").has_value());
    scur = as_served(s);
    scur["spec"].as_object()["type"] = "NodePort";
    CHECK(kcoro::apply_drift(s, scur, "gateway-operator").has_value());

    auto r = desired_registration(instance(), "kcoro-system");
    auto rcur = served(r);
    rcur.data["endpoint"] = "stale";
    rcur.data["theirs"] = "kept";
    auto rp = registration_repair(rcur, r);
    REQUIRE(rp);
    CHECK(rp->data.at("endpoint") == "g.ns.svc:9000");
    CHECK_FALSE(rp->data.contains("theirs"));  // a merge patch: others' keys are left alone
    CHECK(rp->metadata.labels.at(std::string(uid_label)) == "U1");
    auto unlabelled = served(r);
    unlabelled.metadata.labels.erase("app.kubernetes.io/managed-by");
    CHECK(registration_repair(unlabelled, r));
}

TEST_CASE("an instance without env sets no env, and a child missing its container or spec drifts") {
    auto no_env_json = instance_json();
    no_env_json["spec"].as_object().erase("env");
    auto no_env = kcoro::typed::decode_valid<gateway_instance>(no_env_json).value();
    auto d = applied(desired_deployment(no_env));
    const auto& c = d.at("spec").at("template").at("spec").at("containers").as_array()[0].as_object();
    CHECK_FALSE(c.contains("env"));
    CHECK(kcoro::apply_drift(d, as_served(d), "gateway-operator").value_or("") == "");
    json::object empty{{"metadata", json::object{{"name", "g"}}}};
    CHECK(kcoro::apply_drift(d, empty, "gateway-operator").has_value());
    CHECK(kcoro::apply_drift(applied(desired_service(instance())), empty, "gateway-operator").has_value());
    CHECK(registration_repair(k8s::config_map{}, desired_registration(instance(), "x")));
}

TEST_CASE("a registration names its instance in its data") {
    auto r = desired_registration(instance(), "kcoro-system");
    auto key = registration_instance(r);
    REQUIRE(key);
    CHECK(key->ns == "ns");
    CHECK(key->name == "g");

    auto unlabelled = r;
    unlabelled.metadata.labels.clear();
    CHECK_FALSE(registration_instance(unlabelled));  // not a registration
    auto no_name = r;
    no_name.data.erase("name");
    CHECK_FALSE(registration_instance(no_name));
    auto empty_ns = r;
    empty_ns.data["namespace"] = "";
    CHECK_FALSE(registration_instance(empty_ns));
    auto no_data = r;
    no_data.data.clear();
    CHECK_FALSE(registration_instance(no_data));
}

TEST_CASE("orphaned registrations: another uid than the live instance's, and not cached") {
    auto make = [](std::string uid) {
        auto gi = instance();
        gi.metadata.uid = uid;
        return desired_registration(gi, "kcoro-system");
    };
    const std::vector<k8s::config_map> claims{make("U1"), make("U0"), make("U9")};
    auto cached = [](std::string_view uid) { return uid == "U9"; };  // U9 lives on in the cache
    auto uids = [](const std::vector<k8s::config_map>& v) {
        std::vector<std::string> out;
        for (const auto& cm : v) out.push_back(cm.metadata.labels.at(std::string(uid_label)));
        return out;
    };

    // The live instance is U1: its own registration stays.
    CHECK(uids(orphaned_registrations(claims, "U1", cached)) == std::vector<std::string>{"U0"});
    // No live instance: every uncached uid is an orphan.
    CHECK(uids(orphaned_registrations(claims, "", cached)) == std::vector<std::string>{"U1", "U0"});
    // Without a cache view: the live uid alone decides.
    CHECK(uids(orphaned_registrations(claims, "U0", {})) == std::vector<std::string>{"U1", "U9"});
    // A ConfigMap without the uid label is never judged.
    k8s::config_map foreign;
    foreign.metadata.name = "x";
    CHECK(orphaned_registrations({foreign}, "", cached).empty());
}
