// RBAC kinds, after v1.32 pkg/apis/rbac/validation/validation.go
// (ValidatePolicyRule, ValidateRoleBinding, ValidateRoleBindingSubject) and
// pkg/apis/rbac/v1/defaults.go. Values in messages are printed as
// apimachinery's field errors print them (%#v of the internal type).
#include "store/rbac_rules.hpp"
#include "store/core_validation.hpp"
#include "store/status_errors.hpp"

#include <kcoro/core/name_validation.hpp>
#include <kcoro/core/object.hpp>

namespace kcoro::apiserver {
namespace json = boost::json;
using namespace validation;

namespace {

std::size_t count(const json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v && v->is_array() ? v->get_array().size() : 0;
}

// %#v of a []string.
std::string go_strings(const json::object& o, std::string_view key) {
    std::string out = "[]string{";
    if (const auto* v = o.if_contains(key); v && v->is_array()) {
        bool first = true;
        for (const auto& s : v->get_array()) {
            out += (first ? "" : ", ") + quoted(s.is_string() ? std::string_view(s.get_string()) : std::string_view{});
            first = false;
        }
    }
    return out + "}";
}

void rules_of(const json::object& obj, bool namespaced, std::vector<status_cause>& causes) {
    const auto* rules = obj.if_contains("rules");
    if (!rules || !rules->is_array()) return;
    for (std::size_t i = 0; i < rules->get_array().size(); ++i) {
        const auto& r = rules->get_array()[i];
        if (!r.is_object()) continue;
        const auto& rule = r.get_object();
        const std::string base = path_index("rules", i);
        if (count(rule, "verbs") == 0) {
            causes.push_back(errors::field_required(base + ".verbs", "verbs must contain at least one value"));
        }
        if (count(rule, "nonResourceURLs") > 0) {
            if (namespaced) {
                causes.push_back(errors::field_invalid(base + ".nonResourceURLs", go_strings(rule, "nonResourceURLs"),
                                                       "namespaced rules cannot apply to non-resource URLs"));
            }
            if (count(rule, "apiGroups") + count(rule, "resources") + count(rule, "resourceNames") > 0) {
                causes.push_back(errors::field_invalid(base + ".nonResourceURLs", go_strings(rule, "nonResourceURLs"),
                                                       "rules cannot apply to both regular resources and non-resource URLs"));
            }
            continue;
        }
        if (count(rule, "apiGroups") == 0) {
            causes.push_back(errors::field_required(base + ".apiGroups", "resource rules must supply at least one api group"));
        }
        if (count(rule, "resources") == 0) {
            causes.push_back(errors::field_required(base + ".resources", "resource rules must supply at least one resource"));
        }
    }
}

void binding(json::object& obj, const json::object* old, bool namespaced, std::vector<status_cause>& causes) {
    auto& ref = obj_at(obj, "roleRef");
    set_default(ref, "apiGroup", "rbac.authorization.k8s.io");  // SetDefaults_(Cluster)RoleBinding
    if (ref.at("apiGroup") == json::value("")) ref["apiGroup"] = "rbac.authorization.k8s.io";
    if (auto* subjects = obj.if_contains("subjects"); subjects && subjects->is_array()) {
        for (auto& s : subjects->as_array()) {
            if (!s.is_object()) continue;
            auto& so = s.as_object();
            if (str_at(so, "apiGroup").empty()) {  // SetDefaults_Subject
                auto k = str_at(so, "kind");
                if (k == "User" || k == "Group") so["apiGroup"] = "rbac.authorization.k8s.io";
            }
        }
    }
    if (auto g = str_at(ref, "apiGroup"); g != "rbac.authorization.k8s.io") {
        causes.push_back(errors::field_not_supported("roleRef.apiGroup", quoted(g), {"rbac.authorization.k8s.io"}));
    }
    auto kind = str_at(ref, "kind");
    if (namespaced && kind != "Role" && kind != "ClusterRole") {
        causes.push_back(errors::field_not_supported("roleRef.kind", quoted(kind), {"Role", "ClusterRole"}));
    } else if (!namespaced && kind != "ClusterRole") {
        causes.push_back(errors::field_not_supported("roleRef.kind", quoted(kind), {"ClusterRole"}));
    }
    if (auto n = str_at(ref, "name"); n.empty()) {
        causes.push_back(errors::field_required("roleRef.name"));
    } else {
        for (const auto& m : path_segment_name_errors(n)) causes.push_back(errors::field_invalid("roleRef.name", quoted(n), m));
    }
    if (const auto* subjects = obj.if_contains("subjects"); subjects && subjects->is_array()) {
        for (std::size_t i = 0; i < subjects->get_array().size(); ++i) {
            const auto* so = subjects->get_array()[i].if_object();
            if (!so) continue;
            const std::string base = path_index("subjects", i);
            auto name = str_at(*so, "name");
            auto group = str_at(*so, "apiGroup");
            auto k = str_at(*so, "kind");
            if (name.empty()) causes.push_back(errors::field_required(base + ".name"));
            if (k == "ServiceAccount") {
                if (!name.empty()) {
                    for (const auto& m : validate_dns1123_subdomain(name)) {
                        causes.push_back(errors::field_invalid(base + ".name", quoted(name), m));
                    }
                }
                if (!group.empty()) causes.push_back(errors::field_not_supported(base + ".apiGroup", quoted(group), {""}));
                if (!namespaced && str_at(*so, "namespace").empty()) {
                    causes.push_back(errors::field_required(base + ".namespace"));
                }
            } else if (k == "User" || k == "Group") {
                if (group != "rbac.authorization.k8s.io") {
                    causes.push_back(errors::field_not_supported(base + ".apiGroup", quoted(group), {"rbac.authorization.k8s.io"}));
                }
            } else {
                causes.push_back(errors::field_not_supported(base + ".kind", quoted(k), {"ServiceAccount", "User", "Group"}));
            }
        }
    }
    if (old) {
        // ValidateRoleBindingUpdate: the role a binding grants never changes.
        const auto* was = find_path(*old, {"roleRef"});
        if (was && *was != json::value(ref)) {
            causes.push_back(errors::field_invalid(
                "roleRef",
                "rbac.RoleRef{APIGroup:" + quoted(str_at(ref, "apiGroup")) + ", Kind:" + quoted(kind) +
                    ", Name:" + quoted(str_at(ref, "name")) + "}",
                "cannot change roleRef"));
        }
    }
}

} // namespace

std::vector<status_cause> rbac_rules(const resource_def& def, json::object& obj, const json::object* old) {
    std::vector<status_cause> causes;
    const auto& r = def.gvr.resource;
    if (r == "roles" || r == "clusterroles") {
        rules_of(obj, r == "roles", causes);
    } else {
        binding(obj, old, r == "rolebindings", causes);
    }
    return causes;
}

} // namespace kcoro::apiserver
