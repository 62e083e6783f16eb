#include "http/route.hpp"

#include <cstdint>

#include "store/status_errors.hpp"

#include <algorithm>
#include <charconv>

namespace kcoro::apiserver::http {

namespace {

int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// Percent-decoding as Go's url.QueryUnescape ('+' is a space in queries).
std::optional<std::string> unescape(std::string_view s, bool plus_is_space) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '%') {
            if (i + 2 >= s.size()) {
                return std::nullopt;
            }
            int hi = hex_value(s[i + 1]);
            int lo = hex_value(s[i + 2]);
            if (hi < 0 || lo < 0) {
                return std::nullopt;
            }
            out.push_back(static_cast<char>(hi * 16 + lo));
            i += 2;
        } else if (c == '+' && plus_is_space) {
            out.push_back(' ');
        } else {
            out.push_back(c);
        }
    }
    return out;
}

std::vector<std::string> split_path(std::string_view path) {
    std::vector<std::string> parts;
    std::size_t i = 0;
    while (i < path.size()) {
        auto j = path.find('/', i);
        if (j == std::string_view::npos) {
            j = path.size();
        }
        if (j > i) {
            parts.emplace_back(path.substr(i, j - i));
        }
        i = j + 1;
    }
    return parts;
}

// runtime.Convert_Slice_string_To_bool (apimachinery runtime/conversion.go):
// "0" and any case of "false" are false, everything else (empty too) true.
bool parse_bool(std::string_view v) noexcept {
    if (v == "0") return false;
    if (v.size() != 5) return true;
    std::string l;
    for (char c : v) l.push_back(c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c);
    return l != "false";
}

// runtime.Convert_Slice_string_To_int64: strconv.ParseInt; the query
// decoder's error is a 400 with the NumError's text. As ParseInt: ParseUint
// on the digits (an invalid byte is a syntax error, a uint64 overflow a range
// error at once), then the int64 bound.
result<std::int64_t> parse_int(std::string_view, std::string_view v) {
    auto fail = [&](bool range) { return errors::bad_request(errors::strconv_error("ParseInt", v, range)); };
    std::string_view digits = v;
    bool neg = false;
    if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
        neg = digits.front() == '-';
        digits.remove_prefix(1);
    }
    if (digits.empty()) return fail(false);
    std::uint64_t n = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') return fail(false);
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (n > (UINT64_MAX - d) / 10) return fail(true);
        n = n * 10 + d;
    }
    const std::uint64_t bound = neg ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
    if (n > bound) return fail(true);
    return neg ? static_cast<std::int64_t>(~n + 1) : static_cast<std::int64_t>(n);
}

result<void> apply_param(query_options& q, std::string_view key, const std::string& v) {
    if (key == "labelSelector") {
        q.label_selector = v;
    } else if (key == "fieldSelector") {
        q.field_selector = v;
    } else if (key == "shardSelector") {
        q.shard_selector = v;
    } else if (key == "limit") {
        auto n = parse_int(key, v);
        if (!n) return n.error();
        q.limit = *n;
    } else if (key == "continue") {
        q.continue_token = v;
    } else if (key == "resourceVersion") {
        q.resource_version = v;
    } else if (key == "resourceVersionMatch") {
        q.resource_version_match = v;
    } else if (key == "timeoutSeconds") {
        auto n = parse_int(key, v);
        if (!n) return n.error();
        q.timeout_seconds = *n;
    } else if (key == "timeout") {
        // A Go duration ("32s"); only plain seconds are honoured for watches.
        if (!v.empty() && v.back() == 's' && !q.timeout_seconds) {
            auto n = parse_int(key, std::string_view(v).substr(0, v.size() - 1));
            if (n) q.timeout_seconds = *n;
        }
    } else if (key == "watch") {
        q.watch = parse_bool(v);
    } else if (key == "allowWatchBookmarks") {
        q.allow_watch_bookmarks = parse_bool(v);
    } else if (key == "sendInitialEvents") {
        q.send_initial_events = parse_bool(v);
    } else if (key == "dryRun") {
        // Validated per verb (CreateOptions etc.: 422), not here.
        q.dry_run_values.push_back(v);
        q.dry_run = std::all_of(q.dry_run_values.begin(), q.dry_run_values.end(),
                                [](const std::string& x) { return x == "All"; });
    } else if (key == "includeObject") {
        if (v != "None" && v != "Metadata" && v != "Object") {
            return errors::bad_request("includeObject: Unsupported value: \"" + v +
                                       "\": supported values: \"Metadata\", \"None\", \"Object\"");
        }
        q.include_object = v;
    } else if (key == "fieldManager") {
        q.field_manager = v;
    } else if (key == "force") {
        q.force = parse_bool(v);
        q.force_given = true;
    } else if (key == "propagationPolicy") {
        q.propagation_policy = v;
    } else if (key == "gracePeriodSeconds") {
        auto n = parse_int(key, v);
        if (!n) return n.error();
        q.grace_period_seconds = *n;
    } else if (key == "fieldValidation") {
        q.field_validation = v;
    }
    return {};
}

