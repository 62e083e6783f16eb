// What a GatewayInstance's children should look like (the Deployment's and
// the Service's applied configurations: runtime::apply_owned compares and
// repairs them), and the patch that repairs a drifted registration. Pure.
//
// Every child is recognisable on the next pass from current facts alone:
// the Deployment and the Service by name + controller owner uid, the
// registration by its uid-derived name + uid label.
#pragma once

#include "gateway_instance.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace gateway {

/// The registration ConfigMap's name: `gatewayinstance-<uid>`.
std::string registration_name(std::string_view uid);
/// `<service>.<namespace>.svc:<port>`
std::string endpoint_of(std::string_view name, std::string_view ns, std::int32_t port);

boost::json::object desired_deployment(const boost::json::object& instance, const gateway_spec& spec);
boost::json::object desired_service(const boost::json::object& instance, const gateway_spec& spec);
boost::json::object desired_registration(const boost::json::object& instance, const gateway_spec& spec,
                                         std::string_view registry_namespace);

/// A JSON merge patch for the registration ConfigMap, or nullopt.
std::optional<boost::json::object> registration_repair(const boost::json::object& current,
                                                       const boost::json::object& desired);

/// True when the registration ConfigMap belongs to the instance with this uid.
bool registration_belongs_to(const boost::json::object& cm, std::string_view instance_uid);

} // namespace gateway
