// Server-side apply and metadata.managedFields tracking, as kube-apiserver's
// fieldmanager (k8s.io/apimachinery/pkg/util/managedfields) and
// structured-merge-diff do them, over plain JSON with a table of list
// strategies (merge keys) instead of an OpenAPI schema.
//
// Pure functions: time is passed in; thread-safe on distinct arguments;
// never throw. The store calls them inside its write path:
//  - PATCH with application/apply-patch+yaml → server_side_apply(live,
//    applied, ...), with `live` = {} when the object does not exist yet
//    (apply creates it; the store then fills uid, resourceVersion, ...);
//  - every other write (create, update, merge/JSON/strategic patch) →
//    update_managed_fields(old, new, manager, ...), with old = {} on create.
//
// What is modelled (checked against fieldmanager/internal and
// structured-merge-diff/merge/update.go):
//  - one entry per manager + operation + subresource (+ apiVersion for
//    Update); `time` RFC 3339 set when the manager's write changed something;
//    `fieldsType: FieldsV1`; entries left with no fields are removed; entries
//    sorted Apply first, then by time, manager, apiVersion;
//  - Update: the writer owns every field it added or changed; other managers
//    lose those fields; removed fields leave every set; an existing object
//    with no managedFields stays untracked (skipNonApplied);
//  - Apply: the applier's set becomes exactly its configuration's fields;
//    fields it applied before and no longer applies are removed from the
//    object unless another manager owns them (or something below them);
//    changing a field another manager owns is a conflict (409) unless
//    force=true, which takes the field over; applying the same value as
//    another manager shares ownership; on an object with no managedFields,
//    existing fields are first attributed to "before-first-apply";
//  - at most 10 Update entries: older ones are merged into "ancient-changes".
// Not modelled: version conversion of field sets, unions, defaulting of
// list-map keys (an item must carry its keys, e.g. a port's `protocol` is
// only part of the key when present), x-kubernetes-map-type granular vs
// atomic maps from CRD schemas (every JSON object is granular).
#pragma once

#include "managed_fields.hpp"

#include <kcoro/core/error.hpp>
#include <kcoro/core/strategic_merge_patch.hpp>
#include <kcoro/core/time.hpp>

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace kcoro::apiserver {

/// The manager of a write that names none: the user agent up to the first
/// '/', non-printable characters dropped, at most 128 bytes
/// (handlers.managerOrUserAgent). "kubectl/v1.30.0 (linux/amd64)" → "kubectl".
std::string field_manager_or_user_agent(std::string_view field_manager, std::string_view user_agent);

/// 422 for an apply without fieldManager, as the real server words it:
/// `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is
/// required for apply patch`.
error field_manager_required();

/// Which fields a write may own: the main endpoint of a resource with a
/// status subresource ignores `status`; the status subresource owns only
/// `status` (and records subresource "status" in its entries).
enum class field_scope { all, main_without_status, status_subresource };

struct apply_options {
    std::string manager;        // required (see field_manager_required)
    bool force = false;
    wall_time now{};
    field_scope scope = field_scope::all;
};

/// Merge `applied` into `live` and update managedFields. Returns the new
/// object (managedFields included), or a 409 Conflict whose Status names
/// every conflicting field and manager exactly as kube-apiserver does:
/// `Apply failed with 1 conflict: conflict with "kubectl-client-side-apply"
/// using v1: .spec.replicas`, one cause per field
/// with type FieldManagerConflict and field ".spec.replicas".
/// `null` in the applied configuration means "not set by me". 400 BadRequest,
/// as the real server, when the configuration carries managedFields
/// ("metadata.managedFields must be nil") or another apiVersion than the live
/// object ("Incorrect version specified in apply patch. ...").
result<boost::json::object> server_side_apply(const boost::json::object& live, const boost::json::object& applied,
                                              const apply_options& options, const list_strategies& lists);

/// Convenience with the list strategies of the object's kind.
result<boost::json::object> server_side_apply(const boost::json::object& live, const boost::json::object& applied,
                                              const apply_options& options);

struct update_options {
    std::string manager;
    managed_operation operation = managed_operation::update;
    wall_time now{};
    field_scope scope = field_scope::all;
};

/// managedFields for a non-apply write from `old_obj` ({} on create) to
/// `new_obj`; returns `new_obj` with metadata.managedFields set (or removed
/// when the object is untracked). If `new_obj` carries a non-empty
/// managedFields it is taken as the starting point (clients may rewrite
/// it), else `old_obj`'s.
boost::json::object update_managed_fields(const boost::json::object& old_obj, boost::json::object new_obj,
                                          const update_options& options, const list_strategies& lists);
boost::json::object update_managed_fields(const boost::json::object& old_obj, boost::json::object new_obj,
                                          const update_options& options);

} // namespace kcoro::apiserver
