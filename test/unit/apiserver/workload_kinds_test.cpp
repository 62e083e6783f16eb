// The workload, RBAC and policy kinds (issue 23) through the store: the
// defaults and validation of v1.32 (store/workload_rules.cpp,
// store/rbac_rules.cpp, store/stored_kind_rules.cpp).
#include "store/object_store.hpp"
#include "store_test_support.hpp"

#include <doctest/doctest.h>

using namespace kcoro;
using namespace kcoro::apiserver;
using namespace kcoro::apiserver::test;
namespace json = boost::json;

namespace {

const group_version_resource pods{"", "v1", "pods"};
const group_version_resource jobs{"batch", "v1", "jobs"};
const group_version_resource cronjobs{"batch", "v1", "cronjobs"};
const group_version_resource replicasets{"apps", "v1", "replicasets"};
const group_version_resource statefulsets{"apps", "v1", "statefulsets"};
const group_version_resource daemonsets{"apps", "v1", "daemonsets"};
const group_version_resource roles{"rbac.authorization.k8s.io", "v1", "roles"};
const group_version_resource rolebindings{"rbac.authorization.k8s.io", "v1", "rolebindings"};
const group_version_resource clusterrolebindings{"rbac.authorization.k8s.io", "v1", "clusterrolebindings"};
const group_version_resource pdbs{"policy", "v1", "poddisruptionbudgets"};
const group_version_resource netpols{"networking.k8s.io", "v1", "networkpolicies"};
const group_version_resource pvcs{"", "v1", "persistentvolumeclaims"};

std::int64_t int_at(const json::object& o, std::initializer_list<std::string_view> path) {
    const auto* v = find_path(o, path);
    return v && v->is_number() ? v->to_number<std::int64_t>() : -1;
}

json::object pod(std::string_view containers) {
    auto p = obj(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{}})");
    p["spec"].as_object()["containers"] = json::parse(containers);
    return p;
}

json::object template_kind(std::string_view api_version, std::string_view kind, std::string_view name) {
    auto o = obj(R"({"spec":{"selector":{"matchLabels":{"app":"a"}},
        "template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"busybox:1.36"}]}}}})");
    o["apiVersion"] = api_version;
    o["kind"] = kind;
    mutable_metadata(o)["name"] = name;
    return o;
}

} // namespace

TEST_CASE("a pod as kubectl run writes it: pod defaults, admission, Pending, BestEffort, no generation") {
    object_store s;
    s.set_service_account_controller(true, t0());
    auto r = s.create(ctx_at(), pods, "default", pod(R"([{"name":"p","image":"busybox"}])"));
    REQUIRE(r);
    CHECK(str_at(*r, {"status", "phase"}) == "Pending");
    CHECK(str_at(*r, {"status", "qosClass"}) == "BestEffort");
    CHECK(str_at(*r, {"spec", "restartPolicy"}) == "Always");
    CHECK(str_at(*r, {"spec", "dnsPolicy"}) == "ClusterFirst");
    CHECK(int_at(*r, {"spec", "terminationGracePeriodSeconds"}) == 30);
    CHECK(*find_path(*r, {"spec", "enableServiceLinks"}) == json::value(true));
    CHECK(int_at(*r, {"spec", "priority"}) == 0);
    CHECK(str_at(*r, {"spec", "preemptionPolicy"}) == "PreemptLowerPriority");
    const auto& tol = find_path(*r, {"spec", "tolerations"})->as_array();
    REQUIRE(tol.size() == 2);
    CHECK(tol[0].as_object().at("key") == "node.kubernetes.io/not-ready");
    CHECK(tol[1].as_object().at("key") == "node.kubernetes.io/unreachable");
    CHECK(tol[1].as_object().at("tolerationSeconds") == 300);
    CHECK(find_path(*r, {"metadata", "generation"}) == nullptr);
    const auto& c = find_path(*r, {"spec", "containers"})->as_array()[0].as_object();
    CHECK(c.at("imagePullPolicy") == "Always");

    // A status update keeps the spec; the main endpoint keeps the status.
    auto running = *r;
    running["status"] = json::object{{"phase", "Running"}};
    auto st = s.update(ctx_at(), pods, "default", "p", running, subresource::status);
    REQUIRE(st);
    CHECK(str_at(*st, {"status", "phase"}) == "Running");
    auto main = *st;
    main["status"] = json::object{{"phase", "Failed"}};
    mutable_metadata(main)["labels"] = json::object{{"x", "y"}};
    auto m = s.update(ctx_at(), pods, "default", "p", main);
    REQUIRE(m);
    CHECK(str_at(*m, {"status", "phase"}) == "Running");
}

