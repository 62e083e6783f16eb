#include <kcoro/runtime/shard_ring.hpp>

#include <kcoro/runtime/shard_bucket.hpp>

#include <algorithm>
#include <iterator>
#include <cstdio>
#include <limits>

namespace kcoro::runtime {

namespace {

constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();

// murmur3's fmix64: spreads the vnode points (see the header for why).
std::uint64_t mix64(std::uint64_t k) noexcept {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

} // namespace

std::uint64_t fnv1a64(std::string_view s) noexcept {
    std::uint64_t h = 0xcbf29ce484222325ULL;  // offset basis
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ULL;  // FNV prime
    }
    return h;
}

namespace {

bool by_first(const hash_range& a, const hash_range& b) noexcept {
    return a.first < b.first || (a.first == b.first && a.last < b.last);
}

// Merges overlapping or adjacent ranges of a list sorted by_first.
hash_ranges coalesce(const hash_ranges& rs) {
    hash_ranges out;
    out.reserve(rs.size());
    for (const auto& r : rs) {
        if (!out.empty() && (out.back().last == top || r.first <= out.back().last + 1)) {
            out.back().last = std::max(out.back().last, r.last);
        } else {
            out.push_back(r);
        }
    }
    return out;
}

} // namespace

hash_ranges normalize(hash_ranges rs) {
    std::sort(rs.begin(), rs.end(), by_first);
    return coalesce(rs);
}

hash_ranges unite(std::span<const hash_range> a, std::span<const hash_range> b) {
    // Both sorted: a linear merge (the handover state machine unites often).
    hash_ranges all;
    all.reserve(a.size() + b.size());
    std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(all), by_first);
    return coalesce(all);
}

hash_ranges intersect(std::span<const hash_range> a, std::span<const hash_range> b) {
    hash_ranges out;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const auto lo = std::max(a[i].first, b[j].first);
        const auto hi = std::min(a[i].last, b[j].last);
        if (lo <= hi) out.push_back({lo, hi});
        if (a[i].last < b[j].last) ++i; else ++j;
    }
    return out;
}

hash_ranges subtract(std::span<const hash_range> a, std::span<const hash_range> b) {
    hash_ranges out;
    std::size_t j = 0;
    for (auto r : a) {
        while (j < b.size() && b[j].last < r.first) ++j;
        std::size_t k = j;
        bool left = true;  // r still has a part not yet emitted
        while (k < b.size() && b[k].first <= r.last) {
            if (b[k].first > r.first) out.push_back({r.first, b[k].first - 1});
            if (b[k].last >= r.last) { left = false; break; }
            r.first = b[k].last + 1;
            ++k;
        }
        if (left) out.push_back(r);
    }
    return out;
}

bool contains(std::span<const hash_range> rs, std::uint64_t h) noexcept {
    auto it = std::upper_bound(rs.begin(), rs.end(), h,
                               [](std::uint64_t v, const hash_range& r) { return v < r.first; });
    return it != rs.begin() && std::prev(it)->contains(h);
}

bool overlaps(std::span<const hash_range> a, std::span<const hash_range> b) noexcept {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (std::max(a[i].first, b[j].first) <= std::min(a[i].last, b[j].last)) return true;
        if (a[i].last < b[j].last) ++i; else ++j;
    }
    return false;
}

double fraction_of_space(std::span<const hash_range> rs) noexcept {
    double sum = 0;
    for (const auto& r : rs) sum += static_cast<double>(r.width_minus_one()) + 1.0;
    return sum / 18446744073709551616.0;  // 2^64
}

std::string hash_hex(std::uint64_t h) {
    char buf[19];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(h));
    return buf;
}

std::string end_hex(const hash_range& r) {
    return r.last == top ? std::string("0x10000000000000000") : hash_hex(r.last + 1);
}

std::string_view field_path(shard_field f) noexcept {
    return f == shard_field::uid ? "object.metadata.uid" : "object.metadata.namespace";
}

std::optional<std::string> shard_selector(std::span<const hash_range> rs, shard_field f) {
    if (rs.empty()) return std::nullopt;
    std::string out;
    for (const auto& r : rs) {
        if (!out.empty()) out += " || ";
        out += "shardRange(";
        out += field_path(f);
        out += ", '" + hash_hex(r.first) + "', '" + end_hex(r) + "')";
    }
    return out;
}

std::uint64_t shard_ring::point_of(std::string_view member, int i) {
    std::string s(member);
    s += '#';
    s += std::to_string(i);
    return mix64(fnv1a64(s));
}

shard_ring::shard_ring(std::vector<std::string> members, int virtual_nodes)
    : members_(std::move(members)), virtual_nodes_(std::max(1, virtual_nodes)) {
    std::sort(members_.begin(), members_.end());
    members_.erase(std::unique(members_.begin(), members_.end()), members_.end());
    points_.reserve(members_.size() * static_cast<std::size_t>(virtual_nodes_));
    for (std::uint32_t m = 0; m < members_.size(); ++m) {
        for (int i = 0; i < virtual_nodes_; ++i) {
            const auto raw = point_of(members_[m], i);
            points_.push_back({shard_bucket_end(raw), raw, m});
        }
    }
    std::sort(points_.begin(), points_.end());
}

bool shard_ring::has_member(std::string_view m) const noexcept {
    return std::binary_search(members_.begin(), members_.end(), m);
}

std::string_view shard_ring::owner_of(std::uint64_t h) const noexcept {
    if (points_.empty()) return {};
    auto it = std::lower_bound(points_.begin(), points_.end(), h,
                               [](const point& p, std::uint64_t v) { return p.at < v; });
    if (it == points_.end()) it = points_.begin();  // past the last point: wrap
    return members_[it->member];
}

hash_ranges shard_ring::ranges_of(std::string_view m) const {
    auto found = std::lower_bound(members_.begin(), members_.end(), m);
    if (found == members_.end() || *found != m) return {};
    const auto idx = static_cast<std::uint32_t>(found - members_.begin());
    hash_ranges out;
    for (std::size_t i = 0; i < points_.size(); ++i) {
        if (points_[i].member != idx) continue;
        const auto p = points_[i].at;
        if (i == 0) {
            // The first point owns [0, p] and the wrap-around above the last point.
            out.push_back({0, p});
            const auto last = points_.back().at;
            if (last != top) out.push_back({last + 1, top});
        } else if (points_[i - 1].at != p) {
            out.push_back({points_[i - 1].at + 1, p});
        }  // else an earlier point of the same bucket took it
    }
    return normalize(std::move(out));
}

std::optional<std::string> shard_ring::selector_of(std::string_view m, shard_field f) const {
    return shard_selector(ranges_of(m), f);
}

} // namespace kcoro::runtime
