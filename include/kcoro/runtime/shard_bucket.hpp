// The owner-bucket label: how a sharded controller's children can be
// selected by the server. KEP-5866's shardSelector hashes only
// object.metadata.uid or .namespace, so it cannot ask for "the children of my
// owners"; a label selector can, if the children carry their owner's place on
// the ring and the ring's ranges are whole buckets (docs/sharding.md,
// "Children filtered by the server"):
//
//   kcoro.io/shard-bucket: "2a7"      the top 10 bits of fnv1a64(owner uid), 3 hex digits
//   kcoro.io/shard-bucket in (000,001,...,2a7)   the buckets of a replica's share
//
// shard_ring puts its points at bucket ends, so a member's ranges are whole
// buckets and the selector selects exactly its share. The label is stamped
// by apply_owned and create_or_patch for a sharded controller
// (helper_options::stamp_shard_bucket); the client filter on the owner's uid
// still applies after decoding, so a selector wider than the share (ranges
// not aligned) is safe.
//
// Pure.
#pragma once

#include <kcoro/runtime/shard_ring.hpp>

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kcoro::runtime {

inline constexpr int shard_bucket_bits = 10;
inline constexpr std::uint32_t shard_buckets = 1u << shard_bucket_bits;
inline constexpr std::string_view shard_bucket_label = "kcoro.io/shard-bucket";

/// The bucket of a hash: its top shard_bucket_bits bits.
constexpr std::uint32_t shard_bucket_of(std::uint64_t h) noexcept {
    return static_cast<std::uint32_t>(h >> (64 - shard_bucket_bits));
}
/// The last hash of the bucket `h` is in (where shard_ring puts a point).
constexpr std::uint64_t shard_bucket_end(std::uint64_t h) noexcept {
    return h | ((std::uint64_t{1} << (64 - shard_bucket_bits)) - 1);
}
/// The label value of bucket `b`: 3 lowercase hex digits ("000".."3ff").
std::string shard_bucket_value(std::uint32_t b);

/// The label selector requirement selecting every bucket `rs` touches
/// ("kcoro.io/shard-bucket in (...)"); nullopt when `rs` is empty (nothing)
/// or touches every bucket (no requirement needed).
std::optional<std::string> shard_bucket_selector(std::span<const hash_range> rs);

/// Sets the label on `child` for an owner of uid `owner_uid` (creating
/// metadata.labels when needed).
void stamp_shard_bucket(boost::json::object& child, std::string_view owner_uid);

} // namespace kcoro::runtime