TEST_CASE("pods: QoS classes, requests defaulted from limits, a toleration already there is not doubled") {
    object_store s;
    s.set_service_account_controller(true, t0());
    auto g = pod(R"([{"name":"c","image":"x:1","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}])");
    auto r = s.create(ctx_at(), pods, "default", g);
    REQUIRE(r);
    CHECK(str_at(*r, {"status", "qosClass"}) == "Guaranteed");
    CHECK(find_path(*r, {"spec", "containers"})->as_array()[0].as_object().at("resources").as_object().at("requests") ==
          json::parse(R"({"cpu":"1","memory":"1Gi"})"));
    auto b = pod(R"([{"name":"c","image":"x:1","resources":{"requests":{"cpu":"100m"}}}])");
    mutable_metadata(b)["name"] = "b";
    b["spec"].as_object()["tolerations"] = json::parse(R"([{"operator":"Exists"}])");
    r = s.create(ctx_at(), pods, "default", b);
    REQUIRE(r);
    CHECK(str_at(*r, {"status", "qosClass"}) == "Burstable");
    CHECK(find_path(*r, {"spec", "tolerations"})->as_array().size() == 1);  // tolerates every taint already

    auto none = pod("[]");
    mutable_metadata(none)["name"] = "none";
    auto bad = s.create(ctx_at(), pods, "default", none);
    REQUIRE_FALSE(bad);
    CHECK(status_message(bad.error()).find("Pod \"none\" is invalid: spec.containers: Required value") != std::string::npos);
}

