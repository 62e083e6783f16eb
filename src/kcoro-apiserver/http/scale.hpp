// The deployments/scale subresource as pkg/registry/apps/deployment/storage/
// storage.go serves it (ScaleREST): GET answers an autoscaling/v1 Scale made
// from the Deployment (scaleFromDeployment: name, namespace, uid,
// resourceVersion, creationTimestamp; spec.replicas; status.replicas and
// status.selector as the label selector's string form); PUT and PATCH turn
// the new Scale back into the Deployment (scaleUpdatedObjectInfo): the Scale
// is validated (`Scale.autoscaling "x" is invalid: spec.replicas: Invalid
// value: -1: must be greater than or equal to 0`), a uid in it must match
// (409 `Operation cannot be fulfilled on deployments/scale.apps "x":
// Precondition failed: UID in precondition: a, UID in object meta: b`), and
// spec.replicas and metadata.resourceVersion are copied onto the Deployment,
// which the store then updates like any spec change (resourceVersion
// precondition → 409 on deployments.apps, generation +1).
//
// Pure functions; thread safety: values.
#pragma once

#include <kcoro/core/error.hpp>

#include <kcoro/core/resource.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>

namespace kcoro::apiserver::http {

/// metav1.LabelSelectorAsSelector(sel).String(): "app=x,tier in (a,b)";
/// "" for a null or empty selector. 400-worthy selectors give an error.
result<std::string> label_selector_string(const boost::json::value* selector);

/// The autoscaling/v1 Scale of a Deployment, ReplicaSet or StatefulSet
/// (spec.replicas, status.replicas, the selector as a string).
result<boost::json::object> scale_from_deployment(const boost::json::object& deployment);

/// The workload with `scale` applied (ValidateScale and the uid
/// precondition, named after `gvr`'s scale subresource).
result<boost::json::object> apply_scale(boost::json::object deployment, const boost::json::object& scale,
                                        const group_version_resource& gvr = {"apps", "v1", "deployments"});

} // namespace kcoro::apiserver::http
