#include "store/builtin_rules.hpp"
#include "store/core_validation.hpp"
#include "store/status_errors.hpp"
#include "store/rbac_rules.hpp"
#include "store/stored_kind_rules.hpp"
#include "store/workload_rules.hpp"

#include <kcoro/core/label_selector.hpp>
#include <kcoro/core/name_validation.hpp>
#include <kcoro/core/object.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace kcoro::apiserver {
namespace json = boost::json;
using namespace validation;

namespace {

void add_invalid(std::vector<status_cause>& out, std::string_view field, std::string_view value,
                 const std::vector<std::string>& msgs) {
    for (const auto& m : msgs) out.push_back(errors::field_invalid(field, quoted(value), m));
}

std::int64_t int_of(const json::value& v, std::int64_t fallback) {
    if (v.is_int64()) return v.get_int64();
    if (v.is_uint64()) return static_cast<std::int64_t>(v.get_uint64());
    return fallback;
}



// --- Service -------------------------------------------------------------------

std::vector<status_cause> service_rules(json::object& obj, const json::object* old) {
    std::vector<status_cause> causes;
    auto& spec = obj_at(obj, "spec");
    set_default(spec, "type", "ClusterIP");
    set_default(spec, "sessionAffinity", "None");
    const auto& type = spec.at("type");
    static const std::vector<std::string> types{"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"};
    if (!type.is_string() || std::find(types.begin(), types.end(), std::string(type.get_string())) == types.end()) {
        causes.push_back(errors::field_not_supported("spec.type", json::serialize(type), types));
        return causes;
    }
    bool external_name = type.get_string() == "ExternalName";
    if (!external_name) {
        set_default(spec, "ipFamilies", json::array{"IPv4"});
        set_default(spec, "ipFamilyPolicy", "SingleStack");
        set_default(spec, "internalTrafficPolicy", "Cluster");
    }
    auto* ports = spec.if_contains("ports");
    bool headless = spec.contains("clusterIP") && spec.at("clusterIP") == json::value("None");
    if ((!ports || !ports->is_array() || ports->as_array().empty()) && !external_name && !headless) {
        causes.push_back(errors::field_required("spec.ports"));
    }
    if (ports && ports->is_array()) {
        // ValidateService / validateServicePort (pkg/apis/core/validation).
        auto& arr = ports->as_array();
        std::set<std::string> port_names;
        std::set<std::pair<std::string, std::int64_t>> seen;
        for (std::size_t i = 0; i < arr.size(); ++i) {
            std::string path = "spec.ports[" + std::to_string(i) + "]";
            if (!arr[i].is_object()) {
                causes.push_back(errors::field_invalid(path, json::serialize(arr[i]), "must be an object"));
                continue;
            }
            auto& p = arr[i].as_object();
            set_default(p, "protocol", "TCP");
            auto name = str_at(p, "name");
            if (arr.size() > 1 && name.empty()) {
                causes.push_back(errors::field_required(path + ".name"));
            } else if (!name.empty()) {
                for (const auto& m : validate_dns1123_label(name)) causes.push_back(errors::field_invalid(path + ".name", quoted(name), m));
                if (!port_names.insert(name).second) causes.push_back(field_duplicate(path + ".name", quoted(name)));
            }
            auto port = p.contains("port") ? int_of(p.at("port"), 0) : 0;
            if (!valid_port(port)) {
                causes.push_back(errors::field_invalid(path + ".port", std::to_string(port), port_range_msg));
            } else {
                // SetDefaults_Service (pkg/apis/core/v1/defaults.go): a targetPort of 0
                // or "" is unset. Go clients always send one (intstr.IntOrString is a
                // struct): `"targetPort":0` in JSON, {type 0, intVal 0} in protobuf.
                if (const auto* tp = p.if_contains("targetPort");
                    tp && ((tp->is_int64() && tp->get_int64() == 0) || (tp->is_string() && tp->get_string().empty()))) {
                    p.erase("targetPort");
                }
                set_default(p, "targetPort", port);
            }
            auto proto = str_at(p, "protocol");
            if (!one_of(proto, protocols)) {
                causes.push_back(errors::field_not_supported(path + ".protocol", quoted(proto), protocols));
            }
            if (const auto* tp = p.if_contains("targetPort"); tp && (tp->is_int64() || tp->is_uint64())) {
                if (!valid_port(int_of(*tp, 0))) {
                    causes.push_back(errors::field_invalid(path + ".targetPort", std::to_string(int_of(*tp, 0)), port_range_msg));
                }
            } else if (tp && tp->is_string()) {
                for (const auto& m : port_name_errors(tp->get_string())) {
                    causes.push_back(errors::field_invalid(path + ".targetPort", quoted(tp->get_string()), m));
                }
            }
            if (!seen.insert({proto, port}).second) {
                // Go's %#v of the core.ServicePort key it dedups on.
                causes.push_back(field_duplicate(path, "core.ServicePort{Name:\"\", Protocol:\"" + proto +
                    "\", AppProtocol:(*string)(nil), Port:" + std::to_string(port) +
                    ", TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}"));
            }
        }
    }
    if (!old) obj["status"] = json::object{{"loadBalancer", json::object{}}};
    return causes;
}

// --- Deployment ----------------------------------------------------------------

std::vector<status_cause> deployment_rules(json::object& obj, const json::object* old) {
    std::vector<status_cause> causes;
    auto& spec = obj_at(obj, "spec");
    set_default(spec, "replicas", 1);
    set_default(spec, "revisionHistoryLimit", 10);
    set_default(spec, "progressDeadlineSeconds", 600);
    auto& strategy = obj_at(spec, "strategy");
    set_default(strategy, "type", "RollingUpdate");
    if (strategy.at("type") == json::value("RollingUpdate")) {
        auto& ru = obj_at(strategy, "rollingUpdate");
        set_default(ru, "maxUnavailable", "25%");
        set_default(ru, "maxSurge", "25%");
    }
    auto& tmpl = obj_at(spec, "template");
    auto& pod = obj_at(tmpl, "spec");
    default_pod_spec(pod);
    if (auto r = int_of(spec.at("replicas"), -1); r < 0) {
        causes.push_back(errors::field_invalid("spec.replicas", json::serialize(spec.at("replicas")),
                                               "must be greater than or equal to 0"));
    }
    // ValidateDeploymentSpec's selector checks, shared with the other apps kinds.
    check_selector(spec, "deployment", true, causes);
    if (const auto* sel = spec.if_contains("selector"); sel && sel->is_object()) {
        if (old) {
            const auto* old_sel = find_path(*old, {"spec", "selector"});
            if (old_sel && *old_sel != *sel) {
                causes.push_back(errors::field_invalid("spec.selector", json::serialize(*sel), "field is immutable"));
            }
        }
    }
    const auto* cs = pod.if_contains("containers");
    if (!cs || !cs->is_array() || cs->as_array().empty()) {
        causes.push_back(errors::field_required("spec.template.spec.containers"));
    }
    auto pod_causes = pod_spec_rules(pod, "spec.template.spec");
    causes.insert(causes.end(), pod_causes.begin(), pod_causes.end());
    // A Deployment's pods always restart (ValidatePodTemplateSpecForReplicaSet).
    if (auto rp = str_at(pod, "restartPolicy"); rp != "Always") {
        causes.push_back(errors::field_not_supported("spec.template.spec.restartPolicy", quoted(rp), {"Always"}));
    }
    // ValidateDeploymentStrategy (re-read: inserting into spec moved it)
    const auto& strat = spec.at("strategy").as_object();
    auto stype = str_at(strat, "type");
    if (stype == "Recreate") {
        if (strat.contains("rollingUpdate")) {
            causes.push_back(errors::field_forbidden("spec.strategy.rollingUpdate",
                                                     "may not be specified when strategy `type` is 'Recreate'"));
        }
    } else if (stype != "RollingUpdate") {
        causes.push_back(errors::field_not_supported("spec.strategy.type", quoted(stype), {"Recreate", "RollingUpdate"}));
    }
    if (stype == "RollingUpdate") {
        // ValidateRollingUpdateDeployment: both may not be 0.
        if (const auto* ru = strat.if_contains("rollingUpdate"); ru && ru->is_object()) {
            auto zero = [&](std::string_view k) {
                const auto* v = ru->get_object().if_contains(k);
                if (!v) return false;
                if (v->is_int64()) return v->get_int64() == 0;
                return v->is_string() && (v->get_string() == "0" || v->get_string() == "0%");
            };
            if (zero("maxUnavailable") && zero("maxSurge")) {
                const auto& mu = ru->get_object().at("maxUnavailable");
                causes.push_back(errors::field_invalid("spec.strategy.rollingUpdate.maxUnavailable",
                                                       mu.is_string() ? quoted(mu.get_string()) : json::serialize(mu),
                                                       "may not be 0 when `maxSurge` is 0"));
            }
        }
    }
    for (const char* f : {"minReadySeconds", "revisionHistoryLimit"}) {
        if (auto v = int_at(spec, f); v && *v < 0) {
            causes.push_back(errors::field_invalid(std::string("spec.") + f, std::to_string(*v), "must be greater than or equal to 0"));
        }
    }
    // ValidateDeploymentSpec: the progress deadline must exceed minReadySeconds.
    if (auto pd = int_at(spec, "progressDeadlineSeconds"); pd && *pd <= int_at(spec, "minReadySeconds").value_or(0)) {
        causes.push_back(errors::field_invalid("spec.progressDeadlineSeconds", std::to_string(*pd),
                                               "must be greater than minReadySeconds"));
    }
    return causes;
}

} // namespace

