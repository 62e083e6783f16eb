// Children by server-side apply: what controller-runtime recommends for the
// objects a controller owns, with no write at all when they are right.
//
//   k8s::service svc = desired_service(*instance);            // typed: only the fields we manage
//   auto w = co_await runtime::apply_owned(client, ctx, std::move(svc), instance, runtime::owned_events::record);
//   if (!w && runtime::is_name_conflict(w.error())) { /* someone else's object: never adopted */ }
//
// (test/integration/header_examples_test.cpp and test/unit/api/apply_owned_test.cpp run it.)
//
// `desired` is the applied configuration: apiVersion, kind, name, namespace
// and only the fields the controller manages; a typed built-in object
// (k8s::service, k8s::deployment, k8s::config_map, ...) encodes to exactly
// that (its empty members are omitted, as Go's omitempty does), or a JSON
// object built for the purpose. apply_owned
//  1. adds a controller owner reference to `owner` (an error if `desired`
//     already names another controller);
//  2. reads the live object: from `opts.cached` when given (an informer
//     cache; a null pointer means "not there"), else one GET;
//  3. absent: creates it (POST with the field manager), so that an object
//     someone else created meanwhile is met as AlreadyExists, read back from
//     the API and verified, never adopted;
//  4. present but not controlled by `owner` (someone else's, or no one's):
//     the name-conflict error (is_name_conflict), no write;
//  5. present and ours: apply_drift(desired, live, field_manager) decides;
//     no drift, no write (server defaults and other managers' fields never
//     count); drift: one server-side apply with force=true (our fields are
//     ours: a `kubectl scale` or `kubectl edit` of them is undone). Items
//     of others in our lists are left alone (server-side apply semantics),
//     except an item that took the place of one of ours (a key field such as
//     a port number edited: same `name`, other key), which a guarded JSON
//     patch replaces by ours (colliding_items_patch in core/apply_drift.hpp):
//     an apply would leave both, with a duplicate name (a 422 on a real
//     server). The apply follows only if something else drifted too.
//  Every write is reported to opts.helpers.on_write (a no-op apply, one the
//  server answered with the same resourceVersion, as noop).
//  With owned_events::record (or opts.events set), every write is also an
//  Event on the owner, with the child as its `related` object: Normal
//  "Created" ("created Service default/web") or Normal "Updated" ("updated
//  Service default/web: .spec.ports[...].port: 81, want 80": the field it
//  changed, as apply_drift reports it). A manager-built controller's
//  recorder is ctx.events (never null there); repeats of one note fold into
//  an Event series, and another note starts a new Event, so the newest
//  Event shows what changed last (event_aggregator.hpp).
//
// With a cache, a sync sends exactly one request per child write (none when
// nothing drifted). The cache should keep the field manager's managedFields
// entries (informer_factory::keep_managed_fields_of; manager-built
// controllers do it): without them a field dropped from `desired` is only
// removed by the next apply that happens for another reason. A cache that
// lags our own last write costs at most one no-op apply.
//
// Children that are no longer wanted: delete_owned.hpp.
//
// Not aggregates: `apply_options{}` is safe in a co_await operand. The
// coroutines take their arguments by value (docs/toolchain.md).
// Thread safety: the client's rules.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/runtime/controller_helpers.hpp>
#include <kcoro/runtime/reconcile_context.hpp>
#include <kcoro/runtime/write_hooks.hpp>
#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/resource_traits.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <concepts>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace kcoro::client {
class client;
}

