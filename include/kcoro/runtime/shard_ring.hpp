// The hash ring that spreads one controller's keys over the replicas of a
// sharding ring (docs/sharding.md), and the KEP-5866 hash and selector it
// speaks.
//
// The hash is KEP-5866's (server-side sharded list and watch, Kubernetes
// 1.36): FNV-1a 64 over the bytes of object.metadata.uid (or of
// object.metadata.namespace), compared as a number against half-open ranges
// [start, end) written '0x' + 16 lowercase hex digits, the end of the space
// being '0x10000000000000000' (2^64). Followed:
// staging/src/k8s.io/apimachinery/pkg/sharding/{hash.go,selector.go} and
// staging/src/k8s.io/apiserver/pkg/sharding/parser.go.
//
// The ring: each member (a replica's identity) puts `virtual_nodes` points on
// the 64-bit circle; a hash belongs to the member of the first point at or
// after it, wrapping past the top. Points are fnv1a64(member + "#" + i)
// passed through a 64-bit finalizer: raw FNV-1a of strings that differ only
// in their last bytes lands in a narrow arc (the last multiply spreads a
// small difference by the prime, 2^40 + 435), which gave a ring of 3 shares
// as far apart as 0.35 and 1.43 of the fair one; mixed, with 256 points per
// member, the worst member of a random ring of 3 is within 6% of fair in
// the median and outside 15% for about 1 ring in 70.
// Each point then moves to the end of its bucket (the top 10 bits,
// shard_bucket.hpp), so that every member's ranges are whole buckets and
// the owner-bucket label selects exactly a share; within a bucket the
// lowest unquantized point takes it.
// The assignment depends on the member set only, never on insertion order.
// It is part of the protocol: replicas computing it differently (another
// version of this rule) must not share a ring name.
//
// Thread safety: a value; const members may be called concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kcoro::runtime {

/// FNV-1a 64-bit of the bytes of `s` (Go's hash/fnv New64a).
std::uint64_t fnv1a64(std::string_view s) noexcept;

/// A non-empty range of hashes, both ends inclusive: KEP-5866's half-open
/// [first, last + 1). Inclusive ends make the whole space [0, 2^64 - 1]
/// representable without a 65-bit end.
struct hash_range {
    std::uint64_t first = 0;
    std::uint64_t last = 0;
    bool contains(std::uint64_t h) const noexcept { return first <= h && h <= last; }
    /// Number of hashes, minus one (the whole space would overflow).
    std::uint64_t width_minus_one() const noexcept { return last - first; }
    friend bool operator==(const hash_range&, const hash_range&) = default;
};

/// A sorted list of disjoint, non-adjacent ranges (what the functions below
/// take and return).
using hash_ranges = std::vector<hash_range>;

/// Sorts and merges overlapping or adjacent ranges.
hash_ranges normalize(hash_ranges rs);
/// a ∪ b, a ∩ b, a \ b of normalized lists.
hash_ranges unite(std::span<const hash_range> a, std::span<const hash_range> b);
hash_ranges intersect(std::span<const hash_range> a, std::span<const hash_range> b);
hash_ranges subtract(std::span<const hash_range> a, std::span<const hash_range> b);
bool contains(std::span<const hash_range> rs, std::uint64_t h) noexcept;
bool overlaps(std::span<const hash_range> a, std::span<const hash_range> b) noexcept;
/// How many hashes of the space the ranges cover, as a fraction of 2^64.
double fraction_of_space(std::span<const hash_range> rs) noexcept;

/// "0x%016x" (KEP-5866's canonical bound).
std::string hash_hex(std::uint64_t h);
/// The exclusive end of a range as KEP-5866 writes it: last + 1, or
/// "0x10000000000000000" when the range reaches the top of the space.
std::string end_hex(const hash_range& r);

/// The field a selector hashes.
enum class shard_field { uid, namespace_ };
std::string_view field_path(shard_field f) noexcept;  // "object.metadata.uid", ...

/// A KEP-5866 shardSelector matching exactly `rs` (normalized, non-empty):
/// "shardRange(object.metadata.uid, '0x...', '0x...') || shardRange(...)",
/// the server's own Selector.String() form. Empty `rs`: nullopt, because an
/// empty selector is refused and an omitted one selects everything.
std::optional<std::string> shard_selector(std::span<const hash_range> rs, shard_field f = shard_field::uid);

class shard_ring {
public:
    static constexpr int default_virtual_nodes = 256;

    /// Duplicate members count once; an empty list gives an empty ring.
    explicit shard_ring(std::vector<std::string> members = {}, int virtual_nodes = default_virtual_nodes);

    bool empty() const noexcept { return members_.empty(); }
    /// Sorted, unique.
    const std::vector<std::string>& members() const noexcept { return members_; }
    bool has_member(std::string_view m) const noexcept;
    int virtual_nodes() const noexcept { return virtual_nodes_; }

    /// The member owning hash `h`; empty when the ring is empty.
    std::string_view owner_of(std::uint64_t h) const noexcept;
    /// The ranges `m` owns, normalized; together the members' ranges
    /// partition the space. Empty for a non-member.
    hash_ranges ranges_of(std::string_view m) const;
    /// shard_selector(ranges_of(m), f); nullopt when m owns nothing.
    std::optional<std::string> selector_of(std::string_view m, shard_field f = shard_field::uid) const;

    /// A member's point for virtual node i before it is moved to the end
    /// of its bucket (exposed for tests and tools).
    static std::uint64_t point_of(std::string_view member, int i);

private:
    std::vector<std::string> members_;
    int virtual_nodes_;
    // Each point sits at the end of its bucket (shard_bucket.hpp), so that
    // every range is whole buckets; points in one bucket order by their
    // unquantized place (`raw`, then the member), and the first takes the
    // bucket: a fair draw, not the member whose name sorts first.
    struct point {
        std::uint64_t at;
        std::uint64_t raw;
        std::uint32_t member;  // index into members_
        friend bool operator<(const point& a, const point& b) noexcept {
            if (a.at != b.at) return a.at < b.at;
            if (a.raw != b.raw) return a.raw < b.raw;
            return a.member < b.member;
        }
    };
    std::vector<point> points_;
};

} // namespace kcoro::runtime
