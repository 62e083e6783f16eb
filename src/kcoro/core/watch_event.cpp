#include <kcoro/core/watch_event.hpp>

#include <ostream>

namespace kcoro {
namespace json = boost::json;

const char* to_string(watch_event_type t) noexcept {
    switch (t) {
    case watch_event_type::added: return "ADDED";
    case watch_event_type::modified: return "MODIFIED";
    case watch_event_type::deleted: return "DELETED";
    case watch_event_type::bookmark: return "BOOKMARK";
    case watch_event_type::error: return "ERROR";
    }
    return "UNKNOWN";
}

std::optional<watch_event_type> parse_watch_event_type(std::string_view s) noexcept {
    if (s == "ADDED") return watch_event_type::added;
    if (s == "MODIFIED") return watch_event_type::modified;
    if (s == "DELETED") return watch_event_type::deleted;
    if (s == "BOOKMARK") return watch_event_type::bookmark;
    if (s == "ERROR") return watch_event_type::error;
    return std::nullopt;
}

std::ostream& operator<<(std::ostream& os, watch_event_type t) { return os << to_string(t); }

kcoro::error watch_event::to_error() const {
    if (type != watch_event_type::error || !status) {
        return {};
    }
    return kcoro::error::from_status(*status);
}

std::ostream& operator<<(std::ostream& os, const watch_event& e) {
    os << e.type;
    if (e.status) {
        os << ' ' << e.status->code << ' ' << e.status->reason << ": " << e.status->message;
    } else if (e.object) {
        os << ' ' << kind_of(*e.object) << ' ' << key_of(*e.object) << " rv=" << e.resource_version;
    }
    if (e.initial_events_end) {
        os << " (initial-events-end)";
    }
    return os;
}

namespace {
error decode_failure(std::string what) {
    return error(kcoro_errc::decode_error, "watch event: " + std::move(what));
}
} // namespace

result<watch_event> decode_watch_event(json::value&& v) {
    auto* o = v.if_object();
    if (!o) {
        return decode_failure("not a JSON object");
    }
    const auto* t = o->if_contains("type");
    if (!t || !t->is_string()) {
        return decode_failure("missing string field \"type\"");
    }
    auto type = parse_watch_event_type(t->get_string());
    if (!type) {
        return decode_failure("unknown type \"" + std::string(t->get_string().subview(0, 64)) + "\"");
    }
    auto* obj = o->if_contains("object");
    if (!obj || !obj->is_object()) {
        return decode_failure("missing object field \"object\" in a " + std::string(to_string(*type)) + " event");
    }
    watch_event ev;
    ev.type = *type;
    if (*type == watch_event_type::error) {
        ev.status = decode_status(*obj);
        if (!ev.status) {
            return decode_failure("ERROR event without a Status object");
        }
    }
    // Same storage: moving the object is O(1), no copy of the tree.
    ev.object = std::make_shared<const json::object>(std::move(obj->get_object()));
    ev.resource_version = std::string(resource_version_of(*ev.object));
    if (*type == watch_event_type::bookmark) {
        auto a = annotation_of(*ev.object, initial_events_end_annotation);
        ev.initial_events_end = a && *a == "true";
    }
    return ev;
}

} // namespace kcoro
