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

// --- pkg/apis/core/validation and friends, through the store -------------------

TEST_CASE("configmaps: keys as IsConfigMapKey, binaryData duplicates, immutable") {
    object_store s;
    auto bad = obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a b":"1","..x":"2"}})");
    auto r = s.create(ctx_at(), resources::configmaps(), "default", bad);
    REQUIRE_FALSE(r);
    CHECK(status_message(r.error()) ==
          "ConfigMap \"c\" is invalid: [data[a b]: Invalid value: \"a b\": a valid config key must consist of "
          "alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for "
          "validation is '[-._a-zA-Z0-9]+'), data[..x]: Invalid value: \"..x\": must not start with '..']");
    auto dup = obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},"data":{"k":"1"},"binaryData":{"k":"MQ=="}})");
    auto r2 = s.create(ctx_at(), resources::configmaps(), "default", dup);
    REQUIRE_FALSE(r2);
    CHECK(status_message(r2.error()) ==
          "ConfigMap \"d\" is invalid: data[k]: Invalid value: \"k\": duplicate of key present in binaryData");

    auto imm = configmap("imm", "one");
    imm["immutable"] = true;
    auto created = s.create(ctx_at(), resources::configmaps(), "default", imm);
    REQUIRE(created);
    auto next = *created;
    next["data"].as_object()["k"] = "two";
    auto u = s.update(ctx_at(), resources::configmaps(), "default", "imm", next);
    REQUIRE_FALSE(u);
    CHECK(status_message(u.error()) ==
          "ConfigMap \"imm\" is invalid: data: Forbidden: field is immutable when `immutable` is set");
    auto unset = *created;
    unset.erase("immutable");
    auto u2 = s.update(ctx_at(), resources::configmaps(), "default", "imm", unset);
    REQUIRE_FALSE(u2);
    CHECK(status_message(u2.error()) ==
          "ConfigMap \"imm\" is invalid: immutable: Forbidden: field is immutable when `immutable` is set");
    // metadata may still change
    auto labelled = *created;
    set_label(labelled, "a", "b");
    CHECK(s.update(ctx_at(), resources::configmaps(), "default", "imm", labelled));
}

TEST_CASE("secrets: stringData folds into data, type defaults to Opaque and is immutable, type rules") {
    object_store s;
    auto sec = obj(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"password":"hunter2"}})");
    auto r = s.create(ctx_at(), resources::secrets(), "default", sec);
    REQUIRE(r);
    CHECK(r->at("type") == "Opaque");
    CHECK(r->at("data").at("password") == "aHVudGVyMg==");
    CHECK_FALSE(r->contains("stringData"));
    auto retyped = *r;
    retyped["type"] = "kubernetes.io/tls";
    auto u = s.update(ctx_at(), resources::secrets(), "default", "s", retyped);
    REQUIRE_FALSE(u);
    CHECK(status_message(u.error()).find("type: Invalid value: \"kubernetes.io/tls\": field is immutable") !=
          std::string::npos);
    auto tls = obj(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"t"},"type":"kubernetes.io/tls","data":{"tls.crt":""}})");
    auto r2 = s.create(ctx_at(), resources::secrets(), "default", tls);
    REQUIRE_FALSE(r2);
    CHECK(status_message(r2.error()) == "Secret \"t\" is invalid: data[tls.key]: Required value");
}

TEST_CASE("secrets: stringData folds into data whatever the body's size (the object may rehash)") {
    // Regression (libFuzzer, builtin_write): adding "data" rehashed the body
    // while stringData was still read through a pointer into it.
    object_store s;
    for (int extra = 0; extra < 40; ++extra) {
        CAPTURE(extra);
        json::object sec = obj(R"({"apiVersion":"v1","kind":"Secret","stringData":{"k":"v"}})");
        for (int i = 0; i < extra; ++i) sec["x" + std::to_string(i)] = i;
        mutable_metadata(sec)["name"] = "s" + std::to_string(extra);
        auto r = s.create(ctx_at(), resources::secrets(), "default", sec);
        REQUIRE(r);
        CHECK(r->at("data").at("k") == "dg==");
        CHECK_FALSE(r->contains("stringData"));
    }
}

