// kube-apiserver's RBAC authorizer over the Roles, ClusterRoles and their
// bindings in the store (plugin/pkg/auth/authorizer/rbac/rbac.go and
// pkg/registry/rbac/validation/rule.go, v1.32), and the bootstrap policy it
// starts with (a part of plugin/pkg/auth/authorizer/rbac/bootstrappolicy).
//
// Not modelled: ClusterRole aggregation (kube-controller-manager fills an
// aggregated role's rules), escalation checks on RBAC writes.
//
// Pure over the store's current state; thread safety: the server's one thread.
#pragma once

#include "http/auth.hpp"
#include "store/object_store.hpp"

#include <boost/json/array.hpp>

#include <string>

namespace kcoro::apiserver::http {

/// RBACAuthorizer.Authorize: allowed by the first binding whose role has a
/// matching rule (cluster role bindings first, then the namespace's role bindings).
authz_decision rbac_authorize(const object_store& store, const authz_attributes& a);

/// RulesFor (SelfSubjectRulesReview): the rules of every binding that applies
/// to `user`, in `ns` and cluster-wide, as authorization/v1 ResourceRule and
/// NonResourceRule objects.
struct rules_result {
    boost::json::array resource_rules;
    boost::json::array non_resource_rules;
};
rules_result rbac_rules_for(const object_store& store, const user_info& user, std::string_view ns);

/// Creates the bootstrap ClusterRoles and ClusterRoleBindings a server starts
/// with (cluster-admin for system:masters, system:discovery,
/// system:basic-user, system:public-info-viewer) when they are missing.
void bootstrap_rbac(object_store& store, wall_time now);

} // namespace kcoro::apiserver::http
