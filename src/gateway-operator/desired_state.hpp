// What a GatewayInstance's children should look like, as typed objects: the
// Deployment's and the Service's applied configurations (only the fields the
// operator manages: runtime::apply_owned compares and repairs them), the
// registration ConfigMap, and the merge patch that repairs a drifted
// registration. Pure.
//
// Every child is recognisable on the next pass from current facts alone:
// the Deployment and the Service by name + controller owner uid (apply_owned
// adds the owner reference), the registration by its uid-derived name + uid
// label.
#pragma once

#include "gateway_instance.hpp"

#include <kcoro/core/object.hpp>
#include <kcoro/typed/k8s/config_map.hpp>
#include <kcoro/typed/k8s/deployment.hpp>
#include <kcoro/typed/k8s/service.hpp>

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

/// The children of `gi` (its metadata and its spec, as decoded).
kcoro::k8s::deployment desired_deployment(const gateway_instance& gi);
kcoro::k8s::service desired_service(const gateway_instance& gi);
kcoro::k8s::config_map desired_registration(const gateway_instance& gi, std::string_view registry_namespace);

/// The merge patch (the labels and data `desired` sets) that repairs
/// `current`, or nullopt when nothing of ours drifted (other keys and
/// labels are left alone).
std::optional<kcoro::k8s::config_map> registration_repair(const kcoro::k8s::config_map& current,
                                                         const kcoro::k8s::config_map& desired);

/// True when the registration ConfigMap belongs to the instance with this uid.
bool registration_belongs_to(const kcoro::k8s::config_map& cm, std::string_view instance_uid);

/// The instance a registration names in its data (`namespace`, `name`), for
/// a ConfigMap that carries the uid label; nullopt otherwise.
std::optional<kcoro::object_key> registration_instance(const kcoro::k8s::config_map& cm);

/// The registrations among `claims` (cached registrations whose data names
/// one instance key) that are orphans: their uid is not `live_uid` (the uid
/// of the instance now at that key, read from the API; empty when there is
/// none) and no cached instance has it. Instance names never change and uids
/// are never reused, so such an instance is gone for good: a registration
/// it left (a create that committed after its client gave up, once the
/// cleanup had run) is deleted. Pure.
std::vector<kcoro::k8s::config_map> orphaned_registrations(
    const std::vector<kcoro::k8s::config_map>& claims, std::string_view live_uid,
    const std::function<bool(std::string_view)>& instance_cached);

} // namespace gateway
