// events.k8s.io/v1 Event, typed, with core/v1 ObjectReference (its
// `regarding` and `related`).
#pragma once

#include <kcoro/typed/declare.hpp>
#include <kcoro/typed/object_meta.hpp>

namespace kcoro::k8s {

struct object_reference {
    std::string kind;
    std::string namespace_;
    std::string name;
    std::string uid;
    std::string api_version;
    std::string resource_version;
    std::string field_path;
    typed::unknown_fields unknown;
    friend bool operator==(const object_reference&, const object_reference&) = default;
};
BOOST_DESCRIBE_STRUCT(object_reference, (),
                      (kind, namespace_, name, uid, api_version, resource_version, field_path))

struct event_series {
    std::int32_t count = 0;
    typed::micro_timestamp last_observed_time;
    typed::unknown_fields unknown;
    friend bool operator==(const event_series&, const event_series&) = default;
};
BOOST_DESCRIBE_STRUCT(event_series, (), (count, last_observed_time))

struct event {
    typed::object_meta metadata;
    typed::micro_timestamp event_time;
    std::optional<event_series> series;
    std::string reporting_controller;
    std::string reporting_instance;
    std::string action;
    std::string reason;
    object_reference regarding;
    std::optional<object_reference> related;
    std::string note;
    std::string type; // Normal, Warning
    boost::json::object deprecated_source;
    typed::timestamp deprecated_first_timestamp;
    typed::timestamp deprecated_last_timestamp;
    std::optional<std::int32_t> deprecated_count;
    typed::unknown_fields unknown;
    friend bool operator==(const event&, const event&) = default;
};
BOOST_DESCRIBE_STRUCT(event, (),
                      (metadata, event_time, series, reporting_controller, reporting_instance, action, reason,
                       regarding, related, note, type, deprecated_source, deprecated_first_timestamp,
                       deprecated_last_timestamp, deprecated_count))
KCORO_RESOURCE(event, resource("events.k8s.io", "v1", "Event", "events"))

} // namespace kcoro::k8s