TEST_CASE("leases: leaseDurationSeconds > 0; an update needs a resourceVersion (no unconditional update)") {
    object_store s;
    auto l = obj(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},
        "spec":{"holderIdentity":"a","leaseDurationSeconds":0,"renewTime":"2026-01-02T03:04:05.000000Z"}})");
    auto r = s.create(ctx_at(), resources::leases(), "default", l);
    REQUIRE_FALSE(r);
    CHECK(status_message(r.error()) ==
          "Lease.coordination.k8s.io \"l\" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0");
    l["spec"].as_object()["leaseDurationSeconds"] = 15;
    auto ok = s.create(ctx_at(), resources::leases(), "default", l);
    REQUIRE(ok);
    auto next = *ok;
    mutable_metadata(next).erase("resourceVersion");
    auto u = s.update(ctx_at(), resources::leases(), "default", "l", next);
    REQUIRE_FALSE(u);
    CHECK(u.error().http_code() == 422);
    CHECK(status_message(u.error()) ==
          "leases.coordination.k8s.io \"l\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified "
          "for an update");
}

TEST_CASE("deployments: the pod template's containers, env, ports and volume mounts are validated") {
    object_store s;
    auto d = deployment("v");
    auto& c = d["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object();
    c["env"] = json::array{json::object{{"value", "1"}}, json::object{{"name", "A=B"}}};
    c["ports"] = json::array{json::object{{"containerPort", 70000}, {"protocol", "HTTP"}}};
    c["volumeMounts"] = json::array{json::object{{"name", "missing"}, {"mountPath", "/m"}}};
    auto r = s.create(ctx_at(), resources::deployments(), "default", d);
    REQUIRE_FALSE(r);
    CHECK(status_message(r.error()) ==
          "Deployment.apps \"v\" is invalid: [spec.template.spec.containers[0].ports[0].containerPort: Invalid value: "
          "70000: must be between 1 and 65535, inclusive, spec.template.spec.containers[0].ports[0].protocol: "
          "Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", \"UDP\", "
          "spec.template.spec.containers[0].env[0].name: Required value, "
          "spec.template.spec.containers[0].env[1].name: Invalid value: \"A=B\": a valid environment variable name "
          "must consist only of printable ASCII characters other than '=', "
          "spec.template.spec.containers[0].volumeMounts[0].name: Not found: \"missing\"]");
}

TEST_CASE("strategic merge: $patch replace on an absent env is dropped; in a new container it is a literal element") {
    // 1.32 (removeDirectives in patch.go v0.32), checked against a real
    // v1.32.13 (issue 22); 1.24 answered issue 13's 422 here.
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::deployments(), "default", deployment("web")));
    std::vector<std::string> warnings;
    auto ctx = ctx_at();
    ctx.warnings = &warnings;
    auto absent = s.patch(ctx, resources::deployments(), "default", "web", patch_type::strategic,
                          R"({"spec":{"template":{"spec":{"containers":[{"name":"c","env":[{"$patch":"replace"},{"name":"A","value":"1"}]}]}}}})");
    REQUIRE(absent);
    CHECK(json::serialize(absent->at("spec").at("template").at("spec").at("containers").at(0).at("env")) ==
          R"([{"name":"A","value":"1"}])");
    CHECK(warnings.empty());
    // A container new to the list is appended as the patch has it.
    auto r = s.patch(ctx, resources::deployments(), "default", "web", patch_type::strategic,
                     R"({"spec":{"template":{"spec":{"containers":[{"name":"n","image":"x","env":[{"$patch":"replace"}]}]}}}})");
    REQUIRE_FALSE(r);
    CHECK(r.error().http_code() == 422);
    CHECK(status_message(r.error()) ==
          "Deployment.apps \"web\" is invalid: spec.template.spec.containers[0].env[0].name: Required value");
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == R"(unknown field "spec.template.spec.containers[0].env[0].$patch")");
    // With env present the directive replaces the list.
    REQUIRE(s.patch(ctx_at(), resources::deployments(), "default", "web", patch_type::strategic,
                    R"({"spec":{"template":{"spec":{"containers":[{"name":"c","env":[{"name":"OLD","value":"0"}]}]}}}})"));
    auto ok = s.patch(ctx_at(), resources::deployments(), "default", "web", patch_type::strategic,
                      R"({"spec":{"template":{"spec":{"containers":[{"name":"c","env":[{"$patch":"replace"},{"name":"A","value":"1"}]}]}}}})");
    REQUIRE(ok);
    CHECK(json::serialize(ok->at("spec").at("template").at("spec").at("containers").at(0).at("env")) ==
          R"([{"name":"A","value":"1"}])");
}

TEST_CASE("deployments /status: counts are checked against replicas (ValidateDeploymentStatus)") {
    object_store s;
    auto d = s.create(ctx_at(), resources::deployments(), "default", deployment("st"));
    REQUIRE(d);
    auto next = *d;
    next["status"] = json::object{{"replicas", 1}, {"readyReplicas", 2}, {"availableReplicas", 1}};
    auto r = s.update(ctx_at(), resources::deployments(), "default", "st", next, subresource::status);
    REQUIRE_FALSE(r);
    CHECK(status_message(r.error()) ==
          "Deployment.apps \"st\" is invalid: status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas");
}

