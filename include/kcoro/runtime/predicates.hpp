// Event filters, as controller-runtime's predicate package has them: each
// decides, for a create, update, delete or generic event, whether it should
// enqueue a reconcile. Pure functions of the objects.
//
//  - generation_changed: updates only when metadata.generation moved (spec
//    changes; status-only writes do not wake the controller).
//  - resource_version_changed: drops the no-op updates a relist or resync
//    delivers for unchanged objects.
//  - labels_changed / annotations_changed: updates only when those changed.
//  - label_selector_matches: every event whose object matches the selector
//    (for an update: if either the old or the new object matches, so an
//    object leaving the selection is still seen).
// Create, delete and generic events pass the change predicates, as in
// controller-runtime.
//
// Thread safety: values; the functions they hold must be pure.
#pragma once

#include <kcoro/core/label_selector.hpp>

#include <boost/json/object.hpp>

#include <functional>
#include <vector>

namespace kcoro::runtime {

using object_filter = std::function<bool(const boost::json::object&)>;
using update_filter = std::function<bool(const boost::json::object& old_obj, const boost::json::object& new_obj)>;

/// A filter per event kind; an empty function lets the event through.
struct predicate {
    object_filter create;
    update_filter update;
    object_filter remove;
    object_filter generic;

    bool on_create(const boost::json::object& o) const { return !create || create(o); }
    bool on_update(const boost::json::object& o, const boost::json::object& n) const { return !update || update(o, n); }
    bool on_delete(const boost::json::object& o) const { return !remove || remove(o); }
    bool on_generic(const boost::json::object& o) const { return !generic || generic(o); }
};

bool generation_changed(const boost::json::object& old_obj, const boost::json::object& new_obj) noexcept;
bool resource_version_changed(const boost::json::object& old_obj, const boost::json::object& new_obj) noexcept;
bool labels_changed(const boost::json::object& old_obj, const boost::json::object& new_obj) noexcept;
bool annotations_changed(const boost::json::object& old_obj, const boost::json::object& new_obj) noexcept;

predicate generation_changed_predicate();
predicate resource_version_changed_predicate();
predicate labels_changed_predicate();
predicate annotations_changed_predicate();
predicate label_selector_predicate(label_selector selector);

/// Passes when every predicate passes.
predicate all_of(std::vector<predicate> ps);
/// Passes when any predicate passes (none: passes nothing).
predicate any_of(std::vector<predicate> ps);

} // namespace kcoro::runtime
