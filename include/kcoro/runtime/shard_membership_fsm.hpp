// One replica's membership in a sharding ring and the handover of hash
// ranges between replicas, as a pure state machine (ADR 0003: time passed
// in, `step(input) -> actions`, no I/O). The protocol and its safety
// argument are in docs/sharding.md; in short:
//
//  - Each replica holds its own shard Lease and announces in it (annotation
//    kcoro.io/shard-state) a generation, the ranges it CLAIMS (wants, reconciles
//    or still drains) and ACKS: for each other member, the generation of that
//    member's claim it keeps clear of.
//  - It wants what the ring of the live members gives it. Ranges it no longer
//    wants are dropped at once (`drop`) and stay claimed until `drained`
//    (their in-flight reconciles ended).
//  - It acks another member's generation only when none of its own active or
//    draining ranges lies in that member's claim.
//  - It activates a wanted range only when its current claim is written,
//    every other member it knows (expired ones too, until reaped) acks that
//    generation, and no other member's latest observed claim holds the range.
//  - Another member whose Lease was not renewed for leaseDurationSeconds (by
//    our clock, from when we saw its record change) is reaped: its Lease is
//    given up with a compare-and-swap on the resourceVersion we saw, so a
//    renewal in flight fails instead of reviving it. It blocks activations
//    until the reap succeeded.
//  - Our own validity ends renew_deadline after the start of the last write
//    that succeeded (as leader_election_fsm): past it, or when a write finds
//    our Lease no longer naming us (`lease_lost`), everything stops
//    (terminal), as for a lost leader.
//  - The first activation waits for a consistent list of the ring's Leases
//    taken after our Lease was first written (`list_leases`), so two replicas
//    starting together cannot both miss each other. That list is asked
//    `join_settle` after the write: replicas started within it find each
//    other and start from the ring's shares (without it the first to list
//    took everything, listed every object and dropped most of them).
//
// Driver contract: one Lease write at a time, cancelled at its
// `write_deadline`, renewTime stamped no earlier than the `write` action, an update with the resourceVersion of our last
// write (on a 409, re-read: `lease_lost` if the Lease no longer names us,
// else a failure; never a blind retry); observations from one
// watch-backed cache (monotonic), `fresh` only for the list `list_leases`
// asked for; `drained` once no reconcile of a dropped range runs; identities
// unique per process (make_leader_identity with a fresh uuid).
//
// Thread safety: a value used by one driver.
#pragma once

