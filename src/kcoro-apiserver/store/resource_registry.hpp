// The resources kcoro-apiserver serves: the built-ins and, at run time, the
// kinds that CustomResourceDefinitions register. Discovery documents and the
// store's routing both read this table.
//
// Lifetime: owned by the object_store; pointers returned by find() stay valid
// until the resource is removed (a CRD deleted), so callers must not keep them
// across store writes. Thread safety: none; used from the store's one thread.
#pragma once

#include <kcoro/core/resource.hpp>

#include <boost/json/object.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::apiserver {

/// How metadata.name is validated (each kind's ValidateXName).
enum class name_rule {
    subdomain,     // DNS-1123 subdomain (most kinds)
    path_segment,  // path.IsValidPathSegmentName (RBAC): not "." or "..", no '/' or '%'
};

/// A subresource served besides status (deployments/scale,
/// serviceaccounts/token): what discovery lists and the routes accept.
struct subresource_def {
    std::string name;                    // "scale"
    std::string group, version, kind;    // what it answers: autoscaling/v1 Scale
    std::vector<std::string> verbs;      // "get", "patch", "update"; "create"
};

/// Everything the server knows about one resource at one group/version.
struct resource_def {
    group_version_resource gvr;
    std::string kind;         // "ConfigMap"
    std::string list_kind;    // "ConfigMapList"
    std::string singular;     // "configmap"
    bool namespaced = true;
    std::vector<std::string> short_names;  // "cm"
    std::vector<std::string> categories;   // "all"
    std::vector<std::string> verbs;        // as discovery lists them
    bool has_status = false;               // a status subresource is served
    std::vector<subresource_def> subresources;  // the others served, by name
    /// The strategy maintains metadata.generation (PrepareForCreate sets it
    /// to 1): Deployments, CRDs, custom resources, ...; not ConfigMaps or Pods.
    bool tracks_generation = false;
    /// An update without metadata.resourceVersion is allowed (AllowUnconditionalUpdate).
    bool allow_unconditional_update = true;
    /// PUT on a missing object creates it (AllowCreateOnUpdate).
    bool allow_create_on_update = false;
    /// DELETE answers with the object instead of a Success Status (ReturnDeletedObject).
    bool return_deleted_object = false;
    /// Name rule: true = DNS-1123 label (namespaces, services), false = subdomain.
    bool name_is_label = false;
    /// Otherwise: the rule for names that are not DNS labels.
    name_rule name_check = name_rule::subdomain;
    /// Strategic merge patch supported (built-ins only; CRs answer 415).
    bool strategic_merge = true;
    /// The structural openAPIV3Schema of a CRD version (validation, pruning, defaults).
    std::optional<boost::json::object> schema;
    /// The CRD that registered this resource (its name), empty for built-ins.
    std::string crd_name;
    /// The storage version for a multi-version CRD shares objects with its
    /// siblings; the store keys objects by (group, resource), not by version.
    bool served = true;
    bool storage = true;
    /// False for the review APIs, which are answered, never stored
    /// (discovery gives them no storageVersionHash).
    bool stored = true;

    std::string api_version() const { return gvr.api_version(); }
};

/// One group in discovery: versions, the preferred one first.
struct api_group_info {
    std::string name;  // "" for the core group
    std::vector<std::string> versions;
    std::string preferred_version() const { return versions.empty() ? std::string{} : versions.front(); }
};

class resource_registry {
public:
    /// The built-in resources (namespaces, configmaps, secrets, services,
    /// serviceaccounts, events, events.k8s.io events, deployments, leases, CRDs,
    /// and the workload, networking, RBAC and policy kinds of add_workload_kinds).
    static resource_registry with_builtins();

    /// Adds or replaces the definition for `def.gvr`.
    void add(resource_def def);
    /// Removes every version registered by the CRD `crd_name`.
    void remove_crd(std::string_view crd_name);

    /// nullptr when the resource is not served at that group/version.
    const resource_def* find(const group_version_resource& gvr) const noexcept;
    /// Finds by kind at a group/version ("apps/v1", "Deployment").
    const resource_def* find_kind(std::string_view api_version, std::string_view kind) const noexcept;

    /// Discovery: groups in a stable order (core first, then as registered).
    std::vector<api_group_info> groups() const;
    /// Discovery: the resources served at group/version.
    std::vector<const resource_def*> resources(std::string_view group, std::string_view version) const;
    /// All definitions.
    std::vector<const resource_def*> all() const;

private:
    std::map<group_version_resource, std::unique_ptr<resource_def>> defs_;
    std::vector<std::string> group_order_;
};

} // namespace kcoro::apiserver
