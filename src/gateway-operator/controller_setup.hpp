// Wires the GatewayInstance reconciler onto a manager as a controller
// (docs/operator.md, "Running it"):
//
//   For     gatewayinstances.gateway.kcoro.dev (every namespace the manager watches)
//   Owns    apps/v1 Deployments and v1 Services (mapped through the controller
//           owner reference of kind gateway.kcoro.dev/GatewayInstance)
//   Watches v1 ConfigMaps in the registry namespace that carry the uid label
//           (the registrations); mapped to their instance through an index
//           uid -> instance over the GatewayInstance informer
//
// The registration carries the instance's uid as a label (a label value
// cannot hold "namespace/name", and the uid is what identifies the instance
// across delete + recreate). The mapping asks the GatewayInstance cache which
// instance has that uid (`uid_index`); a registration whose uid no cached
// instance has maps to the instance its data names, whose pass deletes it
// when that instance is gone (an orphan: reconciler.hpp).
//
// The reconciler reads the registrations from their informer (by name, and
// by the instance their data names: `instance_index`) and asks the uid
// index whether an instance is cached.
//
// Reconciler events go to the manager's event recorder (reporting
// controller "gateway-operator"): Normal for creations and repairs, Warning
// for NameConflict, Forbidden and InvalidSpec.
//
// Lifetime: the manager owns the controller; the controller owns the
// reconciler (shared with the returned handle). Thread safety: none.
#pragma once

#include "reconciler.hpp"

#include <kcoro/core/resource_table.hpp>
#include <kcoro/runtime/controller.hpp>
#include <kcoro/runtime/event_sources.hpp>
#include <kcoro/runtime/informer_factory.hpp>

#include <kcoro/typed/k8s/config_map.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::server {
class manager;
}

namespace gateway {

/// The controller's name in logs and metrics (controller-runtime lower-cases the kind).
inline constexpr std::string_view controller_name = "gatewayinstance";
/// The reporting controller of the Events.
inline constexpr std::string_view event_source = "gateway-operator";
/// Index over the GatewayInstance informer: metadata.uid -> the instance.
inline constexpr std::string_view uid_index = "gateway.kcoro.dev/uid";

/// Index over the registrations informer: the instance key ("ns/name") its data names.
inline constexpr std::string_view instance_index = "gateway.kcoro.dev/instance";

/// The index function of `uid_index` (pure).
std::vector<std::string> index_by_uid(const boost::json::object& obj);
/// The index function of `instance_index` (pure).
std::vector<std::string> index_by_instance(const boost::json::object& cm);
/// A cached object as a ConfigMap; nullopt when it does not decode as one.
std::optional<kcoro::k8s::config_map> as_config_map(const boost::json::object& obj);

/// The instances a registration ConfigMap belongs to, each with the uid its
/// label names: that uid looked up in the GatewayInstance cache, else the
/// instance its data names (pure given the factory). The uid lets a sharded
/// replica own the key of an instance already deleted: a registration whose
/// create landed after the finalizer ran is still cleaned up.
std::vector<kcoro::runtime::mapped_key> registration_to_instances(kcoro::runtime::informer_factory& cache,
                                                                  const boost::json::object& cm);

/// What setup() made: the controller is owned by the manager.
struct operator_handle {
    std::shared_ptr<reconciler> rec;
    kcoro::runtime::controller* ctl = nullptr;
};

/// Adds GatewayInstance (gateway.kcoro.dev/v1alpha1, kind GatewayInstance)
/// to a resource table, for `controller(...).for_(gateway_instances())`.
void register_resources(kcoro::resource_table& table);

/// Builds the reconciler and its controller on `mgr` (before mgr.run()), the
/// short way: mgr.controller(...) wires metrics, logs, flags, events and the
/// field manager.
operator_handle setup(kcoro::server::manager& mgr, reconciler_options opts);

} // namespace gateway
