// What one reconcile gets besides its key: its ID, a logger with the
// reconcile's fields bound, write hooks bound to this reconcile, and (for a
// controller built by the manager) the controller's event recorder, its
// server-side apply field manager and cached reads of the objects it owns.
//
//   auto fn = [&](const runtime::reconcile_context& ctx) -> awaitable<result<reconcile_result>> {
//       auto child = co_await runtime::apply_owned(client, ctx, resources::configmaps(), desired, parent);
//       if (!child) co_return child.error();
//       co_return runtime::success();
//   };
//
// (test/integration/header_examples_test.cpp runs it.)
//
// Lifetime: the controller keeps the context alive, unchanged, until the
// reconcile's awaitable has completed: a reconciler may take it by const
// reference and keep that reference (and references into it, such as
// ctx.key) for the whole reconcile. It may also copy it; the hooks stay
// callable as long as the controller lives (a write reported after its
// reconcile ended counts in the no-op metric only, not for the hot-loop
// alarm).
// Thread safety: a value; the hooks run on the controller's thread.
#pragma once

#include <kcoro/core/log.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/runtime/write_hooks.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace kcoro::runtime {

class event_recorder;

/// The cached state of an object of a kind the controller owns: nullopt when
/// the controller has no cache for `gvr` (read it from the API), a null
/// pointer when the cache does not hold the object.
using owned_reader = std::function<std::optional<object_ptr>(const group_version_resource& gvr, const object_key& key)>;

struct reconcile_context {
    object_key key;
    /// Random, UUID-like (8-4-4-4-12 hex), unique per reconcile.
    std::string reconcile_id;
    /// The controller's logger with controller, controllerGroup,
    /// controllerKind, namespace, name and reconcileID bound.
    kcoro::logger log;
    /// Hooks bound to this reconcile: pass them to the controller helpers.
    /// Every write reported through them counts for the hot-loop alarm;
    /// no-op writes also in kcoro_noop_writes_total.
    helper_options helpers;
    /// The controller's event recorder: never null in a controller the
    /// manager built (controller_builder::complete); null for a controller
    /// wired by hand without one (runtime::builder, controller_options).
    event_recorder* events = nullptr;
    /// The field manager of the controller's server-side applies
    /// (manager-built controllers: the manager's name).
    std::string field_manager;
    /// Cached reads of owned objects (manager-built controllers: the
    /// informers of owns()); may be empty.
    owned_reader read_owned;
    /// The cached primary of a key: the informer of for_(), the one the
    /// controller waited to sync before its workers started and, sharded,
    /// the one that holds this replica's share (a null pointer: not cached).
    /// Read the primary here, not from an informer of your own: another
    /// informer of the same kind may not have synced yet, and is not
    /// filtered to the share. Empty for a controller wired without one.
    std::function<object_ptr(const object_key&)> read_primary;
    /// Sharded controllers (docs/sharding.md): whether this replica owns an
    /// object of this uid now. Empty when the controller is not sharded. A
    /// reconciler that reads its primary from the API rather than the cache
    /// checks it: the key may hold a new object (deleted and created again
    /// under the same name) that hashes to another replica. Empty too for a
    /// controller sharded by namespace: the key alone decides there.
    std::function<bool(std::string_view uid)> owns_uid;

    /// Reports a write sent without the helpers (a direct client call), so
    /// that the hot-loop alarm and the no-op counter see it.
    void note_write(const write_record& w) const {
        if (helpers.on_write) helpers.on_write(w);
    }
};

} // namespace kcoro::runtime
