#include "store/event_conversion.hpp"

#include <array>
#include <utility>

namespace kcoro::apiserver {
namespace json = boost::json;

namespace {

// core/v1 name, events.k8s.io/v1 name (Convert_v1_Event_To_core_Event and back).
constexpr std::array<std::pair<std::string_view, std::string_view>, 14> renames{{
    {"metadata", "metadata"},
    {"eventTime", "eventTime"},
    {"series", "series"},
    {"reportingComponent", "reportingController"},
    {"reportingInstance", "reportingInstance"},
    {"action", "action"},
    {"reason", "reason"},
    {"involvedObject", "regarding"},
    {"related", "related"},
    {"message", "note"},
    {"type", "type"},
    {"source", "deprecatedSource"},
    {"firstTimestamp", "deprecatedFirstTimestamp"},
    {"lastTimestamp", "deprecatedLastTimestamp"},
}};

bool empty_value(const json::value& v) {
    return v.is_null() || (v.is_string() && v.get_string().empty()) || (v.is_int64() && v.get_int64() == 0) ||
           (v.is_uint64() && v.get_uint64() == 0);
}

void set_if_absent(json::object& o, std::string_view k, json::value v) {
    auto* cur = o.if_contains(k);
    if (!cur || (cur->is_null() && !v.is_null())) o[k] = std::move(v);
}

} // namespace

void normalize_core_event(json::object& core) {
    set_if_absent(core, "involvedObject", json::object{});
    set_if_absent(core, "source", json::object{});
    set_if_absent(core, "firstTimestamp", nullptr);
    set_if_absent(core, "lastTimestamp", nullptr);
    set_if_absent(core, "eventTime", nullptr);
    set_if_absent(core, "reportingComponent", "");
    set_if_absent(core, "reportingInstance", "");
}

json::object core_event_to_events_v1(const json::object& core) {
    json::object out;
    out["apiVersion"] = "events.k8s.io/v1";
    out["kind"] = "Event";
    for (const auto& [from, to] : renames) {
        const auto* v = core.if_contains(from);
        if (!v) continue;
        // omitempty strings and counts vanish; the structs and times Go
        // always writes are set below.
        if (empty_value(*v) && to != "eventTime" && to != "deprecatedFirstTimestamp" && to != "deprecatedLastTimestamp") continue;
        out[to] = *v;
    }
    if (const auto* c = core.if_contains("count"); c && !empty_value(*c)) out["deprecatedCount"] = *c;
    set_if_absent(out, "regarding", json::object{});
    set_if_absent(out, "deprecatedSource", json::object{});
    set_if_absent(out, "eventTime", nullptr);
    set_if_absent(out, "deprecatedFirstTimestamp", nullptr);
    set_if_absent(out, "deprecatedLastTimestamp", nullptr);
    return out;
}

json::object events_v1_to_core_event(const json::object& ev) {
    json::object out;
    out["apiVersion"] = "v1";
    out["kind"] = "Event";
    for (const auto& [to, from] : renames) {
        if (const auto* v = ev.if_contains(from)) out[to] = *v;
    }
    if (const auto* c = ev.if_contains("deprecatedCount"); c && !empty_value(*c)) out["count"] = *c;
    normalize_core_event(out);
    return out;
}

std::optional<std::string> events_v1_field_label(std::string_view label) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 12> mapping{{
        {"reason", "reason"},
        {"regarding.kind", "involvedObject.kind"},
        {"regarding.namespace", "involvedObject.namespace"},
        {"regarding.name", "involvedObject.name"},
        {"regarding.uid", "involvedObject.uid"},
        {"regarding.apiVersion", "involvedObject.apiVersion"},
        {"regarding.resourceVersion", "involvedObject.resourceVersion"},
        {"regarding.fieldPath", "involvedObject.fieldPath"},
        {"reportingController", "reportingComponent"},
        {"type", "type"},
        {"metadata.namespace", "metadata.namespace"},
        {"metadata.name", "metadata.name"},
    }};
    for (const auto& [from, to] : mapping) {
        if (label == from) return std::string(to);
    }
    return std::nullopt;
}

} // namespace kcoro::apiserver
