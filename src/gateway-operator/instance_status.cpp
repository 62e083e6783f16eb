#include "instance_status.hpp"

#include <kcoro/core/json_merge_patch.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/runtime/conditions.hpp>

namespace gateway {
namespace json = boost::json;

namespace {

std::int64_t int_at(const json::object& obj, std::initializer_list<std::string_view> path) {
    const auto* v = kcoro::find_path(obj, path);
    if (!v) return 0;
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64());
    return 0;
}

} // namespace

std::int64_t ready_replicas_of(const json::object& deployment) {
    return int_at(deployment, {"status", "readyReplicas"});
}

bool deployment_available(const json::object& d) {
    auto generation = kcoro::generation_of(d);
    auto observed = int_at(d, {"status", "observedGeneration"});
    if (observed < generation) {
        return false;
    }
    const auto* rv = kcoro::find_path(d, {"spec", "replicas"});
    std::int64_t desired = rv ? int_at(d, {"spec", "replicas"}) : 1;
    return int_at(d, {"status", "updatedReplicas"}) >= desired &&
           int_at(d, {"status", "availableReplicas"}) >= desired && int_at(d, {"status", "replicas"}) <= desired;
}

status_decision compute_status(const json::object& instance, const observed_facts& f, kcoro::wall_time now) {
    status_decision out;
    json::object current_status;
    if (const auto* s = instance.if_contains("status"); s && s->is_object()) {
        current_status = s->get_object();
    }
    json::object status = current_status;
    auto gen = f.generation;

    status["observedGeneration"] = gen;
    if (f.deployment) {
        status["readyReplicas"] = ready_replicas_of(*f.deployment);
    } else {
        status["readyReplicas"] = 0;
    }
    if (!f.endpoint.empty()) {
        status["endpoint"] = f.endpoint;
    }
    if (!f.registration_name.empty() && f.registered) {
        status["registration"] = f.registration_name;
    }

    bool available = f.deployment && deployment_available(*f.deployment);
    out.waiting = f.deployment && !available;
    out.ready = available && f.service_ready && f.registered && !f.degraded;

    using kcoro::runtime::condition;
    auto& conds = status["conditions"];
    if (!conds.is_array()) {
        conds = json::array{};
    }
    auto& conditions = conds.get_array();
    auto set = [&](std::string_view type, bool value, std::string_view why, std::string message) {
        kcoro::runtime::set_condition(conditions,
                                      condition{std::string(type), value ? "True" : "False", std::string(why),
                                                std::move(message), gen},
                                      now);
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
            "Deployment has " + std::to_string(ready_replicas_of(*f.deployment)) + " ready replicas of " +
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

    out.changed = !kcoro::json_equal(json::value(status), json::value(current_status));
    out.status = std::move(status);
    return out;
}

} // namespace gateway
