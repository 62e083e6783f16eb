// What discovery found, and the lookups the client and kcoro-ctl need:
// by GVK, by GVR, and kubectl-style by name ("cm", "configmap", "configmaps",
// "ConfigMap", "deploy", "deployments.apps", "deployments.v1.apps", "gi"),
// case-insensitively. A lookup that finds nothing answers nullopt (a miss):
// the client then refreshes discovery and asks again, as client-go's
// memory-cached discovery does.
//
// Name resolution follows insertion order, so add the core group first and
// then the groups in the order /apis lists them, preferred version first
// (that is the server's priority order, which kubectl follows).
//
// Pure; results are copies. Thread safety: none (owned by the client's
// io_context thread).
#pragma once

#include <kcoro/core/resource.hpp>

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace kcoro {

class discovery_cache {
public:
    /// Replace everything known about one group version with `resources`.
    void set_group_version(const group_version& gv, std::vector<resource_info> resources);
    /// Forget everything (before a full refresh).
    void clear() noexcept { entries_.clear(); }
    bool empty() const noexcept { return entries_.empty(); }
    std::size_t size() const noexcept { return entries_.size(); }

    std::optional<resource_info> find(const group_version_kind& gvk) const;
    std::optional<resource_info> find(const group_version_resource& gvr) const;
    /// Resolve what a user typed: plural, singular (the kind in lower case),
    /// short name or kind, optionally qualified as "<name>.<group>" or
    /// "<name>.<version>.<group>". Case-insensitive.
    std::optional<resource_info> resolve(std::string_view name) const;

    /// All resources, in insertion order.
    const std::vector<resource_info>& resources() const noexcept { return entries_; }

private:
    std::vector<resource_info> entries_;
};

} // namespace kcoro
