#include "http/surface.hpp"

#include <algorithm>

namespace kcoro::apiserver::http {

namespace {

bool builtin_group(const resource_registry& reg, std::string_view group) {
    for (const auto* d : reg.all()) {
        if (d->gvr.group == group && d->crd_name.empty()) return true;
    }
    return false;
}

bool has_verb(const resource_def& d, std::string_view verb) {
    return std::find(d.verbs.begin(), d.verbs.end(), verb) != d.verbs.end();
}

// The served subresource `sub` of `d` (status, or one of d.subresources), or nullptr.
const subresource_def* served_subresource(const resource_def& d, std::string_view sub) {
    static const subresource_def status{"status", "", "", "", {"get", "patch", "update"}};
    if (sub == "status") return d.has_status ? &status : nullptr;
    for (const auto& s : d.subresources) {
        if (s.name == sub) return &s;
    }
    return nullptr;
}

/// go-restful: the methods the route for this path shape has.
surface_answer builtin_routes(std::string_view method, const route& r, const resource_def& d) {
    if (d.namespaced && r.ns.empty() && !r.name.empty()) {
        return surface_answer::not_found_json;  // no /<resource>/{name} route across namespaces
    }
    if (!d.namespaced && !r.ns.empty()) {
        return surface_answer::not_found_json;
    }
    const subresource_def* sub = r.subresource.empty() ? nullptr : served_subresource(d, r.subresource);
    if (!r.subresource.empty() && (!sub || r.watch_path)) {
        return surface_answer::not_found_json;
    }
    if (!d.stored) {
        // The review APIs (Creater only): one POST route on the collection.
        if (!r.name.empty() || r.watch_path || (d.namespaced && r.ns.empty())) return surface_answer::not_found_json;
        return method == "POST" ? surface_answer::serve : surface_answer::method_not_allowed;
    }
    std::vector<std::string_view> allowed;
    if (r.watch_path) {
        allowed = {"GET"};
    } else if (sub) {
        // The routes its verbs install (endpoints/installer.go).
        for (const auto& v : sub->verbs) {
            if (v == "get") allowed.push_back("GET");
            if (v == "update") allowed.push_back("PUT");
            if (v == "patch") allowed.push_back("PATCH");
            if (v == "create") allowed.push_back("POST");
        }
    } else if (r.name.empty()) {
        allowed = {"GET"};
        if (!(d.namespaced && r.ns.empty())) {
            allowed.push_back("POST");
            if (has_verb(d, "deletecollection")) allowed.push_back("DELETE");
        }
    } else {
        allowed = {"GET", "PUT", "PATCH"};
        if (has_verb(d, "delete")) allowed.push_back("DELETE");
    }
    if (std::find(allowed.begin(), allowed.end(), method) == allowed.end()) {
        return surface_answer::method_not_allowed;
    }
    return surface_answer::serve;
}

surface_answer crd_routes(const route& r, const resource_def& d) {
    const bool namespaced_req = !r.ns.empty();
    if (!d.namespaced && namespaced_req) return surface_answer::not_found_text;
    if (d.namespaced && !namespaced_req && r.verb != "list" && r.verb != "watch") {
        return surface_answer::not_found_text;
    }
    if (!r.subresource.empty()) {
        if (r.subresource != "status" || !d.has_status) return surface_answer::not_found_resource;
        if (r.verb != "get" && r.verb != "update" && r.verb != "patch") return surface_answer::method_not_supported;
        return surface_answer::serve;
    }
    if (r.verb.empty()) return surface_answer::method_not_supported;
    if ((r.verb == "update" || r.verb == "patch") && r.name.empty()) return surface_answer::name_required;
    return surface_answer::serve;
}

} // namespace

surface_answer check_surface(std::string_view method, const route& r, const resource_registry& reg) {
    const std::string_view path = r.path;
    const bool under_api = path == "/api" || path.starts_with("/api/");
    const bool under_apis = path == "/apis" || path.starts_with("/apis/");
    if (!under_api && !under_apis) {
        return surface_answer::not_found_text;
    }
    if (under_api) {
        // The "/api" web service claims everything below it.
        if (r.version != "v1" || r.kind != route_kind::resource) return surface_answer::not_found_json;
        const auto* d = reg.find(r.gvr());
        if (d == nullptr) return surface_answer::not_found_json;
        return builtin_routes(method, r, *d);
    }
    // /apis/<group>...: a built-in group's web services claim it; anything
    // else belongs to crdHandler or falls through to the not-found handler.
    const bool builtin = builtin_group(reg, r.group);
    if (r.kind != route_kind::resource) {
        return builtin ? surface_answer::not_found_json : surface_answer::not_found_text;
    }
    const auto* d = reg.find(r.gvr());
    if (d == nullptr || !d->served) {
        return builtin ? surface_answer::not_found_json : surface_answer::not_found_text;
    }
    if (!d->crd_name.empty()) {
        return crd_routes(r, *d);
    }
    return builtin_routes(method, r, *d);
}

} // namespace kcoro::apiserver::http
