#include <kcoro/runtime/shard_scope.hpp>

#include <kcoro/core/object.hpp>
#include <kcoro/runtime/shard_ring.hpp>

namespace kcoro::runtime {

std::string_view to_string(shard_by s) noexcept {
    switch (s) {
    case shard_by::none: return "none";
    case shard_by::uid: return "uid";
    case shard_by::controller_owner: return "controller-owner";
    case shard_by::controller_owner_bucket: return "controller-owner-bucket";
    case shard_by::namespace_: return "namespace";
    }
    return "?";
}

std::optional<std::uint64_t> shard_hash_of(const boost::json::object& obj, shard_by s) {
    switch (s) {
    case shard_by::none:
        return std::nullopt;
    case shard_by::uid: {
        const auto uid = uid_of(obj);
        if (uid.empty()) return std::nullopt;
        return fnv1a64(uid);
    }
    case shard_by::namespace_: {
        const auto ns = namespace_of(obj);
        if (ns.empty()) return std::nullopt;
        return fnv1a64(ns);
    }
    case shard_by::controller_owner:
    case shard_by::controller_owner_bucket: {
        auto ref = controller_of(obj);
        if (!ref || ref->uid.empty()) return std::nullopt;
        return fnv1a64(ref->uid);
    }
    }
    return std::nullopt;
}

} // namespace kcoro::runtime
