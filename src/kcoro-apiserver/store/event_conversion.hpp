// core/v1 Event <-> events.k8s.io/v1 Event: one storage, two views, as
// kube-apiserver serves them (pkg/apis/events/v1/conversion.go; the internal
// type is core's). Objects are stored in the core/v1 form; the events.k8s.io
// endpoint converts on the way in and out. Field selectors of events.k8s.io
// map to the core names (AddFieldLabelConversionsForEvent).
//
// Pure functions.
#pragma once

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace kcoro::apiserver {

/// The events.k8s.io/v1 form of a stored (core/v1) Event, with the fields Go
/// always serializes (regarding, deprecatedSource as {}; eventTime,
/// deprecatedFirstTimestamp, deprecatedLastTimestamp as null when unset).
boost::json::object core_event_to_events_v1(const boost::json::object& core);

/// The core/v1 form of an events.k8s.io/v1 Event (regarding → involvedObject,
/// note → message, deprecatedSource → source, deprecated{First,Last}Timestamp
/// and deprecatedCount → firstTimestamp, lastTimestamp, count,
/// reportingController → reportingComponent), normalized.
boost::json::object events_v1_to_core_event(const boost::json::object& ev);

/// Adds what Go serializes for an unset core/v1 Event field
/// (involvedObject and source as {}, firstTimestamp, lastTimestamp, eventTime
/// as null, reportingComponent and reportingInstance as "").
void normalize_core_event(boost::json::object& core);

/// The core field label an events.k8s.io/v1 field selector label maps to;
/// nullopt: not supported (`field label not supported: <label>`).
std::optional<std::string> events_v1_field_label(std::string_view label);

} // namespace kcoro::apiserver