TEST_CASE("services: duplicate port names and (protocol, port) pairs") {
    object_store s;
    auto svc = service("dup");
    svc["spec"].as_object()["ports"] = json::array{json::object{{"name", "a"}, {"port", 80}},
                                                   json::object{{"name", "a"}, {"port", 80}}};
    auto r = s.create(ctx_at(), resources::services(), "default", svc);
    REQUIRE_FALSE(r);
    CHECK(status_message(r.error()) ==
          "Service \"dup\" is invalid: [spec.ports[1].name: Duplicate value: \"a\", spec.ports[1]: Duplicate value: "
          "core.ServicePort{Name:\"\", Protocol:\"TCP\", AppProtocol:(*string)(nil), Port:80, "
          "TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}]");
}

TEST_CASE("a terminating namespace carries the namespace controller's conditions") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::namespaces(), "", obj(R"({"metadata":{"name":"gone"}})")));
    auto held = configmap("held");
    mutable_metadata(held)["finalizers"] = json::array{"example.com/hold"};
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "gone", held));
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "gone", configmap("free")));
    REQUIRE(s.remove(ctx_at(), resources::namespaces(), "", "gone"));
    for (int i = 0; i < 5 && s.gc_step(t0()); ++i) {
    }
    auto ns = s.get(resources::namespaces(), "", "gone");
    REQUIRE(ns);
    const auto& conds = ns->at("status").at("conditions").as_array();
    REQUIRE(conds.size() == 5);
    auto cond = [&](std::string_view type) -> const json::object& {
        for (const auto& c : conds) {
            if (c.at("type").as_string() == type) return c.as_object();
        }
        FAIL("no condition " << type);
        return conds[0].as_object();
    };
    CHECK(cond("NamespaceDeletionDiscoveryFailure").at("status") == "False");
    CHECK(cond("NamespaceDeletionDiscoveryFailure").at("reason") == "ResourcesDiscovered");
    CHECK(cond("NamespaceDeletionGroupVersionParsingFailure").at("message") == "All legacy kube types successfully parsed");
    CHECK(cond("NamespaceDeletionContentFailure").at("reason") == "ContentDeleted");
    CHECK(cond("NamespaceContentRemaining").at("status") == "True");
    CHECK(cond("NamespaceContentRemaining").at("reason") == "SomeResourcesRemain");
    CHECK(cond("NamespaceContentRemaining").at("message") == "Some resources are remaining: configmaps. has 1 resource instances");
    CHECK(cond("NamespaceFinalizersRemaining").at("reason") == "SomeFinalizersRemain");
    CHECK(cond("NamespaceFinalizersRemaining").at("message") ==
          "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances");
    // The finalizer goes, the namespace goes.
    auto cm = s.get(resources::configmaps(), "gone", "held");
    REQUIRE(cm);
    auto released = *cm;
    mutable_metadata(released).erase("finalizers");
    REQUIRE(s.update(ctx_at(), resources::configmaps(), "gone", "held", released));
    for (int i = 0; i < 5 && s.gc_step(t0()); ++i) {
    }
    CHECK_FALSE(s.get(resources::namespaces(), "", "gone"));
}

TEST_CASE("deleting with finalizers: deletionTimestamp and deletionGracePeriodSeconds 0; generation only where kept") {
    object_store s;
    auto cm = configmap("f");
    mutable_metadata(cm)["finalizers"] = json::array{"example.com/hold"};
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", cm));
    auto d = s.remove(ctx_at(), resources::configmaps(), "default", "f");
    REQUIRE(d);
    CHECK_FALSE(d->deleted);
    CHECK(d->body.at("metadata").at("deletionGracePeriodSeconds") == 0);
    CHECK(d->body.at("metadata").as_object().contains("deletionTimestamp"));
    // markAsDeleting bumps generation only when there is one (ConfigMaps have none)
    CHECK_FALSE(d->body.at("metadata").as_object().contains("generation"));
}

TEST_CASE("deployments: rolling update 0/0 and a progress deadline within minReadySeconds are refused") {
    object_store s;
    auto d = deployment("ru");
    d["spec"].as_object()["strategy"] = json::object{{"type", "RollingUpdate"},
                                                      {"rollingUpdate", json::object{{"maxUnavailable", 0}, {"maxSurge", "0%"}}}};
    d["spec"].as_object()["minReadySeconds"] = 700;
    auto r = s.create(ctx_at(), resources::deployments(), "default", d);
    REQUIRE_FALSE(r);
    CHECK(status_message(r.error()) ==
          "Deployment.apps \"ru\" is invalid: [spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 "
          "when `maxSurge` is 0, spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds]");
}

