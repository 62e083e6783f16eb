// core/v1 Service, typed: the spec an operator sets and the load balancer
// status. Open enums (type, protocol, policies) are strings.
#pragma once

#include <kcoro/typed/condition.hpp>
#include <kcoro/typed/declare.hpp>
#include <kcoro/typed/object_meta.hpp>

namespace kcoro::k8s {

struct service_port {
    std::string name;
    std::string protocol;
    std::string app_protocol;
    std::int32_t port = 0;
    typed::int_or_string target_port;
    std::optional<std::int32_t> node_port;
    typed::unknown_fields unknown;
    friend bool operator==(const service_port&, const service_port&) = default;
};
BOOST_DESCRIBE_STRUCT(service_port, (), (name, protocol, app_protocol, port, target_port, node_port))
KCORO_FIELDS(service_port, field("port").required())

struct service_spec {
    std::vector<service_port> ports;
    std::map<std::string, std::string> selector;
    std::string cluster_ip;
    std::vector<std::string> cluster_ips;
    std::string type; // ClusterIP, NodePort, LoadBalancer, ExternalName
    std::vector<std::string> external_ips;
    std::string session_affinity;
    std::string load_balancer_ip;
    std::vector<std::string> load_balancer_source_ranges;
    std::string external_name;
    std::string external_traffic_policy;
    std::optional<std::int32_t> health_check_node_port;
    std::optional<bool> publish_not_ready_addresses;
    boost::json::object session_affinity_config;
    std::vector<std::string> ip_families;
    std::string ip_family_policy;
    std::optional<bool> allocate_load_balancer_node_ports;
    std::optional<std::string> load_balancer_class;
    std::string internal_traffic_policy;
    typed::unknown_fields unknown;
    friend bool operator==(const service_spec&, const service_spec&) = default;
};
BOOST_DESCRIBE_STRUCT(service_spec, (),
                      (ports, selector, cluster_ip, cluster_ips, type, external_ips, session_affinity,
                       load_balancer_ip, load_balancer_source_ranges, external_name, external_traffic_policy,
                       health_check_node_port, publish_not_ready_addresses, session_affinity_config,
                       ip_families, ip_family_policy, allocate_load_balancer_node_ports, load_balancer_class,
                       internal_traffic_policy))
KCORO_FIELDS(service_spec, field("cluster_ip").name("clusterIP"), field("cluster_ips").name("clusterIPs"),
             field("external_ips").name("externalIPs"), field("load_balancer_ip").name("loadBalancerIP"))

struct load_balancer_ingress {
    std::string ip;
    std::string hostname;
    std::string ip_mode;
    typed::unknown_fields unknown;
    friend bool operator==(const load_balancer_ingress&, const load_balancer_ingress&) = default;
};
BOOST_DESCRIBE_STRUCT(load_balancer_ingress, (), (ip, hostname, ip_mode))

struct load_balancer_status {
    std::vector<load_balancer_ingress> ingress;
    typed::unknown_fields unknown;
    friend bool operator==(const load_balancer_status&, const load_balancer_status&) = default;
};
BOOST_DESCRIBE_STRUCT(load_balancer_status, (), (ingress))

struct service_status {
    load_balancer_status load_balancer;
    std::vector<typed::condition> conditions;
    typed::unknown_fields unknown;
    friend bool operator==(const service_status&, const service_status&) = default;
};
BOOST_DESCRIBE_STRUCT(service_status, (), (load_balancer, conditions))

struct service {
    typed::object_meta metadata;
    service_spec spec;
    service_status status;
    typed::unknown_fields unknown;
    friend bool operator==(const service&, const service&) = default;
};
BOOST_DESCRIBE_STRUCT(service, (), (metadata, spec, status))
KCORO_RESOURCE(service, resource("", "v1", "Service", "services"))

} // namespace kcoro::k8s
