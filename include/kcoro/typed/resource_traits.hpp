// What a resource type is: group, version, kind, plural, scope, as
// KCORO_RESOURCE declared it, and the names built from them.
//
//   using traits = kcoro::typed::resource_traits<kcoro::k8s::deployment>;
//   traits::api_version  // "apps/v1"
//   traits::gvr()        // {apps, v1, deployments}
#pragma once

#include <kcoro/core/resource.hpp>
#include <kcoro/typed/annotations.hpp>
#include <kcoro/typed/detail/names.hpp>
#include <kcoro/typed/detail/traits.hpp>

#include <string>
#include <string_view>

namespace kcoro::typed {

using detail::resource_type;

template <resource_type T> struct resource_traits {
    static constexpr resource_info info = kcoro_resource(static_cast<T*>(nullptr));
    static constexpr std::string_view group = info.group;
    static constexpr std::string_view version = info.version;
    static constexpr std::string_view kind = info.kind;
    static constexpr std::string_view plural = info.plural;
    static constexpr bool namespaced = info.scope == scope::namespaced;

private:
    static constexpr auto api_version_storage =
        detail::api_version_of<info.group.size() + 1 + info.version.size()>(info.group, info.version);

public:
    static constexpr std::string_view api_version = api_version_storage.view();

    static group_version_kind gvk() { return {std::string(group), std::string(version), std::string(kind)}; }
    static group_version_resource gvr() {
        return {std::string(group), std::string(version), std::string(plural)};
    }
    /// "deployments.apps"; the CRD's metadata.name for a custom resource.
    static std::string resource_name() {
        return group.empty() ? std::string(plural) : std::string(plural) + "." + std::string(group);
    }
    static std::string singular() {
        if (!info.singular.empty())
            return std::string(info.singular);
        std::string s(kind);
        for (auto& c : s)
            c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        return s;
    }
    static std::string list_kind() {
        return info.list_kind.empty() ? std::string(kind) + "List" : std::string(info.list_kind);
    }
};

} // namespace kcoro::typed
