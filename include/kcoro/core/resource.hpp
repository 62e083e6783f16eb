// Naming of API resources: group/version/kind, group/version/resource, and
// the namespace/name key of an object. Pure values.
//
// These are classes with constructors, not aggregates, on purpose: callers
// write them as braced temporaries in co_await operands
// (`co_await c.get(gvr, {"ns", "name"})`), and g++ 12 destroys an
// aggregate-initialized temporary there twice; a constructor call is
// compiled correctly (docs/toolchain.md). Keep a constructor declared.
#pragma once

#include <compare>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kcoro {

struct group_version {
    group_version() = default;
    group_version(std::string g, std::string v) : group(std::move(g)), version(std::move(v)) {}
    std::string group;    // "" for the core group
    std::string version;  // "v1"
    /// "v1" for the core group, "apps/v1" otherwise.
    std::string api_version() const;
    static group_version parse(std::string_view api_version);
    friend auto operator<=>(const group_version&, const group_version&) = default;
};

struct group_version_kind {
    group_version_kind() = default;
    group_version_kind(std::string g, std::string v, std::string k)
        : group(std::move(g)), version(std::move(v)), kind(std::move(k)) {}
    std::string group;
    std::string version;
    std::string kind;
    std::string api_version() const { return group_version{group, version}.api_version(); }
    static group_version_kind from(std::string_view api_version, std::string_view kind);
    friend auto operator<=>(const group_version_kind&, const group_version_kind&) = default;
};

struct group_version_resource {
    group_version_resource() = default;
    group_version_resource(std::string g, std::string v, std::string r)
        : group(std::move(g)), version(std::move(v)), resource(std::move(r)) {}
    std::string group;
    std::string version;
    std::string resource;  // plural, lower case: "configmaps"
    std::string api_version() const { return group_version{group, version}.api_version(); }
    friend auto operator<=>(const group_version_resource&, const group_version_resource&) = default;
};

/// What discovery knows about a resource.
struct resource_info {
    group_version_resource gvr;
    std::string kind;
    bool namespaced = true;
    std::vector<std::string> verbs;
    std::vector<std::string> short_names;
    bool has_status = false;  // status subresource served
    bool has_scale = false;
};

/// namespace/name of an object; cluster-scoped objects have an empty namespace.
struct object_key {
    object_key() = default;
    object_key(std::string n, std::string nm) : ns(std::move(n)), name(std::move(nm)) {}
    std::string ns;
    std::string name;
    /// "ns/name", or "name" when cluster-scoped (client-go's MetaNamespaceKeyFunc).
    std::string str() const;
    static object_key parse(std::string_view key);
    friend auto operator<=>(const object_key&, const object_key&) = default;
};

std::ostream& operator<<(std::ostream& os, const group_version_kind& v);
std::ostream& operator<<(std::ostream& os, const group_version_resource& v);
std::ostream& operator<<(std::ostream& os, const object_key& v);

/// A few built-in resources, for convenience.
namespace resources {
group_version_resource configmaps();
group_version_resource secrets();
group_version_resource namespaces();
group_version_resource services();
group_version_resource serviceaccounts();
group_version_resource events();
group_version_resource events_v1();  // events.k8s.io/v1
group_version_resource deployments();
group_version_resource leases();
group_version_resource customresourcedefinitions();
} // namespace resources

} // namespace kcoro

template <>
struct std::hash<kcoro::object_key> {
    std::size_t operator()(const kcoro::object_key& k) const noexcept {
        std::size_t h = std::hash<std::string>{}(k.ns);
        return h ^ (std::hash<std::string>{}(k.name) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
    }
};