TEST_CASE("jobs: defaults, the generated selector and labels, restartPolicy, immutable fields") {
    object_store s;
    auto j = obj(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
        "spec":{"template":{"spec":{"containers":[{"name":"c","image":"busybox"}],"restartPolicy":"Never"}}}})");
    auto r = s.create(ctx_at(), jobs, "default", j);
    REQUIRE(r);
    const std::string uid(uid_of(*r));
    CHECK(int_at(*r, {"spec", "completions"}) == 1);
    CHECK(int_at(*r, {"spec", "parallelism"}) == 1);
    CHECK(int_at(*r, {"spec", "backoffLimit"}) == 6);
    CHECK(str_at(*r, {"spec", "completionMode"}) == "NonIndexed");
    CHECK(str_at(*r, {"spec", "podReplacementPolicy"}) == "TerminatingOrFailed");
    CHECK(str_at(*r, {"spec", "selector", "matchLabels", "batch.kubernetes.io/controller-uid"}) == uid);
    CHECK(find_path(*r, {"spec", "selector", "matchLabels"})->as_object().size() == 1);
    for (const char* l : {"batch.kubernetes.io/job-name", "job-name"}) {
        CHECK(str_at(*r, {"spec", "template", "metadata", "labels", l}) == "j");
        CHECK(str_at(*r, {"metadata", "labels", l}) == "j");
    }
    CHECK(str_at(*r, {"spec", "template", "metadata", "labels", "controller-uid"}) == uid);
    CHECK(int_at(*r, {"metadata", "generation"}) == 1);
    CHECK(find_path(*r, {"status"})->as_object().empty());

    // Parallelism alone leaves completions unset (a work queue).
    auto wq = j;
    mutable_metadata(wq)["name"] = "wq";
    wq["spec"].as_object()["parallelism"] = 3;
    auto w = s.create(ctx_at(), jobs, "default", wq);
    REQUIRE(w);
    CHECK(find_path(*w, {"spec", "completions"}) == nullptr);

    auto always = j;
    mutable_metadata(always)["name"] = "always";
    always["spec"].as_object()["template"].as_object()["spec"].as_object().erase("restartPolicy");
    auto a = s.create(ctx_at(), jobs, "default", always);
    REQUIRE_FALSE(a);
    CHECK(status_message(a.error()).find(
              "spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"") !=
          std::string::npos);

    auto changed = *r;
    changed["spec"].as_object()["completionMode"] = "Indexed";
    auto u = s.update(ctx_at(), jobs, "default", "j", changed);
    REQUIRE_FALSE(u);
    CHECK(status_message(u.error()).find("spec.completionMode: Invalid value: \"Indexed\": field is immutable") !=
          std::string::npos);
    auto image = *r;
    image["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object()["image"] = "other";
    CHECK_FALSE(s.update(ctx_at(), jobs, "default", "j", image));
    image["spec"].as_object()["suspend"] = true;  // a suspended job's template may change
    CHECK(s.update(ctx_at(), jobs, "default", "j", image));
}

TEST_CASE("cronjobs: defaults, the 52-character name, the schedule's fields") {
    object_store s;
    auto cj = obj(R"({"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"cj"},
        "spec":{"schedule":"0 * * * *","jobTemplate":{"spec":{"template":{"spec":{
          "containers":[{"name":"c","image":"busybox"}],"restartPolicy":"OnFailure"}}}}}})");
    auto r = s.create(ctx_at(), cronjobs, "default", cj);
    REQUIRE(r);
    CHECK(str_at(*r, {"spec", "concurrencyPolicy"}) == "Allow");
    CHECK(int_at(*r, {"spec", "successfulJobsHistoryLimit"}) == 3);
    CHECK(int_at(*r, {"spec", "failedJobsHistoryLimit"}) == 1);
    CHECK(str_at(*r, {"spec", "jobTemplate", "spec", "template", "spec", "dnsPolicy"}) == "ClusterFirst");
    auto long_name = cj;
    mutable_metadata(long_name)["name"] = std::string(53, 'a');
    auto l = s.create(ctx_at(), cronjobs, "default", long_name);
    REQUIRE_FALSE(l);
    CHECK(status_message(l.error()).find("must be no more than 52 characters") != std::string::npos);
    auto bad = cj;
    mutable_metadata(bad)["name"] = "bad";
    bad["spec"].as_object()["schedule"] = "* * *";
    auto b = s.create(ctx_at(), cronjobs, "default", bad);
    REQUIRE_FALSE(b);
    CHECK(status_message(b.error()).find(
              "spec.schedule: Invalid value: \"* * *\": expected exactly 5 fields, found 3: [* * *]") != std::string::npos);
    bad["spec"].as_object()["schedule"] = "@hourly";
    CHECK(s.create(ctx_at(), cronjobs, "default", bad));
}

