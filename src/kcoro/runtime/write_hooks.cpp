#include <kcoro/runtime/write_hooks.hpp>

#include <ostream>

namespace kcoro::runtime {

std::string_view to_string(write_op op) noexcept {
    switch (op) {
    case write_op::none: return "none";
    case write_op::created: return "created";
    case write_op::patched: return "patched";
    case write_op::applied: return "applied";
    case write_op::updated: return "updated";
    case write_op::deleted: return "deleted";
    }
    return "?";
}

std::string describe(const write_record& w) {
    std::string out(to_string(w.op));
    if (!w.subresource.empty()) {
        out += " " + w.subresource + " of";
    }
    out += " " + (w.gvr.group.empty() ? w.gvr.resource : w.gvr.resource + "." + w.gvr.group) + " " + w.key.str();
    if (w.noop) {
        out += " (no-op)";
    }
    return out;
}

std::ostream& operator<<(std::ostream& os, const write_record& w) { return os << describe(w); }

} // namespace kcoro::runtime
