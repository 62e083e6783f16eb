// KEP-5866 (server-side sharded list and watch, Kubernetes 1.36 alpha,
// feature gate ShardedListAndWatch): the `shardSelector` list/watch
// parameter, parsed and matched as the real server does.
//
//   shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')
//   shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') ||
//     shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000')
//
// Followed (kubernetes/kubernetes, staging/src/k8s.io/):
//   apiserver/pkg/sharding/parser.go   Parse: TrimSpace; "" refused; a CEL
//       parse (cel_expr.hpp) then a walk that accepts only shardRange(field,
//       start, end) calls joined by `||`; field object.metadata.uid or
//       object.metadata.namespace; each bound a string literal '0x' + exactly
//       16 lowercase hex digits, or '0x10000000000000000' (2^64); start < end;
//       every range on the same field. Every error text below is copied from it.
//   apimachinery/pkg/sharding/selector.go   Matches: the hash is "0x" + 16
//       hex digits; a requirement holds when !HexLess(hash, start) &&
//       HexLess(hash, end) (half-open); the requirements are ORed. String():
//       "shardRange(<key>, '<start>', '<end>')" joined by " || " -- what the
//       list's metadata.shardInfo.selector echoes.
//   apimachinery/pkg/sharding/hash.go   HashField: FNV-1a 64 of the bytes.
//   apimachinery/pkg/sharding/accessor.go   ResolveFieldValue: the uid or
//       the namespace ("" for a cluster-scoped object).
//
// Thread safety: an immutable value once parsed.
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kcoro::apiserver {

/// FNV-1a 64 of the bytes of `s` (Go's hash/fnv New64a).
std::uint64_t fnv1a64(std::string_view s) noexcept;

/// One shardRange(key, start, end): hashes in [start, end).
struct shard_range_requirement {
    std::string key;    // "object.metadata.uid" or "object.metadata.namespace"
    std::string start;  // as written: "0x" + 16 hex digits
    std::string end;    // "0x" + 16 hex digits, or "0x10000000000000000"
    std::uint64_t first = 0;  // start
    std::uint64_t last = 0;   // end - 1 (inclusive: 2^64 - 1 for the top)
    bool contains(std::uint64_t h) const noexcept { return first <= h && h <= last; }
    friend bool operator==(const shard_range_requirement&, const shard_range_requirement&) = default;
};

class shard_selector {
public:
    /// The parser's error text on failure (what the server puts after
    /// "invalid shard selector: ", see object_store's list and watch).
    static std::variant<shard_selector, std::string> parse(std::string_view text);

    /// The hash of the selected field of `obj` falls in one of the ranges.
    bool matches(const boost::json::object& obj) const noexcept;
    /// Selector.String(): the canonical text, echoed in ListMeta.shardInfo.
    std::string str() const;
    const std::vector<shard_range_requirement>& requirements() const noexcept { return requirements_; }

private:
    std::vector<shard_range_requirement> requirements_;
};

} // namespace kcoro::apiserver