result<query_options> parse_query(std::string_view qs) {
    query_options q;
    std::size_t i = 0;
    while (i <= qs.size() && !qs.empty()) {
        auto j = qs.find('&', i);
        if (j == std::string_view::npos) {
            j = qs.size();
        }
        auto pair = qs.substr(i, j - i);
        if (!pair.empty()) {
            auto eq = pair.find('=');
            auto k = unescape(pair.substr(0, eq), true);
            auto v = unescape(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1), true);
            if (!k || !v) {
                return errors::bad_request("invalid query string: bad percent-encoding");
            }
            if (auto r = apply_param(q, *k, *v); !r) {
                return r.error();
            }
        }
        if (j == qs.size()) {
            break;
        }
        i = j + 1;
    }
    return q;
}

/// The verb as RequestInfo names it.
std::optional<std::string> verb_for(std::string_view method, bool has_name, bool watch) {
    if (method == "GET" || method == "HEAD") {
        if (watch) return std::string("watch");
        return std::string(has_name ? "get" : "list");
    }
    if (method == "POST") return std::string("create");
    if (method == "PUT") return std::string("update");
    if (method == "PATCH") return std::string("patch");
    if (method == "DELETE") return std::string(has_name ? "delete" : "deletecollection");
    return std::nullopt;
}

} // namespace

result<route> parse_route(std::string_view method, std::string_view target) {
    route r;
    auto qpos = target.find('?');
    auto raw_path = target.substr(0, qpos);
    auto decoded = unescape(raw_path, false);
    if (!decoded) {
        return errors::bad_request("invalid path: bad percent-encoding");
    }
    r.path = *decoded;
    auto q = parse_query(qpos == std::string_view::npos ? std::string_view{} : target.substr(qpos + 1));
    if (!q) {
        return q.error();
    }
    r.query = std::move(*q);
    auto parts = split_path(r.path);

    if (parts.empty()) {
        return r;  // "/" is not served
    }
    const auto& p0 = parts[0];
    if (parts.size() == 1 && p0 == "version") {
        r.kind = route_kind::version;
        return r;
    }
    if (parts.size() == 1 && (p0 == "healthz" || p0 == "livez" || p0 == "readyz")) {
        r.kind = route_kind::health;
        return r;
    }
    if (p0 == "openapi") {
        r.kind = route_kind::openapi;
        return r;
    }
    if (p0 == "kcoro" && parts.size() == 2 && parts[1] == "faults") {
        r.kind = route_kind::faults;
        return r;
    }
    std::size_t i = 0;
    if (p0 == "api") {
        if (parts.size() == 1) {
            r.kind = route_kind::core_groups;
            return r;
        }
        r.version = parts[1];
        i = 2;
    } else if (p0 == "apis") {
        if (parts.size() == 1) {
            r.kind = route_kind::groups;
            return r;
        }
        r.group = parts[1];
        if (parts.size() == 2) {
            r.kind = route_kind::group;
            return r;
        }
        r.version = parts[2];
        i = 3;
    } else {
        return r;
    }
    if (i == parts.size()) {
        r.kind = r.group.empty() ? route_kind::core_resources : route_kind::group_resources;
        return r;
    }
    bool watch = r.query.watch;
    if (parts[i] == "watch") {  // legacy /watch/ paths
        watch = true;
        r.watch_path = true;
        ++i;
        if (i == parts.size()) {
            return r;
        }
    }
    std::vector<std::string> rest(parts.begin() + static_cast<std::ptrdiff_t>(i), parts.end());
    if (rest[0] == "namespaces" && rest.size() > 1) {
        r.ns = rest[1];
        if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize") {
            rest.erase(rest.begin(), rest.begin() + 2);
        } else {
            // The namespace object itself: the namespace is its name.
            r.ns.clear();
            r.resource = "namespaces";
            r.name = rest[1];
            if (rest.size() > 2) r.subresource = rest[2];
            if (rest.size() > 3) return r;
            rest.clear();
        }
    }
    if (!rest.empty()) {
        if (rest.size() > 3) {
            return r;  // not a resource path
        }
        r.resource = rest[0];
        if (rest.size() > 1) r.name = rest[1];
        if (rest.size() > 2) r.subresource = rest[2];
    }
    auto verb = verb_for(method, !r.name.empty(), watch);
    r.verb = verb.value_or(std::string{});
    r.kind = route_kind::resource;
    return r;
}

} // namespace kcoro::apiserver::http
