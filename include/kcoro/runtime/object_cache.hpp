// The informer's store and indexer: the latest state of every object a
// watcher delivered. Readers get immutable shared objects (`object_ptr`:
// they can never mutate what the cache holds, and may keep an object after
// the cache moved on).
//
//  - Stored compact: each object is one block of compact JSON text plus its
//    key and index values (compact_object.hpp), about the JSON bytes plus 100
//    with the cache's nodes, instead of a Boost.JSON tree (2x to 4x). A read
//    (get, list, by_index) parses the text into a new object: equal to what
//    was stored, not the same pointer twice.
//  - Keyed by namespace/name (kept sorted: list and list_namespace are in
//    key order; the namespace index is a range of the keys); indexes by
//    controller owner uid and by user-defined index functions.
//  - Fed by the watcher's events (`handle`): init_start..init_done build a new
//    snapshot (compact, as the pages arrive) that replaces the cache
//    atomically at init_done; objects that vanished in a relist come out as
//    deletes of their last known state with `tombstone = true` (client-go's
//    DeletedFinalStateUnknown).
//  - A transform hook runs before storing; by default managedFields are left
//    out (a quarter to a half of many objects), while the text is written, so
//    nothing is copied. In metadata-only mode only apiVersion, kind and
//    metadata are kept (PartialObjectMetadata informers). A custom transform
//    gets the decoded object and returns the one to store.
//
// Notifications say what changed, for the informer's add/update/delete
// handlers; the objects in them are materialised only for a sink that wants
// them (one at a time: a snapshot of 100,000 objects never exists as trees).
// Like client-go's informer, a relist reports every listed object that was
// cached before as an update, even when unchanged (predicates such as
// resource_version_changed filter those).
//
// Lifetime: a value. Thread safety: one writer and its readers on one
// io_context; the objects handed out are immutable and safe to share.
#pragma once

#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/runtime/compact_object.hpp>
#include <kcoro/runtime/watcher_fsm.hpp>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
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
    /// Field managers whose managedFields entries are kept (the others are
    /// stripped: keep_managed_fields_transform), read each time an object is
    /// stored, so a manager added later applies from then on. Null or empty:
    /// the built-in filter, which writes the compact text without copying.
    /// Ignored when `transform` is set.
    std::shared_ptr<const std::vector<std::string>> kept_managers{};
};

enum class notification_type { added, updated, deleted };

struct cache_notification {
    notification_type type = notification_type::added;
    object_ptr old_object;  // updated: the previous state
    object_ptr object;      // added/updated: the new state; deleted: the last known state
    /// deleted only: the delete was not observed, the object vanished in a relist.
    bool tombstone = false;
    /// Objects compare by value (reads are parses: equal, not identical).
    friend bool operator==(const cache_notification& a, const cache_notification& b) noexcept;
};

/// Receives notifications one at a time; may be empty (nothing is materialised).
using notification_sink = std::function<void(const cache_notification&)>;

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
    /// Applies one watcher event; the resulting notifications go to `sink`
    /// as they are made (none are made when it is empty).
    void handle(const watcher_event& e, const notification_sink& sink);
    /// Applies one watcher event; returns the resulting notifications.
    std::vector<cache_notification> handle(const watcher_event& e);
    /// Whether update notifications carry the previous state (default true).
    /// Off, `old_object` is null: a sink that never reads it saves a decode
    /// of the stored text per update (issue 12: a sixth of a no-op event).
    void set_old_objects(bool on) noexcept { old_objects_ = on; }
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
    /// A number that changes whenever the object stored under `key` does
    /// (never reused by this cache), 0 when none is: what a memo of objects
    /// decoded from this cache (typed_memo.hpp) checks, without a parse.
    std::uint64_t stamp(const object_key& key) const noexcept;
    std::vector<object_ptr> list() const;
    /// Each cached object, decoded one at a time and released before the
    /// next: a walk of the whole cache that never holds it all decoded, as
    /// list()'s vector does (at 30,000 objects, 43 MB at once). `f` must not
    /// change the cache.
    void for_each(const std::function<void(const object_ptr&)>& f) const;
    std::vector<object_ptr> list_namespace(std::string_view ns) const;
    /// Objects whose controller owner reference has this uid.
    std::vector<object_ptr> list_controlled_by(std::string_view owner_uid) const;
    /// Objects indexed under `value` by the index `name` (empty for an unknown index).
    std::vector<object_ptr> by_index(std::string_view name, std::string_view value) const;
    std::vector<object_key> keys() const;
    std::size_t size() const noexcept { return items_.size(); }
    /// Bytes of the stored blocks (text, keys, index values), without the
    /// cache's own nodes.
    std::size_t stored_bytes() const noexcept { return bytes_; }
    /// True once a full snapshot (init_done or replace_all) has been stored.
    bool has_synced() const noexcept { return synced_; }

private:
    // A key's stored object; mutable so an update swaps the block in place
    // (the key, and so the set's order, stays the same).
    struct slot {
        mutable compact_object obj;
        mutable std::uint64_t stamp = 0;  // see stamp(); set whenever obj gets another object
    };
    struct key_view {
        std::string_view ns;
        std::string_view name;
    };
    struct key_less {
        using is_transparent = void;
        static key_view view(const slot& s) noexcept { return {s.obj.namespace_(), s.obj.name()}; }
        static key_view view(const object_key& k) noexcept { return {k.ns, k.name}; }
        static key_view view(const key_view& k) noexcept { return k; }
        template <class A, class B>
        bool operator()(const A& a, const B& b) const noexcept {
            const key_view x = view(a), y = view(b);
            return x.ns < y.ns || (x.ns == y.ns && x.name < y.name);
        }
    };
    using item_set = std::set<slot, key_less>;
    // One (value, object) pair of an index; the value is a view into the
    // object's block.
    struct index_ref {
        std::string_view value;
        const slot* item;
    };
    struct ref_less {
        using is_transparent = void;
        bool operator()(const index_ref& a, const index_ref& b) const noexcept;
        bool operator()(const index_ref& a, std::string_view b) const noexcept;
        bool operator()(std::string_view a, const index_ref& b) const noexcept;
    };
    struct index {
        std::string name;
        index_func fn;
        std::set<index_ref, ref_less> refs;
    };
    // A transformed object ready to store: the block, and the object the
    // notifications carry (null until needed when the filter changed it).
    struct prepared {
        compact_object block;
        object_ptr view;
    };

    object_ptr transform(object_ptr obj) const;
    compact_filter filter() const noexcept;
    bool keeps_managers() const noexcept;
    prepared prepare(const object_ptr& raw, bool want_view);
    std::vector<std::vector<std::string>> index_values_of(const boost::json::object& obj) const;
    void index_slot(const slot& s);
    void unindex_slot(const slot& s);
    void reindex_all();
    const compact_object& fresh(const slot& s);
    void apply_one(const object_ptr& raw, const notification_sink& sink);
    void remove_one(const object_ptr& raw, const notification_sink& sink);
    void replace(item_set next, const notification_sink& sink);
    void put(item_set& set, compact_object block);
    std::vector<object_ptr> lookup(std::size_t ix, std::string_view value) const;

    cache_options opts_;
    item_set items_;
    std::vector<index> indexes_;  // [0]: controller uid; user indexes after
    item_set pending_;            // snapshot being built between init_start and init_done
    std::size_t bytes_ = 0;
    std::string scratch_;         // reused while writing compact text
    bool synced_ = false;
    std::uint64_t last_stamp_ = 0;
    bool old_objects_ = true;
};

} // namespace kcoro::runtime
