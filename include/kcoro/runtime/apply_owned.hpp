// Children by server-side apply: what controller-runtime recommends for the
// objects a controller owns, with no write at all when they are right.
//
//   auto w = co_await runtime::apply_owned(client, ctx, resources::deployments(), desired, instance);
//   if (!w && runtime::is_name_conflict(w.error())) { /* someone else's object: never adopted */ }
//
// (test/integration/header_examples_test.cpp runs it.)
//
// `desired` is the applied configuration: apiVersion, kind, name, namespace
// and only the fields the controller manages. apply_owned
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
//
// With a cache, a sync sends exactly one request per child write (none when
// nothing drifted). The cache should keep the field manager's managedFields
// entries (informer_factory::keep_managed_fields_of; manager-built
// controllers do it): without them a field dropped from `desired` is only
// removed by the next apply that happens for another reason. A cache that
// lags our own last write costs at most one no-op apply.
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
#include <kcoro/typed/resource_traits.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace kcoro::client {
class client;
}

namespace kcoro::runtime {

struct apply_options {
    apply_options() = default;
    /// The live object as an informer cache holds it (a null pointer: not in
    /// the cache). Unset: apply_owned reads it from the API first.
    std::optional<object_ptr> cached;
    helper_options helpers;
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
/// From a typed reconcile (controller_builder::complete<T>): the owner as decoded.
template <typed::resource_type T>
boost::asio::awaitable<result<write_result>> apply_owned(client::client& c, reconcile_context ctx,
                                                         group_version_resource gvr, boost::json::object desired,
                                                         std::shared_ptr<const T> owner) {
    auto identity = owner ? owner_identity(*owner) : object_ptr();
    return apply_owned(c, std::move(ctx), std::move(gvr), std::move(desired), std::move(identity));
}

} // namespace kcoro::runtime
