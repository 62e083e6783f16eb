// One replica's membership in a sharding ring: a runnable that drives
// `shard_membership_fsm` (the pure rules, see shard_membership_fsm.hpp and
// docs/sharding.md) over the client on this replica's own
// coordination.k8s.io/v1 Lease, as leader_elector drives leader_election_fsm.
//
//   runtime::shard_member m(client, clock, {
//       .config = {.ring = "mirror", .identity = default_leader_identity()},
//       .lease_namespace = "ops",
//       .on_change = [&](const hash_ranges& active) { ... refilter ... },
//       .on_drop = [&](const hash_ranges& r) { ... stop r's keys, later m.drained(r) ... },
//   });
//   co_spawn(ex, m.run(), detached);
//   if (m.owns_key(uid)) ...                  // the per-key gate
//
//  - The Lease is `<ring>-<16 hex digits of fnv1a64(identity)>` in
//    `lease_namespace`, labelled kcoro.io/sharding-ring=<ring>; holder, renewTime,
//    leaseDurationSeconds and the annotation kcoro.io/shard-state are the
//    fsm's. Writes: create, then updates carrying the resourceVersion of our
//    last write; on a 409 the Lease is read again (no blind retry):
//    `lease_lost` if it no longer names us, else a failed write (and its
//    resourceVersion adopted: our own write answered too late). Every write
//    is cancelled at the fsm's write_deadline.
//  - Observations: a consistent LIST of the ring's Leases by label every
//    retry_period (and when the fsm asks for a fresh one). Serial lists of
//    one server only move forward, which is all the fsm needs of a cache.
//    Lists and reaps are bounded by a retry period: the loop is serial, and
//    a hung read must not hold back the next renewal.
//  - Reaps: an update of the other's Lease (as last listed) to holder ""
//    with the resourceVersion the fsm names; 404 counts as reaped.
//  - Clean-up: a Lease left with holder "" (its member left or was reaped)
//    and unchanged for leaseDurationSeconds is deleted, with its
//    resourceVersion as the precondition, by a running member (any: the
//    first delete wins), so the ring's Leases do not grow with every restart.
//  - `on_drop(ranges)`: stop these ranges now; call `drained(ranges)` once no
//    reconcile of them runs. Without `on_drop` nothing reconciles through
//    this member, so a drop is drained at once.
//  - `on_change(active)` after active() changed; `on_stopped(reason)` once,
//    when the fsm stops (lease lost, validity passed, or left the ring).
//  - `stop()`: the clean leave (drop all, wait for drained, release the Lease
//    with holder ""), then run() returns. Cancelling run()'s coroutine ends it
//    at once without releasing (the others reap it after leaseDurationSeconds).
//  - Metrics (optional `metrics`): kcoro_shard_members{ring} = the size of the
//    fsm's view; a handover opens when the view changes and our active ranges
//    differ from our ring share, and closes when they match again
//    (kcoro_shard_handovers_total, kcoro_shard_handover_duration_seconds);
//    the first acquisition counts as one.
//
// Lifetime: client, clock and metrics outlive it; run() returned before destruction.
// Thread safety: none (the io_context's thread).
#pragma once

#include <kcoro/core/log.hpp>
#include <kcoro/core/metrics_hooks.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/runnable.hpp>
#include <kcoro/runtime/shard_membership_fsm.hpp>

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace kcoro::client {
class client;
}

namespace kcoro::runtime {

/// kcoro.io/sharding-ring: the label selecting a ring's Leases.
inline constexpr std::string_view shard_ring_label = "kcoro.io/sharding-ring";

/// "<ring>-<16 hex digits of fnv1a64(identity)>": a valid object name for any
/// identity (identities hold '_').
std::string shard_lease_name(std::string_view ring, std::string_view identity);

struct shard_member_options {
    shard_membership_config config;
    std::string lease_namespace = "default";
    std::function<void(const hash_ranges& active)> on_change;
    std::function<void(const hash_ranges& dropped)> on_drop;
    std::function<void(std::string_view reason)> on_stopped;
    shard_metrics* metrics = nullptr;
    logger log;
};

class shard_member final : public runnable {
public:
    shard_member(client::client& c, io::clock& clk, shard_member_options opts);
    ~shard_member() override;

    std::string_view name() const override { return "shard-member"; }
    /// Runs until the fsm stops (left, lease lost, validity passed) or the
    /// coroutine is cancelled.
    boost::asio::awaitable<void> run() override;
    /// The clean leave (see the file comment).
    void stop() override;
    bool needs_leader_election() const override { return false; }

    /// No reconcile of these dropped ranges runs any more.
    void drained(const hash_ranges& ranges);

    /// The key with this hash may be reconciled now: active, within our
    /// validity, and run() has not returned.
    bool owns(std::uint64_t hash) const noexcept;
    /// owns(fnv1a64(key)); the key is what the ring hashes (KEP-5866: the uid).
    bool owns_key(std::string_view key) const noexcept;
    /// Ranges we may start reconciles of (while valid).
    const hash_ranges& active() const noexcept;
    /// The state machine, for tests and status (read only).
    const shard_membership_fsm& state() const noexcept;

    /// True once run() returned.
    bool finished() const noexcept;
    /// True when the last write released our Lease (a clean leave).
    bool released() const noexcept;
    /// Why the fsm stopped ("" while running or after a cancellation).
    const std::string& stop_reason() const noexcept;
    const std::string& lease_name() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace kcoro::runtime