TEST_CASE("apps: replicasets, statefulsets and daemonsets get their defaults and the template rules") {
    object_store s;
    auto rs = s.create(ctx_at(), replicasets, "default", template_kind("apps/v1", "ReplicaSet", "rs"));
    REQUIRE(rs);
    CHECK(int_at(*rs, {"spec", "replicas"}) == 1);
    CHECK(int_at(*rs, {"status", "replicas"}) == 0);
    CHECK(int_at(*rs, {"metadata", "generation"}) == 1);
    auto sts = s.create(ctx_at(), statefulsets, "default", template_kind("apps/v1", "StatefulSet", "sts"));
    REQUIRE(sts);
    CHECK(str_at(*sts, {"spec", "podManagementPolicy"}) == "OrderedReady");
    CHECK(int_at(*sts, {"spec", "updateStrategy", "rollingUpdate", "partition"}) == 0);
    CHECK(str_at(*sts, {"spec", "persistentVolumeClaimRetentionPolicy", "whenScaled"}) == "Retain");
    CHECK(int_at(*sts, {"spec", "revisionHistoryLimit"}) == 10);
    auto ds = s.create(ctx_at(), daemonsets, "default", template_kind("apps/v1", "DaemonSet", "ds"));
    REQUIRE(ds);
    CHECK(int_at(*ds, {"spec", "updateStrategy", "rollingUpdate", "maxUnavailable"}) == 1);
    CHECK(int_at(*ds, {"spec", "updateStrategy", "rollingUpdate", "maxSurge"}) == 0);
    CHECK(int_at(*ds, {"status", "numberReady"}) == 0);

    // The template must match the selector; the message names the kind.
    auto mismatch = template_kind("apps/v1", "StatefulSet", "mm");
    mismatch["spec"].as_object()["selector"] = json::parse(R"({"matchLabels":{"app":"b"}})");
    auto m = s.create(ctx_at(), statefulsets, "default", mismatch);
    REQUIRE_FALSE(m);
    CHECK(status_message(m.error()).find("`selector` does not match template `labels`") != std::string::npos);
    auto empty = template_kind("apps/v1", "DaemonSet", "empty");
    empty["spec"].as_object()["selector"] = json::object{};
    auto e = s.create(ctx_at(), daemonsets, "default", empty);
    REQUIRE_FALSE(e);
    CHECK(status_message(e.error()).find("empty selector is invalid for daemonset") != std::string::npos);

    // A StatefulSet's serviceName never changes; its replicas do.
    auto next = *sts;
    next["spec"].as_object()["replicas"] = 3;
    auto ok = s.update(ctx_at(), statefulsets, "default", "sts", next);
    REQUIRE(ok);
    next = *ok;
    next["spec"].as_object()["serviceName"] = "other";
    auto forbidden = s.update(ctx_at(), statefulsets, "default", "sts", next);
    REQUIRE_FALSE(forbidden);
    CHECK(status_message(forbidden.error()).find("spec: Forbidden: updates to statefulset spec for fields other than") !=
          std::string::npos);
}

TEST_CASE("rbac: path-segment names, policy rules, binding defaults, roleRef immutable") {
    object_store s;
    auto role = obj(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"system:r"},
        "rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]})");
    REQUIRE(s.create(ctx_at(), roles, "default", role));
    auto slash = role;
    mutable_metadata(slash)["name"] = "a/b";
    auto sl = s.create(ctx_at(), roles, "default", slash);
    REQUIRE_FALSE(sl);
    CHECK(status_message(sl.error()).find("metadata.name: Invalid value: \"a/b\": may not contain '/'") != std::string::npos);
    auto bad = role;
    mutable_metadata(bad)["name"] = "bad";
    bad["rules"] = json::parse(R"([{"verbs":["get"]},{"verbs":["get"],"nonResourceURLs":["/x"]}])");
    auto b = s.create(ctx_at(), roles, "default", bad);
    REQUIRE_FALSE(b);
    const auto msg = status_message(b.error());
    CHECK(msg.find("rules[0].apiGroups: Required value: resource rules must supply at least one api group") != std::string::npos);
    CHECK(msg.find("rules[0].resources: Required value") != std::string::npos);
    CHECK(msg.find("rules[1].nonResourceURLs: Invalid value: []string{\"/x\"}: namespaced rules cannot apply to non-resource URLs") !=
          std::string::npos);

    auto rb = obj(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"rb"},
        "roleRef":{"kind":"Role","name":"system:r"},"subjects":[{"kind":"Group","name":"devs"}]})");
    auto r = s.create(ctx_at(), rolebindings, "default", rb);
    REQUIRE(r);
    CHECK(str_at(*r, {"roleRef", "apiGroup"}) == "rbac.authorization.k8s.io");
    CHECK(find_path(*r, {"subjects"})->as_array()[0].as_object().at("apiGroup") == "rbac.authorization.k8s.io");
    auto moved = *r;
    moved["roleRef"].as_object()["kind"] = "ClusterRole";
    auto u = s.update(ctx_at(), rolebindings, "default", "rb", moved);
    REQUIRE_FALSE(u);
    CHECK(status_message(u.error()).find("cannot change roleRef") != std::string::npos);

    auto crb = obj(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"crb"},
        "roleRef":{"kind":"Role","name":"r"},"subjects":[{"kind":"ServiceAccount","name":"sa"}]})");
    auto c = s.create(ctx_at(), clusterrolebindings, "", crb);
    REQUIRE_FALSE(c);
    const auto cmsg = status_message(c.error());
    CHECK(cmsg.find("roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\"") != std::string::npos);
    CHECK(cmsg.find("subjects[0].namespace: Required value") != std::string::npos);
}

