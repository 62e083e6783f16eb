// Event sources: informer handlers that turn add/update/delete
// notifications into controller keys, as controller-runtime's handler
// package does (EnqueueRequestForObject, EnqueueRequestForOwner with
// OnlyControllerOwner, EnqueueRequestsFromMapFunc). The builder wires these;
// code that bypasses the builder registers them itself:
//
//   ctl.watch(inf, runtime::enqueue_for_object(ctl));
//   ctl.watch(children, runtime::enqueue_for_owner(ctl, {"", "ConfigMap"}));
//
// Each filters events through a predicate (predicates.hpp) first. Deletes
// observed only in a relist (tombstones) are mapped from their last known
// state like any delete. An update whose old and new objects map to
// different keys enqueues both.
//
// Lifetime: the handlers capture the controller by reference; register them
// through controller::watch, which makes them no-ops once the controller is gone.
// Thread safety: none (the informer's io_context thread).
#pragma once

#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/runtime/informer.hpp>
#include <kcoro/runtime/predicates.hpp>

#include <boost/json/object.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kcoro::runtime {

class controller;

/// The group and kind of an owner, as owner references name it (the
/// version is ignored when matching, as in controller-runtime).
struct group_kind {
    std::string group;  // "" for the core group
    std::string kind;   // "ConfigMap"
    friend bool operator==(const group_kind&, const group_kind&) = default;
};

/// Maps an object to the keys to reconcile.
using map_func = std::function<std::vector<object_key>(const boost::json::object& obj)>;

/// A key a watched object maps to, with the uid of the primary it stands
/// for when the object tells it (a label naming its instance's uid, say).
struct mapped_key {
    explicit mapped_key(object_key k, std::string uid = {}) : key(std::move(k)), primary_uid(std::move(uid)) {}
    object_key key;
    std::string primary_uid;
};
/// Maps an object to keys and their primaries' uids. Why: a sharded
/// controller queues a key only when it knows the key's hash; from a plain
/// map_func it reads it from the primary cache, so an object mapped to a
/// primary that is gone (deleted, its cache entry with it) reaches no
/// replica, and a clean-up it needs (an external record created late,
/// after the primary's finalizer ran) never happens. With the uid, the
/// replica owning fnv1a64(uid) queues it (docs/sharding.md, "Watched objects").
using uid_map_func = std::function<std::vector<mapped_key>(const boost::json::object& obj)>;
/// `fn`'s keys with no uid (gated on the primary cache's hash, as before).
uid_map_func with_no_uid(map_func fn);

/// Pure: the key of `obj`'s controller owner when that owner is of `owner`'s
/// group and kind (owners are in the object's namespace; cluster-scoped
/// owners when `owner_cluster_scoped`).
std::optional<object_key> controller_owner_key(const boost::json::object& obj, const group_kind& owner,
                                               bool owner_cluster_scoped = false);

/// Enqueues the object's own key.
event_handlers enqueue_for_object(controller& c, predicate p = {});
/// Enqueues the key of the object's controller owner of kind `owner`.
event_handlers enqueue_for_owner(controller& c, group_kind owner, predicate p = {},
                                 bool owner_cluster_scoped = false);
/// Enqueues whatever `fn` maps the object to.
event_handlers enqueue_from_map(controller& c, map_func fn, predicate p = {});
/// As enqueue_from_map; sharded, a key with a uid is gated on fnv1a64(uid)
/// (the cached primary's hash still decides when the reconcile starts).
event_handlers enqueue_from_uid_map(controller& c, uid_map_func fn, predicate p = {});

} // namespace kcoro::runtime
