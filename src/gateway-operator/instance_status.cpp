#include "instance_status.hpp"

namespace gateway {

namespace k8s = kcoro::k8s;

bool deployment_available(const k8s::deployment& d) {
    if (d.status.observed_generation < d.metadata.generation) {
        return false;
    }
    const std::int32_t desired = d.spec.replicas.value_or(1);  // the server's default
    return d.status.updated_replicas >= desired && d.status.available_replicas >= desired &&
           d.status.replicas <= desired;
}

status_decision compute_status(const v1alpha1::gateway_instance_status& current, const observed_facts& f,
                               kcoro::wall_time now) {
    status_decision out;
    auto status = current;
    const auto gen = f.generation;

    status.observed_generation = gen;
    status.ready_replicas = f.deployment ? f.deployment->status.ready_replicas : 0;
    if (!f.endpoint.empty()) {
        status.endpoint = f.endpoint;
    }
    if (!f.registration_name.empty() && f.registered) {
        status.registration = f.registration_name;
    }

    const bool available = f.deployment && deployment_available(*f.deployment);
    out.waiting = f.deployment && !available;
    out.ready = available && f.service_ready && f.registered && !f.degraded;

    auto set = [&](std::string_view type, bool value, std::string_view why, std::string message) {
        kcoro::typed::condition c;
        c.type = std::string(type);
        c.status = value ? "True" : "False";
        c.reason = std::string(why);
        c.message = std::move(message);
        c.observed_generation = gen;
        kcoro::typed::set_condition(status.conditions, c, now);
    };

    if (f.registered) {
        set("Registered", true, reason::reconciled, "registration " + f.registration_name + " exists");
    } else if (f.registration_problem) {
        set("Registered", false, f.registration_problem->reason, f.registration_problem->message);
    } else {
        set("Registered", false, reason::pending, "registration not created yet");
    }

    if (f.degraded) {
        set("Degraded", true, f.degraded->reason, f.degraded->message);
    } else {
        set("Degraded", false, reason::reconciled, "no problems");
    }

    if (out.waiting) {
        set("Progressing", true, reason::waiting_for_deployment,
            "Deployment has " + std::to_string(f.deployment->status.ready_replicas) + " ready replicas of " +
                std::to_string(f.spec ? f.spec->replicas : 0));
    } else if (!f.deployment) {
        set("Progressing", false, f.degraded ? f.degraded->reason : std::string(reason::pending),
            "the Deployment does not exist yet");
    } else {
        set("Progressing", false, reason::reconciled, "rollout complete");
    }

    if (out.ready) {
        set("Ready", true, reason::reconciled, "gateway is available at " + f.endpoint);
    } else if (f.degraded) {
        set("Ready", false, f.degraded->reason, f.degraded->message);
    } else {
        set("Ready", false, reason::waiting_for_deployment, "waiting for the Deployment to become available");
    }

    out.changed = !(status == current);
    out.status = std::move(status);
    return out;
}

} // namespace gateway
