#include <kcoro/core/discovery.hpp>

#include <boost/json/parse.hpp>

#include <algorithm>

namespace kcoro {
namespace json = boost::json;

namespace {

error decode_failure(std::string_view doc, std::string what) {
    return error(kcoro_errc::decode_error, std::string(doc) + ": " + std::move(what));
}

result<json::object> parse_kind(std::string_view body, std::string_view kind) {
    boost::system::error_code ec;
    auto v = json::parse(body, ec);
    if (ec) {
        return decode_failure(kind, "invalid JSON: " + ec.message());
    }
    auto* o = v.if_object();
    if (!o) {
        return decode_failure(kind, "not a JSON object");
    }
    // kube-apiserver always sends the kind; tolerate its absence, not a wrong one.
    if (const auto* k = o->if_contains("kind"); k && (!k->is_string() || k->get_string() != kind)) {
        return decode_failure(kind, "unexpected kind");
    }
    return std::move(*o);
}

std::string str_of(const json::object& o, std::string_view key) {
    if (const auto* v = o.if_contains(key); v && v->is_string()) {
        return std::string(v->get_string());
    }
    return {};
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// A list of strings; non-strings are a decode error, absence is empty.
result<std::vector<std::string>> strings_of(const json::object& o, std::string_view key, std::string_view doc) {
    std::vector<std::string> out;
    const auto* v = o.if_contains(key);
    if (!v || v->is_null()) {
        return out;
    }
    if (!v->is_array()) {
        return decode_failure(doc, quoted(key).append(" is not an array"));
    }
    for (const auto& s : v->get_array()) {
        if (!s.is_string()) {
            return decode_failure(doc, quoted(key).append(" holds a non-string"));
        }
        out.emplace_back(s.get_string());
    }
    return out;
}

} // namespace

result<std::vector<std::string>> decode_api_versions(std::string_view body) {
    auto o = parse_kind(body, "APIVersions");
    if (!o) return o.error();
    auto versions = strings_of(*o, "versions", "APIVersions");
    if (!versions) return versions.error();
    if (versions->empty()) {
        return decode_failure("APIVersions", "no versions");
    }
    return versions;
}

result<std::vector<api_group>> decode_api_group_list(std::string_view body) {
    auto o = parse_kind(body, "APIGroupList");
    if (!o) return o.error();
    std::vector<api_group> out;
    const auto* groups = o->if_contains("groups");
    if (!groups || !groups->is_array()) {
        return decode_failure("APIGroupList", "\"groups\" is not an array");
    }
    for (const auto& gv : groups->get_array()) {
        const auto* g = gv.if_object();
        if (!g) {
            return decode_failure("APIGroupList", "a group is not an object");
        }
        api_group group;
        group.name = str_of(*g, "name");
        if (group.name.empty()) {
            return decode_failure("APIGroupList", "a group without a name");
        }
        if (const auto* vs = g->if_contains("versions"); vs && vs->is_array()) {
            for (const auto& vv : vs->get_array()) {
                if (const auto* v = vv.if_object()) {
                    if (auto ver = str_of(*v, "version"); !ver.empty()) {
                        group.versions.push_back(std::move(ver));
                    }
                }
            }
        }
        if (const auto* p = g->if_contains("preferredVersion"); p && p->is_object()) {
            group.preferred_version = str_of(p->get_object(), "version");
        }
        if (group.preferred_version.empty() && !group.versions.empty()) {
            group.preferred_version = group.versions.front();
        }
        out.push_back(std::move(group));
    }
    return out;
}

result<std::vector<resource_info>> decode_api_resource_list(std::string_view body) {
    auto o = parse_kind(body, "APIResourceList");
    if (!o) return o.error();
    auto gv = group_version::parse(str_of(*o, "groupVersion"));
    if (gv.version.empty()) {
        return decode_failure("APIResourceList", "missing groupVersion");
    }
    const auto* resources = o->if_contains("resources");
    if (!resources || !resources->is_array()) {
        return decode_failure("APIResourceList", "\"resources\" is not an array");
    }
    std::vector<resource_info> out;
    std::vector<std::pair<std::string, std::string>> subresources;  // parent, subresource
    for (const auto& rv : resources->get_array()) {
        const auto* r = rv.if_object();
        if (!r) {
            return decode_failure("APIResourceList", "a resource is not an object");
        }
        auto name = str_of(*r, "name");
        if (name.empty()) {
            return decode_failure("APIResourceList", "a resource without a name");
        }
        if (auto slash = name.find('/'); slash != std::string::npos) {
            subresources.emplace_back(name.substr(0, slash), name.substr(slash + 1));
            continue;
        }
        resource_info info;
        info.gvr = {gv.group, gv.version, name};
        info.kind = str_of(*r, "kind");
        if (info.kind.empty()) {
            return decode_failure("APIResourceList", "resource \"" + name + "\" without a kind");
        }
        const auto* ns = r->if_contains("namespaced");
        info.namespaced = ns && ns->is_bool() && ns->get_bool();
        auto verbs = strings_of(*r, "verbs", "APIResourceList");
        if (!verbs) return verbs.error();
        info.verbs = std::move(*verbs);
        auto shorts = strings_of(*r, "shortNames", "APIResourceList");
        if (!shorts) return shorts.error();
        info.short_names = std::move(*shorts);
        out.push_back(std::move(info));
    }
    for (const auto& entry : subresources) {
        // Not a structured binding: clang 14 cannot capture one in a lambda.
        const auto& parent = entry.first;
        const auto& sub = entry.second;
        auto it = std::find_if(out.begin(), out.end(), [&](const auto& i) { return i.gvr.resource == parent; });
        if (it == out.end()) {
            continue;  // a subresource of a resource not listed: nothing to mark
        }
        if (sub == "status") it->has_status = true;
        if (sub == "scale") it->has_scale = true;
    }
    return out;
}

} // namespace kcoro
