// The exact Status errors kube-apiserver answers, as kcoro::error values
// (k8s.io/apimachinery/pkg/api/errors). Message texts are copied from the
// real server so clients that match on them behave the same.
//
// `qualified` is the resource as the server names it in messages:
// "configmaps" for the core group, "deployments.apps" otherwise
// (schema.GroupResource.String()). `kind` in details is the resource name too,
// as the real server fills it.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/resource.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::apiserver::errors {

/// "configmaps" or "deployments.apps".
std::string qualified_resource(const group_version_resource& gvr);

/// 404 NotFound: `configmaps "x" not found`.
error not_found(const group_version_resource& gvr, std::string_view name);
/// 409 AlreadyExists: `configmaps "x" already exists`.
error already_exists(const group_version_resource& gvr, std::string_view name);
/// 409 Conflict: `Operation cannot be fulfilled on configmaps "x": <detail>`.
error conflict(const group_version_resource& gvr, std::string_view name, std::string_view detail);
/// 409 Conflict named by Kind, as rest.BeforeDelete builds it
/// (schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}):
/// `Operation cannot be fulfilled on ConfigMap "x": <detail>`, or
/// `Deployment.apps "x"`; details.kind is the Kind.
error conflict_kind(std::string_view group, std::string_view kind, std::string_view name, std::string_view detail);
/// The stale-resourceVersion detail text of a Conflict.
inline constexpr std::string_view optimistic_lock_detail =
    "the object has been modified; please apply your changes to the latest version and try again";
/// 422 Invalid: `ConfigMap "x" is invalid: [cause1, cause2]` (one cause: no brackets).
error invalid(std::string_view group, std::string_view kind, std::string_view name,
              std::vector<status_cause> causes);
/// 403 Forbidden with a message: `<resource> "name" is forbidden: <why>`.
error forbidden(const group_version_resource& gvr, std::string_view name, std::string_view why);
/// 403 for a create in a terminating namespace (cause NamespaceTerminating).
error namespace_terminating(const group_version_resource& gvr, std::string_view name, std::string_view ns);
/// 400 BadRequest with a message.
error bad_request(std::string_view message);
/// 405 MethodNotAllowed.
error method_not_allowed(const group_version_resource& gvr, std::string_view action);
/// 410 Expired: `too old resource version: X (Y)` or an expired continue.
error expired(std::string_view message);
/// Go's strconv.Quote (ASCII printable kept, \" and \\ escaped, other bytes \xNN).
std::string go_quote(std::string_view s);
/// A strconv.NumError's text: `strconv.ParseInt: parsing "abc": invalid syntax`.
std::string strconv_error(std::string_view func, std::string_view num, bool out_of_range);
/// 500 (no reason) `resourceVersion: Invalid value: "abc": strconv.ParseUint: ...`,
/// what a get, list or watch with an unparsable resourceVersion answers.
error unparsable_resource_version(std::string_view rv, bool out_of_range);
/// etcd's ErrFutureRev passed through (500, no reason): an Exact list or a
/// continue token at a revision the store has not reached.
error future_revision();
/// APIObjectVersioner.ParseResourceVersion: "" and "0" are 0; otherwise
/// strconv.ParseUint or the error above.
result<std::uint64_t> parse_resource_version_param(std::string_view rv);
/// 504 Timeout "Timeout: Too large resource version" with cause ResourceVersionTooLarge.
error too_large_resource_version(std::uint64_t requested, std::uint64_t current);
/// 415 UnsupportedMediaType.
error unsupported_media_type(std::string_view content_type);
/// 406 NotAcceptable with `message` (negotiation's "only the following media types are accepted: ...").
error not_acceptable(std::string_view message);
/// 500 InternalError.
error internal(std::string_view message);

/// Cause helpers (field.Error types: FieldValueInvalid, FieldValueRequired, ...).
status_cause field_invalid(std::string_view field, std::string_view value_json, std::string_view detail);
status_cause field_required(std::string_view field, std::string_view detail = {});
status_cause field_forbidden(std::string_view field, std::string_view detail);
status_cause field_not_supported(std::string_view field, std::string_view value_json,
                                 const std::vector<std::string>& allowed);

} // namespace kcoro::apiserver::errors
