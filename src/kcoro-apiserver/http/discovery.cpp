#include "http/discovery.hpp"

#include <kcoro/core/base64.hpp>

#include <boost/json/array.hpp>

#include <openssl/evp.h>

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

std::string storage_version_hash(std::string_view group, std::string_view version, std::string_view kind) {
    const std::string gvk = std::string(group) + "/" + std::string(version) + "/" + std::string(kind);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(gvk.data(), gvk.size(), md, &len, EVP_sha256(), nullptr);
    return base64_encode(std::string_view(reinterpret_cast<const char*>(md), 8));
}

namespace {

/// The group/version/kind objects of `d` are stored at: events.k8s.io events
/// are core v1 Events in storage; a CRD's kinds at its storage version.
std::string storage_hash_for(const resource_registry& reg, const resource_def& d) {
    if (d.gvr.group == "events.k8s.io" && d.gvr.resource == "events") {
        return storage_version_hash("", "v1", "Event");
    }
    if (!d.crd_name.empty()) {
        for (const auto* o : reg.all()) {
            if (o->crd_name == d.crd_name && o->storage) {
                return storage_version_hash(o->gvr.group, o->gvr.version, o->kind);
            }
        }
    }
    return storage_version_hash(d.gvr.group, d.gvr.version, d.kind);
}

// The subresources discovery lists for `d`, status among them, by name (the
// installer's path order): each with what it answers.
std::vector<subresource_def> listed_subresources(const resource_def& d) {
    std::vector<subresource_def> subs = d.subresources;
    if (d.has_status) subs.push_back({"status", "", "", d.kind, {"get", "patch", "update"}});
    std::sort(subs.begin(), subs.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return subs;
}

json::object subresource_entry(const resource_def& d, std::string_view sub, json::array verbs) {
    return json::object{{"name", d.gvr.resource + "/" + std::string(sub)},
                        {"singularName", ""},
                        {"namespaced", d.namespaced},
                        {"kind", d.kind},
                        {"verbs", std::move(verbs)}};
}

} // namespace

json::object version_document() {
    // 1.32-shaped (issue 22: the release kcoro-apiserver follows, checked
    // against a real v1.32.13); the "-kcoro" suffix tells it apart.
    return json::object{{"major", "1"},
                        {"minor", "32"},
                        {"gitVersion", "v1.32.13-kcoro"},
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
    // One entry per resource and subresource, in path order, with the
    // fields and values kube-apiserver's installer (endpoints/installer.go)
    // and the CRD discovery controller (apiextensions-apiserver
    // customresource_discovery_controller.go) publish.
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
        if (d->stored) r["storageVersionHash"] = storage_hash_for(reg, *d);
        resources.push_back(std::move(r));
        for (const auto& s : listed_subresources(*d)) {
            auto e = subresource_entry(*d, s.name, strings(s.verbs));
            if (!s.group.empty() || !s.version.empty()) {
                // Another group version's kind: named (APIResource's group, version).
                e["group"] = s.group;
                e["version"] = s.version;
                e["kind"] = s.kind;
            }
            resources.push_back(std::move(e));
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
                                {"info", json::object{{"title", "Kubernetes"}, {"version", "v1.32.13-kcoro"}}},
                                {"paths", std::move(paths)},
                                {"components", json::object{{"schemas", json::object{}}}}};
        }
    }
    return std::nullopt;
}

namespace {

void proto_field(std::string& out, unsigned field, std::string_view bytes) {
    out.push_back(static_cast<char>((field << 3) | 2));  // length-delimited
    std::size_t n = bytes.size();
    do {
        unsigned char b = n & 0x7f;
        n >>= 7;
        if (n) b |= 0x80;
        out.push_back(static_cast<char>(b));
    } while (n);
    out.append(bytes);
}

} // namespace

json::object openapi_v2_document() {
    return json::object{{"swagger", "2.0"},
                        {"info", json::object{{"title", "Kubernetes"}, {"version", "v1.32.13-kcoro"}}},
                        {"paths", json::object{}},
                        {"definitions", json::object{}}};
}