// --- ObjectMeta ---------------------------------------------------------------

std::vector<status_cause> validate_object_meta(const resource_def& def, const json::object& obj) {
    std::vector<status_cause> causes;
    std::string name(name_of(obj));
    if (def.gvr.resource != "customresourcedefinitions") {
        std::vector<std::string> msgs;
        if (def.gvr.group.empty() && def.gvr.resource == "services") {
            msgs = validate_dns1035_label(name);
        } else if (def.name_is_label) {
            msgs = validate_dns1123_label(name);
        } else if (def.name_check == name_rule::path_segment) {
            msgs = path_segment_name_errors(name);
        } else {
            msgs = validate_dns1123_subdomain(name);
        }
        add_invalid(causes, "metadata.name", name, msgs);
    }
    if (const auto* labels = labels_of(obj)) {
        for (const auto& kv : *labels) {
            add_invalid(causes, "metadata.labels", kv.key(), validate_qualified_name(kv.key()));
            if (!kv.value().is_string()) {
                causes.push_back(errors::field_invalid("metadata.labels", json::serialize(kv.value()), "must be a string"));
            } else {
                add_invalid(causes, "metadata.labels", kv.value().get_string(), validate_label_value(kv.value().get_string()));
            }
        }
    }
    if (const auto* ann = annotations_of(obj)) {
        for (const auto& kv : *ann) {
            add_invalid(causes, "metadata.annotations", kv.key(), validate_qualified_name(kv.key()));
        }
    }
    // apimachinery api/validation/objectmeta.go ValidateFinalizers (path not
    // indexed), then, for the kinds core's ValidateObjectMeta validates (not
    // CRDs or custom resources), validateKubeFinalizerName (indexed):
    // pkg/apis/core/validation/validation.go, checked against v1.32.13.
    const auto finalizers = finalizers_of(obj);
    bool orphan = false, foreground = false;
    for (const auto& f : finalizers) {
        add_invalid(causes, "metadata.finalizers", f, validate_qualified_name(f));
        orphan = orphan || f == "orphan";
        foreground = foreground || f == "foregroundDeletion";
    }
    if (orphan && foreground) {
        std::string list = "[]string{";
        for (std::size_t i = 0; i < finalizers.size(); ++i) list += (i ? ", " : "") + quoted(finalizers[i]);
        causes.push_back(errors::field_invalid("metadata.finalizers", list + "}",
                                               "finalizer orphan and foregroundDeletion cannot be both set"));
    }
    if (def.crd_name.empty() && def.gvr.group != "apiextensions.k8s.io") {
        for (std::size_t i = 0; i < finalizers.size(); ++i) {
            const auto& f = finalizers[i];
            const bool standard = f == "kubernetes" || f == "orphan" || f == "foregroundDeletion";
            if (f.find('/') == std::string::npos && !standard) {
                causes.push_back(errors::field_invalid("metadata.finalizers[" + std::to_string(i) + "]", quoted(f),
                                                       "name is neither a standard finalizer name nor is it fully qualified"));
            }
        }
    }
    if (auto g = find_path(obj, {"metadata", "generation"}); g && g->is_int64() && g->get_int64() < 0) {
        causes.push_back(errors::field_invalid("metadata.generation", std::to_string(g->get_int64()),
                                               "must be greater than or equal to 0"));
    }
    if (const auto* refs = find_path(obj, {"metadata", "ownerReferences"}); refs && refs->is_array()) {
        int controllers = 0;
        for (const auto& r : refs->as_array()) {
            auto ref = owner_reference_from(r);
            if (ref.api_version.empty()) causes.push_back(errors::field_invalid("metadata.ownerReferences.apiVersion", "\"\"", "version must not be empty"));
            if (ref.kind.empty()) causes.push_back(errors::field_invalid("metadata.ownerReferences.kind", "\"\"", "kind must not be empty"));
            if (ref.name.empty()) causes.push_back(errors::field_invalid("metadata.ownerReferences.name", "\"\"", "name must not be empty"));
            if (ref.uid.empty()) causes.push_back(errors::field_invalid("metadata.ownerReferences.uid", "\"\"", "uid must not be empty"));
            if (ref.controller) ++controllers;
        }
        if (controllers > 1) {
            causes.push_back(errors::field_invalid("metadata.ownerReferences", json::serialize(*refs),
                                                   "Only one reference can have Controller set to true"));
        }
    }
    return causes;
}

