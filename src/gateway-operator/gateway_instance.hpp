// The GatewayInstance resource (gateway.kcoro.dev/v1alpha1), typed.
//
// Parsing is pure and total: every object decodes into either a spec or a
// list of field errors, which the reconciler reports as InvalidSpec (a
// terminal error, not retried until the spec changes). The CRD's schema
// catches most mistakes at admission; these checks cover what a schema
// cannot (or a cluster where the CRD was loaded without defaults).
#pragma once

#include <kcoro/core/resource.hpp>

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gateway {

inline constexpr std::string_view group = "gateway.kcoro.dev";
inline constexpr std::string_view version = "v1alpha1";
inline constexpr std::string_view kind = "GatewayInstance";
inline constexpr std::string_view finalizer = "gateway.kcoro.dev/registration";
/// Label on the registration ConfigMap holding the instance's uid.
inline constexpr std::string_view uid_label = "gateway.kcoro.dev/instance-uid";

kcoro::group_version_resource gateway_instances();

enum class service_type { cluster_ip, node_port, load_balancer };
std::string_view to_string(service_type t) noexcept;

struct env_var {
    std::string name;
    std::string value;
    friend bool operator==(const env_var&, const env_var&) = default;
};

struct gateway_spec {
    std::string image;
    std::int32_t replicas = 1;
    std::int32_t port = 8080;
    service_type type = service_type::cluster_ip;
    boost::json::object resources;  // passed through to the container
    std::vector<env_var> env;
};

struct field_error {
    std::string field;    // "spec.env[2].name"
    std::string message;
    friend bool operator==(const field_error&, const field_error&) = default;
};

/// Decodes and validates `obj.spec`; applies the schema's defaults when absent.
std::variant<gateway_spec, std::vector<field_error>> parse_spec(const boost::json::object& obj);

/// "spec.replicas: must be between 0 and 50; spec.image: required"
std::string describe(const std::vector<field_error>& errors);

} // namespace gateway
