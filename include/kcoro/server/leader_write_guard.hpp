// The leader write guard: with leader election on, every write the manager's
// client sends (POST, PUT, PATCH, DELETE) is refused unsent, as
// kcoro_errc::not_leader, once the local lease validity has passed
// (leader_election_fsm::may_write: the last successful renew round's start
// plus renewDeadline), and counted in kcoro_leader_write_refused_total.
//
// Why: a leader that was paused (SIGSTOP, a long stall, CPU starvation)
// resumes inside the reconcile it was in and would finish it, writing after
// another replica already leads; its elector only notices at its next
// timer. controller-runtime has this window. The check runs before each
// attempt, retries included.
//
// Not guarded (they are not the controllers' state): the manager's own
// Lease (the elector renews and releases it), Events (the recorder is not
// leader-gated, as in controller-runtime), and TokenReview /
// SubjectAccessReview (the metrics endpoint's authentication).
//
// Which Lease: a write from a controller's reconcile carries the
// controller's origin (client/write_origin.hpp). A sharded controller's
// writes need this replica's shard Lease valid, a leader-gated one's the
// leader Lease; with both Leases in one manager, the other Lease's validity
// never lets a write through. A write of unknown origin (not sent from a
// controller's workers) passes while either Lease is valid.
//
// Pure: no I/O; the manager installs it (client::set_write_guard).
#pragma once

#include <kcoro/client/write_origin.hpp>
#include <kcoro/core/api_request.hpp>

#include <string_view>

namespace kcoro::server {

/// True for a request the guard lets through whatever the lease says (see above).
bool leader_write_exempt(const api_request& req, std::string_view lease_namespace,
                         std::string_view lease_name) noexcept;

/// With --sharding-ring the guard also lets through, whatever the shard
/// Lease's validity, the writes of the ring's member: the create of its
/// Lease (POST to the namespace's leases) and updates of the ring's Leases
/// "<ring>-..." (its renewals and the reaps of expired members, which are
/// compare-and-swap on a resourceVersion). docs/sharding.md.
bool shard_write_exempt(const api_request& req, std::string_view lease_namespace, std::string_view ring) noexcept;

/// What the guard knows of the manager's Leases when a write is sent.
struct write_guard_state {
    bool leader_elect = false;  // an elector runs (--leader-elect)
    bool leader_valid = false;  // its validity has not passed (leader_election_fsm::may_write)
    bool sharding = false;      // a ring member runs (--sharding-ring)
    bool shard_valid = false;   // the shard Lease's validity has not passed, the member still runs
    std::string_view lease_namespace;
    std::string_view lease_name;  // the leader Lease
    std::string_view ring;
};

/// Whether the guard sends `req`, sent by `origin` (null: unknown), under
/// the rules above.
bool write_allowed(const api_request& req, const client::write_origin* origin, const write_guard_state& s) noexcept;

} // namespace kcoro::server
