// The status a reconcile pass writes, computed from what the pass observed.
// Pure: the reconciler gathers facts; this decides the status, and whether
// it differs from what is stored (no write when it does not).
//
// Conditions (metav1.Condition, lastTransitionTime changes only when a
// condition's status changes):
//   Ready       True/Reconciled when the Deployment is available and nothing
//               is degraded; False/WaitingForDeployment or False/<problem>.
//   Registered  True/Reconciled once the registration exists; False/<problem>.
//   Progressing True/WaitingForDeployment while the Deployment rolls out.
//   Degraded    True/NameConflict|Forbidden|InvalidSpec|Error; False/Reconciled.
#pragma once

#include "gateway_instance.hpp"

#include <kcoro/core/time.hpp>
#include <kcoro/typed/k8s/deployment.hpp>

#include <optional>
#include <string>

namespace gateway {

namespace reason {
inline constexpr std::string_view reconciled = "Reconciled";
inline constexpr std::string_view waiting_for_deployment = "WaitingForDeployment";
inline constexpr std::string_view name_conflict = "NameConflict";
inline constexpr std::string_view forbidden = "Forbidden";
inline constexpr std::string_view invalid_spec = "InvalidSpec";
inline constexpr std::string_view error = "Error";
inline constexpr std::string_view pending = "Pending";
} // namespace reason

struct problem {
    std::string reason;   // one of gateway::reason
    std::string message;
};

struct observed_facts {
    std::int64_t generation = 0;
    std::optional<gateway_spec> spec;              // nullopt: invalid spec (see degraded)
    bool registered = false;                       // the registration exists and is ours
    std::string registration_name;                 // set once known
    std::string endpoint;                          // "<svc>.<ns>.svc:<port>"
    std::optional<kcoro::k8s::deployment> deployment;  // ours, as last read or written; nullopt if absent
    bool service_ready = false;                    // ours exists
    std::optional<problem> degraded;               // the first problem of the pass
    std::optional<problem> registration_problem;
};

/// A Deployment is available when its controller has observed the current
/// generation and every desired replica is updated and available.
bool deployment_available(const kcoro::k8s::deployment& deployment);

struct status_decision {
    v1alpha1::gateway_instance_status status;  // the full status to store
    bool changed = false;                      // differs from the stored one: write it
    bool ready = false;                        // Ready=True
    bool waiting = false;                      // the Deployment is rolling out: requeue soon
};

/// The status for an instance whose stored status is `current` (other
/// members, unknown to this operator version, are kept), given the pass's
/// facts; `now` stamps conditions that change status.
status_decision compute_status(const v1alpha1::gateway_instance_status& current, const observed_facts& facts,
                               kcoro::wall_time now);

} // namespace gateway
