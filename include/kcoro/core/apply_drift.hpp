// Would a server-side apply change anything we own? The comparison behind
// runtime::apply_owned: "no write at all when the fields we manage already
// hold our values", scoped the way managedFields scopes an apply
// (structured-merge-diff's merge and managedFields rules, as
// kcoro-apiserver's server_side_apply.hpp models them).
//
//  1. Every field of the applied configuration must be in `live` with our
//     value. Objects recurse (fields we do not set are not compared, so
//     server-filled defaults never count); list-maps (containers by name,
//     ports by port + protocol, ownerReferences by uid: the list strategies
//     of strategic_merge_patch.hpp) match items by their keys and compare
//     the items the same way, items of others are left alone; sets must
//     contain our values; atomic lists must have our items, in order, each
//     compared the same way (defaults inside them are tolerated). A null in
//     the configuration means "not set by me". Of metadata only labels,
//     annotations, ownerReferences and finalizers count; status never does.
//  2. What `field_manager` owns through its Apply entry of
//     metadata.managedFields but no longer applies (a field dropped from the
//     configuration) needs a write, so the apply removes it. This needs
//     `live` to carry managedFields (a GET, or an informer cache that keeps
//     the manager's entries: runtime::keep_managed_fields_transform); without
//     them, only rule 1 is checked.
//
// Pure; never throws on any input.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace kcoro {

/// nullopt when applying `applied` as `field_manager` would change nothing
/// of ours in `live`; otherwise the first difference, as a field path:
/// `.spec.replicas: 5, want 3`, `.spec.template.spec.containers[name="gateway"].env[name="A"]: missing`,
/// `.spec.paused: applied before, no longer`.
std::optional<std::string> apply_drift(const boost::json::object& applied, const boost::json::object& live,
                                       std::string_view field_manager);

/// Items of `live`'s list-maps that took the place of one of ours: our item
/// is missing and an item that is not ours carries its `name` (an edit of a
/// key field, such as `kubectl edit` changing a Service port 8080 to 9090,
/// removes our item and adds another named like it). An apply cannot remove
/// another manager's item and would put ours back next to it: two ports
/// named "http", which the API server rejects (422), and removing theirs
/// first may leave a list the server requires empty. The JSON patch that
/// replaces each such item by ours in place, guarded by a `test` of the item
/// as read (a concurrent change fails with 422 instead of replacing the
/// wrong item); nullopt when there is none.
std::optional<boost::json::array> colliding_items_patch(const boost::json::object& applied,
                                                        const boost::json::object& live);

} // namespace kcoro
