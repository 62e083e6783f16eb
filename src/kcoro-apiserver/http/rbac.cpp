// RBAC as kube-apiserver evaluates it. Each function names the Go code it
// follows (v1.32): rbac.go (RuleAllows, Authorize), rule.go (VisitRulesFor,
// appliesTo, the binding describers), rbacv1helpers (the matchers),
// bootstrappolicy/policy.go and cluster_role_bindings (the bootstrap policy).
#include "http/rbac.hpp"
#include "store/core_validation.hpp"

#include <kcoro/core/object.hpp>

#include <boost/json/parse.hpp>

#include <functional>

namespace kcoro::apiserver::http {
namespace json = boost::json;

namespace {

const group_version_resource roles{"rbac.authorization.k8s.io", "v1", "roles"};
const group_version_resource cluster_roles{"rbac.authorization.k8s.io", "v1", "clusterroles"};
const group_version_resource role_bindings{"rbac.authorization.k8s.io", "v1", "rolebindings"};
const group_version_resource cluster_role_bindings{"rbac.authorization.k8s.io", "v1", "clusterrolebindings"};

std::vector<std::string> strings(const json::object& o, std::string_view k) {
    std::vector<std::string> out;
    if (const auto* v = o.if_contains(k); v && v->is_array()) {
        for (const auto& s : v->get_array()) {
            if (s.is_string()) out.emplace_back(s.get_string());
        }
    }
    return out;
}

bool has(const std::vector<std::string>& set, std::string_view v) {
    for (const auto& s : set) {
        if (s == v) return true;
    }
    return false;
}

// rbacv1helpers: VerbMatches, APIGroupMatches, ResourceMatches, ResourceNameMatches, NonResourceURLMatches.
bool rule_allows(const json::object& rule, const authz_attributes& a) {
    const auto verbs = strings(rule, "verbs");
    if (!has(verbs, "*") && !has(verbs, a.verb)) return false;
    if (!a.resource_request) {
        for (const auto& u : strings(rule, "nonResourceURLs")) {
            if (u == "*" || u == a.path) return true;
            if (!u.empty() && u.back() == '*' && a.path.starts_with(std::string_view(u).substr(0, u.size() - 1))) return true;
        }
        return false;
    }
    const auto groups = strings(rule, "apiGroups");
    if (!has(groups, "*") && !has(groups, a.group)) return false;
    const std::string combined = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
    bool resource = false;
    for (const auto& r : strings(rule, "resources")) {
        if (r == "*" || r == combined) resource = true;
        else if (!a.subresource.empty() && r == "*/" + a.subresource) resource = true;
        if (resource) break;
    }
    if (!resource) return false;
    const auto names = strings(rule, "resourceNames");
    return names.empty() || has(names, a.name);
}

// serviceaccount.MatchesUsername: "system:serviceaccount:<ns>:<name>".
bool is_service_account(std::string_view user, std::string_view ns, std::string_view name) {
    constexpr std::string_view prefix = "system:serviceaccount:";
    return user.size() == prefix.size() + ns.size() + 1 + name.size() && user.starts_with(prefix) &&
           user.substr(prefix.size(), ns.size()) == ns && user[prefix.size() + ns.size()] == ':' &&
           user.substr(prefix.size() + ns.size() + 1) == name;
}

// appliesTo: the index of the first subject naming the user, or -1.
int applies_to(const user_info& user, const json::object& binding, std::string_view binding_ns) {
    const auto* subjects = binding.if_contains("subjects");
    if (!subjects || !subjects->is_array()) return -1;
    for (std::size_t i = 0; i < subjects->get_array().size(); ++i) {
        const auto* s = subjects->get_array()[i].if_object();
        if (!s) continue;
        const auto kind = validation::str_at(*s, "kind");
        const auto name = validation::str_at(*s, "name");
        if (kind == "User" && user.name == name) return static_cast<int>(i);
        if (kind == "Group" && has(user.groups, name)) return static_cast<int>(i);
        if (kind == "ServiceAccount") {
            auto ns = validation::str_at(*s, "namespace");
            if (ns.empty()) ns = std::string(binding_ns);
            if (!ns.empty() && is_service_account(user.name, ns, name)) return static_cast<int>(i);
        }
    }
    return -1;
}

// describeSubject.
std::string describe_subject(const json::object& s, std::string_view binding_ns) {
    const auto kind = validation::str_at(s, "kind");
    auto name = validation::str_at(s, "name");
    if (kind == "ServiceAccount") {
        auto ns = validation::str_at(s, "namespace");
        name += "/" + (ns.empty() ? std::string(binding_ns) : ns);
    }
    return kind + " \"" + name + "\"";
}

// GetRoleReferenceRules: the referenced role, shared with the store (the
// authorizer runs on every request: nothing is copied); nullptr when missing.
object_ptr referenced_role(const object_store& store, const json::object& binding, std::string_view ns) {
    const auto* ref = binding.if_contains("roleRef");
    if (!ref || !ref->is_object()) return nullptr;
    const auto kind = validation::str_at(ref->get_object(), "kind");
    const auto name = validation::str_at(ref->get_object(), "name");
    if (kind == "Role") return store.find(roles, ns, name);
    if (kind == "ClusterRole") return store.find(cluster_roles, "", name);
    return nullptr;
}

// VisitRulesFor: cluster role bindings, then (with a namespace) the namespace's
// role bindings; `visit` returns false to stop.
void visit_rules(const object_store& store, const user_info& user, std::string_view ns,
                 const std::function<bool(const std::string& source, const json::object& rule)>& visit) {
    // One pass per binding kind; `stop` once the visitor has its answer.
    bool stop = false;
    auto walk = [&](const group_version_resource& gvr, std::string_view binding_ns, std::string_view kind_word) {
        store.for_each(gvr, binding_ns, [&](const object_ptr& b) {
            if (stop) return;
            const int i = applies_to(user, *b, binding_ns);
            if (i < 0) return;
            const object_ptr role = referenced_role(store, *b, binding_ns);
            const auto* rules = role ? role->if_contains("rules") : nullptr;
            if (!rules || !rules->is_array()) return;
            const auto& ref = b->at("roleRef").as_object();
            const std::string name = binding_ns.empty() ? std::string(name_of(*b))
                                                        : std::string(name_of(*b)) + "/" + std::string(binding_ns);
            const std::string source =
                std::string(kind_word) + " \"" + name + "\" of " + validation::str_at(ref, "kind") + " \"" +
                validation::str_at(ref, "name") + "\" to " +
                describe_subject(b->at("subjects").as_array()[static_cast<std::size_t>(i)].as_object(), binding_ns);
            for (const auto& rule : rules->get_array()) {
                if (rule.is_object() && !visit(source, rule.get_object())) {
                    stop = true;
                    return;
                }
            }
        });
    };
    walk(cluster_role_bindings, "", "ClusterRoleBinding");
    if (!ns.empty() && !stop) walk(role_bindings, ns, "RoleBinding");
}

request_context bootstrap_ctx(wall_time now) {
    request_context ctx;
    ctx.now = now;
    ctx.user = "system:apiserver";
    ctx.field_manager = "kube-apiserver";
    return ctx;
}

} // namespace

authz_decision rbac_authorize(const object_store& store, const authz_attributes& a) {
    authz_decision d;
    visit_rules(store, a.user, a.resource_request ? std::string_view(a.ns) : std::string_view{},
                [&](const std::string& source, const json::object& rule) {
                    if (!rule_allows(rule, a)) return true;
                    d.allowed = true;
                    d.reason = "RBAC: allowed by " + source;
                    return false;
                });
    return d;
}

rules_result rbac_rules_for(const object_store& store, const user_info& user, std::string_view ns) {
    rules_result out;
    visit_rules(store, user, ns, [&](const std::string&, const json::object& rule) {
        // authorizer.ResourceRuleInfo / NonResourceRuleInfo, as the review's status lists them.
        // ResourceRule / NonResourceRule field order: verbs first.
        auto copy = [&](std::initializer_list<const char*> keys) {
            json::object o;
            o["verbs"] = rule.contains("verbs") ? rule.at("verbs") : json::array{};
            for (const char* k : keys) {
                if (const auto* v = rule.if_contains(k); v && v->is_array() && !v->get_array().empty()) o[k] = *v;
            }
            return o;
        };
        if (const auto* urls = rule.if_contains("nonResourceURLs"); urls && urls->is_array() && !urls->get_array().empty()) {
            out.non_resource_rules.push_back(copy({"nonResourceURLs"}));
        } else {
            out.resource_rules.push_back(copy({"apiGroups", "resources", "resourceNames"}));
        }
        return true;
    });
    return out;
}

void bootstrap_rbac(object_store& store, wall_time now) {
    // bootstrappolicy: ClusterRoles with the bootstrapping label and the
    // autoupdate annotation; bindings to the groups every cluster binds them to.
    const char* roles_json = R"([
      {"name":"cluster-admin","rules":[{"apiGroups":["*"],"resources":["*"],"verbs":["*"]},
                                       {"nonResourceURLs":["*"],"verbs":["*"]}]},
      {"name":"system:discovery","rules":[{"nonResourceURLs":["/api","/api/*","/apis","/apis/*","/healthz","/livez",
          "/openapi","/openapi/*","/readyz","/version","/version/"],"verbs":["get"]}]},
      {"name":"system:basic-user","rules":[
          {"apiGroups":["authorization.k8s.io"],"resources":["selfsubjectaccessreviews","selfsubjectrulesreviews"],"verbs":["create"]},
          {"apiGroups":["authentication.k8s.io"],"resources":["selfsubjectreviews"],"verbs":["create"]}]},
      {"name":"system:public-info-viewer","rules":[{"nonResourceURLs":["/healthz","/livez","/readyz","/version","/version/"],
          "verbs":["get"]}]}
    ])";
    const char* bindings_json = R"([
      {"name":"cluster-admin","role":"cluster-admin","groups":["system:masters"]},
      {"name":"system:discovery","role":"system:discovery","groups":["system:authenticated"]},
      {"name":"system:basic-user","role":"system:basic-user","groups":["system:authenticated"]},
      {"name":"system:public-info-viewer","role":"system:public-info-viewer",
       "groups":["system:authenticated","system:unauthenticated"]}
    ])";
    const auto ctx = bootstrap_ctx(now);
    const json::object meta_extra{{"labels", json::object{{"kubernetes.io/bootstrapping", "rbac-defaults"}}},
                                  {"annotations", json::object{{"rbac.authorization.kubernetes.io/autoupdate", "true"}}}};
    const json::value all_roles = json::parse(roles_json);  // named: a range-for over parse(...).as_array() dangles
    for (const auto& r : all_roles.as_array()) {
        const auto& ro = r.as_object();
        const auto name = validation::str_at(ro, "name");
        if (store.get(cluster_roles, "", name)) continue;
        json::object meta = meta_extra;
        meta["name"] = name;
        json::object role{{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRole"},
                          {"metadata", std::move(meta)}, {"rules", ro.at("rules")}};
        (void)store.create(ctx, cluster_roles, "", std::move(role));
    }
    const json::value all_bindings = json::parse(bindings_json);
    for (const auto& b : all_bindings.as_array()) {
        const auto& bo = b.as_object();
        const auto name = validation::str_at(bo, "name");
        if (store.get(cluster_role_bindings, "", name)) continue;
        json::array subjects;
        for (const auto& g : bo.at("groups").as_array()) {
            subjects.push_back(json::object{{"kind", "Group"}, {"apiGroup", "rbac.authorization.k8s.io"}, {"name", g}});
        }
        json::object meta = meta_extra;
        meta["name"] = name;
        json::object binding{{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRoleBinding"},
                             {"metadata", std::move(meta)},
                             {"roleRef", json::object{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"},
                                                      {"name", validation::str_at(bo, "role")}}},
                             {"subjects", std::move(subjects)}};
        (void)store.create(ctx, cluster_role_bindings, "", std::move(binding));
    }
}

} // namespace kcoro::apiserver::http
