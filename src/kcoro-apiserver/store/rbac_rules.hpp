// Defaults and validation of rbac.authorization.k8s.io/v1 Role, ClusterRole,
// RoleBinding and ClusterRoleBinding (v1.32 pkg/apis/rbac/v1/defaults.go,
// pkg/apis/rbac/validation/validation.go). Stored objects: kcoro-apiserver
// does not enforce RBAC. Pure; `old` is null on create.
#pragma once

#include "store/resource_registry.hpp"

#include <kcoro/core/status.hpp>

#include <boost/json/object.hpp>

#include <vector>

namespace kcoro::apiserver {

std::vector<status_cause> rbac_rules(const resource_def& def, boost::json::object& obj, const boost::json::object* old);

} // namespace kcoro::apiserver
