// The GatewayInstance resource (gateway.kcoro.dev/v1alpha1): the operator's
// names for the typed API of api/gateway_instance_types.hpp, where its
// fields, defaults and bounds are written once (and the CRD generated from).
//
// Reading an instance is typed::decode_valid<v1alpha1::gateway_instance>:
// pure and total, every object decodes into either the instance or every
// field error (decoding, the schema's bounds, validate()), which the
// reconciler reports as InvalidSpec (a terminal error, not retried until the
// spec changes). The CRD's schema catches most mistakes at admission; the
// same rules are checked again so a cluster whose CRD was loaded without
// validation cannot feed the operator a spec out of bounds.
#pragma once

#include "api/gateway_instance_types.hpp"

#include <kcoro/core/resource.hpp>

#include <string_view>

namespace gateway {

inline constexpr std::string_view group = "gateway.kcoro.dev";
inline constexpr std::string_view version = "v1alpha1";
inline constexpr std::string_view kind = "GatewayInstance";
inline constexpr std::string_view finalizer = "gateway.kcoro.dev/registration";
/// Label on the registration ConfigMap holding the instance's uid.
inline constexpr std::string_view uid_label = "gateway.kcoro.dev/instance-uid";

using v1alpha1::env_var;
using v1alpha1::gateway_instance;
using v1alpha1::service_type;
using gateway_spec = v1alpha1::gateway_instance_spec;

static_assert(kcoro::typed::resource_traits<gateway_instance>::group == group);
static_assert(kcoro::typed::resource_traits<gateway_instance>::version == version);
static_assert(kcoro::typed::resource_traits<gateway_instance>::kind == kind);

/// gatewayinstances.gateway.kcoro.dev (from resource_traits).
kcoro::group_version_resource gateway_instances();

/// The Service type's wire name ("ClusterIP", ...), as the CRD spells it.
std::string_view to_string(service_type t) noexcept;

} // namespace gateway
