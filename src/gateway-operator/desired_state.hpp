// What a GatewayInstance's children should look like, and the patch that
// repairs a child that drifted. Pure: the reconciler fetches, this decides.
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

enum class ownership {
    ours,     // controller owner reference to this instance's uid
    foreign,  // controlled by something else
    unowned,  // no controller owner reference
};
ownership ownership_of(const boost::json::object& child, std::string_view instance_uid);

/// A strategic merge patch that brings `current` back to `desired` on the
/// fields the operator owns, or nullopt when nothing drifted (no write).
std::optional<boost::json::object> deployment_repair(const boost::json::object& current,
                                                     const boost::json::object& desired);
std::optional<boost::json::object> service_repair(const boost::json::object& current,
                                                  const boost::json::object& desired);
/// A JSON merge patch for the registration ConfigMap, or nullopt.
std::optional<boost::json::object> registration_repair(const boost::json::object& current,
                                                       const boost::json::object& desired);

/// True when the registration ConfigMap belongs to the instance with this uid.
bool registration_belongs_to(const boost::json::object& cm, std::string_view instance_uid);

} // namespace gateway
