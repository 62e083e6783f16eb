#include <kcoro/runtime/owned_event.hpp>

#include <kcoro/core/object.hpp>

namespace kcoro::runtime {

event_request owned_event(const boost::json::object& owner, const boost::json::object& child, write_op op,
                          std::string_view drift) {
    event_request req;
    req.regarding = object_reference_of(owner);
    req.related = object_reference_of(child);
    req.type = event_type::normal;
    std::string_view verb;
    switch (op) {
    case write_op::created: req.reason = "Created"; req.action = "Create"; verb = "created"; break;
    case write_op::deleted: req.reason = "Deleted"; req.action = "Delete"; verb = "deleted"; break;
    case write_op::applied: req.reason = "Updated"; req.action = "Apply"; verb = "updated"; break;
    case write_op::patched: req.reason = "Updated"; req.action = "Patch"; verb = "updated"; break;
    case write_op::updated:
    case write_op::none: req.reason = "Updated"; req.action = "Update"; verb = "updated"; break;
    }
    const auto* kind = child.if_contains("kind");
    req.note = std::string(verb) + " " + (kind && kind->is_string() ? std::string(kind->get_string()) : "object") +
               " " + key_of(child).str();
    if (!drift.empty()) {
        req.note += ": ";
        req.note += drift;
    }
    return req;
}

} // namespace kcoro::runtime
