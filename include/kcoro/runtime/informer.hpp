// A shared informer: one watcher driver (list + watch of one resource in one
// namespace with one selector) feeding one object_cache, and the handlers
// that want its add/update/delete notifications.
//
//   runtime::informer inf(client, clock, ex, {.key = {.gvr = resources::configmaps()}});
//   inf.add_handlers({.on_add = [&](const object_ptr& o) { ... }});
//   co_spawn(ex, inf.run(), detached);
//   auto synced = co_await inf.wait_for_sync();   // 403 on the list: error at once
//
// (test/integration/header_examples_test.cpp runs it.)
//
//  - Handlers may be added before or after start; a late handler first gets
//    a synthetic add for every cached object (as client-go does).
//  - Resync replays the cache as updates (old == new) every resync_period
//    (jittered); it never relists. 0 disables it.
//  - The cache holds immutable objects; transform (default: strip
//    managedFields) runs before storing. metadata_only lists and watches
//    PartialObjectMetadata: the server sends metadata only.
//
// Lifetime: the client and clock must outlive it; run() must have returned
// before it is destroyed. Thread safety: none (one io_context thread).
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/log.hpp>
#include <kcoro/core/metrics_hooks.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/object_cache.hpp>
#include <kcoro/runtime/runnable.hpp>
#include <kcoro/runtime/shard_ring.hpp>
#include <kcoro/runtime/shard_scope.hpp>
#include <kcoro/runtime/watcher_fsm.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace kcoro::client {
class client;
}

namespace kcoro::runtime {

class watcher;

/// What one shared informer watches; equal keys share one informer.
struct informer_key {
    group_version_resource gvr{};
    std::string namespace_{};  // empty: all namespaces
    std::string label_selector{};
    std::string field_selector{};
    bool metadata_only = false;
    /// Sharding (docs/sharding.md): the cache keeps only the objects whose
    /// shard hash is in the share given by informer::set_shard; none: all.
    shard_by shard = shard_by::none;
    friend bool operator==(const informer_key&, const informer_key&) = default;
    friend auto operator<=>(const informer_key&, const informer_key&) = default;
};

std::string to_string(const informer_key& k);

struct informer_options {
    informer_key key{};
    /// Empty: strip managedFields (metadata_only: metadata_only_transform).
    transform_func transform{};
    /// cache_options::kept_managers (ignored with a transform).
    std::shared_ptr<const std::vector<std::string>> kept_managers{};
    /// Replays the cache as updates; 0 disables. Jittered by up to 10%.
    std::chrono::nanoseconds resync_period = std::chrono::hours(10);
    watcher_options watcher{};
    /// kcoro_informer_* metrics; may be null.
    informer_metrics* metrics = nullptr;
    /// Watcher failures and handler exceptions (default: prints nothing).
    kcoro::logger log{};
    /// Called whenever has_synced() or the outcome wait_for_sync would report
    /// may have changed, and when run() returns (the factory listens). May be empty.
    std::function<void()> on_state_change{};
};

struct event_handlers {
    std::function<void(const object_ptr& obj)> on_add{};
    /// Also called by resync with old == obj.
    std::function<void(const object_ptr& old_obj, const object_ptr& obj)> on_update{};
    /// tombstone: the delete was not observed (the object vanished in a
    /// relist); obj is its last known state.
    std::function<void(const object_ptr& obj, bool tombstone)> on_delete{};
    /// false: on_update never reads old_obj, which may then be null. When no
    /// handler of an informer reads it, updates skip decoding the previous
    /// state from the cache.
    bool reads_old_object = true;
};

using handler_id = std::uint64_t;

class informer final : public runnable {
public:
    informer(client::client& c, io::clock& clk, boost::asio::any_io_executor ex, informer_options opts);
    ~informer() override;
    informer(const informer&) = delete;
    informer& operator=(const informer&) = delete;

    handler_id add_handlers(event_handlers h);
    void remove_handlers(handler_id id);
    /// Adds a user index to the cache (see object_cache::add_index).
    bool add_index(std::string name, index_func fn);

    // runnable
    std::string_view name() const override;
    boost::asio::awaitable<void> run() override;
    void stop() override;
    bool needs_leader_election() const override { return false; }

    /// Sharded informers (key.shard != none): the hash ranges whose objects
    /// the cache keeps (the replica's active and draining ranges). Nothing
    /// is listed before the first non-empty share. A grown share relists
    /// (at the last revision; objects outside it come out as tombstone
    /// deletes); a shrunk one evicts at once (tombstone deletes to the
    /// handlers). With key.shard == uid the lists and watches also ask the
    /// server for the share (KEP-5866 shardSelector) and use its answer when
    /// it echoes metadata.shardInfo; the client filter applies either way.
    void set_shard(const hash_ranges& held);
    /// Whether the server filters this informer's share: nullopt until a
    /// list with a shardSelector was answered (or for client-only filtering).
    std::optional<bool> server_filtering() const noexcept;

    bool has_synced() const noexcept;
    /// Completes once synced (ok), when the list failed with a status that
    /// will not heal by retrying (401, 403, 404 of the resource: that error,
    /// at once), or at the timeout (kcoro_errc::not_synced, with the last
    /// error seen in the message). Stopped before sync: kcoro_errc::cancelled.
    boost::asio::awaitable<result<void>> wait_for_sync(std::chrono::nanoseconds timeout);
    /// wait_for_sync(2 minutes).
    boost::asio::awaitable<result<void>> wait_for_sync() { return wait_for_sync(std::chrono::minutes(2)); }

    const object_cache& cache() const noexcept;
    const informer_key& key() const noexcept;
    /// The last error of the watcher (empty when healthy).
    const error& last_error() const noexcept;
    /// Exceptions thrown by handlers so far (caught, logged, not fatal).
    std::uint64_t handler_errors() const noexcept;
    /// The watcher driver (its fsm state, request counts), for tests and status.
    const watcher& source() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace kcoro::runtime
