// Metadata-only answers: `Accept: application/json;as=PartialObjectMetadata;
// g=meta.k8s.io;v=v1` (or v1beta1, or as=PartialObjectMetadataList), as
// staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go does it
// (asPartialObjectMetadata, asPartialObjectMetadataList): the object's whole
// metadata under apiVersion meta.k8s.io/<v>, kind PartialObjectMetadata;
// a list's items each so, in a PartialObjectMetadataList carrying the list's
// resourceVersion, continue and remainingItemCount. Asking for the single
// form on a list (or the list form on an object) is 406 NotAcceptable with
// the real message, which names the Go type of the stored (internal) object,
// e.g. `you requested PartialObjectMetadata, but the requested object is a
// list (*core.ConfigMapList)`.
//
// Pure functions; thread safety: values.
#pragma once

#include <kcoro/core/error.hpp>

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace kcoro::apiserver::http {

/// `*core.ConfigMap`, `*apps.DeploymentList`, `*unstructured.Unstructured`...:
/// the internal type kube-apiserver's handlers hold for a kind.
std::string internal_type_name(std::string_view group, std::string_view kind, bool custom, bool list);

/// The PartialObjectMetadata of `obj` at `api_version` (meta.k8s.io/v1 or v1beta1).
boost::json::object as_partial_object_metadata(const boost::json::object& obj, std::string_view api_version);
/// The PartialObjectMetadataList of a `<Kind>List`.
boost::json::object as_partial_object_metadata_list(const boost::json::object& list, std::string_view api_version);

/// 406 for PartialObjectMetadata asked of a list (`type_name` from internal_type_name).
error partial_of_list_error(std::string_view type_name);
/// 406 for PartialObjectMetadataList asked of a single object.
error partial_list_of_object_error(std::string_view type_name);

} // namespace kcoro::apiserver::http