TEST_CASE("finalizer names: core's validateKubeFinalizerName and the orphan/foregroundDeletion pair") {
    // pkg/apis/core/validation/validation.go ValidateObjectMeta; apimachinery
    // ValidateFinalizers. Texts as a real v1.32.13 answers them.
    object_store s;
    json::object bad{{"metadata", json::object{{"name", "f1"}, {"finalizers", json::array{"bad"}}}}};
    auto r = s.create(ctx_at(), resources::configmaps(), "default", bad);
    REQUIRE_FALSE(r);
    CHECK(status_message(r.error()) ==
          "ConfigMap \"f1\" is invalid: metadata.finalizers[0]: Invalid value: \"bad\": name is neither a standard "
          "finalizer name nor is it fully qualified");
    json::object both{{"metadata", json::object{{"name", "f2"}, {"finalizers", json::array{"orphan", "foregroundDeletion", "a/b"}}}}};
    auto r2 = s.create(ctx_at(), resources::configmaps(), "default", both);
    REQUIRE_FALSE(r2);
    CHECK(status_message(r2.error()) ==
          "ConfigMap \"f2\" is invalid: metadata.finalizers: Invalid value: []string{\"orphan\", \"foregroundDeletion\", "
          "\"a/b\"}: finalizer orphan and foregroundDeletion cannot be both set");
    json::object ok{{"metadata", json::object{{"name", "f3"}, {"finalizers", json::array{"kubernetes", "orphan", "x.io/y"}}}}};
    CHECK(s.create(ctx_at(), resources::configmaps(), "default", ok));
}

TEST_CASE("a Service port's targetPort of 0 or \"\" is unset: defaulted to the port (SetDefaults_Service)") {
    // Go clients always send targetPort (an IntOrString struct): 0 in JSON and in protobuf when unset.
    object_store s;
    auto r = s.create(ctx_at(), resources::services(), "default",
                      obj(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"t"},"spec":{"ports":[
                            {"name":"a","port":81,"targetPort":0},{"name":"b","port":82,"targetPort":""},
                            {"name":"c","port":83,"targetPort":"http"}]}})"));
    REQUIRE(r);
    const auto& ports = find_path(*r, {"spec", "ports"})->as_array();
    CHECK(ports[0].at("targetPort") == 81);
    CHECK(ports[1].at("targetPort") == 82);
    CHECK(ports[2].at("targetPort") == "http");
}

TEST_CASE("services: ExternalName gets no cluster IP; a headless one keeps None in clusterIPs (v1.32.13)") {
    object_store s;
    auto ext = obj(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"ext"},
        "spec":{"type":"ExternalName","externalName":"example.com"}})");
    auto e = s.create(ctx_at(), resources::services(), "default", ext);
    REQUIRE(e);
    CHECK(find_path(*e, {"spec", "clusterIP"}) == nullptr);
    CHECK(find_path(*e, {"spec", "clusterIPs"}) == nullptr);
    auto headless = service("headless");
    headless["spec"].as_object()["clusterIP"] = "None";
    auto h = s.create(ctx_at(), resources::services(), "default", headless);
    REQUIRE(h);
    CHECK(json::serialize(*find_path(*h, {"spec", "clusterIPs"})) == R"(["None"])");
}

TEST_CASE("deployments: an empty selector is invalid (not missing), printed as Go's %#v of the LabelSelector") {
    object_store s;
    auto d = deployment("d");
    d["spec"].as_object()["selector"] = json::object{};
    auto r = s.create(ctx_at(), resources::deployments(), "default", d);
    REQUIRE_FALSE(r);
    CHECK(status_message(r.error()).find(
              "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
              "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment") !=
          std::string::npos);
    d["spec"].as_object()["selector"] = json::parse(R"({"matchLabels":{},"matchExpressions":[]})");
    r = s.create(ctx_at(), resources::deployments(), "default", d);
    REQUIRE_FALSE(r);
    CHECK(status_message(r.error()).find("v1.LabelSelector{MatchLabels:map[string]string{}, "
                                         "MatchExpressions:[]v1.LabelSelectorRequirement{}}") != std::string::npos);
    d["spec"].as_object().erase("selector");
    r = s.create(ctx_at(), resources::deployments(), "default", d);
    REQUIRE_FALSE(r);
    CHECK(status_message(r.error()).find("spec.selector: Required value") != std::string::npos);
}