TEST_CASE("pdbs, network policies and claims: their defaults and first rules") {
    object_store s;
    auto pdb = obj(R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"pdb"},
        "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"a"}}},"status":{"disruptionsAllowed":5}})");
    auto p = s.create(ctx_at(), pdbs, "default", pdb);
    REQUIRE(p);
    CHECK(int_at(*p, {"status", "disruptionsAllowed"}) == 0);
    CHECK(int_at(*p, {"status", "expectedPods"}) == 0);
    auto both = pdb;
    mutable_metadata(both)["name"] = "both";
    both["spec"].as_object()["maxUnavailable"] = "10%";
    auto b = s.create(ctx_at(), pdbs, "default", both);
    REQUIRE_FALSE(b);
    CHECK(status_message(b.error()).find("minAvailable and maxUnavailable cannot be both set") != std::string::npos);

    auto np = obj(R"({"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"np"},
        "spec":{"egress":[{"ports":[{"port":53}]}]}})");
    auto n = s.create(ctx_at(), netpols, "default", np);
    REQUIRE(n);
    CHECK(*find_path(*n, {"spec", "policyTypes"}) == json::parse(R"(["Ingress","Egress"])"));
    CHECK(find_path(*n, {"spec", "egress"})->as_array()[0].as_object().at("ports").as_array()[0].as_object().at("protocol") ==
          "TCP");

    auto pvc = obj(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c"},
        "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})");
    auto c = s.create(ctx_at(), pvcs, "default", pvc);
    REQUIRE(c);
    CHECK(str_at(*c, {"spec", "volumeMode"}) == "Filesystem");
    CHECK(str_at(*c, {"status", "phase"}) == "Pending");
    auto none = obj(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"n"},"spec":{}})");
    auto nc = s.create(ctx_at(), pvcs, "default", none);
    REQUIRE_FALSE(nc);
    CHECK(status_message(nc.error()).find("spec.accessModes: Required value: at least 1 access mode is required") !=
          std::string::npos);
}

TEST_CASE("the new kinds go with their namespace and their owner") {
    object_store s;
    s.set_service_account_controller(true, t0());
    auto ns = obj(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"gone"}})");
    REQUIRE(s.create(ctx_at(), resources::namespaces(), "", ns));
    auto rs = s.create(ctx_at(), replicasets, "gone", template_kind("apps/v1", "ReplicaSet", "rs"));
    REQUIRE(rs);
    auto p = pod(R"([{"name":"c","image":"x:1"}])");
    mutable_metadata(p)["ownerReferences"] = json::array{json::object{
        {"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"}, {"name", "rs"}, {"uid", uid_of(*rs)}, {"controller", true}}};
    REQUIRE(s.create(ctx_at(), pods, "gone", p));
    delete_options d;
    REQUIRE(s.remove(ctx_at(), replicasets, "gone", "rs", d));
    for (int i = 0; i < 5 && s.get(pods, "gone", "p"); ++i) s.gc_step(t0());
    CHECK_FALSE(s.get(pods, "gone", "p"));  // collected with its owner
    REQUIRE(s.create(ctx_at(), pods, "gone", pod(R"([{"name":"c","image":"x:1"}])")));
    REQUIRE(s.remove(ctx_at(), resources::namespaces(), "", "gone", d));
    for (int i = 0; i < 10 && s.get(resources::namespaces(), "", "gone"); ++i) s.gc_step(t0());
    CHECK_FALSE(s.get(pods, "gone", "p"));
    CHECK_FALSE(s.get(resources::namespaces(), "", "gone"));
}

