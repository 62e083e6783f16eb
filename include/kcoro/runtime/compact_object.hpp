// How object_cache stores one object: a single allocation holding the
// object's compact JSON text, its namespace and name (the cache's key), and
// the values the cache's indexes file it under. Reading it back parses the
// text into a new immutable object (`decode`).
//
// Why text and not a Boost.JSON tree: a tree costs 1.5x to 2.7x the JSON
// bytes even in one arena per object (32 bytes per member, a table per
// object, a header per string), and 1.9x to 3.9x with a malloc per node; the
// text plus this header costs the JSON bytes plus about 40 (docs/performance.md).
// Reads pay a parse (a few microseconds per KB) instead.
//
//   std::string scratch;
//   auto c = compact_object::make(obj, compact_filter::strip_managed_fields, values, scratch);
//   c.text(); c.name(); c.namespace_(); c.values(0);   // views into c
//   object_ptr o = c.decode();               // equal to obj without managedFields
//
// Lifetime: a move-only value owning its block; views it returns live as
// long as it does and is not assigned. Thread safety: const members may be
// called from any thread.
#pragma once

#include <kcoro/core/object.hpp>

#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::runtime {

/// What `compact_object::make` leaves out of the text while writing it.
enum class compact_filter {
    none,
    /// metadata.managedFields (the informers' default).
    strip_managed_fields,
    /// Only apiVersion, kind and metadata, without managedFields
    /// (PartialObjectMetadata).
    metadata_only,
};

/// Writes `obj` as compact JSON (Boost.JSON's serializer) into `out`,
/// leaving out what `f` says. `out` is cleared first.
void write_compact_json(const boost::json::object& obj, compact_filter f, std::string& out);

/// True when `f` would leave something of `obj` out.
bool filter_changes(const boost::json::object& obj, compact_filter f) noexcept;

class compact_object {
public:
    compact_object() noexcept = default;
    ~compact_object();
    compact_object(compact_object&& o) noexcept : block_(o.block_) { o.block_ = nullptr; }
    compact_object& operator=(compact_object&& o) noexcept;
    compact_object(const compact_object&) = delete;
    compact_object& operator=(const compact_object&) = delete;

    /// `obj` written with `f`; `values[i]` are what index i files it under.
    /// `scratch` is a buffer the caller reuses between calls (no allocation
    /// once it is large enough).
    static compact_object make(const boost::json::object& obj, compact_filter f,
                               const std::vector<std::vector<std::string>>& values, std::string& scratch);
    /// The same text and key with other index values.
    compact_object with_values(const std::vector<std::vector<std::string>>& values) const;

    explicit operator bool() const noexcept { return block_ != nullptr; }
    std::string_view text() const noexcept;
    std::string_view namespace_() const noexcept;
    std::string_view name() const noexcept;
    object_key key() const;
    /// Number of indexes with values stored, and the values of index i
    /// (empty past the end).
    std::size_t index_count() const noexcept;
    std::vector<std::string_view> values(std::size_t i) const;
    /// Bytes of the block (what the object costs besides the cache's node).
    std::size_t bytes() const noexcept;

    /// Parses the text: a new object, equal to the one stored (filtered).
    /// Null for an empty compact_object.
    object_ptr decode() const;

private:
    struct header;
    explicit compact_object(header* h) noexcept : block_(h) {}
    static compact_object assemble(std::string_view text, std::string_view ns, std::string_view name,
                                   const std::vector<std::vector<std::string>>& values);
    header* block_ = nullptr;
};

} // namespace kcoro::runtime
