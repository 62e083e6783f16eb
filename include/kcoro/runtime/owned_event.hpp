// The Event a controller records on its object for a write to one of its
// children: what apply_owned and delete_owned record when asked
// (owned_events::record), for code that writes children otherwise.
//
//   ctx.events->record(runtime::owned_event(*owner, *child, runtime::write_op::created, ""));
//
//   created  Normal Created  action Create  "created Service default/web"
//   applied  Normal Updated  action Apply   "updated Service default/web: .spec.ports[...]: missing"
//   patched  Normal Updated  action Patch   (the same, for a merge or JSON patch)
//   updated  Normal Updated  action Update
//   deleted  Normal Deleted  action Delete  "deleted Service default/web"
//
// The Event is about `owner` (regarding), with the child as its `related`
// object, so the events of two children of one owner are two Events, each
// folding its own repeats into a series (event_aggregator.hpp).
// Pure.
#pragma once

#include <kcoro/runtime/event_aggregator.hpp>
#include <kcoro/runtime/write_hooks.hpp>

#include <boost/json/object.hpp>

#include <string_view>

namespace kcoro::runtime {

/// See the file comment. `drift` (what changed; may be empty) follows a colon.
event_request owned_event(const boost::json::object& owner, const boost::json::object& child, write_op op,
                          std::string_view drift);

} // namespace kcoro::runtime
