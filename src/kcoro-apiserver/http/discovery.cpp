#include "http/discovery.hpp"

#include <boost/json/array.hpp>

#include <algorithm>

namespace kcoro::apiserver::http {

namespace json = boost::json;

namespace {

json::object gv_entry(std::string_view group, std::string_view version) {
    std::string gv = group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
    return json::object{{"groupVersion", gv}, {"version", version}};
}

json::object group_entry(const api_group_info& g) {
    json::array versions;
    for (const auto& v : g.versions) {
        versions.push_back(gv_entry(g.name, v));
    }
    return json::object{{"name", g.name},
                        {"versions", std::move(versions)},
                        {"preferredVersion", gv_entry(g.name, g.preferred_version())}};
}

json::array strings(const std::vector<std::string>& v) {
    json::array a;
    for (const auto& s : v) {
        a.push_back(json::value(s));
    }
    return a;
}

} // namespace

json::object version_document() {
    // Claims the kubectl minor version on this machine, so kubectl does not
    // warn about version skew.
    return json::object{{"major", "1"},
                        {"minor", "32"},
                        {"gitVersion", "v1.32.0-kcoro"},
                        {"gitCommit", "0000000000000000000000000000000000000000"},
                        {"gitTreeState", "clean"},
                        {"buildDate", "2026-01-01T00:00:00Z"},
                        {"goVersion", "go1.23.0"},
                        {"compiler", "gc"},
                        {"platform", "linux/amd64"}};
}

json::object core_versions_document(std::string_view server_address) {
    return json::object{
        {"kind", "APIVersions"},
        {"versions", json::array{"v1"}},
        {"serverAddressByClientCIDRs",
         json::array{json::object{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}};
}

json::object group_list_document(const resource_registry& reg) {
    json::array groups;
    for (const auto& g : reg.groups()) {
        if (!g.name.empty()) {
            groups.push_back(group_entry(g));
        }
    }
    return json::object{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(groups)}};
}

std::optional<json::object> group_document(const resource_registry& reg, std::string_view group) {
    for (const auto& g : reg.groups()) {
        if (!g.name.empty() && g.name == group) {
            auto doc = group_entry(g);
            doc["kind"] = "APIGroup";
            doc["apiVersion"] = "v1";
            return doc;
        }
    }
    return std::nullopt;
}

std::optional<json::object> resource_list_document(const resource_registry& reg, std::string_view group,
                                                   std::string_view version) {
    auto defs = reg.resources(group, version);
    if (defs.empty()) {
        // A group/version with nothing served is unknown, except the core v1.
        if (!(group.empty() && version == "v1")) {
            return std::nullopt;
        }
    }
    json::array resources;
    for (const auto* d : defs) {
        if (!d->served) {
            continue;
        }
        json::object r{{"name", d->gvr.resource},
                       {"singularName", d->singular},
                       {"namespaced", d->namespaced},
                       {"kind", d->kind},
                       {"verbs", strings(d->verbs)}};
        if (!d->short_names.empty()) {
            r["shortNames"] = strings(d->short_names);
        }
        if (!d->categories.empty()) {
            r["categories"] = strings(d->categories);
        }
        resources.push_back(std::move(r));
        if (d->has_status) {
            resources.push_back(json::object{{"name", d->gvr.resource + "/status"},
                                             {"singularName", ""},
                                             {"namespaced", d->namespaced},
                                             {"kind", d->kind},
                                             {"verbs", json::array{"get", "patch", "update"}}});
        }
    }
    std::string gv = group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
    return json::object{{"kind", "APIResourceList"},
                        {"apiVersion", "v1"},
                        {"groupVersion", gv},
                        {"resources", std::move(resources)}};
}

namespace {

std::string gv_path_of(std::string_view group, std::string_view version) {
    return group.empty() ? "api/" + std::string(version) : "apis/" + std::string(group) + "/" + std::string(version);
}

} // namespace

json::object openapi_v3_index(const resource_registry& reg) {
    json::object paths;
    for (const auto& g : reg.groups()) {
        for (const auto& v : g.versions) {
            auto p = gv_path_of(g.name, v);
            // The hash only has to change when the document does; discovery
            // contents are small, so the resource count is enough here.
            auto n = reg.resources(g.name, v).size();
            paths[p] = json::object{{"serverRelativeURL", "/openapi/v3/" + p + "?hash=" + std::to_string(n)}};
        }
    }
    return json::object{{"paths", std::move(paths)}};
}

std::optional<json::object> openapi_v3_document(const resource_registry& reg, std::string_view gv_path) {
    for (const auto& g : reg.groups()) {
        for (const auto& v : g.versions) {
            if (gv_path_of(g.name, v) != gv_path) {
                continue;
            }
            json::object paths;
            for (const auto* d : reg.resources(g.name, v)) {
                if (!d->served) continue;
                json::array params;
                for (const char* name : {"fieldValidation", "dryRun", "fieldManager", "force"}) {
                    params.push_back(json::object{{"name", name}, {"in", "query"}, {"schema", json::object{{"type", "string"}}}});
                }
                json::object op{{"operationId", "patch" + d->kind},
                                {"x-kubernetes-action", "patch"},
                                {"x-kubernetes-group-version-kind",
                                 json::object{{"group", g.name}, {"version", v}, {"kind", d->kind}}},
                                {"parameters", std::move(params)},
                                {"responses", json::object{{"200", json::object{{"description", "OK"}}}}}};
                std::string base = "/" + std::string(gv_path) + (d->namespaced ? "/namespaces/{namespace}/" : "/") +
                                   d->gvr.resource + "/{name}";
                paths[base] = json::object{{"patch", std::move(op)}};
            }
            return json::object{{"openapi", "3.0.0"},
                                {"info", json::object{{"title", "Kubernetes"}, {"version", "v1.32.0-kcoro"}}},
                                {"paths", std::move(paths)},
                                {"components", json::object{{"schemas", json::object{}}}}};
        }
    }
    return std::nullopt;
}

} // namespace kcoro::apiserver::http
