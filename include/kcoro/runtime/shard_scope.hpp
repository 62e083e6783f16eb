// Which objects a sharded informer keeps (docs/sharding.md, "Informer
// filtering"): an object belongs to the share that holds the hash of its
// shard field. Pure.
//
//   shard_hash_of(obj, shard_by::uid)               fnv1a64(metadata.uid)
//   shard_hash_of(obj, shard_by::controller_owner)  fnv1a64(the controller
//                                                   owner reference's uid)
//   shard_hash_of(obj, shard_by::namespace_)        fnv1a64(metadata.namespace)
//
// Children follow their owner: a controller's owned objects hash to the
// replica that reconciles their controller owner. Only `uid` can be asked of
// the server by KEP-5866 (it selects by object.metadata.uid or namespace); an
// owner's uid is filtered on the client, after the server selected the
// owner buckets where the children carry the label (controller_owner_bucket).
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

namespace kcoro::runtime {

enum class shard_by {
    none,              // not sharded: every object
    uid,               // the object's own uid (a controller's primary)
    controller_owner,  // its controller owner reference's uid (owns())
    // As controller_owner, and the lists and watches ask the server for the
    // share's owner buckets (label kcoro.io/shard-bucket, shard_bucket.hpp):
    // owns() of a controller built with shard_children_by_label().
    controller_owner_bucket,
    // The object's namespace (a controller sharded by namespace: its primary,
    // its children, which live in their owner's namespace). KEP-5866 selects
    // it (object.metadata.namespace); cluster-scoped objects have no share.
    namespace_,
};

std::string_view to_string(shard_by s) noexcept;

/// The hash deciding which share `obj` belongs to; nullopt when it has no
/// such field (no uid, or no controller owner): no share keeps it.
std::optional<std::uint64_t> shard_hash_of(const boost::json::object& obj, shard_by s);

} // namespace kcoro::runtime
