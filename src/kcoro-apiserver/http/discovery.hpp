// Discovery documents as kube-apiserver serves them: the legacy documents
// below and, for clients that ask for it (kubectl 1.30+, client-go), the
// aggregated apidiscovery.k8s.io/v2 (or v2beta1) APIGroupDiscoveryList of
// /api and /apis (staging/src/k8s.io/apiserver/pkg/endpoints/discovery/
// aggregated; one request instead of one per group version).
//   /version       version.Info
//   /api           APIVersions
//   /api/v1        APIResourceList (with "<resource>/status" entries)
//   /apis          APIGroupList
//   /apis/<g>      APIGroup
//   /apis/<g>/<v>  APIResourceList
// Built from the store's resource_registry, so CRDs appear once established.
//
// Pure functions over the registry.
#pragma once

#include "store/resource_registry.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace kcoro::apiserver::http {

/// base64(sha256("<group>/<version>/<kind>")[:8]) of the storage version
/// (staging/src/k8s.io/apiserver/pkg/endpoints/discovery/storageversionhash.go).
std::string storage_version_hash(std::string_view group, std::string_view version, std::string_view kind);

boost::json::object version_document();

/// The aggregated discovery version an Accept header asks for ("v2",
/// "v2beta1") ahead of plain JSON, or "" (then the legacy document).
std::string aggregated_discovery_version(std::string_view accept);
/// APIGroupDiscoveryList: of the core group (`core`, for /api) or of every
/// other group (/apis); `version` "v2" or "v2beta1".
boost::json::object aggregated_discovery_document(const resource_registry& reg, bool core, std::string_view version);
/// `server_address` is "host:port" as clients reach us.
boost::json::object core_versions_document(std::string_view server_address);
boost::json::object group_list_document(const resource_registry& reg);
/// nullopt when the group is not served.
std::optional<boost::json::object> group_document(const resource_registry& reg, std::string_view group);
/// nullopt when nothing is served at group/version.
std::optional<boost::json::object> resource_list_document(const resource_registry& reg, std::string_view group,
                                                          std::string_view version);

/// OpenAPI v3, only as much as kubectl reads: the index (/openapi/v3) and,
/// per group/version, a PATCH operation per resource carrying the
/// x-kubernetes-group-version-kind extension and the fieldValidation,
/// dryRun, fieldManager and force parameters. kubectl's field-validation
/// check (QueryParamVerifierV3) then uses server-side validation instead of
/// downloading /openapi/v2 (which we do not serve), and its client-side apply
/// falls back to its compiled-in strategic-merge metadata for built-ins and
/// to JSON merge patch for custom resources. No schemas are published.
boost::json::object openapi_v3_index(const resource_registry& reg);
/// `gv_path` is "api/v1" or "apis/<g>/<v>"; nullopt when not served.
std::optional<boost::json::object> openapi_v3_document(const resource_registry& reg, std::string_view gv_path);

/// /openapi/v2 (kube-openapi's handler): JSON, or the gnostic protobuf form
/// for `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`
/// (what client-go's OpenAPISchema asks for). Only swagger, info and empty
/// paths and definitions: kubectl (1.27+, default flags) takes the
/// fieldValidation check from /openapi/v3 and uses server-side validation;
/// it reads v2 only as a fallback, and an empty document makes it skip
/// client-side validation for unknown kinds and fall back to its compiled-in
/// strategic-merge metadata, instead of failing on a 404.
boost::json::object openapi_v2_document();
std::string openapi_v2_protobuf();

} // namespace kcoro::apiserver::http