#include <kcoro/core/time.hpp>
#include <kcoro/runtime/shard_ring.hpp>

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kcoro::runtime {

inline constexpr std::string_view shard_state_annotation = "kcoro.io/shard-state";

struct shard_membership_config {
    std::string ring;
    std::string identity;  // unique per process
    std::chrono::nanoseconds lease_duration = std::chrono::seconds(15);
    std::chrono::nanoseconds renew_deadline = std::chrono::seconds(10);
    std::chrono::nanoseconds retry_period = std::chrono::seconds(2);
    int virtual_nodes = shard_ring::default_virtual_nodes;
    /// How long after our Lease is first written the list that admits us is
    /// asked (the manager: one retry period). Zero: at once. Only a cost
    /// saving; safety never depends on it.
    std::chrono::nanoseconds join_settle = std::chrono::seconds(2);
};

/// What a replica announces in its shard Lease.
struct shard_announcement {
    std::uint64_t generation = 0;               // of `claimed`; grows whenever it changes
    std::vector<std::string> view;              // the members it computes the ring of (informative)
    hash_ranges claimed;                        // wanted, active or draining
    std::map<std::string, std::uint64_t> acks;  // member -> generation of its claim we keep clear of
    friend bool operator==(const shard_announcement&, const shard_announcement&) = default;
};

/// The annotation's text: {"gen":N,"view":[...],"claimed":[["0x..","0x.."],...],"acks":{...}},
/// ranges as KEP-5866 half-open bounds.
std::string to_annotation(const shard_announcement& a);
std::optional<shard_announcement> parse_announcement(std::string_view text);

/// One shard Lease as observed.
struct shard_lease {
    std::string holder;  // spec.holderIdentity; "" once released or reaped
    std::int64_t lease_duration_seconds = 0;
    std::string renew_time;  // as read
    std::string resource_version;
    std::optional<shard_announcement> announcement;  // nullopt: absent or unreadable
    friend bool operator==(const shard_lease&, const shard_lease&) = default;
};

/// Reads a coordination.k8s.io/v1 Lease object.
shard_lease shard_lease_of(const boost::json::object& lease);

namespace sm {
// --- inputs ---------------------------------------------------------------
struct start { steady_time now; };
struct tick { steady_time now; };
/// The ring's Leases as the cache holds them now (every one, ours included).
/// `fresh`: the answer to the consistent list `list_leases` asked for.
struct leases_observed { steady_time now; std::vector<shard_lease> leases; bool fresh = false; };
/// Our Lease write (the last `write`) succeeded / failed.
struct lease_written { steady_time now; };
struct lease_write_failed { steady_time now; };
/// Our Lease no longer names us (a write met a Lease released or reaped by
/// another member): this identity is out of the ring for good.
struct lease_lost { steady_time now; };
/// No reconcile of these dropped ranges runs any more.
struct drained { steady_time now; hash_ranges ranges; };
/// A `reap` of this holder's Lease succeeded / failed (409: it renewed).
struct reaped { steady_time now; std::string holder; };
struct reap_failed { steady_time now; std::string holder; };
/// Leave the ring cleanly: drop everything, drain, release the Lease.
struct shutdown { steady_time now; };
} // namespace sm

using sm_input = std::variant<sm::start, sm::tick, sm::leases_observed, sm::lease_written, sm::lease_write_failed,
                              sm::lease_lost, sm::drained, sm::reaped, sm::reap_failed, sm::shutdown>;

/// A Lease to give up: holder "" by an update carrying this resourceVersion.
struct shard_reap {
    std::string holder;
    std::string resource_version;
    friend bool operator==(const shard_reap&, const shard_reap&) = default;
};

/// What one step asks of the driver; several may be set at once.
struct shard_actions {
    /// Stop these ranges now: drop their keys from the queue and cache, then
    /// feed `drained` once none of their reconciles runs.
    hash_ranges drop;
    /// Write our Lease: renewTime now, this announcement; `release`: with
    /// holder "" (the clean leave's last write).
    std::optional<shard_announcement> write;
    bool release = false;
    /// Cancel the write at this time (then feed `lease_write_failed`): an
    /// answer later than renew_deadline after its start renews nothing.
    steady_time write_deadline{};
    /// Reap these expired Leases of others.
    std::vector<shard_reap> reap;
    /// Do a consistent LIST of the ring's Leases and feed it with fresh = true.
    bool list_leases = false;
    /// active() changed in this step (informers and filters follow it).
    bool active_changed = false;
    /// Feed `tick` at this time.
    std::optional<steady_time> wake_at;
    /// Terminal: we lost our Lease, or left the ring. Nothing may run.
    bool stopped = false;
    std::string reason;
};

std::ostream& operator<<(std::ostream& os, const shard_actions& a);

class shard_membership_fsm {
public:
    enum class state { idle, joining, running, leaving, stopped };

    explicit shard_membership_fsm(shard_membership_config cfg);

    shard_actions step(const sm_input& in);

    state current() const noexcept { return state_; }
    /// Ranges we may start reconciles of (if valid at `now`).
    const hash_ranges& active() const noexcept { return active_; }
    /// Dropped ranges whose reconciles may still run.
    const hash_ranges& draining() const noexcept { return draining_; }
    /// The key with this hash may be reconciled now.
    bool may_reconcile(std::uint64_t hash, steady_time now) const noexcept {
        return now < valid_until_ && contains(active_, hash);
    }
    /// Our Lease counts as ours before this time (see the header comment).
    steady_time valid_until() const noexcept { return valid_until_; }
    /// The members of the ring we compute our share from (ours included).
    const std::vector<std::string>& view() const noexcept { return view_; }
    const shard_announcement& announced() const noexcept { return announced_; }
    /// The generation of our current claim.
    std::uint64_t generation() const noexcept { return gen_; }
    const shard_membership_config& config() const noexcept { return cfg_; }

private:
    struct peer {
        shard_lease lease;
        steady_time changed_at{};  // when we saw its record change
    };

    void observe(const sm::leases_observed& o, shard_actions& out);
    void evaluate(steady_time now, shard_actions& out);
    void stop(std::string reason, shard_actions& out);
    bool expired(const peer& p, steady_time now) const noexcept;
    shard_announcement current_announcement() const;

    shard_membership_config cfg_;
    state state_ = state::idle;
    std::map<std::string, peer, std::less<>> peers_;  // live or expired, not gone
    std::set<std::string, std::less<>> gone_;         // released, reaped or deleted: never live again
    std::set<std::string, std::less<>> reaping_;      // a reap in flight
    std::vector<std::string> view_;
    hash_ranges share_;  // ours in the ring of view_
    hash_ranges active_, draining_, claimed_;
    std::uint64_t gen_ = 1;
    std::map<std::string, std::uint64_t> acks_;
    shard_announcement announced_;            // last written successfully
    std::optional<shard_announcement> pending_;  // in flight
    bool pending_release_ = false;
    bool backoff_ = false;  // the last write failed
    bool written_once_ = false;
    bool list_asked_ = false;
    bool have_fresh_ = false;
    steady_time settle_at_{};  // the admitting list is asked from here on
    steady_time write_started_{};
    steady_time next_write_at_{};
    steady_time valid_until_{};
};

} // namespace kcoro::runtime
