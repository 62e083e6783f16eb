// Decoded objects, one arena each. Parsing into Boost.JSON's default storage
// costs a malloc per key and per string that does not fit inline, and a free
// for each when the tree goes: at 100,000 cached objects the churn of those
// small blocks among the cache's long-lived ones had glibc's malloc spend a
// fifth of a controller's CPU searching its bins (docs/performance.md). A
// tree parsed into an arena takes a few blocks, freed at once with the tree.
//
//   auto v = boost::json::parse(text, ec, kcoro::object_arena(text.size()));
//
// The arena is reference-counted and shared by every container that uses
// it: a copy of such a tree (Boost.JSON copies use the source's storage)
// allocates from it too and keeps it alive, so nothing dangles; memory is
// given back when the last of them goes. Thread safety: an arena is not
// thread-safe; a tree and its copies are used on one thread (kcoro's one
// io_context), or copied with an explicit storage (`json::object(obj, {})`)
// to hand across.
#pragma once

#include <boost/json/storage_ptr.hpp>

#include <cstddef>

namespace kcoro {

/// A shared arena (boost::json::monotonic_resource) for the tree of one
/// object of about `json_bytes` of JSON text.
boost::json::storage_ptr object_arena(std::size_t json_bytes);

} // namespace kcoro
