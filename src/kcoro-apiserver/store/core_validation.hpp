// Validation of the built-in kinds' own fields, after pkg/apis/core/validation,
// pkg/apis/coordination/validation and pkg/apis/apps/validation (status),
// with the real messages. Pure functions on JSON values; builtin_rules.cpp
// calls them from the strategies' create/update path.
#pragma once

#include <kcoro/core/status.hpp>

#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::apiserver::validation {

// --- small helpers shared with builtin_rules.cpp --------------------------------
/// JSON-quoted (what field.Invalid prints for a string value).
std::string quoted(std::string_view s);
/// o[key] as an object (made one when absent or not an object).
boost::json::object& obj_at(boost::json::object& o, std::string_view key);
/// Sets o[key] when absent or null (defaulting).
void set_default(boost::json::object& o, std::string_view key, boost::json::value v);
/// "data[key]", "ports[2]" (field.Path Key / Index).
std::string path_key(std::string_view base, std::string_view key);
std::string path_index(std::string_view base, std::size_t i);
std::string str_at(const boost::json::object& o, std::string_view key);
std::optional<std::int64_t> int_at(const boost::json::object& o, std::string_view key);
status_cause field_duplicate(std::string_view field, std::string_view value_repr);
status_cause field_not_found(std::string_view field, std::string_view value_repr);
status_cause field_too_long(std::string_view field, std::size_t max);
/// validation.IsConfigMapKey.
std::vector<std::string> config_map_key_errors(std::string_view key);
/// validation.IsValidPortNum, and its message.
bool valid_port(std::int64_t p);
inline constexpr std::string_view port_range_msg = "must be between 1 and 65535, inclusive";
/// apimachinery api/validation/path/name.go IsValidPathSegmentName (RBAC
/// names and role references).
std::vector<std::string> path_segment_name_errors(std::string_view name);
/// validation.IsValidPortName (IANA_SVC_NAME).
std::vector<std::string> port_name_errors(std::string_view n);
/// supportedPortProtocols, sorted as the messages list them.
inline const std::vector<std::string> protocols{"SCTP", "TCP", "UDP"};
bool one_of(const std::string& v, const std::vector<std::string>& set);
/// Bytes a base64 text decodes to.
std::size_t base64_decoded_size(std::string_view s);

// --- the rules -------------------------------------------------------------------
/// ValidateConfigMap / ValidateConfigMapUpdate (`old` null on create).
std::vector<status_cause> config_map_rules(boost::json::object& obj, const boost::json::object* old);
/// v1 conversion (stringData), SetDefaults_Secret, ValidateSecret / ValidateSecretUpdate.
std::vector<status_cause> secret_rules(boost::json::object& obj, const boost::json::object* old);
/// ValidateLeaseSpec.
std::vector<status_cause> lease_rules(boost::json::object& obj);
/// events.go: legacyValidateEvent, plus for writes through events.k8s.io/v1
/// ValidateEventCreate's strict rules (`old` null) or ValidateEventUpdate's
/// immutable fields; `ev` and `old` are core/v1 forms.
std::vector<status_cause> event_rules(const boost::json::object& ev, const boost::json::object* old, bool via_events_api);
/// ValidatePodSpec, the parts kcoro models; `base` is the spec's path
/// ("spec.template.spec").
std::vector<status_cause> pod_spec_rules(const boost::json::object& pod, const std::string& base);
/// ValidateDeploymentStatus.
std::vector<status_cause> deployment_status_rules(const boost::json::object& obj);

} // namespace kcoro::apiserver::validation