std::string openapi_v2_protobuf() {
    // gnostic openapi_v2.Document: swagger = 1, info = 2 (title = 1,
    // version = 2), paths = 8, definitions = 9.
    std::string info;
    proto_field(info, 1, "Kubernetes");
    proto_field(info, 2, "v1.32.13-kcoro");
    std::string doc;
    proto_field(doc, 1, "2.0");
    proto_field(doc, 2, info);
    proto_field(doc, 8, "");
    proto_field(doc, 9, "");
    return doc;
}

std::string aggregated_discovery_version(std::string_view accept) {
    // handlers/negotiation: the first acceptable media type wins; the
    // aggregated forms are application/json with g, v and as parameters.
    std::size_t start = 0;
    while (start <= accept.size()) {
        auto end = accept.find(',', start);
        auto part = accept.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        const bool aggregated = part.find("g=apidiscovery.k8s.io") != std::string_view::npos &&
                                part.find("as=APIGroupDiscoveryList") != std::string_view::npos;
        if (aggregated && part.find("v=v2beta1") != std::string_view::npos) return "v2beta1";
        if (aggregated && part.find("v=v2") != std::string_view::npos) return "v2";
        if (part.find("application/json") != std::string_view::npos && !aggregated &&
            part.find("as=") == std::string_view::npos) {
            return "";  // plain JSON first
        }
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    return "";
}

namespace {

// apidiscovery v2 APIResourceDiscovery / APISubresourceDiscovery, as the
// aggregated handler converts each APIResource (discovery/aggregated/
// handler.go): responseKind's group and version empty for the resource's own
// group version.
json::object response_kind(std::string_view group, std::string_view version, std::string_view kind) {
    return json::object{{"group", group}, {"version", version}, {"kind", kind}};
}

json::object resource_entry(const resource_def& d) {
    json::object r{{"resource", d.gvr.resource},
                   {"responseKind", response_kind("", "", d.kind)},
                   {"scope", d.namespaced ? "Namespaced" : "Cluster"},
                   {"singularResource", d.singular},
                   {"verbs", strings(d.verbs)}};
    if (!d.short_names.empty()) r["shortNames"] = strings(d.short_names);
    if (!d.categories.empty()) r["categories"] = strings(d.categories);
    json::array subs;
    for (const auto& s : listed_subresources(d)) {
        subs.push_back(json::object{{"subresource", s.name},
                                    {"responseKind", response_kind(s.group, s.version, s.kind)},
                                    {"verbs", strings(s.verbs)}});
    }
    if (!subs.empty()) r["subresources"] = std::move(subs);
    return r;
}

} // namespace

json::object aggregated_discovery_document(const resource_registry& reg, bool core, std::string_view version) {
    json::array items;
    for (const auto& g : reg.groups()) {
        if (g.name.empty() != core) continue;
        json::array versions;
        for (const auto& v : g.versions) {  // the preferred version first
            json::array resources;
            for (const auto* d : reg.resources(g.name, v)) {
                if (d->served) resources.push_back(resource_entry(*d));
            }
            versions.push_back(json::object{{"version", v}, {"resources", std::move(resources)}, {"freshness", "Current"}});
        }
        json::object meta;
        if (!g.name.empty()) meta["name"] = g.name;
        meta["creationTimestamp"] = nullptr;
        items.push_back(json::object{{"metadata", std::move(meta)}, {"versions", std::move(versions)}});
    }
    if (core && items.empty()) {
        items.push_back(json::object{{"metadata", json::object{{"creationTimestamp", nullptr}}},
                                     {"versions", json::array{}}});
    }
    return json::object{{"kind", "APIGroupDiscoveryList"},
                        {"apiVersion", "apidiscovery.k8s.io/" + std::string(version)},
                        {"metadata", json::object{}},
                        {"items", std::move(items)}};
}

} // namespace kcoro::apiserver::http
