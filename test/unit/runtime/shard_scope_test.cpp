// What decides an object's share (shard_scope.hpp): its uid, its controller
// owner's uid, or its namespace; no such field, no share.
#include <kcoro/runtime/shard_scope.hpp>

#include <kcoro/runtime/shard_ring.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

using namespace kcoro::runtime;

namespace {

boost::json::object obj(std::string_view text) { return boost::json::parse(text).as_object(); }

} // namespace

TEST_CASE("shard_hash_of: the uid, the controller owner's uid, the namespace; none without the field") {
    const auto child = obj(R"({"metadata":{"name":"c","namespace":"team-a","uid":"u-child",
        "ownerReferences":[{"apiVersion":"v1","kind":"Secret","name":"s","uid":"u-other"},
                           {"apiVersion":"v1","kind":"ConfigMap","name":"p","uid":"u-owner","controller":true}]}})");
    CHECK(shard_hash_of(child, shard_by::uid) == fnv1a64("u-child"));
    CHECK(shard_hash_of(child, shard_by::controller_owner) == fnv1a64("u-owner"));
    CHECK(shard_hash_of(child, shard_by::controller_owner_bucket) == fnv1a64("u-owner"));
    CHECK(shard_hash_of(child, shard_by::namespace_) == fnv1a64("team-a"));
    CHECK_FALSE(shard_hash_of(child, shard_by::none).has_value());

    // No controller reference (only a plain owner), no uid, cluster-scoped.
    const auto plain = obj(R"({"metadata":{"name":"n","ownerReferences":[{"apiVersion":"v1","kind":"Secret","name":"s","uid":"x"}]}})");
    CHECK_FALSE(shard_hash_of(plain, shard_by::controller_owner).has_value());
    CHECK_FALSE(shard_hash_of(plain, shard_by::uid).has_value());
    CHECK_FALSE(shard_hash_of(plain, shard_by::namespace_).has_value());

    CHECK(to_string(shard_by::namespace_) == "namespace");
    CHECK(to_string(shard_by::controller_owner_bucket) == "controller-owner-bucket");
}