TEST_CASE("claims carry pvc-protection until no pod names them (admission plugin and controller)") {
    object_store s;
    s.set_service_account_controller(true, t0());
    auto pvc = obj(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data"},
        "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})");
    auto c = s.create(ctx_at(), pvcs, "default", pvc);
    REQUIRE(c);
    CHECK(*find_path(*c, {"metadata", "finalizers"}) == json::parse(R"(["kubernetes.io/pvc-protection"])"));
    auto user = pod(R"([{"name":"c","image":"x:1"}])");
    user["spec"].as_object()["volumes"] = json::parse(R"([{"name":"d","persistentVolumeClaim":{"claimName":"data"}}])");
    REQUIRE(s.create(ctx_at(), pods, "default", user));
    delete_options d;
    REQUIRE(s.remove(ctx_at(), pvcs, "default", "data", d));
    for (int i = 0; i < 3; ++i) s.gc_step(t0());
    CHECK(s.get(pvcs, "default", "data"));  // in use: held
    REQUIRE(s.remove(ctx_at(), pods, "default", "p", d));
    for (int i = 0; i < 3 && s.get(pvcs, "default", "data"); ++i) s.gc_step(t0());
    CHECK_FALSE(s.get(pvcs, "default", "data"));
}

TEST_CASE("daemonsets count template generations in their annotation; slices' endpoints get conditions") {
    object_store s;
    auto ds = s.create(ctx_at(), daemonsets, "default", template_kind("apps/v1", "DaemonSet", "ds"));
    REQUIRE(ds);
    CHECK(str_at(*ds, {"metadata", "annotations", "deprecated.daemonset.template.generation"}) == "1");
    auto labels_only = *ds;
    mutable_metadata(labels_only)["labels"] = json::object{{"a", "b"}};
    auto l = s.update(ctx_at(), daemonsets, "default", "ds", labels_only);
    REQUIRE(l);
    CHECK(str_at(*l, {"metadata", "annotations", "deprecated.daemonset.template.generation"}) == "1");
    auto image = *l;
    image["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object()["image"] = "y:2";
    mutable_metadata(image)["annotations"].as_object()["deprecated.daemonset.template.generation"] = "9";  // not the client's
    auto u = s.update(ctx_at(), daemonsets, "default", "ds", image);
    REQUIRE(u);
    CHECK(str_at(*u, {"metadata", "annotations", "deprecated.daemonset.template.generation"}) == "2");

    auto slice = obj(R"({"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"es"},
        "addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}],"ports":[{"port":80}]})");
    auto es = s.create(ctx_at(), {"discovery.k8s.io", "v1", "endpointslices"}, "default", slice);
    REQUIRE(es);
    CHECK(find_path(*es, {"endpoints"})->as_array()[0].as_object().at("conditions") == json::object{});
    CHECK(find_path(*es, {"ports"})->as_array()[0] == json::parse(R"({"port":80,"name":"","protocol":"TCP"})"));
}

