#include <kcoro/runtime/shard_bucket.hpp>

#include <cstdio>
#include <vector>

namespace kcoro::runtime {

std::string shard_bucket_value(std::uint32_t b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%03x", b & (shard_buckets - 1));
    return buf;
}

std::optional<std::string> shard_bucket_selector(std::span<const hash_range> rs) {
    std::vector<bool> touched(shard_buckets, false);
    std::size_t n = 0;
    for (const auto& r : rs) {
        for (auto b = shard_bucket_of(r.first); b <= shard_bucket_of(r.last); ++b) {
            if (!touched[b]) ++n;
            touched[b] = true;
        }
    }
    if (n == 0 || n == shard_buckets) return std::nullopt;
    std::string out(shard_bucket_label);
    out += " in (";
    bool first = true;
    for (std::uint32_t b = 0; b < shard_buckets; ++b) {
        if (!touched[b]) continue;
        if (!first) out += ',';
        first = false;
        out += shard_bucket_value(b);
    }
    out += ')';
    return out;
}

void stamp_shard_bucket(boost::json::object& child, std::string_view owner_uid) {
    auto& meta = child["metadata"];
    if (!meta.is_object()) meta = boost::json::object();
    auto& labels = meta.as_object()["labels"];
    if (!labels.is_object()) labels = boost::json::object();
    labels.as_object()[shard_bucket_label] = shard_bucket_value(shard_bucket_of(fnv1a64(owner_uid)));
}

} // namespace kcoro::runtime
