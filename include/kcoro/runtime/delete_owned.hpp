// Deleting a child the controller controls once it is no longer wanted (an
// annotation removed, a feature turned off, a replica count lowered): the
// read, the ownership check, the guarded delete and the report that a
// reconciler would otherwise write by hand.
//
//   auto gone = co_await runtime::delete_owned<k8s::service>(client, ctx, ctx.key, deployment,
//                                                            runtime::owned_events::record);
//   if (!gone) co_return gone.error();          // only real failures (5xx, 403, ...)
//   // gone->op: write_op::deleted, or none (absent, not ours, already being deleted)
//
// (test/unit/api/delete_owned_test.cpp runs it.)
//
// delete_owned
//  1. reads the child: from `opts.cached` when given (an informer cache; a
//     null pointer means "not there"; from a reconcile: ctx.read_owned),
//     else one GET;
//  2. absent: nothing to do (op none, object null);
//  3. not controlled by `owner` (someone else's object of that name, or no
//     one's): left alone (op none, the object as read): never deleted;
//  4. already being deleted (deletionTimestamp set): nothing to do (op none);
//  5. otherwise one DELETE with a uid precondition, so an object created
//     under that name since the read is never deleted: op deleted. A 404
//     (gone meanwhile) or a 409 (the name now holds another object) is op
//     none, not an error.
// The delete is reported to opts.helpers.on_write (ctx.helpers from a
// reconcile: the hot-loop alarm and the controller's write counts see it),
// and with owned_events::record it is a Normal "Deleted" Event on the owner
// (owned_event.hpp). The children's garbage collection is the server's
// (background propagation, the default).
//
// Not an aggregate: `delete_owned_options{}` is safe in a co_await operand.
// The coroutines take their arguments by value (docs/toolchain.md).
// Thread safety: the client's rules.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/runtime/apply_owned.hpp>
#include <kcoro/runtime/controller_helpers.hpp>
#include <kcoro/runtime/reconcile_context.hpp>
#include <kcoro/runtime/write_hooks.hpp>
#include <kcoro/typed/resource_traits.hpp>

#include <boost/asio/awaitable.hpp>

#include <optional>
#include <utility>

namespace kcoro::client {
class client;
}

namespace kcoro::runtime {

class event_recorder;

struct delete_owned_options {
    delete_owned_options() = default;
    /// The child as an informer cache holds it (a null pointer: not in the
    /// cache). Unset: delete_owned reads it from the API first.
    std::optional<object_ptr> cached;
    helper_options helpers;
    /// Records a "Deleted" Event on the owner when it deletes; null: none.
    event_recorder* events = nullptr;
};

/// See the file comment. `owner` must not be null.
boost::asio::awaitable<result<write_result>> delete_owned(client::client& c, group_version_resource gvr,
                                                          object_key key, object_ptr owner,
                                                          delete_owned_options opts);
/// From a reconcile: the cached child (ctx.read_owned), the write hooks, and
/// ctx.events with owned_events::record.
boost::asio::awaitable<result<write_result>> delete_owned(client::client& c, reconcile_context ctx,
                                                          group_version_resource gvr, object_key key,
                                                          object_ptr owner, owned_events events);
inline boost::asio::awaitable<result<write_result>> delete_owned(client::client& c, reconcile_context ctx,
                                                                 group_version_resource gvr, object_key key,
                                                                 object_ptr owner) {
    return delete_owned(c, std::move(ctx), std::move(gvr), std::move(key), std::move(owner), owned_events::none);
}

/// A typed child (its resource from resource_traits<C>); `owner`: an
/// object_ptr or a typed std::shared_ptr<const T>.
template <typed::resource_type C, detail::owner_handle O>
boost::asio::awaitable<result<write_result>> delete_owned(client::client& c, reconcile_context ctx, object_key key,
                                                          O owner, owned_events events) {
    return delete_owned(c, std::move(ctx), typed::resource_traits<C>::gvr(), std::move(key),
                        detail::owner_object(owner), events);
}
template <typed::resource_type C, detail::owner_handle O>
boost::asio::awaitable<result<write_result>> delete_owned(client::client& c, reconcile_context ctx, object_key key,
                                                          O owner) {
    return delete_owned<C>(c, std::move(ctx), std::move(key), std::move(owner), owned_events::none);
}

} // namespace kcoro::runtime
