#include "http/request_checks.hpp"

#include "http/partial_metadata.hpp"
#include "store/status_errors.hpp"

#include <kcoro/core/resource.hpp>

#include <algorithm>
#include <array>

namespace kcoro::apiserver::http {

std::string go_string_slice(const std::vector<std::string>& v) {
    std::string out = "[]string{";
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) out += ", ";
        out += "\"" + v[i] + "\"";
    }
    return out + "}";
}

result<void> validate_write_options(std::string_view verb, const write_options& o, bool apply) {
    std::string kind = verb == "create"                               ? "CreateOptions"
                       : verb == "update"                             ? "UpdateOptions"
                       : verb == "patch"                              ? "PatchOptions"
                                                                      : "DeleteOptions";
    std::vector<status_cause> causes;
    const bool is_delete = verb == "delete" || verb == "deletecollection";
    if (verb == "patch") {
        if (!apply && o.force) {
            causes.push_back(errors::field_forbidden("force", "may not be specified for non-apply patch"));
        }
        if (apply && o.field_manager.empty()) {
            causes.push_back(errors::field_required("fieldManager", "is required for apply patch"));
        }
    }
    if (!is_delete && o.field_manager.size() > 128) {
        causes.push_back({"FieldValueTooLong", "Too long: may not be more than 128 bytes", "fieldManager"});
    }
    if (!std::all_of(o.dry_run.begin(), o.dry_run.end(), [](const std::string& s) { return s == "All"; })) {
        causes.push_back(errors::field_not_supported("dryRun", go_string_slice(o.dry_run), {"All"}));
    }
    if (!is_delete && !o.field_validation.empty() && o.field_validation != "Ignore" && o.field_validation != "Warn" &&
        o.field_validation != "Strict") {
        causes.push_back(errors::field_not_supported("fieldValidation", "\"" + o.field_validation + "\"",
                                                     {"", "Ignore", "Strict", "Warn"}));
    }
    if (causes.empty()) {
        return {};
    }
    return errors::invalid("meta.k8s.io", kind, "", std::move(causes));
}

namespace {

/// Kinds the real scheme registers at the built-in group versions we serve,
/// beyond the ones served here (they decode, then fail to convert).
bool known_elsewhere(std::string_view gv, std::string_view kind) {
    static constexpr std::array<std::string_view, 12> core{
        "Pod", "Node", "Endpoints", "PersistentVolume", "PersistentVolumeClaim", "ReplicationController",
        "ResourceQuota", "LimitRange", "PodTemplate", "Binding", "ComponentStatus", "List"};
    static constexpr std::array<std::string_view, 4> apps{"DaemonSet", "ReplicaSet", "StatefulSet",
                                                          "ControllerRevision"};
    if (gv == "v1") return std::find(core.begin(), core.end(), kind) != core.end();
    if (gv == "apps/v1") return std::find(apps.begin(), apps.end(), kind) != apps.end();
    return false;
}

/// The internal type a versioned kind decodes to (events.k8s.io events are core events).
std::string internal_of(std::string_view group, std::string_view kind) {
    auto t = internal_type_name(group, kind, false, false);
    return t.substr(1);  // without '*'
}

} // namespace

result<void> check_body_kind(const endpoint_kind& ep, const boost::json::object& body, const resource_registry& reg) {
    if (ep.custom) {
        return {};
    }
    std::string api_version;
    std::string kind;
    if (const auto* v = body.if_contains("apiVersion"); v && v->is_string()) api_version = v->get_string();
    if (const auto* k = body.if_contains("kind"); k && k->is_string()) kind = k->get_string();
    const std::string ep_gv = ep.group.empty() ? ep.version : ep.group + "/" + ep.version;
    // gvkWithDefaults: a missing kind or group/version comes from the endpoint.
    if (kind.empty()) kind = ep.kind;
    if (api_version.empty()) api_version = ep_gv;
    if (api_version == ep_gv && kind == ep.kind) {
        return {};
    }
    auto gv = group_version::parse(api_version);
    const std::string ep_internal = internal_of(ep.group, ep.kind);
    const bool registered = reg.find_kind(api_version, kind) != nullptr || known_elsewhere(api_version, kind) ||
                            (api_version == "autoscaling/v1" && kind == "Scale");
    if (!registered) {
        return errors::bad_request(kind + " in version \"" + gv.version + "\" cannot be handled as a " + ep.kind +
                                   ": no kind \"" + kind + "\" is registered for version \"" + api_version +
                                   "\" in scheme \"pkg/api/legacyscheme/scheme.go:30\"");
    }
    if (internal_of(gv.group, kind) != ep_internal) {
        return errors::bad_request(kind + " in version \"" + gv.version + "\" cannot be handled as a " + ep.kind +
                                   ": converting (" + gv.version + "." + kind + ") to (" + ep_internal +
                                   "): unknown conversion");
    }
    return errors::bad_request("the API version in the data (" + api_version +
                               ") does not match the expected API version (" + ep_gv + ")");
}

} // namespace kcoro::apiserver::http