TEST_CASE("service accounts: the controller's `default` in every namespace, the admission plugin on pod create") {
    object_store s;
    const auto sas = resources::serviceaccounts();
    // Off (the store's default): a pod naming no account is refused, as a
    // real server without the controller refuses it.
    auto refused = s.create(ctx_at(), pods, "default", pod(R"([{"name":"c","image":"x:1"}])"));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().http_code() == 403);
    CHECK(status_message(refused.error()) ==
          "pods \"p\" is forbidden: error looking up service account default/default: serviceaccount \"default\" not found");

    s.set_service_account_controller(true, t0());
    CHECK(s.get(sas, "default", "default"));
    CHECK(s.get(sas, "kube-system", "default"));
    auto ns = obj(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fresh"}})");
    REQUIRE(s.create(ctx_at(), resources::namespaces(), "", ns));
    CHECK(s.get(sas, "fresh", "default"));  // at the namespace's create

    auto with_init = pod(R"([{"name":"c","image":"x:1"},{"name":"d","image":"x:1",
        "volumeMounts":[{"name":"own","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}])");
    with_init["spec"].as_object()["initContainers"] = json::parse(R"([{"name":"i","image":"x:1"}])");
    with_init["spec"].as_object()["volumes"] = json::parse(R"([{"name":"own","emptyDir":{}}])");
    auto r = s.create(ctx_at(), pods, "fresh", with_init);
    REQUIRE(r);
    CHECK(str_at(*r, {"spec", "serviceAccountName"}) == "default");
    CHECK(str_at(*r, {"spec", "serviceAccount"}) == "default");
    const auto& vols = find_path(*r, {"spec", "volumes"})->as_array();
    REQUIRE(vols.size() == 2);
    const auto vol_name = std::string(vols[1].as_object().at("name").as_string());
    CHECK(vol_name.starts_with("kube-api-access-"));
    CHECK(vol_name.size() == std::string("kube-api-access-").size() + 5);
    CHECK(vols[1].as_object().at("projected").as_object().at("defaultMode") == 420);
    CHECK(find_path(vols[1].as_object(), {"projected", "sources"})->as_array().size() == 3);
    const auto& cs = find_path(*r, {"spec", "containers"})->as_array();
    CHECK(cs[0].as_object().at("volumeMounts") ==
          json::parse(R"([{"name":")" + vol_name + R"(","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}])"));
    CHECK(cs[1].as_object().at("volumeMounts").as_array().size() == 1);  // its own mount at the path wins
    CHECK(find_path(*r, {"spec", "initContainers"})->as_array()[0].as_object().at("volumeMounts").as_array().size() == 1);

    // automountServiceAccountToken false on the account: no volume.
    auto quiet = obj(R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"quiet"},
        "automountServiceAccountToken":false,"imagePullSecrets":[{"name":"reg"}]})");
    REQUIRE(s.create(ctx_at(), sas, "fresh", quiet));
    auto q = pod(R"([{"name":"c","image":"x:1"}])");
    mutable_metadata(q)["name"] = "q";
    q["spec"].as_object()["serviceAccountName"] = "quiet";
    auto qr = s.create(ctx_at(), pods, "fresh", q);
    REQUIRE(qr);
    CHECK(find_path(*qr, {"spec", "volumes"}) == nullptr);
    CHECK(*find_path(*qr, {"spec", "imagePullSecrets"}) == json::parse(R"([{"name":"reg"}])"));
    auto missing = q;
    mutable_metadata(missing)["name"] = "m";
    missing["spec"].as_object()["serviceAccountName"] = "nobody";
    auto mr = s.create(ctx_at(), pods, "fresh", missing);
    REQUIRE_FALSE(mr);
    CHECK(status_message(mr.error()).find("serviceaccount \"nobody\" not found") != std::string::npos);

    // Deleted, `default` comes back; a terminating namespace is left alone.
    delete_options d;
    REQUIRE(s.remove(ctx_at(), sas, "fresh", "default", d));
    s.gc_step(t0());
    CHECK(s.get(sas, "fresh", "default"));
    REQUIRE(s.remove(ctx_at(), resources::namespaces(), "", "fresh", d));
    for (int i = 0; i < 10 && s.get(resources::namespaces(), "", "fresh"); ++i) s.gc_step(t0());
    CHECK_FALSE(s.get(resources::namespaces(), "", "fresh"));
    CHECK_FALSE(s.get(sas, "fresh", "default"));
}

