// The GatewayInstance resource (gateway.kcoro.dev/v1alpha1) as a typed
// struct: the one place its fields, defaults, bounds and CRD facts are
// written. deploy/crd/gateway.kcoro.dev_gatewayinstances.yaml is generated
// from it (gateway-operator-crdgen; a unit test fails when the committed
// file is stale). What the schema cannot say is validate() below.
//
// Pure: no I/O. Thread safety: values.
#pragma once

#include <kcoro/typed/condition.hpp>
#include <kcoro/typed/declare.hpp>
#include <kcoro/typed/field_error.hpp>
#include <kcoro/typed/k8s/pod.hpp>
#include <kcoro/typed/object_meta.hpp>

namespace gateway::v1alpha1 {

enum class service_type { cluster_ip, node_port, load_balancer };
BOOST_DESCRIBE_ENUM(service_type, cluster_ip, node_port, load_balancer)
KCORO_ENUM_NAMES(service_type, {"cluster_ip", "ClusterIP"})

/// Kubernetes' rule for environment variable names (validation.IsEnvVarName):
/// C identifier characters plus '-' and '.', not starting with a digit.
inline constexpr std::string_view env_name_pattern = "^[-._a-zA-Z][-._a-zA-Z0-9]*$";
/// An image reference without whitespace or control characters that does not
/// start with a separator; the registry resolves the rest.
inline constexpr std::string_view image_pattern = "^[^\\x00-\\x20\\x7f:@/][^\\x00-\\x20\\x7f]*$";

struct env_var {
    std::string name;
    std::string value;
    kcoro::typed::unknown_fields unknown;
    friend bool operator==(const env_var&, const env_var&) = default;
};
BOOST_DESCRIBE_STRUCT(env_var, (), (name, value))
KCORO_FIELDS(env_var, field("name").required().min_length(1).max_length(253).pattern(env_name_pattern),
             field("value"))

struct gateway_instance_spec {
    std::string image;
    std::int32_t replicas = 1;
    std::int32_t port = 8080;
    service_type type = service_type::cluster_ip;
    kcoro::k8s::resource_requirements resources; // passed through to the container
    std::vector<env_var> env;
    kcoro::typed::unknown_fields unknown;
    friend bool operator==(const gateway_instance_spec&, const gateway_instance_spec&) = default;
};
BOOST_DESCRIBE_STRUCT(gateway_instance_spec, (), (image, replicas, port, type, resources, env))
KCORO_FIELDS(gateway_instance_spec,
             field("image")
                 .required()
                 .min_length(1)
                 .max_length(512)
                 .pattern(image_pattern)
                 .description("Container image of the gateway."),
             field("replicas").defaulted().minimum(0).maximum(50).description("Gateway pods to run."),
             field("port").defaulted().minimum(1).maximum(65535).description("Port the gateway listens on."),
             field("type").name("serviceType").defaulted().description("Type of the gateway's Service."),
             field("resources").description("Container resources (requests, limits), passed through."),
             field("env").max_items(64).description("Environment variables passed to the container."))

struct gateway_instance_status {
    std::int64_t observed_generation = 0;
    std::int32_t ready_replicas = 0;
    std::string endpoint;
    std::string registration;
    std::vector<kcoro::typed::condition> conditions;
    kcoro::typed::unknown_fields unknown;
    friend bool operator==(const gateway_instance_status&, const gateway_instance_status&) = default;
};
BOOST_DESCRIBE_STRUCT(gateway_instance_status, (),
                      (observed_generation, ready_replicas, endpoint, registration, conditions))
KCORO_FIELDS(
    gateway_instance_status,
    field("observed_generation").omit_empty().description("The generation the status describes."),
    field("ready_replicas").omit_empty().description("Ready gateway pods."),
    field("endpoint").description("Where the gateway is reachable: <service>.<namespace>.svc:<port>."),
    field("registration").description("Name of the registration ConfigMap."),
    field("conditions").description("Ready, Registered, Progressing, Degraded."))

struct gateway_instance {
    kcoro::typed::object_meta metadata;
    gateway_instance_spec spec;
    gateway_instance_status status;
    kcoro::typed::unknown_fields unknown;
    friend bool operator==(const gateway_instance&, const gateway_instance&) = default;
};
BOOST_DESCRIBE_STRUCT(gateway_instance, (), (metadata, spec, status))
KCORO_FIELDS(gateway_instance, field("spec").required())
KCORO_RESOURCE(gateway_instance,
               resource("gateway.kcoro.dev", "v1alpha1", "GatewayInstance", "gatewayinstances")
                   .description("A gateway instance managed by gateway-operator.")
                   .short_names("gi")
                   .categories("kcoro")
                   .status_subresource()
                   .column("Ready", "string", ".status.conditions[?(@.type==\"Ready\")].status")
                   .column("Ready-Replicas", "integer", ".status.readyReplicas")
                   .column("Replicas", "integer", ".spec.replicas")
                   .column("Endpoint", "string", ".status.endpoint")
                   .column("Age", "date", ".metadata.creationTimestamp"))

/// The rules a schema cannot state: env names unique within the list.
kcoro::typed::field_errors validate(const gateway_instance& gi);

} // namespace gateway::v1alpha1
