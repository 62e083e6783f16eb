// Which kind a resource serves: a table of resource_info (group, version,
// plural, kind, scope, subresources) that the manager-aware builder reads,
// so that `for_(resources::deployments())` needs no second argument that
// could disagree with the first. Built-in resources come with it; an
// operator adds its custom resources once (`mgr.resources().add(...)`), or
// the entries discovery returned (discovery_client::find).
//
// Pure value. Thread safety: a value.
#pragma once

#include <kcoro/core/resource.hpp>

#include <optional>
#include <vector>

namespace kcoro {

class resource_table {
public:
    resource_table() = default;
    /// The built-in resources of Kubernetes 1.30+ that controllers commonly
    /// watch (core, apps, batch, coordination, events, networking, policy,
    /// rbac, storage, autoscaling, apiextensions, admissionregistration).
    static resource_table builtin();

    /// Adds `info`, replacing an entry for the same group/version/resource.
    void add(resource_info info);
    const resource_info* find(const group_version_resource& gvr) const noexcept;
    /// By group, version and kind.
    const resource_info* find(const group_version_kind& gvk) const noexcept;
    const std::vector<resource_info>& entries() const noexcept { return entries_; }

private:
    std::vector<resource_info> entries_;
};

} // namespace kcoro
