// What a GatewayInstance's children should look like (the Deployment's and
// the Service's applied configurations: runtime::apply_owned compares and
// repairs them), and the patch that repairs a drifted registration. Pure.
//
// Every child is recognisable on the next pass from current facts alone:
// the Deployment and the Service by name + controller owner uid, the
// registration by its uid-derived name + uid label.
#pragma once

#include "gateway_instance.hpp"

#include <kcoro/core/object.hpp>

#include <boost/json/object.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

/// The instance a registration names in its data (`namespace`, `name`), for
/// a ConfigMap that carries the uid label; nullopt otherwise.
std::optional<kcoro::object_key> registration_instance(const boost::json::object& cm);

/// The registrations among `claims` (cached registrations whose data names
/// one instance key) that are orphans: their uid is not `live_uid` (the uid
/// of the instance now at that key, read from the API; empty when there is
/// none) and no cached instance has it. Instance names never change and uids
/// are never reused, so such an instance is gone for good: a registration
/// it left (a create that committed after its client gave up, once the
/// cleanup had run) is deleted. Pure.
std::vector<kcoro::object_ptr> orphaned_registrations(const std::vector<kcoro::object_ptr>& claims,
                                                      std::string_view live_uid,
                                                      const std::function<bool(std::string_view)>& instance_cached);

} // namespace gateway
