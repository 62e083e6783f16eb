// core/v1 pod template: the parts of PodSpec and Container an operator
// sets (containers, env, ports, resources, probes, mounts). Everything else
// (volume sources, affinity, security contexts kept raw, fields not
// declared) survives a round trip through `unknown` or raw JSON members.
// Open enums (restartPolicy, protocol, imagePullPolicy) are strings: a value
// a newer server adds must not fail decoding.
#pragma once

#include <kcoro/typed/declare.hpp>
#include <kcoro/typed/object_meta.hpp>

namespace kcoro::k8s {

struct env_var {
    std::string name;
    std::string value;
    boost::json::object value_from; // secretKeyRef, configMapKeyRef, fieldRef, ...
    typed::unknown_fields unknown;
    friend bool operator==(const env_var&, const env_var&) = default;
};
BOOST_DESCRIBE_STRUCT(env_var, (), (name, value, value_from))
KCORO_FIELDS(env_var, field("name").required())

struct container_port {
    std::string name;
    std::optional<std::int32_t> host_port;
    std::int32_t container_port_ = 0; // a member cannot share its struct's name
    std::string protocol;             // TCP (the server's default), UDP, SCTP
    std::string host_ip;
    typed::unknown_fields unknown;
    friend bool operator==(const container_port&, const container_port&) = default;
};
BOOST_DESCRIBE_STRUCT(container_port, (), (name, host_port, container_port_, protocol, host_ip))
KCORO_FIELDS(container_port, field("host_ip").name("hostIP"))

/// Container (and GatewayInstance) resources: quantities by resource name.
struct resource_requirements {
    std::map<std::string, typed::quantity> limits;
    std::map<std::string, typed::quantity> requests;
    typed::unknown_fields unknown;
    friend bool operator==(const resource_requirements&, const resource_requirements&) = default;
};
BOOST_DESCRIBE_STRUCT(resource_requirements, (), (limits, requests))

struct volume_mount {
    std::string name;
    std::optional<bool> read_only;
    std::string mount_path;
    std::string sub_path;
    typed::unknown_fields unknown;
    friend bool operator==(const volume_mount&, const volume_mount&) = default;
};
BOOST_DESCRIBE_STRUCT(volume_mount, (), (name, read_only, mount_path, sub_path))
KCORO_FIELDS(volume_mount, field("name").required(), field("mount_path").required())

struct http_get_action {
    std::string path;
    typed::int_or_string port;
    std::string host;
    std::string scheme;
    std::vector<boost::json::object> http_headers;
    typed::unknown_fields unknown;
    friend bool operator==(const http_get_action&, const http_get_action&) = default;
};
BOOST_DESCRIBE_STRUCT(http_get_action, (), (path, port, host, scheme, http_headers))

struct tcp_socket_action {
    typed::int_or_string port;
    std::string host;
    typed::unknown_fields unknown;
    friend bool operator==(const tcp_socket_action&, const tcp_socket_action&) = default;
};
BOOST_DESCRIBE_STRUCT(tcp_socket_action, (), (port, host))

struct exec_action {
    std::vector<std::string> command;
    typed::unknown_fields unknown;
    friend bool operator==(const exec_action&, const exec_action&) = default;
};
BOOST_DESCRIBE_STRUCT(exec_action, (), (command))

struct grpc_action {
    std::int32_t port = 0;
    std::optional<std::string> service;
    typed::unknown_fields unknown;
    friend bool operator==(const grpc_action&, const grpc_action&) = default;
};
BOOST_DESCRIBE_STRUCT(grpc_action, (), (port, service))

struct probe {
    std::optional<exec_action> exec;
    std::optional<http_get_action> http_get;
    std::optional<tcp_socket_action> tcp_socket;
    std::optional<grpc_action> grpc;
    std::optional<std::int32_t> initial_delay_seconds;
    std::optional<std::int32_t> timeout_seconds;
    std::optional<std::int32_t> period_seconds;
    std::optional<std::int32_t> success_threshold;
    std::optional<std::int32_t> failure_threshold;
    std::optional<std::int64_t> termination_grace_period_seconds;
    typed::unknown_fields unknown;
    friend bool operator==(const probe&, const probe&) = default;
};
BOOST_DESCRIBE_STRUCT(probe, (),
                      (exec, http_get, tcp_socket, grpc, initial_delay_seconds, timeout_seconds,
                       period_seconds, success_threshold, failure_threshold,
                       termination_grace_period_seconds))

struct container {
    std::string name;
    std::string image;
    std::vector<std::string> command;
    std::vector<std::string> args;
    std::string working_dir;
    std::vector<container_port> ports;
    std::vector<boost::json::object> env_from;
    std::vector<env_var> env;
    resource_requirements resources;
    std::vector<volume_mount> volume_mounts;
    std::optional<probe> liveness_probe;
    std::optional<probe> readiness_probe;
    std::optional<probe> startup_probe;
    boost::json::object lifecycle;
    std::string termination_message_path;
    std::string termination_message_policy;
    std::string image_pull_policy;
    boost::json::object security_context;
    typed::unknown_fields unknown;
    friend bool operator==(const container&, const container&) = default;
};
BOOST_DESCRIBE_STRUCT(container, (),
                      (name, image, command, args, working_dir, ports, env_from, env, resources,
                       volume_mounts, liveness_probe, readiness_probe, startup_probe, lifecycle,
                       termination_message_path, termination_message_policy, image_pull_policy,
                       security_context))
KCORO_FIELDS(container, field("name").required())

/// A volume: its name typed, its source (configMap, secret, emptyDir, ...) kept as it is.
struct volume {
    std::string name;
    typed::unknown_fields unknown;
    friend bool operator==(const volume&, const volume&) = default;
};
BOOST_DESCRIBE_STRUCT(volume, (), (name))
KCORO_FIELDS(volume, field("name").required())

struct local_object_reference {
    std::string name;
    typed::unknown_fields unknown;
    friend bool operator==(const local_object_reference&, const local_object_reference&) = default;
};
BOOST_DESCRIBE_STRUCT(local_object_reference, (), (name))

struct pod_spec {
    std::vector<volume> volumes;
    std::vector<container> init_containers;
    std::vector<container> containers;
    std::string restart_policy;
    std::optional<std::int64_t> termination_grace_period_seconds;
    std::optional<std::int64_t> active_deadline_seconds;
    std::string dns_policy;
    std::map<std::string, std::string> node_selector;
    std::string service_account_name;
    std::optional<bool> automount_service_account_token;
    std::string node_name;
    std::optional<bool> host_network;
    boost::json::object security_context;
    std::vector<local_object_reference> image_pull_secrets;
    std::string hostname;
    std::string subdomain;
    boost::json::object affinity;
    std::string scheduler_name;
    std::vector<boost::json::object> tolerations;
    std::string priority_class_name;
    typed::unknown_fields unknown;
    friend bool operator==(const pod_spec&, const pod_spec&) = default;
};
BOOST_DESCRIBE_STRUCT(pod_spec, (),
                      (volumes, init_containers, containers, restart_policy, termination_grace_period_seconds,
                       active_deadline_seconds, dns_policy, node_selector, service_account_name,
                       automount_service_account_token, node_name, host_network, security_context,
                       image_pull_secrets, hostname, subdomain, affinity, scheduler_name, tolerations,
                       priority_class_name))
KCORO_FIELDS(pod_spec, field("containers").required())

struct pod_template_spec {
    typed::object_meta metadata;
    pod_spec spec;
    typed::unknown_fields unknown;
    friend bool operator==(const pod_template_spec&, const pod_template_spec&) = default;
};
BOOST_DESCRIBE_STRUCT(pod_template_spec, (), (metadata, spec))

} // namespace kcoro::k8s
