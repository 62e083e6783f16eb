#include "store/status_errors.hpp"

namespace kcoro::apiserver::errors {
namespace {

error make(int code, std::string reason, std::string message, std::optional<status_details> details = {}) {
    status s;
    s.outcome = "Failure";
    s.code = code;
    s.reason = std::move(reason);
    s.message = std::move(message);
    s.details = std::move(details);
    return error::from_status(std::move(s));
}

status_details details_for(const group_version_resource& gvr, std::string_view name) {
    status_details d;
    d.name = std::string(name);
    d.group = gvr.group;
    d.kind = gvr.resource;  // the real server puts the resource here
    return d;
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

} // namespace

std::string qualified_resource(const group_version_resource& gvr) {
    return gvr.group.empty() ? gvr.resource : gvr.resource + "." + gvr.group;
}

error not_found(const group_version_resource& gvr, std::string_view name) {
    return make(404, "NotFound", qualified_resource(gvr) + " " + quoted(name) + " not found",
                details_for(gvr, name));
}

error already_exists(const group_version_resource& gvr, std::string_view name) {
    return make(409, "AlreadyExists", qualified_resource(gvr) + " " + quoted(name) + " already exists",
                details_for(gvr, name));
}

error conflict(const group_version_resource& gvr, std::string_view name, std::string_view detail) {
    return make(409, "Conflict",
                "Operation cannot be fulfilled on " + qualified_resource(gvr) + " " + quoted(name) + ": " +
                    std::string(detail),
                details_for(gvr, name));
}

error conflict_kind(std::string_view group, std::string_view kind, std::string_view name, std::string_view detail) {
    std::string qualified(kind);
    if (!group.empty()) qualified += "." + std::string(group);
    status_details d;
    d.name = std::string(name);
    d.group = std::string(group);
    d.kind = std::string(kind);
    return make(409, "Conflict",
                "Operation cannot be fulfilled on " + qualified + " " + quoted(name) + ": " + std::string(detail),
                std::move(d));
}

error invalid(std::string_view group, std::string_view kind, std::string_view name,
              std::vector<status_cause> causes) {
    std::string qualified_kind(kind);
    if (!group.empty()) {
        qualified_kind += "." + std::string(group);
    }
    // utilerrors.NewAggregate: one error prints bare, several as "[a, b]".
    std::string agg;
    for (const auto& c : causes) {
        if (!agg.empty()) agg += ", ";
        agg += c.field.empty() ? c.message : c.field + ": " + c.message;
    }
    if (causes.size() > 1) {
        agg = "[" + agg + "]";
    }
    status_details d;
    d.name = std::string(name);
    d.group = std::string(group);
    d.kind = std::string(kind);
    d.causes = std::move(causes);
    return make(422, "Invalid", qualified_kind + " " + quoted(name) + " is invalid: " + agg, std::move(d));
}

error forbidden(const group_version_resource& gvr, std::string_view name, std::string_view why) {
    std::string msg = qualified_resource(gvr);
    if (!name.empty()) {
        msg += " " + quoted(name);
    }
    msg += " is forbidden: " + std::string(why);
    return make(403, "Forbidden", std::move(msg), details_for(gvr, name));
}

error namespace_terminating(const group_version_resource& gvr, std::string_view name, std::string_view ns) {
    std::string why = "unable to create new content in namespace " + std::string(ns) +
                      " because it is being terminated";
    std::string msg = qualified_resource(gvr);
    if (!name.empty()) {
        msg += " " + quoted(name);
    }
    msg += " is forbidden: " + why;
    auto d = details_for(gvr, name);
    d.causes.push_back({"NamespaceTerminating", "namespace " + std::string(ns) + " is being terminated",
                        "metadata.namespace"});
    return make(403, "Forbidden", std::move(msg), std::move(d));
}

error bad_request(std::string_view message) { return make(400, "BadRequest", std::string(message)); }

error method_not_allowed(const group_version_resource& gvr, std::string_view action) {
    return make(405, "MethodNotAllowed",
                std::string(action) + " is not supported on resources of kind " +
                    quoted(qualified_resource(gvr)),
                details_for(gvr, ""));
}

error expired(std::string_view message) { return make(410, "Expired", std::string(message)); }

error too_large_resource_version(std::uint64_t requested, std::uint64_t current) {
    status_details d;
    d.causes.push_back({"ResourceVersionTooLarge", "Too large resource version", ""});
    d.retry_after_seconds = 1;
    // storage.NewTooLargeResourceVersionError -> apierrors.NewTimeoutError,
    // which prefixes "Timeout: " (errors.go).
    return make(504, "Timeout",
                "Timeout: Too large resource version: " + std::to_string(requested) +
                    ", current: " + std::to_string(current),
                std::move(d));
}

error unsupported_media_type(std::string_view content_type) {
    return make(415, "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media types include: "
                "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml" +
                    std::string(content_type.empty() ? "" : ""));
}

error not_acceptable(std::string_view message) { return make(406, "NotAcceptable", std::string(message)); }

std::string go_quote(std::string_view s) {
    // strconv.Quote for the ASCII a query parameter holds; other bytes as \xNN.
    static constexpr char hex[] = "0123456789abcdef";
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(static_cast<char>(c));
        } else if (c >= 0x20 && c < 0x7f) {
            out.push_back(static_cast<char>(c));
        } else {
            out += "\\x";
            out.push_back(hex[c >> 4]);
            out.push_back(hex[c & 15]);
        }
    }
    return out + "\"";
}

