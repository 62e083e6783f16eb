#include <kcoro/core/resource.hpp>

#include <ostream>

namespace kcoro {

std::string group_version::api_version() const {
    return group.empty() ? version : group + "/" + version;
}

group_version group_version::parse(std::string_view api_version) {
    auto slash = api_version.find('/');
    if (slash == std::string_view::npos) {
        return {"", std::string(api_version)};
    }
    return {std::string(api_version.substr(0, slash)), std::string(api_version.substr(slash + 1))};
}

group_version_kind group_version_kind::from(std::string_view api_version, std::string_view kind) {
    auto gv = group_version::parse(api_version);
    return {std::move(gv.group), std::move(gv.version), std::string(kind)};
}

std::string object_key::str() const { return ns.empty() ? name : ns + "/" + name; }

object_key object_key::parse(std::string_view key) {
    auto slash = key.find('/');
    if (slash == std::string_view::npos) {
        return {"", std::string(key)};
    }
    return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

std::ostream& operator<<(std::ostream& os, const group_version_kind& v) {
    return os << v.api_version() << ", Kind=" << v.kind;
}
std::ostream& operator<<(std::ostream& os, const group_version_resource& v) {
    return os << v.api_version() << ", Resource=" << v.resource;
}
std::ostream& operator<<(std::ostream& os, const object_key& v) { return os << v.str(); }

namespace resources {
group_version_resource configmaps() { return {"", "v1", "configmaps"}; }
group_version_resource secrets() { return {"", "v1", "secrets"}; }
group_version_resource namespaces() { return {"", "v1", "namespaces"}; }
group_version_resource services() { return {"", "v1", "services"}; }
group_version_resource serviceaccounts() { return {"", "v1", "serviceaccounts"}; }
group_version_resource events() { return {"", "v1", "events"}; }
group_version_resource events_v1() { return {"events.k8s.io", "v1", "events"}; }
group_version_resource deployments() { return {"apps", "v1", "deployments"}; }
group_version_resource leases() { return {"coordination.k8s.io", "v1", "leases"}; }
group_version_resource customresourcedefinitions() {
    return {"apiextensions.k8s.io", "v1", "customresourcedefinitions"};
}
} // namespace resources

} // namespace kcoro
