// apps/v1 Deployment, typed: what an operator sets (replicas, selector, the
// pod template, the strategy) and the rollout status it reads.
#pragma once

#include <kcoro/typed/declare.hpp>
#include <kcoro/typed/k8s/label_selector.hpp>
#include <kcoro/typed/k8s/pod.hpp>
#include <kcoro/typed/object_meta.hpp>

namespace kcoro::k8s {

struct rolling_update_deployment {
    typed::int_or_string max_unavailable;
    typed::int_or_string max_surge;
    typed::unknown_fields unknown;
    friend bool operator==(const rolling_update_deployment&, const rolling_update_deployment&) = default;
};
BOOST_DESCRIBE_STRUCT(rolling_update_deployment, (), (max_unavailable, max_surge))

struct deployment_strategy {
    std::string type; // RollingUpdate, Recreate
    std::optional<rolling_update_deployment> rolling_update;
    typed::unknown_fields unknown;
    friend bool operator==(const deployment_strategy&, const deployment_strategy&) = default;
};
BOOST_DESCRIBE_STRUCT(deployment_strategy, (), (type, rolling_update))

struct deployment_spec {
    std::optional<std::int32_t> replicas; // the server defaults it to 1
    label_selector selector;
    pod_template_spec template_;
    deployment_strategy strategy;
    std::optional<std::int32_t> min_ready_seconds;
    std::optional<std::int32_t> revision_history_limit;
    std::optional<bool> paused;
    std::optional<std::int32_t> progress_deadline_seconds;
    typed::unknown_fields unknown;
    friend bool operator==(const deployment_spec&, const deployment_spec&) = default;
};
BOOST_DESCRIBE_STRUCT(deployment_spec, (),
                      (replicas, selector, template_, strategy, min_ready_seconds, revision_history_limit,
                       paused, progress_deadline_seconds))
KCORO_FIELDS(deployment_spec, field("selector").required(), field("template_").required())

struct deployment_condition {
    std::string type;
    std::string status;
    typed::timestamp last_update_time;
    typed::timestamp last_transition_time;
    std::string reason;
    std::string message;
    typed::unknown_fields unknown;
    friend bool operator==(const deployment_condition&, const deployment_condition&) = default;
};
BOOST_DESCRIBE_STRUCT(deployment_condition, (),
                      (type, status, last_update_time, last_transition_time, reason, message))

struct deployment_status {
    std::int64_t observed_generation = 0;
    std::int32_t replicas = 0;
    std::int32_t updated_replicas = 0;
    std::int32_t ready_replicas = 0;
    std::int32_t available_replicas = 0;
    std::int32_t unavailable_replicas = 0;
    std::vector<deployment_condition> conditions;
    std::optional<std::int32_t> collision_count;
    typed::unknown_fields unknown;
    friend bool operator==(const deployment_status&, const deployment_status&) = default;
};
BOOST_DESCRIBE_STRUCT(deployment_status, (),
                      (observed_generation, replicas, updated_replicas, ready_replicas, available_replicas,
                       unavailable_replicas, conditions, collision_count))
// The API writes these with omitempty.
KCORO_FIELDS(deployment_status, field("observed_generation").omit_empty(), field("replicas").omit_empty(),
             field("updated_replicas").omit_empty(), field("ready_replicas").omit_empty(),
             field("available_replicas").omit_empty(), field("unavailable_replicas").omit_empty())

struct deployment {
    typed::object_meta metadata;
    deployment_spec spec;
    deployment_status status;
    typed::unknown_fields unknown;
    friend bool operator==(const deployment&, const deployment&) = default;
};
BOOST_DESCRIBE_STRUCT(deployment, (), (metadata, spec, status))
KCORO_RESOURCE(deployment, resource("apps", "v1", "Deployment", "deployments"))

} // namespace kcoro::k8s
