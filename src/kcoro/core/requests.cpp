#include <kcoro/core/requests.hpp>

#include <kcoro/core/object.hpp>

#include <boost/json/serialize.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/grammar/lut_chars.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include <algorithm>
#include <utility>
#include <vector>

namespace kcoro {
namespace json = boost::json;

namespace {

constexpr std::string_view json_content_type = "application/json";

// Path segments as Go's url.URL writes a path (shouldEscape, encodePath):
// unreserved characters and $&+,:;=@ stay (RBAC names such as
// "system:controller:x" stay readable), the rest is %XX in upper case.
constexpr boost::urls::grammar::lut_chars path_segment_chars =
    boost::urls::unreserved_chars + boost::urls::grammar::lut_chars("$&+,:;=@");

std::string path_escape(std::string_view s) { return boost::urls::encode(s, path_segment_chars); }

// client-go's IsValidPathSegmentName, applied to every segment we insert.
result<void> check_segment(std::string_view what, std::string_view s, bool required) {
    if (s.empty()) {
        if (required) {
            return error(kcoro_errc::invalid_argument, std::string(what) + " must not be empty");
        }
        return {};
    }
    if (s == "." || s == "..") {
        return error(kcoro_errc::invalid_argument, std::string(what) + " may not be '" + std::string(s) + "'");
    }
    if (s.find_first_of("/%") != std::string_view::npos) {
        return error(kcoro_errc::invalid_argument,
                     std::string(what) + " may not contain '/' or '%': \"" + std::string(s) + "\"");
    }
    return {};
}

/// Query parameters, encoded sorted by key as url.Values.Encode does.
class query {
public:
    void add(std::string_view key, std::string value) { params_.emplace_back(std::string(key), std::move(value)); }
    void add_if(std::string_view key, const std::string& value) {
        if (!value.empty()) add(key, value);
    }
    std::string encode() const {
        auto sorted = params_;
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::string out;
        for (const auto& [k, v] : sorted) {
            out += out.empty() ? '?' : '&';
            out += query_escape(k);
            out += '=';
            out += query_escape(v);
        }
        return out;
    }

private:
    std::vector<std::pair<std::string, std::string>> params_;
};

void add_write_params(query& q, const std::string& field_manager, bool dry_run) {
    q.add_if("fieldManager", field_manager);
    if (dry_run) q.add("dryRun", "All");
}

result<void> add_list_params(query& q, const list_options& o) {
    if (o.limit < 0) {
        return error(kcoro_errc::invalid_argument, "list limit must not be negative");
    }
    if (o.resource_version_match != version_match::unset && o.resource_version.empty()) {
        // The server rejects it: "resourceVersionMatch is forbidden unless resourceVersion is provided".
        return error(kcoro_errc::invalid_argument, "resourceVersionMatch needs a resourceVersion");
    }
    if (o.resource_version_match == version_match::exact && o.resource_version == "0") {
        return error(kcoro_errc::invalid_argument, "resourceVersionMatch=Exact is forbidden for resourceVersion \"0\"");
    }
    q.add_if("labelSelector", o.label_selector);
    q.add_if("fieldSelector", o.field_selector);
    q.add_if("shardSelector", o.shard_selector);
    if (o.limit > 0) q.add("limit", std::to_string(o.limit));
    q.add_if("continue", o.continue_token);
    q.add_if("resourceVersion", o.resource_version);
    if (o.resource_version_match != version_match::unset) {
        q.add("resourceVersionMatch", to_string(o.resource_version_match));
    }
    return {};
}

api_request make(http_method m, std::string target, std::optional<std::chrono::milliseconds> timeout) {
    api_request r;
    r.method = m;
    r.target = std::move(target);
    r.timeout = timeout;
    r.verb = to_string(m);
    return r;
}

} // namespace

std::string query_escape(std::string_view s) {
    // url.QueryEscape: only unreserved characters stay, space is '+'.
    boost::urls::encoding_opts opts;
    opts.space_as_plus = true;
    return boost::urls::encode(s, boost::urls::unreserved_chars, opts);
}

result<std::string> resource_path(const group_version_resource& gvr, std::string_view ns,
                                  std::string_view name, std::string_view subresource) {
    if (gvr.version.empty()) {
        return error(kcoro_errc::invalid_argument, "resource version must not be empty");
    }
    if (auto r = check_segment("resource", gvr.resource, true); !r) return r.error();
    if (auto r = check_segment("group", gvr.group, false); !r) return r.error();
    if (auto r = check_segment("version", gvr.version, true); !r) return r.error();
    if (auto r = check_segment("namespace", ns, false); !r) return r.error();
    if (auto r = check_segment("name", name, false); !r) return r.error();
    if (auto r = check_segment("subresource", subresource, false); !r) return r.error();
    if (!subresource.empty() && name.empty()) {
        return error(kcoro_errc::invalid_argument, "a subresource needs an object name");
    }
    std::string p = gvr.group.empty() ? "/api/" + gvr.version : "/apis/" + gvr.group + '/' + gvr.version;
    if (!ns.empty()) {
        p += "/namespaces/";
        p += path_escape(ns);
    }
    p += '/';
    p += gvr.resource;
    if (!name.empty()) {
        p += '/';
        p += path_escape(name);
    }
    if (!subresource.empty()) {
        p += '/';
        p += subresource;
    }
    return p;
}

result<api_request> get_request(const group_version_resource& gvr, const object_key& key, const get_options& opts) {
    if (key.name.empty()) {
        return error(kcoro_errc::invalid_argument, "get: name must not be empty");
    }
    auto path = resource_path(gvr, key.ns, key.name, opts.subresource);
    if (!path) return path.error();
    query q;
    q.add_if("resourceVersion", opts.resource_version);
    return make(http_method::get, *path + q.encode(), opts.timeout);
}

result<api_request> list_request(const group_version_resource& gvr, std::string_view ns, const list_options& opts) {
    auto path = resource_path(gvr, ns);
    if (!path) return path.error();
    query q;
    if (auto r = add_list_params(q, opts); !r) return r.error();
    auto r = make(http_method::get, *path + q.encode(), opts.timeout);
    if (opts.metadata_only) {
        // client-go's metadata client asks for v1 only; a server without it answers 406.
        r.headers.emplace_back("Accept", std::string(partial_object_metadata_list_accept));
    }
    return r;
}

result<api_request> watch_request(const group_version_resource& gvr, std::string_view ns, const watch_options& opts) {
    auto path = resource_path(gvr, ns);
    if (!path) return path.error();
    if (opts.timeout_seconds && *opts.timeout_seconds < 0) {
        return error(kcoro_errc::invalid_argument, "watch timeoutSeconds must not be negative");
    }
    query q;
    q.add("watch", "true");
    q.add_if("labelSelector", opts.label_selector);
    q.add_if("fieldSelector", opts.field_selector);
    q.add_if("shardSelector", opts.shard_selector);
    q.add_if("resourceVersion", opts.resource_version);
    // sendInitialEvents requires bookmarks (the end of the initial events is a
    // bookmark) and resourceVersionMatch=NotOlderThan.
    if (opts.allow_watch_bookmarks || opts.send_initial_events) q.add("allowWatchBookmarks", "true");
    if (opts.send_initial_events) {
        q.add("sendInitialEvents", "true");
        q.add("resourceVersionMatch", to_string(version_match::not_older_than));
    }
    if (opts.timeout_seconds) q.add("timeoutSeconds", std::to_string(*opts.timeout_seconds));
    auto r = make(http_method::get, *path + q.encode(), std::nullopt);
    r.is_watch = true;
    if (opts.metadata_only) {
        // A watch transforms each event's object: as=PartialObjectMetadata, not ...List.
        r.headers.emplace_back("Accept", std::string(partial_object_metadata_accept));
    }
    return r;
}

result<api_request> create_request(const group_version_resource& gvr, std::string_view ns,
                                   const json::object& obj, const create_options& opts) {
    std::string_view name;
    if (!opts.subresource.empty()) {
        name = name_of(obj);
        if (name.empty()) {
            return error(kcoro_errc::invalid_argument, "create on a subresource needs metadata.name");
        }
    }
    auto obj_ns = namespace_of(obj);
    if (!obj_ns.empty() && obj_ns != ns) {
        return error(kcoro_errc::invalid_argument, "create: object namespace \"" + std::string(obj_ns) +
                                                       "\" does not match request namespace \"" +
                                                       std::string(ns) + "\"");
    }
    auto path = resource_path(gvr, ns, name, opts.subresource);
    if (!path) return path.error();
    query q;
    add_write_params(q, opts.field_manager, opts.dry_run);
    auto r = make(http_method::post, *path + q.encode(), opts.timeout);
    r.body = json::serialize(obj);
    r.content_type = json_content_type;
    return r;
}

result<api_request> update_request(const group_version_resource& gvr, const json::object& obj,
                                   const update_options& opts) {
    auto name = name_of(obj);
    if (name.empty()) {
        return error(kcoro_errc::invalid_argument, "update: metadata.name must not be empty");
    }
    auto path = resource_path(gvr, namespace_of(obj), name, opts.subresource);
    if (!path) return path.error();
    query q;
    add_write_params(q, opts.field_manager, opts.dry_run);
    auto r = make(http_method::put, *path + q.encode(), opts.timeout);
    r.body = json::serialize(obj);
    r.content_type = json_content_type;
    return r;
}

result<api_request> patch_request(const group_version_resource& gvr, const object_key& key, std::string patch,
                                  const patch_options& opts) {
    if (key.name.empty()) {
        return error(kcoro_errc::invalid_argument, "patch: name must not be empty");
    }
    if (opts.type == patch_type::apply && opts.field_manager.empty()) {
        return error(kcoro_errc::invalid_argument, "server-side apply needs a fieldManager");
    }
    if (opts.force && opts.type != patch_type::apply) {
        return error(kcoro_errc::invalid_argument, "force is only allowed for server-side apply");
    }
    if (patch.empty()) {
        return error(kcoro_errc::invalid_argument, "patch: empty patch body");
    }
    auto path = resource_path(gvr, key.ns, key.name, opts.subresource);
    if (!path) return path.error();
    query q;
    add_write_params(q, opts.field_manager, opts.dry_run);
    if (opts.force) q.add("force", "true");
    auto r = make(http_method::patch, *path + q.encode(), opts.timeout);
    r.body = std::move(patch);
    r.content_type = content_type_of(opts.type);
    return r;
}

json::object encode_delete_options(const delete_options& opts) {
    json::object o;
    o["kind"] = "DeleteOptions";
    o["apiVersion"] = "v1";
    if (opts.grace_period_seconds) o["gracePeriodSeconds"] = *opts.grace_period_seconds;
    if (opts.preconditions) {
        json::object p;
        if (!opts.preconditions->uid.empty()) p["uid"] = opts.preconditions->uid;
        if (!opts.preconditions->resource_version.empty()) p["resourceVersion"] = opts.preconditions->resource_version;
        o["preconditions"] = std::move(p);
    }
    if (opts.propagation_policy != deletion_propagation::unset) {
        o["propagationPolicy"] = to_string(opts.propagation_policy);
    }
    if (opts.dry_run) o["dryRun"] = json::array{"All"};
    return o;
}

namespace {
result<void> check_delete(const delete_options& opts) {
    if (opts.grace_period_seconds && *opts.grace_period_seconds < 0) {
        return error(kcoro_errc::invalid_argument, "gracePeriodSeconds must not be negative");
    }
    return {};
}
} // namespace

result<api_request> delete_request(const group_version_resource& gvr, const object_key& key,
                                   const delete_options& opts) {
    if (key.name.empty()) {
        return error(kcoro_errc::invalid_argument, "delete: name must not be empty");
    }
    if (auto c = check_delete(opts); !c) return c.error();
    auto path = resource_path(gvr, key.ns, key.name);
    if (!path) return path.error();
    auto r = make(http_method::delete_, std::move(*path), opts.timeout);
    r.body = json::serialize(encode_delete_options(opts));
    r.content_type = json_content_type;
    return r;
}

result<api_request> delete_collection_request(const group_version_resource& gvr, std::string_view ns,
                                              const list_options& selection, const delete_options& opts) {
    if (auto c = check_delete(opts); !c) return c.error();
    auto path = resource_path(gvr, ns);
    if (!path) return path.error();
    query q;
    if (auto r = add_list_params(q, selection); !r) return r.error();
    auto r = make(http_method::delete_, *path + q.encode(), opts.timeout);
    r.body = json::serialize(encode_delete_options(opts));
    r.content_type = json_content_type;
    return r;
}

} // namespace kcoro