std::vector<status_cause> validate_event(const json::object& core_event, const json::object* old, bool via_events_api) {
    return event_rules(core_event, old, via_events_api);
}

std::vector<status_cause> validate_builtin_status(const resource_def& def, const json::object& obj) {
    if (def.gvr.group == "apps" && def.gvr.resource == "deployments") return deployment_status_rules(obj);
    return {};
}

std::vector<status_cause> default_and_validate_builtin(const resource_def& def, json::object& obj,
                                                       const json::object* old) {
    const auto& r = def.gvr.resource;
    if (def.gvr.group.empty() && r == "services") return service_rules(obj, old);
    if (def.gvr.group == "apps" && r == "deployments") return deployment_rules(obj, old);
    if (def.gvr.group.empty() && r == "configmaps") return config_map_rules(obj, old);
    if (def.gvr.group.empty() && r == "secrets") return secret_rules(obj, old);
    if (def.gvr.group == "coordination.k8s.io" && r == "leases") return lease_rules(obj);
    if (def.gvr.group.empty() && r == "pods") return pod_rules(obj, old);
    if (def.gvr.group == "apps" && r == "replicasets") return replica_set_rules(obj, old);
    if (def.gvr.group == "apps" && r == "statefulsets") return stateful_set_rules(obj, old);
    if (def.gvr.group == "apps" && r == "daemonsets") return daemon_set_rules(obj, old);
    if (def.gvr.group == "batch" && r == "jobs") return job_rules(obj, old);
    if (def.gvr.group == "batch" && r == "cronjobs") return cron_job_rules(obj, old);
    if (def.gvr.group == "rbac.authorization.k8s.io") return rbac_rules(def, obj, old);
    if (auto other = other_kind_rules(def, obj, old)) return std::move(*other);
    if (def.gvr.group.empty() && r == "namespaces") {
        if (!old) {
            obj["spec"] = json::object{{"finalizers", json::array{"kubernetes"}}};
            obj["status"] = json::object{{"phase", "Active"}};
        }
        // Set by the real server since 1.21, used by namespace selectors.
        set_label(obj, "kubernetes.io/metadata.name", name_of(obj));
        return {};
    }
    if (r == "customresourcedefinitions") return validate_crd(obj);
    return {};
}

} // namespace kcoro::apiserver
