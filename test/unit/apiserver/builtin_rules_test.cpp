// Built-in kinds through the store: services, deployments, and the
// workload simulation.
#include "store/builtin_rules.hpp"

#include "store/object_store.hpp"
#include "store_test_support.hpp"

#include <doctest/doctest.h>

#include <set>

using namespace kcoro;
using namespace kcoro::apiserver;
using namespace kcoro::apiserver::test;
namespace json = boost::json;

namespace {

json::object service(std::string_view name) {
    auto s = obj(R"({"apiVersion":"v1","kind":"Service","spec":{"selector":{"app":"web"},"ports":[{"port":80}]}})");
    mutable_metadata(s)["name"] = name;
    return s;
}

json::object deployment(std::string_view name, std::string_view sel = "web", std::string_view tmpl = "web") {
    auto d = obj(R"({"apiVersion":"apps/v1","kind":"Deployment","spec":{"selector":{"matchLabels":{}},
        "template":{"metadata":{"labels":{}}, "spec":{"containers":[{"name":"c","image":"nginx:1.25"}]}}}})");
    mutable_metadata(d)["name"] = name;
    d["spec"].as_object()["selector"].as_object()["matchLabels"].as_object()["app"] = sel;
    d["spec"].as_object()["template"].as_object()["metadata"].as_object()["labels"].as_object()["app"] = tmpl;
    return d;
}

} // namespace

TEST_CASE("services: defaults and a clusterIP from 10.96.0.0/12, never reused while allocated") {
    object_store s;
    std::set<std::string> ips;
    for (int i = 0; i < 20; ++i) {
        auto r = s.create(ctx_at(), resources::services(), "default", service("svc" + std::to_string(i)));
        REQUIRE(r);
        auto ip = str_at(*r, {"spec", "clusterIP"});
        CHECK(ip.rfind("10.", 0) == 0);
        auto second = std::stoi(ip.substr(3, ip.find('.', 3) - 3));
        CHECK(second >= 96);
        CHECK(second <= 111);
        ips.insert(ip);
        if (i == 0) {
            CHECK(str_at(*r, {"spec", "type"}) == "ClusterIP");
            CHECK(str_at(*r, {"spec", "sessionAffinity"}) == "None");
            const auto& port = find_path(*r, {"spec", "ports"})->as_array()[0].as_object();
            CHECK(port.at("protocol") == "TCP");
            CHECK(port.at("targetPort") == 80);
            CHECK(find_path(*r, {"spec", "clusterIPs"})->as_array()[0] == json::value(ip));
        }
    }
    CHECK(ips.size() == 20);
    // The clusterIP survives an update that omits it, and cannot change.
    auto cur = *s.get(resources::services(), "default", "svc0");
    auto ip0 = str_at(cur, {"spec", "clusterIP"});
    auto next = service("svc0");
    auto u = s.update(ctx_at(), resources::services(), "default", "svc0", next);
    REQUIRE(u);
    CHECK(str_at(*u, {"spec", "clusterIP"}) == ip0);
    next["spec"].as_object()["clusterIP"] = "10.96.200.200";
    auto bad = s.update(ctx_at(), resources::services(), "default", "svc0", next);
    REQUIRE_FALSE(bad);
    CHECK(is_invalid(bad.error()));
    // A requested address already in use is refused.
    auto dup = service("dup");
    dup["spec"].as_object()["clusterIP"] = ip0;
    auto r = s.create(ctx_at(), resources::services(), "default", dup);
    REQUIRE_FALSE(r);
    CHECK(is_invalid(r.error()));
}

TEST_CASE("services: validation of ports and type") {
    object_store s;
    auto no_ports = obj(R"({"metadata":{"name":"a"},"spec":{}})");
    auto r = s.create(ctx_at(), resources::services(), "default", no_ports);
    REQUIRE_FALSE(r);
    CHECK(r.error().api_status()->details->causes.at(0).field == "spec.ports");
    auto bad_port = obj(R"({"metadata":{"name":"b"},"spec":{"ports":[{"port":70000}]}})");
    r = s.create(ctx_at(), resources::services(), "default", bad_port);
    REQUIRE_FALSE(r);
    CHECK(r.error().api_status()->details->causes.at(0).field == "spec.ports[0].port");
    auto bad_type = obj(R"({"metadata":{"name":"c"},"spec":{"type":"Weird","ports":[{"port":80}]}})");
    r = s.create(ctx_at(), resources::services(), "default", bad_type);
    REQUIRE_FALSE(r);
    CHECK(r.error().api_status()->details->causes.at(0).type == "FieldValueNotSupported");
    auto unnamed = obj(R"({"metadata":{"name":"d"},"spec":{"ports":[{"port":80},{"port":81}]}})");
    r = s.create(ctx_at(), resources::services(), "default", unnamed);
    REQUIRE_FALSE(r);
    CHECK(r.error().api_status()->details->causes.at(0).field == "spec.ports[0].name");
}

