// What a reconciler needs around its writes, as controller-runtime's
// controllerutil and apimachinery's meta packages have it: pure decisions
// (ownership, drift, conditions, status equality) plus thin coroutines over
// the client that perform them. Children by server-side apply are in
// apply_owned.hpp, the finalizer helper in finalizer.hpp.
//
//  - set_controller_reference: adds (or refreshes) the controller owner
//    reference; refuses when another controller owns the object.
//  - matches_desired / make_drift_patch: "drift" is any field of `desired`
//    (outside metadata and status) that `current` lacks or holds with
//    another value (objects compare as subsets; lists must have the desired
//    items in order, each compared as a subset, so server-filled defaults
//    inside items, such as a Service port's `protocol: TCP`, are not drift;
//    scalars exactly), plus desired labels, annotations and owner
//    references. The patch is a merge patch carrying
//    metadata.resourceVersion, so a stale read fails with 409 Conflict
//    instead of overwriting a newer write; other owner references are kept.
//    (A merge patch replaces a list whole: a drifted list is sent whole.)
//  - create_or_patch: get; NotFound -> create; AlreadyExists on the create
//    (a lost response, another replica) -> read again and verify; an object
//    with the name that `owner` does not control -> error "name conflict"
//    (never adopted); otherwise patch only on drift.
//  - ensure_finalizer / remove_finalizer: a JSON patch guarded by a `test`
//    op (json_patch.hpp), so another writer's finalizers are never
//    clobbered; a failed test (422) or 409 -> read again and retry once.
//  - update_status_if_changed: no write when the status is equal (json_equal).
//  - set_status_condition: set_condition with observedGeneration filled from
//    metadata.generation, and status.observedGeneration kept in step.
//  - every write is reported to `helper_options::on_write` (write_hooks.hpp);
//    a reconcile's `ctx.helpers` counts them for the controller (no-op
//    writes, the hot-loop alarm).
//
// Which to use for children: apply_owned (server-side apply, the
// controller-runtime recommendation) for objects the controller owns
// outright; create_or_patch when a merge patch is needed (resources that
// do not support apply, objects without an owner, or when the repair must
// carry a resourceVersion precondition).
//
// The coroutines take their arguments by value (they outlive the caller's
// temporaries) and have no defaulted parameters (g++ 12, docs/toolchain.md);
// helper_options is not an aggregate, so `helper_options{}` in a co_await
// operand is safe. A capturing lambda written inside the co_await operand
// (as `mutate`) is not: name it first (docs/toolchain.md).
// Thread safety: functions; the client's rules apply to the coroutines.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/json_patch.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/core/time.hpp>
#include <kcoro/runtime/conditions.hpp>
#include <kcoro/runtime/reconcile_context.hpp>
#include <kcoro/runtime/write_hooks.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace kcoro::client {
class client;
}

namespace kcoro::runtime {

// --- pure ----------------------------------------------------------------

/// Sets a controller owner reference to `owner` on `child` (kept when it is
/// already there; other, non-controller owner references are kept). Error
/// (kcoro_errc::invalid_argument, "already owned") when another controller
/// owns `child`. Returns whether `child` changed.
result<bool> set_controller_reference(boost::json::object& child, const boost::json::object& owner);
/// The error set_controller_reference and create_or_patch return for an
/// object another controller owns.
bool is_already_owned(const error& e) noexcept;
/// create_or_patch's and apply_owned's error for an existing object `owner`
/// does not control (AlreadyExists, "name conflict: ...").
bool is_name_conflict(const error& e) noexcept;
/// That error for `existing` and `owner`.
error name_conflict(const boost::json::object& existing, const boost::json::object& owner);

/// `sub` is contained in `super`: objects member by member (recursively; a
/// null member means "absent"), arrays item by item in order with equal
/// sizes (each item contained in the other's), anything else by json_equal.
bool json_subset(const boost::json::value& sub, const boost::json::value& super) noexcept;
/// `current` already holds what `desired` asks for (see the header comment).
bool matches_desired(const boost::json::object& current, const boost::json::object& desired);
/// The merge patch taking `current` to `desired`, with current's
/// resourceVersion as the precondition.
boost::json::object make_drift_patch(const boost::json::object& current, const boost::json::object& desired);

/// set_condition on obj's status.conditions; observedGeneration defaults to
/// metadata.generation; also sets status.observedGeneration. Returns
/// whether anything changed (lastTransitionTime moves only on a new status).
bool set_status_condition(boost::json::object& obj, condition c, wall_time now);
/// The object's status (null when absent) equals `desired`.
bool status_equal(const boost::json::object& obj, const boost::json::value& desired);
/// A write answered with the resourceVersion it was sent against.
bool is_noop_write(const boost::json::object& before, const boost::json::object& after) noexcept;

// --- coroutines over the client --------------------------------------------

struct write_result {
    object_ptr object;  // the object as the server last answered (or as read)
    write_op op = write_op::none;
    /// Why it wrote: the drift found (apply_owned: apply_drift's text).
    std::string drift{};
};
/// "created demo-observed@rv 7", for test failures and logs.
std::ostream& operator<<(std::ostream& os, const write_result& r);

/// Adjusts `desired` from what exists before comparing (e.g. keep replicas
/// another controller manages). May be empty.
using mutate_func = std::function<void(boost::json::object& desired, const boost::json::object& current)>;

/// See the header comment. `owner` may be null (no ownership check).
boost::asio::awaitable<result<write_result>> create_or_patch(client::client& c, group_version_resource gvr,
                                                             boost::json::object desired, object_ptr owner,
                                                             mutate_func mutate, helper_options opts);

/// Adds `finalizer` to `obj` (as read) unless present; returns the object
/// as the server answered (or `obj` when nothing was written).
boost::asio::awaitable<result<object_ptr>> ensure_finalizer(client::client& c, group_version_resource gvr,
                                                            object_ptr obj, std::string finalizer,
                                                            helper_options opts);
/// Removes `finalizer`; returns the object as answered, or null when the
/// object is gone (removing the last finalizer of a deleting object).
boost::asio::awaitable<result<object_ptr>> remove_finalizer(client::client& c, group_version_resource gvr,
                                                            object_ptr obj, std::string finalizer,
                                                            helper_options opts);

/// Writes `desired_status` through the status subresource (PUT with the
/// read resourceVersion: 409 when stale) unless it equals the current one.
boost::asio::awaitable<result<write_result>> update_status_if_changed(client::client& c, group_version_resource gvr,
                                                                      object_ptr current,
                                                                      boost::json::value desired_status,
                                                                      helper_options opts);

} // namespace kcoro::runtime
