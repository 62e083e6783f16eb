// What kube-apiserver's decoder does to a JSON body of a built-in kind before
// any strategy sees it: fields the Go type does not declare are dropped
// (reported as unknown fields, for fieldValidation Warn/Strict), and the time
// fields are parsed as metav1.Time / metav1.MicroTime do (a MicroTime needs
// exactly six fractional digits).
//
// The field tables follow k8s.io/api core/v1, apps/v1, coordination/v1,
// events/v1 types.go for the kinds kcoro-apiserver serves; deep optional
// structures that kcoro does not interpret (probes, security contexts,
// affinity, volume sources' contents, CRD schemas) are accepted whole.
//
// Pure; the tables are immutable statics, safe from any thread.
#pragma once

#include "store/resource_registry.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kcoro::apiserver {

/// metav1.FieldValidation: Ignore, Warn (the default), Strict.
enum class field_validation { ignore, warn, strict };
/// "" and unknown texts mean Warn, as the handlers' default.
field_validation field_validation_from(std::string_view text);

struct decode_result {
    /// Unknown fields in document order, as the decoder names them:
    /// "spec.template.spec.containers[0].env[0].$patch".
    std::vector<std::string> unknown_fields;
    /// A decode error (a time field that does not parse), as the Go decoder
    /// words it: `parsing time "x" as "2006-01-02T15:04:05.000000Z07:00":
    /// cannot parse "" as ".000000"`.
    std::optional<std::string> error;
};

/// Drops the fields `def`'s Go type does not have (nothing for custom
/// resources, whose schema prunes them) and checks the time fields.
decode_result decode_builtin(const resource_def& def, boost::json::object& obj);

/// Go's time.Parse against RFC3339 ("2006-01-02T15:04:05Z07:00", fraction
/// optional) or RFC3339Micro ("...05.000000Z07:00"): nullopt, or the error
/// text.
std::optional<std::string> check_go_time(std::string_view value, bool micro);

/// Server-side apply converts the configuration to its typed form first; a
/// field the type lacks fails there (fieldmanager structuredmerge.go):
/// `failed to create typed patch object (ns/name; apps/v1, Kind=Deployment):
/// .spec.template.spec.containers[name="c"].colour: field not declared in
/// schema` (several: "errors:\n  .a: ...\n  .b: ..."). nullopt when the
/// configuration only has known fields (and for custom resources).
std::optional<std::string> apply_configuration_error(const resource_def& def, const boost::json::object& config);

/// `strict decoding error: unknown field "a", unknown field "b"`.
std::string strict_decoding_error(const std::vector<std::string>& unknown);

} // namespace kcoro::apiserver
