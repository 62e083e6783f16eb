// Decoding of the discovery documents kube-apiserver serves:
//   /api                APIVersions     -> the core group's versions ("v1")
//   /apis               APIGroupList    -> groups, their versions, the preferred one
//   /api/v1, /apis/g/v  APIResourceList -> resource_info per resource, with the
//                        status/scale subresources folded into has_status/has_scale
//
// Pure; bad documents give kcoro_errc::decode_error naming what was wrong.
// The cache that answers lookups is kcoro/core/discovery_cache.hpp.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/resource.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kcoro {

/// One entry of an APIGroupList.
struct api_group {
    std::string name;                   // "apps"
    std::vector<std::string> versions;  // "v1", in the server's priority order
    std::string preferred_version;      // "v1"
    friend bool operator==(const api_group&, const api_group&) = default;
};

/// /api: the versions of the core group.
result<std::vector<std::string>> decode_api_versions(std::string_view body);

/// /apis: the groups.
result<std::vector<api_group>> decode_api_group_list(std::string_view body);

/// /api/v1 or /apis/<group>/<version>: the resources of one group version.
/// Subresource entries ("deployments/status") are not returned as resources;
/// they set has_status/has_scale on their parent.
result<std::vector<resource_info>> decode_api_resource_list(std::string_view body);

} // namespace kcoro