TEST_CASE("deployments: defaults") {
    object_store s;
    auto r = s.create(ctx_at(), resources::deployments(), "default", deployment("d"));
    REQUIRE(r);
    CHECK(find_path(*r, {"spec", "replicas"})->as_int64() == 1);
    CHECK(find_path(*r, {"spec", "revisionHistoryLimit"})->as_int64() == 10);
    CHECK(find_path(*r, {"spec", "progressDeadlineSeconds"})->as_int64() == 600);
    CHECK(str_at(*r, {"spec", "strategy", "type"}) == "RollingUpdate");
    CHECK(str_at(*r, {"spec", "strategy", "rollingUpdate", "maxSurge"}) == "25%");
    CHECK(str_at(*r, {"spec", "strategy", "rollingUpdate", "maxUnavailable"}) == "25%");
    CHECK(str_at(*r, {"spec", "template", "spec", "restartPolicy"}) == "Always");
    const auto& c = find_path(*r, {"spec", "template", "spec", "containers"})->as_array()[0].as_object();
    CHECK(c.at("imagePullPolicy") == "IfNotPresent");
    CHECK(c.at("terminationMessagePolicy") == "File");
    CHECK(generation_of(*r) == 1);
}

TEST_CASE("deployments: selector required and must match the template labels") {
    object_store s;
    auto no_sel = deployment("a");
    no_sel["spec"].as_object().erase("selector");
    auto r = s.create(ctx_at(), resources::deployments(), "default", no_sel);
    REQUIRE_FALSE(r);
    CHECK(r.error().api_status()->details->causes.at(0).field == "spec.selector");
    r = s.create(ctx_at(), resources::deployments(), "default", deployment("b", "web", "db"));
    REQUIRE_FALSE(r);
    CHECK(is_invalid(r.error()));
    CHECK(status_message(r.error()) ==
          "Deployment.apps \"b\" is invalid: spec.template.metadata.labels: Invalid value: "
          "map[string]string{\"app\":\"db\"}: `selector` does not match template `labels`");
    auto no_image = deployment("c");
    no_image["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object().erase("image");
    r = s.create(ctx_at(), resources::deployments(), "default", no_image);
    REQUIRE_FALSE(r);
    CHECK(r.error().api_status()->details->causes.at(0).field == "spec.template.spec.containers[0].image");
}

TEST_CASE("deployments: generation bumps on spec changes only; status via /status") {
    object_store s;
    auto d = s.create(ctx_at(), resources::deployments(), "default", deployment("d"));
    REQUIRE(d);
    auto labeled = *d;
    set_label(labeled, "x", "1");
    auto r1 = s.update(ctx_at(), resources::deployments(), "default", "d", labeled);
    REQUIRE(r1);
    CHECK(generation_of(*r1) == 1);
    auto scaled = *r1;
    scaled["spec"].as_object()["replicas"] = 3;
    auto r2 = s.update(ctx_at(), resources::deployments(), "default", "d", scaled);
    REQUIRE(r2);
    CHECK(generation_of(*r2) == 2);
    auto st = *r2;
    st["status"] = obj(R"({"observedGeneration":2,"replicas":3})");
    auto r3 = s.update(ctx_at(), resources::deployments(), "default", "d", st, subresource::status);
    REQUIRE(r3);
    CHECK(generation_of(*r3) == 2);
    CHECK(find_path(*r3, {"status", "replicas"})->as_int64() == 3);
}

TEST_CASE("workload simulation: status after the delay from the last spec change") {
    store_config cfg;
    cfg.simulate_workloads = true;
    cfg.simulate_delay = std::chrono::seconds(2);
    object_store s(cfg, t0());
    auto d0 = deployment("d");
    d0["spec"].as_object()["replicas"] = 2;
    REQUIRE(s.create(ctx_at(), resources::deployments(), "default", d0));
    CHECK_FALSE(s.simulate_step(t0() + std::chrono::seconds(1)));
    CHECK(s.simulate_step(t0() + std::chrono::seconds(2)));
    auto d = *s.get(resources::deployments(), "default", "d");
    CHECK(find_path(d, {"status", "observedGeneration"})->as_int64() == 1);
    CHECK(find_path(d, {"status", "readyReplicas"})->as_int64() == 2);
    CHECK(find_path(d, {"status", "availableReplicas"})->as_int64() == 2);
    std::set<std::string> conds;
    for (const auto& c : find_path(d, {"status", "conditions"})->as_array()) {
        if (c.at("status") == "True") conds.insert(std::string(c.at("type").as_string()));
    }
    CHECK(conds == std::set<std::string>{"Available", "Progressing"});
    CHECK_FALSE(s.simulate_step(t0() + std::chrono::seconds(3)));  // settled
    // A spec change restarts the delay.
    auto later = t0() + std::chrono::seconds(10);
    d["spec"].as_object()["replicas"] = 4;
    REQUIRE(s.update(ctx_at(later), resources::deployments(), "default", "d", d));
    CHECK_FALSE(s.simulate_step(later + std::chrono::seconds(1)));
    CHECK(s.simulate_step(later + std::chrono::seconds(2)));
    auto d2 = *s.get(resources::deployments(), "default", "d");
    CHECK(find_path(d2, {"status", "observedGeneration"})->as_int64() == 2);
    CHECK(find_path(d2, {"status", "readyReplicas"})->as_int64() == 4);
    // Switched off: nothing happens.
    s.set_simulation(false, std::chrono::seconds(0));
    d2["spec"].as_object()["replicas"] = 1;
    REQUIRE(s.update(ctx_at(later), resources::deployments(), "default", "d", d2));
    CHECK_FALSE(s.simulate_step(later + std::chrono::hours(1)));
}

TEST_CASE("object meta validation: owner references need uid, name, kind, apiVersion") {
    resource_def def;
    def.gvr = resources::configmaps();
    def.kind = "ConfigMap";
    auto o = obj(R"({"metadata":{"name":"x","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o"}]}})");
    auto causes = validate_object_meta(def, o);
    REQUIRE(causes.size() == 1);
    CHECK(causes[0].field == "metadata.ownerReferences.uid");
}
