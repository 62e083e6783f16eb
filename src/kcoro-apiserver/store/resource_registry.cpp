#include "store/resource_registry.hpp"

#include <algorithm>
#include <tuple>

namespace kcoro::apiserver {
namespace {

const std::vector<std::string> all_verbs{"create", "delete", "deletecollection", "get",
                                         "list",   "patch",  "update",           "watch"};

// The Scale subresource of the apps workloads (each storage.go's ScaleREST).
subresource_def scale_subresource() { return {"scale", "autoscaling", "v1", "Scale", {"get", "patch", "update"}}; }

resource_def builtin(std::string group, std::string version, std::string resource, std::string kind,
                     bool namespaced) {
    resource_def d;
    d.gvr = {std::move(group), std::move(version), std::move(resource)};
    d.singular = kind;
    std::transform(d.singular.begin(), d.singular.end(), d.singular.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    d.kind = std::move(kind);
    d.list_kind = d.kind + "List";
    d.namespaced = namespaced;
    d.verbs = all_verbs;
    return d;
}

// The kinds a controller's tests commonly touch (issue 23), beyond the
// first ones: discovery's shortNames and categories and the strategies'
// flags as v1.32 has them (pkg/registry/<group>/<resource>/).
void add_workload_kinds(resource_registry& r) {
    auto kind = [&](std::string group, std::string resource, std::string kind_name, bool namespaced,
                    std::vector<std::string> short_names, bool status, bool all = false) -> resource_def {
        auto d = builtin(std::move(group), "v1", std::move(resource), std::move(kind_name), namespaced);
        d.short_names = std::move(short_names);
        if (all) d.categories = {"all"};
        d.has_status = status;
        return d;
    };
    {
        auto d = kind("", "pods", "Pod", true, {"po"}, true, true);
        d.return_deleted_object = true;
        r.add(std::move(d));
    }
    {
        auto d = kind("", "endpoints", "Endpoints", true, {"ep"}, false);
        d.singular = "endpoints";
        d.allow_create_on_update = true;
        r.add(std::move(d));
    }
    {
        auto d = kind("", "persistentvolumeclaims", "PersistentVolumeClaim", true, {"pvc"}, true);
        d.return_deleted_object = true;
        r.add(std::move(d));
    }
    r.add(kind("", "nodes", "Node", false, {"no"}, true));
    {
        auto d = kind("", "limitranges", "LimitRange", true, {"limits"}, false);
        d.allow_create_on_update = true;
        r.add(std::move(d));
    }
    {
        auto d = kind("", "resourcequotas", "ResourceQuota", true, {"quota"}, true);
        d.return_deleted_object = true;
        r.add(std::move(d));
    }
    for (auto [res, k, short_name] : {std::tuple{"replicasets", "ReplicaSet", "rs"}, std::tuple{"statefulsets", "StatefulSet", "sts"}}) {
        auto d = kind("apps", res, k, true, {short_name}, true, true);
        d.subresources = {scale_subresource()};
        r.add(std::move(d));
    }
    r.add(kind("apps", "daemonsets", "DaemonSet", true, {"ds"}, true, true));
    r.add(kind("batch", "jobs", "Job", true, {}, true, true));
    r.add(kind("batch", "cronjobs", "CronJob", true, {"cj"}, true, true));
    r.add(kind("discovery.k8s.io", "endpointslices", "EndpointSlice", true, {}, false));
    r.add(kind("networking.k8s.io", "ingresses", "Ingress", true, {"ing"}, true));
    r.add(kind("networking.k8s.io", "networkpolicies", "NetworkPolicy", true, {"netpol"}, false));
    for (auto [res, k, ns] : {std::tuple{"roles", "Role", true}, std::tuple{"rolebindings", "RoleBinding", true},
                              std::tuple{"clusterroles", "ClusterRole", false},
                              std::tuple{"clusterrolebindings", "ClusterRoleBinding", false}}) {
        auto d = kind("rbac.authorization.k8s.io", res, k, ns, {}, false);
        d.allow_create_on_update = true;
        d.name_check = name_rule::path_segment;  // ValidateRBACName: path.IsValidPathSegmentName
        r.add(std::move(d));
    }
    r.add(kind("policy", "poddisruptionbudgets", "PodDisruptionBudget", true, {"pdb"}, true));
    // The review APIs: create only, answered by http/reviews.cpp.
    for (auto [group, res, k, ns] :
         {std::tuple{"authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview", false},
          std::tuple{"authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview", false},
          std::tuple{"authorization.k8s.io", "localsubjectaccessreviews", "LocalSubjectAccessReview", true},
          std::tuple{"authorization.k8s.io", "selfsubjectrulesreviews", "SelfSubjectRulesReview", false},
          std::tuple{"authentication.k8s.io", "selfsubjectreviews", "SelfSubjectReview", false},
          std::tuple{"authentication.k8s.io", "tokenreviews", "TokenReview", false}}) {
        auto d = kind(group, res, k, ns, {}, false);
        d.verbs = {"create"};
        d.stored = false;
        r.add(std::move(d));
    }
}

} // namespace

resource_registry resource_registry::with_builtins() {
    // Flags follow the kube-apiserver strategies (pkg/registry/...):
    // AllowCreateOnUpdate is true for services, endpoints, limitranges,
    // events, leases and the four RBAC kinds; ReturnDeletedObject for
    // namespaces, services, serviceaccounts, pods, persistentvolumeclaims
    // and resourcequotas (each kind's strategy.go and storage/storage.go).
    resource_registry r;
    {
        auto d = builtin("", "v1", "namespaces", "Namespace", false);
        d.short_names = {"ns"};
        d.has_status = true;
        d.name_is_label = true;
        d.return_deleted_object = true;
        d.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
        r.add(std::move(d));
    }
    {
        auto d = builtin("", "v1", "configmaps", "ConfigMap", true);
        d.short_names = {"cm"};
        r.add(std::move(d));
    }
    r.add(builtin("", "v1", "secrets", "Secret", true));
    {
        auto d = builtin("", "v1", "services", "Service", true);
        d.short_names = {"svc"};
        d.categories = {"all"};
        d.has_status = true;
        d.name_is_label = true;
        d.allow_create_on_update = true;
        d.return_deleted_object = true;
        r.add(std::move(d));
    }
    {
        // pkg/registry/core/serviceaccount: AllowCreateOnUpdate false,
        // ReturnDeletedObject true (storage/storage.go).
        auto d = builtin("", "v1", "serviceaccounts", "ServiceAccount", true);
        d.short_names = {"sa"};
        d.return_deleted_object = true;
        // TokenRequest (storage/token.go): a Creater only.
        d.subresources = {{"token", "authentication.k8s.io", "v1", "TokenRequest", {"create"}}};
        r.add(std::move(d));
    }
    {
        auto d = builtin("", "v1", "events", "Event", true);
        d.short_names = {"ev"};
        d.allow_create_on_update = true;
        r.add(std::move(d));
    }
    {
        auto d = builtin("apps", "v1", "deployments", "Deployment", true);
        d.short_names = {"deploy"};
        d.categories = {"all"};
        d.has_status = true;
        d.subresources = {scale_subresource()};
        r.add(std::move(d));
    }
    {
        auto d = builtin("events.k8s.io", "v1", "events", "Event", true);
        d.short_names = {"ev"};
        d.allow_create_on_update = true;
        r.add(std::move(d));
    }
    {
        auto d = builtin("coordination.k8s.io", "v1", "leases", "Lease", true);
        d.allow_create_on_update = true;
        // pkg/registry/coordination/lease/strategy.go: AllowUnconditionalUpdate false.
        d.allow_unconditional_update = false;
        r.add(std::move(d));
    }
    add_workload_kinds(r);
    {
        auto d = builtin("apiextensions.k8s.io", "v1", "customresourcedefinitions",
                         "CustomResourceDefinition", false);
        d.short_names = {"crd", "crds"};
        d.categories = {"api-extensions"};  // as the real discovery lists it
        d.has_status = true;
        d.allow_unconditional_update = false;
        r.add(std::move(d));
    }
    // The strategies that set Generation = 1 on create (v1.32 pkg/registry/*/strategy.go).
    for (const char* resource : {"deployments", "replicasets", "statefulsets", "daemonsets", "jobs", "cronjobs",
                                 "poddisruptionbudgets", "ingresses", "networkpolicies", "endpointslices",
                                 "customresourcedefinitions"}) {
        for (auto& [gvr, def] : r.defs_) {
            if (gvr.resource == resource) def->tracks_generation = true;
        }
    }
    return r;
}

void resource_registry::add(resource_def def) {
    if (std::find(group_order_.begin(), group_order_.end(), def.gvr.group) == group_order_.end()) {
        group_order_.push_back(def.gvr.group);
    }
    auto key = def.gvr;
    defs_[key] = std::make_unique<resource_def>(std::move(def));
}

void resource_registry::remove_crd(std::string_view crd_name) {
    std::vector<std::string> touched;
    for (auto it = defs_.begin(); it != defs_.end();) {
        if (it->second->crd_name == crd_name) {
            touched.push_back(it->first.group);
            it = defs_.erase(it);
        } else {
            ++it;
        }
    }
    for (const auto& g : touched) {
        bool still = std::any_of(defs_.begin(), defs_.end(), [&](const auto& kv) { return kv.first.group == g; });
        if (!still) {
            group_order_.erase(std::remove(group_order_.begin(), group_order_.end(), g), group_order_.end());
        }
    }
}

const resource_def* resource_registry::find(const group_version_resource& gvr) const noexcept {
    auto it = defs_.find(gvr);
    return it == defs_.end() ? nullptr : it->second.get();
}

const resource_def* resource_registry::find_kind(std::string_view api_version, std::string_view kind) const noexcept {
    auto gv = group_version::parse(api_version);
    for (const auto& [gvr, def] : defs_) {
        if (gvr.group == gv.group && gvr.version == gv.version && def->kind == kind) {
            return def.get();
        }
    }
    return nullptr;
}

std::vector<api_group_info> resource_registry::groups() const {
    std::vector<api_group_info> out;
    for (const auto& g : group_order_) {
        api_group_info info;
        info.name = g;
        // Storage version first (the preferred version), then the others.
        for (int pass = 0; pass < 2; ++pass) {
            for (const auto& [gvr, def] : defs_) {
                if (gvr.group != g || def->storage != (pass == 0)) continue;
                if (std::find(info.versions.begin(), info.versions.end(), gvr.version) == info.versions.end()) {
                    info.versions.push_back(gvr.version);
                }
            }
        }
        if (!info.versions.empty()) {
            out.push_back(std::move(info));
        }
    }
    return out;
}

std::vector<const resource_def*> resource_registry::resources(std::string_view group,
                                                              std::string_view version) const {
    std::vector<const resource_def*> out;
    for (const auto& [gvr, def] : defs_) {
        if (gvr.group == group && gvr.version == version) {
            out.push_back(def.get());
        }
    }
    return out;
}

std::vector<const resource_def*> resource_registry::all() const {
    std::vector<const resource_def*> out;
    for (const auto& [gvr, def] : defs_) {
        out.push_back(def.get());
    }
    return out;
}

} // namespace kcoro::apiserver
