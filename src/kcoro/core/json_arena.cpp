#include <kcoro/core/json_arena.hpp>

#include <boost/json/monotonic_resource.hpp>

#include <algorithm>

namespace kcoro {

boost::json::storage_ptr object_arena(std::size_t json_bytes) {
    // A tree takes about twice its compact JSON (32 bytes a member, a table
    // per object); the arena grows by doubling when that is short.
    const std::size_t first = std::clamp<std::size_t>(2 * json_bytes + 256, 1024, 1024 * 1024);
    return boost::json::make_shared_resource<boost::json::monotonic_resource>(first);
}

} // namespace kcoro
