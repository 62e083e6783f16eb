// Defaulting and validation of the built-in kinds, as kube-apiserver's
// strategies do it (the parts kcoro's users notice), and the CRD rules.
// Pure functions; the store calls them inside create/update.
#pragma once

#include "store/resource_registry.hpp"

#include <kcoro/core/error.hpp>
#include <kcoro/core/status.hpp>

#include <boost/json/object.hpp>

#include <vector>

namespace kcoro::apiserver {

/// Generic ObjectMeta validation: name (DNS-1123 subdomain, or label for
/// namespaces, DNS-1035 label for services, plural.group for CRDs), label keys
/// and values, finalizer names. Causes as the real server words them.
std::vector<status_cause> validate_object_meta(const resource_def& def, const boost::json::object& obj);

/// Applies the defaults of a built-in kind (Service: type ClusterIP, port
/// protocol TCP, targetPort = port, sessionAffinity None; Deployment:
/// replicas 1, RollingUpdate 25%/25%, revisionHistoryLimit 10,
/// progressDeadlineSeconds 600; Namespace: spec.finalizers [kubernetes],
/// status.phase Active on create) and validates it. `old` is nullptr on create.
std::vector<status_cause> default_and_validate_builtin(const resource_def& def, boost::json::object& obj,
                                                       const boost::json::object* old);

/// An Event in its core/v1 form (pkg/apis/core/validation/events.go): the
/// legacy rules always; through events.k8s.io/v1 (`via_events_api`, which
/// also names reportingController) the strict create rules, or on update
/// (`old` set) the immutable fields.
std::vector<status_cause> validate_event(const boost::json::object& core_event, const boost::json::object* old,
                                         bool via_events_api);

/// The status strategy's validation of a /status write (Deployment status:
/// counts ≥ 0, updated/ready/available ≤ replicas, available ≤ ready).
std::vector<status_cause> validate_builtin_status(const resource_def& def, const boost::json::object& obj);

/// A CRD: validation (422 causes) and the resource definitions it serves.
std::vector<status_cause> validate_crd(const boost::json::object& crd);
std::vector<resource_def> resource_defs_of_crd(const boost::json::object& crd);
/// Sets status.acceptedNames, storedVersions and the NamesAccepted and
/// Established conditions (True) at `now`, as the CRD controllers do.
void set_crd_established(boost::json::object& crd, std::string_view now_rfc3339);

} // namespace kcoro::apiserver
