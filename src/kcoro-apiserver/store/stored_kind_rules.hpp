// Defaults and the first validation rules of the kinds kcoro-apiserver
// stores without acting on them: PersistentVolumeClaims, Nodes, Endpoints,
// EndpointSlices, ResourceQuotas, LimitRanges, Ingresses, NetworkPolicies and
// PodDisruptionBudgets (v1.32 pkg/apis/<group>/v1/defaults.go and the
// strategies' PrepareForCreate). Pure; `old` is null on create.
#pragma once

#include "store/resource_registry.hpp"

#include <kcoro/core/status.hpp>

#include <boost/json/object.hpp>

#include <optional>
#include <vector>

namespace kcoro::apiserver {

/// nullopt for a kind this file does not handle.
std::optional<std::vector<status_cause>> other_kind_rules(const resource_def& def, boost::json::object& obj,
                                                          const boost::json::object* old);

} // namespace kcoro::apiserver
