// Pure parsing of a request target into what kube-apiserver's RequestInfo
// resolver derives from it (k8s.io/apiserver/pkg/endpoints/request):
//   /api/v1/namespaces/ns/configmaps/name/status?dryRun=All
//   -> resource request: group "", version v1, namespace ns, resource
//      configmaps, name, subresource status, verb from the method.
// Also the non-resource paths (discovery, /version, /healthz, openapi, the
// fault endpoint) and the query options every verb uses.
//
// Rules copied from the real resolver: `namespaces/<ns>/<resource>...` scopes
// a resource to a namespace unless the third segment is a namespace
// subresource (`status`, `finalize`); the legacy `/watch/` prefix and
// `watch=true|1` make a GET on a collection (or on a name) a watch; GET
// without name is list; DELETE without name is deletecollection.
//
// Pure values, no I/O; bad input gives an error value (400), never a throw.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/resource.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::apiserver::http {

enum class route_kind {
    resource,        // /api/v1/..., /apis/g/v/... with a resource
    version,         // /version
    core_groups,     // /api           (APIVersions)
    core_resources,  // /api/v1        (APIResourceList)
    groups,          // /apis          (APIGroupList)
    group,           // /apis/<g>      (APIGroup)
    group_resources, // /apis/<g>/<v>  (APIResourceList)
    health,          // /healthz /livez /readyz
    openapi,         // /openapi/v2, /openapi/v3...
    faults,          // /kcoro/faults (the fault-injection endpoint)
    not_found,
};

/// The query options of resource requests, decoded (unknown ones ignored).
struct query_options {
    std::string label_selector;
    std::string field_selector;
    /// KEP-5866 shardSelector, as given (the store reads it only with the
    /// ShardedListAndWatch gate on).
    std::string shard_selector;
    std::int64_t limit = 0;
    std::string continue_token;
    std::string resource_version;
    std::string resource_version_match;
    std::optional<std::int64_t> timeout_seconds;
    bool watch = false;
    bool allow_watch_bookmarks = false;
    std::optional<bool> send_initial_events;
    bool dry_run = false;  // every dryRun value is "All" (others: 422, see request_checks.hpp)
    std::vector<std::string> dry_run_values;  // as given (dryRun may repeat)
    std::string field_manager;
    bool force = false;
    bool force_given = false;  // `force` named at all (PatchOptions.Force != nil)
    std::string propagation_policy;
    std::optional<std::int64_t> grace_period_seconds;
    std::string field_validation;  // Strict/Warn/Ignore, accepted and ignored
    std::string include_object;    // Table rows: None, Metadata (default), Object
};

struct route {
    route_kind kind = route_kind::not_found;
    std::string verb;  // get list watch create update patch delete deletecollection
    std::string group;
    std::string version;
    std::string ns;
    std::string resource;
    std::string name;
    std::string subresource;
    std::string path;  // without the query
    bool watch_path = false;  // the legacy /watch/ prefix
    query_options query;

    group_version_resource gvr() const { return {group, version, resource}; }
};

/// Parses method + target. Errors (400) for malformed queries (a limit that
/// is not a number, a percent-encoding error). A method RequestInfo does not
/// know gets verb "" (the caller answers 405, see surface.hpp).
result<route> parse_route(std::string_view method, std::string_view target);

} // namespace kcoro::apiserver::http
