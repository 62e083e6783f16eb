// The informer's store and indexer: the latest state of every object a
// watcher delivered, as immutable shared objects (`object_ptr`: readers can
// never mutate what the cache holds, and may keep an object after the cache
// moved on).
//
//  - Keyed by namespace/name; indexes by namespace, by controller owner uid,
//    and by user-defined index functions.
//  - Fed by the watcher's events (`handle`): init_start..init_done build a new
//    snapshot that replaces the cache atomically at init_done; objects that
//    vanished in a relist come out as deletes of their last known state with
//    `tombstone = true` (client-go's DeletedFinalStateUnknown).
//  - A transform hook runs before storing; by default it strips
//    `metadata.managedFields` (a quarter to a half of many objects). In
//    metadata-only mode only apiVersion, kind and metadata are kept
//    (PartialObjectMetadata informers).
//
// Notifications returned by the writer calls say what changed, for the
// informer's add/update/delete handlers. Like client-go's informer, a relist
// reports every listed object that was cached before as an update, even when
// unchanged (predicates such as resource_version_changed filter those).
//
// Lifetime: a value. Thread safety: one writer and its readers on one
// io_context; the objects handed out are immutable and safe to share.
#pragma once

#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/runtime/watcher_fsm.hpp>

#include <functional>
#include <iosfwd>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kcoro::runtime {

/// Values an object is indexed under (e.g. the names of secrets it mounts).
using index_func = std::function<std::vector<std::string>(const boost::json::object&)>;
/// Rewrites an object before it is stored; may return the same pointer.
using transform_func = std::function<object_ptr(object_ptr)>;

/// The default transform: the object without metadata.managedFields
/// (the same pointer when there are none, so no copy).
object_ptr strip_managed_fields_transform(object_ptr obj);
/// apiVersion, kind and metadata (without managedFields) only.
object_ptr metadata_only_transform(object_ptr obj);
/// The object with only the managedFields entries of `managers` (the field
/// managers of this process's server-side applies: what apply_drift needs
/// to see what they own), the others stripped. managedFields is left as an
/// array, empty when none of them has an entry, so a reader can tell a
/// filtered object (the key present) from a stripped one (absent). The same
/// pointer when nothing changes.
object_ptr keep_managed_fields_transform(object_ptr obj, const std::vector<std::string>& managers);

struct cache_options {
    /// Empty: strip managedFields (or metadata-only when metadata_only).
    transform_func transform;
    bool metadata_only = false;
};

enum class notification_type { added, updated, deleted };

struct cache_notification {
    notification_type type = notification_type::added;
    object_ptr old_object;  // updated: the previous state
    object_ptr object;      // added/updated: the new state; deleted: the last known state
    /// deleted only: the delete was not observed, the object vanished in a relist.
    bool tombstone = false;
    friend bool operator==(const cache_notification&, const cache_notification&) = default;
};

std::ostream& operator<<(std::ostream& os, const cache_notification& n);

inline constexpr std::string_view namespace_index = "namespace";
inline constexpr std::string_view controller_uid_index = "controller-uid";

class object_cache {
public:
    explicit object_cache(cache_options opts = {});

    /// Adds a user index (replacing a user index of the same name) and
    /// indexes what is already cached; false for the built-in names. An index
    /// function that throws indexes nothing.
    bool add_index(std::string name, index_func fn);

    // --- writer -----------------------------------------------------------
    /// Applies one watcher event; returns the resulting notifications.
    std::vector<cache_notification> handle(const watcher_event& e);
    /// Stores `obj` (transformed): added or updated.
    cache_notification apply(object_ptr obj);
    /// Removes the object with `obj`'s key; the notification carries `obj`
    /// (the state the DELETED event reported). Nothing when it was not cached.
    std::vector<cache_notification> remove(object_ptr obj);
    /// Replaces everything with `objs` (transformed): adds, updates, and
    /// tombstone deletes for objects that vanished. Marks the cache synced.
    std::vector<cache_notification> replace_all(std::vector<object_ptr> objs);

    // --- readers ----------------------------------------------------------
    object_ptr get(const object_key& key) const;
    std::vector<object_ptr> list() const;
    std::vector<object_ptr> list_namespace(std::string_view ns) const;
    /// Objects whose controller owner reference has this uid.
    std::vector<object_ptr> list_controlled_by(std::string_view owner_uid) const;
    /// Objects indexed under `value` by the index `name` (empty for an unknown index).
    std::vector<object_ptr> by_index(std::string_view name, std::string_view value) const;
    std::vector<object_key> keys() const;
    std::size_t size() const noexcept { return items_.size(); }
    /// True once a full snapshot (init_done or replace_all) has been stored.
    bool has_synced() const noexcept { return synced_; }

private:
    struct entry {
        object_ptr object;
        std::vector<std::vector<std::string>> index_values;  // per index, same order as indexes_
    };
    struct index {
        std::string name;
        index_func fn;
        std::unordered_map<std::string, std::set<object_key>> values;
    };

    object_ptr transform(object_ptr obj) const;
    std::vector<std::string> index_values_of(const index& ix, const boost::json::object& obj) const;
    void index_entry(const object_key& key, entry& e);
    void unindex_entry(const object_key& key, const entry& e);
    std::vector<object_ptr> lookup(std::size_t ix, std::string_view value) const;

    cache_options opts_;
    std::map<object_key, entry> items_;
    std::vector<index> indexes_;
    std::vector<object_ptr> pending_;  // snapshot being built between init_start and init_done
    bool synced_ = false;
};

} // namespace kcoro::runtime
