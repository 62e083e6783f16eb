// Each rule names the Go function of v1.32 it follows.
#include "store/stored_kind_rules.hpp"
#include "store/core_validation.hpp"
#include "store/status_errors.hpp"

#include <kcoro/core/object.hpp>

#include <boost/json/serialize.hpp>

namespace kcoro::apiserver {
namespace json = boost::json;
using namespace validation;

namespace {

// protocol: TCP on each port object of `ports` (the SetDefaults_*Port functions).
void default_protocols(json::value* ports) {
    if (!ports || !ports->is_array()) return;
    for (auto& p : ports->as_array()) {
        if (p.is_object()) set_default(p.as_object(), "protocol", "TCP");
    }
}

std::vector<status_cause> pvc_rules(json::object& obj, const json::object* old) {
    if (!old) obj["status"] = json::object{};  // before `spec` is taken: a later insert into obj would move it
    auto& spec = obj_at(obj, "spec");
    set_default(spec, "volumeMode", "Filesystem");  // SetDefaults_PersistentVolumeClaimSpec
    if (!old) {
        obj["status"] = json::object{{"phase", "Pending"}};  // SetDefaults_PersistentVolumeClaim
        // The StorageObjectInUseProtection admission plugin (on by default).
        auto& md = obj_at(obj, "metadata");
        auto& fin = md["finalizers"];
        if (!fin.is_array()) fin = json::array{};
        bool has = false;
        for (const auto& f : fin.as_array()) has = has || f == json::value("kubernetes.io/pvc-protection");
        if (!has) fin.as_array().push_back("kubernetes.io/pvc-protection");
    }
    std::vector<status_cause> causes;
    // ValidatePersistentVolumeClaimSpec: the two fields every claim needs.
    const auto* modes = spec.if_contains("accessModes");
    if (!modes || !modes->is_array() || modes->as_array().empty()) {
        causes.push_back(errors::field_required("spec.accessModes", "at least 1 access mode is required"));
    }
    if (!find_path(spec, {"resources", "requests", "storage"})) {
        causes.push_back(errors::field_required("spec.resources[storage]"));
    }
    return causes;
}

std::vector<status_cause> pdb_rules(json::object& obj, const json::object* old) {
    if (!old) obj["status"] = json::object{};  // before `spec` is taken: a later insert into obj would move it
    auto& spec = obj_at(obj, "spec");
    if (!old) {
        // PrepareForCreate: status cleared; these four have no omitempty.
        obj["status"] = json::object{{"disruptionsAllowed", 0}, {"currentHealthy", 0}, {"desiredHealthy", 0},
                                     {"expectedPods", 0}};
    }
    std::vector<status_cause> causes;
    if (spec.contains("minAvailable") && spec.contains("maxUnavailable")) {
        // ValidatePodDisruptionBudgetSpec (the spec printed as Go does; here as JSON).
        causes.push_back(errors::field_invalid("spec", json::serialize(spec), "minAvailable and maxUnavailable cannot be both set"));
    }
    if (auto p = str_at(spec, "unhealthyPodEvictionPolicy"); !p.empty() && p != "IfHealthyBudget" && p != "AlwaysAllow") {
        causes.push_back(errors::field_not_supported("spec.unhealthyPodEvictionPolicy", quoted(p),
                                                     {"AlwaysAllow", "IfHealthyBudget"}));
    }
    return causes;
}

std::vector<status_cause> network_policy_rules(json::object& obj) {
    auto& spec = obj_at(obj, "spec");
    // SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort.
    const auto* egress = spec.if_contains("egress");
    const bool has_egress = egress && egress->is_array() && !egress->as_array().empty();
    const auto* types = spec.if_contains("policyTypes");
    if (!types || !types->is_array() || types->as_array().empty()) {
        json::array t{"Ingress"};
        if (has_egress) t.push_back("Egress");
        spec["policyTypes"] = std::move(t);
    }
    obj_at(spec, "podSelector");  // a required struct: {} when absent
    for (const char* dir : {"ingress", "egress"}) {
        if (auto* rules = spec.if_contains(dir); rules && rules->is_array()) {
            for (auto& r : rules->as_array()) {
                if (r.is_object()) default_protocols(r.as_object().if_contains("ports"));
            }
        }
    }
    return {};
}

} // namespace

std::optional<std::vector<status_cause>> other_kind_rules(const resource_def& def, json::object& obj,
                                                          const json::object* old) {
    const auto& g = def.gvr.group;
    const auto& r = def.gvr.resource;
    if (g.empty() && r == "persistentvolumeclaims") return pvc_rules(obj, old);
    if (g == "policy" && r == "poddisruptionbudgets") return pdb_rules(obj, old);
    if (g == "networking.k8s.io" && r == "networkpolicies") return network_policy_rules(obj);
    if (g == "networking.k8s.io" && r == "ingresses") {
        if (!old) obj["status"] = json::object{{"loadBalancer", json::object{}}};  // IngressStatus.loadBalancer: a struct
        return std::vector<status_cause>{};
    }
    if (g.empty() && r == "endpoints") {
        if (auto* subsets = obj.if_contains("subsets"); subsets && subsets->is_array()) {  // SetDefaults_Endpoints
            for (auto& s : subsets->as_array()) {
                if (s.is_object()) default_protocols(s.as_object().if_contains("ports"));
            }
        }
        return std::vector<status_cause>{};
    }
    if (g == "discovery.k8s.io" && r == "endpointslices") {
        if (auto* ports = obj.if_contains("ports"); ports && ports->is_array()) {  // SetDefaults_EndpointPort
            for (auto& p : ports->as_array()) {
                if (!p.is_object()) continue;
                set_default(p.as_object(), "name", "");
                set_default(p.as_object(), "protocol", "TCP");
            }
        }
        if (auto* eps = obj.if_contains("endpoints"); eps && eps->is_array()) {
            for (auto& e : eps->as_array()) {
                if (e.is_object()) set_default(e.as_object(), "conditions", json::object{});  // a struct, no omitempty
            }
        }
        std::vector<status_cause> causes;
        if (auto t = str_at(obj, "addressType"); t.empty()) {
            causes.push_back(errors::field_required("addressType"));
        } else if (t != "IPv4" && t != "IPv6" && t != "FQDN") {
            causes.push_back(errors::field_not_supported("addressType", quoted(t), {"FQDN", "IPv4", "IPv6"}));
        }
        return causes;
    }
    if (g.empty() && r == "nodes") {
        if (!old) {
            // NodeStatus's struct fields without omitempty, as a node created by hand reads back.
            auto& st = obj_at(obj, "status");
            auto& ep = obj_at(obj_at(st, "daemonEndpoints"), "kubeletEndpoint");
            set_default(ep, "Port", 0);
            auto& info = obj_at(st, "nodeInfo");
            for (const char* k : {"machineID", "systemUUID", "bootID", "kernelVersion", "osImage",
                                  "containerRuntimeVersion", "kubeletVersion", "kubeProxyVersion", "operatingSystem",
                                  "architecture"}) {
                set_default(info, k, "");
            }
        }
        return std::vector<status_cause>{};
    }
    if (g.empty() && r == "resourcequotas") {
        if (!old) obj["status"] = json::object{};
        return std::vector<status_cause>{};
    }
    return std::nullopt;
}

} // namespace kcoro::apiserver
