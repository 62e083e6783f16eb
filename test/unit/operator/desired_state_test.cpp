#include "desired_state.hpp"

#include <kcoro/core/apply_drift.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/typed/validation.hpp>

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
gateway_spec spec_of(const json::object& gi) {
    return kcoro::typed::decode_valid<gateway_instance>(gi).value().spec;
}
gateway_spec spec() { return spec_of(instance()); }

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
    CHECK_FALSE(kcoro::is_controlled_by(d, "U2"));
    CHECK(kcoro::is_controlled_by(desired_service(instance(), spec()), "U1"));
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

// The children are applied configurations: apply_drift (what apply_owned
// decides on) must see no drift in what a server answers for them, and
// drift in every field the operator sets.
TEST_CASE("no drift, no write, whatever defaults the server added") {
    auto d = desired_deployment(instance(), spec());
    CHECK(kcoro::apply_drift(d, as_served(d), "gateway-operator").value_or("") == "");
    auto s = desired_service(instance(), spec());
    CHECK(kcoro::apply_drift(s, as_served(s), "gateway-operator").value_or("") == "");
    auto r = desired_registration(instance(), spec(), "kcoro-system");
    CHECK_FALSE(registration_repair(as_served(r), r));
}

TEST_CASE("drift on each owned field is seen") {
    auto d = desired_deployment(instance(), spec());
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

    auto s = desired_service(instance(), spec());
    auto scur = as_served(s);
    scur["spec"].as_object()["ports"].as_array()[0].as_object()["targetPort"] = 80;
    CHECK(kcoro::apply_drift(s, scur, "gateway-operator").has_value());
    scur = as_served(s);
    scur["spec"].as_object()["type"] = "NodePort";
    CHECK(kcoro::apply_drift(s, scur, "gateway-operator").has_value());

    auto r = desired_registration(instance(), spec(), "kcoro-system");
    auto rcur = as_served(r);
    rcur["data"].as_object()["endpoint"] = "stale";
    auto rp = registration_repair(rcur, r);
    REQUIRE(rp);
    CHECK(rp->at("data").at("endpoint") == "g.ns.svc:9000");
}

TEST_CASE("an instance without env sets no env, and a child missing its container or spec drifts") {
    auto no_env = instance();
    no_env["spec"].as_object().erase("env");
    auto d = desired_deployment(no_env, spec_of(no_env));
    const auto& c = d.at("spec").at("template").at("spec").at("containers").as_array()[0].as_object();
    CHECK_FALSE(c.contains("env"));
    CHECK(kcoro::apply_drift(d, as_served(d), "gateway-operator").value_or("") == "");
    json::object empty{{"metadata", json::object{{"name", "g"}}}};
    CHECK(kcoro::apply_drift(d, empty, "gateway-operator").has_value());
    CHECK(kcoro::apply_drift(desired_service(instance(), spec()), empty, "gateway-operator").has_value());
    CHECK(registration_repair(empty, desired_registration(instance(), spec(), "x")));
}

TEST_CASE("a registration names its instance in its data") {
    auto r = desired_registration(instance(), spec(), "kcoro-system");
    auto key = registration_instance(r);
    REQUIRE(key);
    CHECK(key->ns == "ns");
    CHECK(key->name == "g");

    auto unlabelled = r;
    kcoro::mutable_metadata(unlabelled).erase("labels");
    CHECK_FALSE(registration_instance(unlabelled));  // not a registration
    auto no_name = r;
    no_name["data"].as_object().erase("name");
    CHECK_FALSE(registration_instance(no_name));
    auto bad = r;
    bad["data"].as_object()["namespace"] = 7;
    CHECK_FALSE(registration_instance(bad));
    auto no_data = r;
    no_data.erase("data");
    CHECK_FALSE(registration_instance(no_data));
}

TEST_CASE("orphaned registrations: another uid than the live instance's, and not cached") {
    auto make = [](std::string uid) {
        auto gi = instance();
        kcoro::mutable_metadata(gi)["uid"] = uid;
        return std::make_shared<const json::object>(desired_registration(gi, spec_of(gi), "kcoro-system"));
    };
    const std::vector<kcoro::object_ptr> claims{make("U1"), make("U0"), make("U9")};
    auto cached = [](std::string_view uid) { return uid == "U9"; };  // U9 lives on in the cache
    auto uids = [](const std::vector<kcoro::object_ptr>& v) {
        std::vector<std::string> out;
        for (const auto& cm : v) out.emplace_back(kcoro::label_of(*cm, uid_label).value_or(""));
        return out;
    };

    // The live instance is U1: its own registration stays.
    CHECK(uids(orphaned_registrations(claims, "U1", cached)) == std::vector<std::string>{"U0"});
    // No live instance: every uncached uid is an orphan.
    CHECK(uids(orphaned_registrations(claims, "", cached)) == std::vector<std::string>{"U1", "U0"});
    // Without a cache view: the live uid alone decides.
    CHECK(uids(orphaned_registrations(claims, "U0", {})) == std::vector<std::string>{"U1", "U9"});
    // A ConfigMap without the uid label is never judged.
    auto foreign = std::make_shared<const json::object>(json::object{{"metadata", json::object{{"name", "x"}}}});
    CHECK(orphaned_registrations({foreign}, "", cached).empty());
}