namespace kcoro::runtime {

class event_recorder;

/// Whether apply_owned and delete_owned record an Event on the owner for
/// each write they make (see the file comment).
enum class owned_events { none, record };

struct apply_options {
    apply_options() = default;
    /// The live object as an informer cache holds it (a null pointer: not in
    /// the cache). Unset: apply_owned reads it from the API first.
    std::optional<object_ptr> cached;
    helper_options helpers;
    /// Records an Event on the owner for each write; null: none.
    event_recorder* events = nullptr;
};

/// See the file comment. `owner` must not be null.
boost::asio::awaitable<result<write_result>> apply_owned(client::client& c, group_version_resource gvr,
                                                         boost::json::object desired, object_ptr owner,
                                                         std::string field_manager, apply_options opts);
/// Reads the live object from the API; no write hooks.
inline boost::asio::awaitable<result<write_result>> apply_owned(client::client& c, group_version_resource gvr,
                                                                boost::json::object desired, object_ptr owner,
                                                                std::string field_manager) {
    return apply_owned(c, std::move(gvr), std::move(desired), std::move(owner), std::move(field_manager),
                       apply_options());
}
/// From a reconcile: the context's field manager, its cached owned objects
/// (ctx.read_owned) and its write hooks.
boost::asio::awaitable<result<write_result>> apply_owned(client::client& c, reconcile_context ctx,
                                                         group_version_resource gvr, boost::json::object desired,
                                                         object_ptr owner);
/// The same, recording an Event on the owner for each write
/// (owned_events::record, through ctx.events).
boost::asio::awaitable<result<write_result>> apply_owned(client::client& c, reconcile_context ctx,
                                                         group_version_resource gvr, boost::json::object desired,
                                                         object_ptr owner, owned_events events);

/// The identity of a typed owner as an object (apiVersion, kind, name,
/// namespace, uid): all apply_owned reads of its owner.
template <typed::resource_type T> object_ptr owner_identity(const T& owner) {
    using traits = typed::resource_traits<T>;
    return std::make_shared<const boost::json::object>(boost::json::object{
        {"apiVersion", traits::api_version},
        {"kind", traits::kind},
        {"metadata", boost::json::object{{"name", owner.metadata.name},
                                         {"namespace", owner.metadata.namespace_},
                                         {"uid", owner.metadata.uid}}}});
}

namespace detail {
inline object_ptr owner_object(object_ptr owner) { return owner; }
template <typed::resource_type T> object_ptr owner_object(const std::shared_ptr<const T>& owner) {
    return owner ? owner_identity(*owner) : object_ptr();
}
template <class O>
concept owner_handle = requires(const O& o) { { detail::owner_object(o) } -> std::same_as<object_ptr>; };
} // namespace detail

/// From a typed reconcile (controller_builder::complete<T>): the owner as decoded.
template <typed::resource_type T>
boost::asio::awaitable<result<write_result>> apply_owned(client::client& c, reconcile_context ctx,
                                                         group_version_resource gvr, boost::json::object desired,
                                                         std::shared_ptr<const T> owner) {
    return apply_owned(c, std::move(ctx), std::move(gvr), std::move(desired), detail::owner_object(owner));
}
template <typed::resource_type T>
boost::asio::awaitable<result<write_result>> apply_owned(client::client& c, reconcile_context ctx,
                                                         group_version_resource gvr, boost::json::object desired,
                                                         std::shared_ptr<const T> owner, owned_events events) {
    return apply_owned(c, std::move(ctx), std::move(gvr), std::move(desired), detail::owner_object(owner), events);
}

/// A typed child (k8s::service, k8s::deployment, a custom resource's
/// struct): its resource from resource_traits<C>, the applied
/// configuration its encoding (typed::to_object: empty members omitted).
/// `owner`: an object_ptr or a typed std::shared_ptr<const T>.
template <typed::resource_type C, detail::owner_handle O>
boost::asio::awaitable<result<write_result>> apply_owned(client::client& c, reconcile_context ctx, C desired,
                                                         O owner, owned_events events) {
    auto body = typed::to_object(desired);
    return apply_owned(c, std::move(ctx), typed::resource_traits<C>::gvr(), std::move(body),
                       detail::owner_object(owner), events);
}
template <typed::resource_type C, detail::owner_handle O>
boost::asio::awaitable<result<write_result>> apply_owned(client::client& c, reconcile_context ctx, C desired,
                                                         O owner) {
    return apply_owned(c, std::move(ctx), std::move(desired), std::move(owner), owned_events::none);
}

} // namespace kcoro::runtime
