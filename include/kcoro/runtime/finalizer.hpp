// The finalizer helper, shaped like kube-rs's `finalizer()`
// (kube-runtime/src/finalizer.rs): a reconciler that must clean up before its
// object may go hands its work to `finalizer`, which calls it with `apply`
// or `cleanup` and keeps the finalizer in step:
//
//   auto work = [&](runtime::finalizer_event ev, object_ptr obj) -> awaitable<result<reconcile_result>> {
//       if (ev == runtime::finalizer_event::cleanup) co_return co_await delete_external(obj);
//       co_return co_await converge(obj);
//   };
//   co_return co_await runtime::finalizer(client, gvr, obj, "example.io/cleanup", work, ctx.helpers);
//
// (test/integration/header_examples_test.cpp runs it.)
//
// | the object                           | finalizer() does                                         |
// | not deleting, without our finalizer  | adds it (guarded JSON patch), then `apply` on the result  |
// | not deleting, with it                | `apply`                                                  |
// | deleting, with it                    | `cleanup`; once it succeeded, removes our finalizer only  |
// | deleting, without it                 | nothing (never re-adds it while deleting)                 |
//
// So the finalizer is persisted before the apply step can create anything
// external, and the cleanup has run before the object can go. The apply
// step runs in the same pass as the add (with the object the server
// answered), unlike kube-rs, which waits for the next event: one pass less.
// Errors name the phase ("add finalizer: ...", "apply: ...", "cleanup: ...",
// "remove finalizer: ..."); a cleanup that fails keeps the finalizer, and
// the error is retried with backoff. The result of `apply` or `cleanup` is
// passed through. Removing the last finalizer of a deleting object lets it go:
// success. Other writers' finalizers are never clobbered (the add and the
// removal are guarded JSON patches, retried once after a re-read).
//
// Both steps must be idempotent: a pass may be cut short anywhere and run again.
// `reconcile` is a std::function taken by value: name a capturing lambda
// before the co_await (docs/toolchain.md), as above.
// Thread safety: the client's rules.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/runtime/reconcile_result.hpp>
#include <kcoro/runtime/write_hooks.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace kcoro::client {
class client;
}

namespace kcoro::runtime {

enum class finalizer_event {
    apply,    // converge: the object is live
    cleanup,  // the object is being deleted: remove what lives outside it
};
std::string_view to_string(finalizer_event e) noexcept;

/// What finalizer() does for an object (pure; the table above).
enum class finalizer_step { add_then_apply, apply, cleanup_then_remove, nothing };
finalizer_step decide_finalizer_step(const boost::json::object& obj, std::string_view finalizer_name) noexcept;
std::ostream& operator<<(std::ostream& os, finalizer_step s);

using finalizer_reconcile =
    std::function<boost::asio::awaitable<result<reconcile_result>>(finalizer_event event, object_ptr obj)>;

/// See the file comment. `obj` must be the object as read (not null).
boost::asio::awaitable<result<reconcile_result>> finalizer(client::client& c, group_version_resource gvr,
                                                           object_ptr obj, std::string finalizer_name,
                                                           finalizer_reconcile reconcile, helper_options opts);

} // namespace kcoro::runtime
