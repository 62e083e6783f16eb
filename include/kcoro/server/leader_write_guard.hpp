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
// Pure: no I/O; the manager installs it (client::set_write_guard).
#pragma once

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

} // namespace kcoro::server