TEST_CASE("the workload simulation: a Deployment's ReplicaSet and Pods, Ready after the delay; scaling; a new template") {
    store_config cfg;
    cfg.simulate_workloads = true;
    cfg.simulate_pods = true;
    cfg.simulate_delay = std::chrono::seconds(2);
    object_store s(cfg, t0());
    s.set_service_account_controller(true, t0());
    const group_version_resource deps = resources::deployments();
    auto d = template_kind("apps/v1", "Deployment", "web");
    d["spec"].as_object()["replicas"] = 2;
    auto made = s.create(ctx_at(), deps, "default", d);
    REQUIRE(made);
    auto settle = [&](wall_time at) {
        for (int i = 0; i < 10 && s.simulate_step(at); ++i) {
        }
    };
    auto list = [&](const group_version_resource& gvr) {
        auto l = s.list(gvr, "default", list_options{});
        REQUIRE(l);
        return l->at("items").as_array();
    };
    settle(t0());
    auto sets = list(replicasets);
    REQUIRE(sets.size() == 1);
    const auto& rs = sets[0].as_object();
    const std::string rs_name(name_of(rs));
    CHECK(rs_name.starts_with("web-"));
    CHECK(int_at(rs, {"spec", "replicas"}) == 2);
    const std::string hash = str_at(rs, {"spec", "template", "metadata", "labels", "pod-template-hash"});
    CHECK(!hash.empty());
    CHECK(str_at(rs, {"spec", "selector", "matchLabels", "pod-template-hash"}) == hash);
    CHECK(owner_references_of(rs).at(0).uid == uid_of(*made));
    auto ps = list(pods);
    REQUIRE(ps.size() == 2);
    for (const auto& p : ps) {
        CHECK(std::string(name_of(p.as_object())).starts_with(rs_name + "-"));
        CHECK(str_at(p.as_object(), {"status", "phase"}) == "Pending");
        CHECK(str_at(p.as_object(), {"spec", "serviceAccountName"}) == "default");  // through admission
        CHECK(str_at(p.as_object(), {"metadata", "labels", "app"}) == "a");
    }
    // After the delay: Running and Ready on kcoro-node; the ReplicaSet counts them.
    settle(t0() + std::chrono::seconds(2));
    for (const auto& p : list(pods)) {
        const auto& po = p.as_object();
        CHECK(str_at(po, {"status", "phase"}) == "Running");
        CHECK(str_at(po, {"spec", "nodeName"}) == "kcoro-node");
        CHECK(str_at(po, {"status", "podIP"}).starts_with("10.244.0."));
        bool ready = false;
        for (const auto& c : find_path(po, {"status", "conditions"})->as_array()) {
            ready = ready || (c.as_object().at("type") == "Ready" && c.as_object().at("status") == "True");
        }
        CHECK(ready);
        CHECK(find_path(po, {"status", "containerStatuses"})->as_array()[0].as_object().at("ready") == true);
    }
    CHECK(int_at(list(replicasets)[0].as_object(), {"status", "readyReplicas"}) == 2);

    // Scale down to 1: one pod goes.
    auto cur = *s.get(deps, "default", "web");
    cur["spec"].as_object()["replicas"] = 1;
    REQUIRE(s.update(ctx_at(), deps, "default", "web", cur));
    settle(t0() + std::chrono::seconds(3));
    CHECK(list(pods).size() == 1);

    // A new template: a second ReplicaSet gets the pod, the first goes to 0 and loses its pods.
    cur = *s.get(deps, "default", "web");
    cur["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object()["image"] = "busybox:1.37";
    REQUIRE(s.update(ctx_at(), deps, "default", "web", cur));
    settle(t0() + std::chrono::seconds(4));
    sets = list(replicasets);
    REQUIRE(sets.size() == 2);
    std::int64_t total = 0;
    for (const auto& r : sets) total += int_at(r.as_object(), {"spec", "replicas"});
    CHECK(total == 1);
    ps = list(pods);
    REQUIRE(ps.size() == 1);
    CHECK_FALSE(std::string(name_of(ps[0].as_object())).starts_with(rs_name + "-"));

    // Deleting the Deployment: the garbage collector takes the ReplicaSets and the Pods.
    delete_options del;
    REQUIRE(s.remove(ctx_at(), deps, "default", "web", del));
    for (int i = 0; i < 10; ++i) s.gc_step(t0() + std::chrono::seconds(5));
    CHECK(list(replicasets).empty());
    CHECK(list(pods).empty());
}
