// Validation of custom resources against a CRD's structural
// openAPIV3Schema, as the apiextensions-apiserver does it: pruning of unknown
// fields, defaulting, then validation. Causes are formatted as the real server
// (`spec.replicas: Invalid value: 99: spec.replicas in body should be less
// than or equal to 50`).
//
// Supported: type (object, array, string, integer, number, boolean),
// properties, additionalProperties (schema or bool), items, required, enum,
// minimum/maximum (+ exclusiveMinimum/exclusiveMaximum), multipleOf, pattern
// (std::regex ECMAScript), minLength/maxLength, minItems/maxItems,
// uniqueItems, minProperties/maxProperties, nullable, default,
// x-kubernetes-preserve-unknown-fields, x-kubernetes-int-or-string,
// x-kubernetes-embedded-resource (kept, not validated further).
// Not supported: format (ignored), allOf/anyOf/oneOf/not (ignored),
// x-kubernetes-validations (CEL, ignored), x-kubernetes-list-type checks.
//
// Pure functions; never throw.
#pragma once

#include <kcoro/core/status.hpp>

#include <boost/json/object.hpp>

#include <vector>

namespace kcoro::apiserver {

/// Prunes unknown fields and applies defaults in `obj` (apiVersion, kind and
/// metadata at the root are left alone), then validates it. Returns the
/// causes (empty = valid).
std::vector<status_cause> validate_custom_resource(boost::json::object& obj, const boost::json::object& schema);

} // namespace kcoro::apiserver
