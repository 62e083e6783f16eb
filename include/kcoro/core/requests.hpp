// Request builders: every verb of the Kubernetes API as a pure function from
// (resource, namespace/name, options) to an `api_request` (method, target,
// body, content type). The transport sends the result as it is.
//
// Paths follow kube-apiserver: `/api/v1/...` for the core group,
// `/apis/<group>/<version>/...` otherwise; `namespaces/<ns>/` is inserted
// when a namespace is given (an empty namespace on a namespaced resource
// means "all namespaces" for list/watch). Query parameters are sorted by key
// and escaped as Go's url.Values.Encode does, so targets are byte-identical
// to client-go's.
//
// Bad input (empty name, a name with '/', a negative limit, apply without a
// field manager...) yields kcoro_errc::invalid_argument, never an exception.
// `api_request::verb` is the upper-case HTTP method, as client-go labels
// rest_client_request_duration_seconds.
//
// Thread safety: pure functions.
#pragma once

#include <kcoro/core/api_request.hpp>
#include <kcoro/core/error.hpp>
#include <kcoro/core/request_options.hpp>
#include <kcoro/core/resource.hpp>

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace kcoro {

/// Escape a query key or value as Go's url.QueryEscape: unreserved
/// characters stay, space becomes '+', everything else is %XX.
std::string query_escape(std::string_view s);

/// The path of a collection (empty name) or of one object, with an optional
/// subresource. Fails on names that cannot be a path segment.
result<std::string> resource_path(const group_version_resource& gvr, std::string_view ns,
                                  std::string_view name = {}, std::string_view subresource = {});

/// GET one object (or a subresource of it: opts.subresource).
result<api_request> get_request(const group_version_resource& gvr, const object_key& key,
                                const get_options& opts = {});

/// GET a collection (one page when opts.limit > 0).
/// The Accept headers of metadata-only requests (apiserver's
/// endpoints/handlers/response.go: asPartialObjectMetadata(List)).
inline constexpr std::string_view partial_object_metadata_accept =
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
inline constexpr std::string_view partial_object_metadata_list_accept =
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";

result<api_request> list_request(const group_version_resource& gvr, std::string_view ns,
                                 const list_options& opts = {});

/// GET a collection with watch=true: an endless stream (is_watch = true, no
/// request deadline; the server ends it after timeoutSeconds).
result<api_request> watch_request(const group_version_resource& gvr, std::string_view ns,
                                  const watch_options& opts = {});

/// POST `obj` to the collection in `ns`. An empty metadata.name with a
/// metadata.generateName lets the server pick the name. With
/// opts.subresource (e.g. "eviction") it posts to <name>/<subresource>.
result<api_request> create_request(const group_version_resource& gvr, std::string_view ns,
                                   const boost::json::object& obj, const create_options& opts = {});

/// PUT `obj` at its namespace/name. The object's metadata.resourceVersion is
/// the optimistic-concurrency precondition (409 Conflict when stale).
result<api_request> update_request(const group_version_resource& gvr, const boost::json::object& obj,
                                   const update_options& opts = {});

/// PATCH with `patch` as the body; the Content-Type follows opts.type.
/// patch_type::apply needs opts.field_manager; opts.force is apply-only.
result<api_request> patch_request(const group_version_resource& gvr, const object_key& key,
                                  std::string patch, const patch_options& opts = {});

/// DELETE with a DeleteOptions body (preconditions, propagationPolicy,
/// gracePeriodSeconds, dryRun).
result<api_request> delete_request(const group_version_resource& gvr, const object_key& key,
                                   const delete_options& opts = {});

/// DELETE on a collection (deletecollection), selected by the list options.
result<api_request> delete_collection_request(const group_version_resource& gvr, std::string_view ns,
                                              const list_options& selection,
                                              const delete_options& opts = {});

/// The DeleteOptions body the delete builders send.
boost::json::object encode_delete_options(const delete_options& opts);

} // namespace kcoro