std::string strconv_error(std::string_view func, std::string_view num, bool out_of_range) {
    return "strconv." + std::string(func) + ": parsing " + go_quote(num) + ": " +
           (out_of_range ? "value out of range" : "invalid syntax");
}

result<std::uint64_t> parse_resource_version_param(std::string_view rv) {
    if (rv.empty() || rv == "0") return std::uint64_t{0};
    std::uint64_t n = 0;
    for (char c : rv) {
        if (c < '0' || c > '9') return unparsable_resource_version(rv, false);
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (n > (UINT64_MAX - d) / 10) return unparsable_resource_version(rv, true);
        n = n * 10 + d;
    }
    return n;
}

error unparsable_resource_version(std::string_view rv, bool out_of_range) {
    // APIObjectVersioner.ParseResourceVersion: a storage InvalidError, which
    // no handler maps, so ErrorToAPIStatus answers 500 with no reason and the
    // error's text (apiserver/pkg/storage/api_object_versioner.go).
    return make(500, "",
                "resourceVersion: Invalid value: " + go_quote(rv) + ": " +
                    strconv_error("ParseUint", rv, out_of_range));
}

error future_revision() {
    return make(500, "", "etcdserver: mvcc: required revision is a future revision");
}

error internal(std::string_view message) {
    return make(500, "InternalError", "Internal error occurred: " + std::string(message));
}

status_cause field_invalid(std::string_view field, std::string_view value_json, std::string_view detail) {
    std::string msg = "Invalid value: " + std::string(value_json);
    if (!detail.empty()) msg += ": " + std::string(detail);
    return {"FieldValueInvalid", std::move(msg), std::string(field)};
}

status_cause field_required(std::string_view field, std::string_view detail) {
    std::string msg = "Required value";
    if (!detail.empty()) msg += ": " + std::string(detail);
    return {"FieldValueRequired", std::move(msg), std::string(field)};
}

status_cause field_forbidden(std::string_view field, std::string_view detail) {
    std::string msg = "Forbidden";
    if (!detail.empty()) msg += ": " + std::string(detail);
    return {"FieldValueForbidden", std::move(msg), std::string(field)};
}

status_cause field_not_supported(std::string_view field, std::string_view value_json,
                                 const std::vector<std::string>& allowed) {
    std::string msg = "Unsupported value: " + std::string(value_json);
    if (!allowed.empty()) {
        msg += ": supported values: ";
        for (std::size_t i = 0; i < allowed.size(); ++i) {
            if (i) msg += ", ";
            msg += "\"" + allowed[i] + "\"";
        }
    }
    return {"FieldValueNotSupported", std::move(msg), std::string(field)};
}

} // namespace kcoro::apiserver::errors
