#include <kcoro/runtime/conditions.hpp>

namespace kcoro::runtime {

namespace json = boost::json;

namespace {

std::string_view str_of(const json::object& o, std::string_view key) noexcept {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

std::int64_t int_of(const json::object& o, std::string_view key) noexcept {
    const auto* v = o.if_contains(key);
    if (v && v->is_int64()) {
        return v->get_int64();
    }
    if (v && v->is_uint64()) {
        return static_cast<std::int64_t>(v->get_uint64());
    }
    return 0;
}

// Updates one string field; true when it changed.
bool set_string(json::object& o, std::string_view key, std::string_view value) {
    if (str_of(o, key) == value && o.contains(key)) {
        return false;
    }
    o[key] = value;
    return true;
}

} // namespace

bool set_condition(json::array& conditions, const condition& c, wall_time now) {
    for (auto& v : conditions) {
        if (!v.is_object() || str_of(v.as_object(), "type") != c.type) {
            continue;
        }
        auto& o = v.as_object();
        bool changed = false;
        if (str_of(o, "status") != c.status) {
            o["status"] = c.status;
            o["lastTransitionTime"] = format_rfc3339(now);
            changed = true;
        } else if (str_of(o, "lastTransitionTime").empty()) {
            // A malformed entry without a time gets one; not a transition.
            o["lastTransitionTime"] = format_rfc3339(now);
            changed = true;
        }
        changed |= set_string(o, "reason", c.reason);
        changed |= set_string(o, "message", c.message);
        if (int_of(o, "observedGeneration") != c.observed_generation || !o.contains("observedGeneration")) {
            o["observedGeneration"] = c.observed_generation;
            changed = true;
        }
        return changed;
    }
    json::object o;
    o["type"] = c.type;
    o["status"] = c.status;
    o["observedGeneration"] = c.observed_generation;
    o["lastTransitionTime"] = format_rfc3339(now);
    o["reason"] = c.reason;
    o["message"] = c.message;
    conditions.emplace_back(std::move(o));
    return true;
}

bool set_condition(json::object& obj, const condition& c, wall_time now) {
    auto& st = obj["status"];
    if (!st.is_object()) {
        st = json::object();
    }
    auto& conds = st.as_object()["conditions"];
    if (!conds.is_array()) {
        conds = json::array();
    }
    return set_condition(conds.as_array(), c, now);
}

bool remove_condition(json::array& conditions, std::string_view type) {
    for (auto it = conditions.begin(); it != conditions.end(); ++it) {
        if (it->is_object() && str_of(it->as_object(), "type") == type) {
            conditions.erase(it);
            return true;
        }
    }
    return false;
}

const json::array* conditions_of(const json::object& obj) noexcept {
    const auto* st = obj.if_contains("status");
    if (!st || !st->is_object()) {
        return nullptr;
    }
    const auto* c = st->as_object().if_contains("conditions");
    return c && c->is_array() ? &c->as_array() : nullptr;
}

const json::object* find_condition(const json::array& conditions, std::string_view type) noexcept {
    for (const auto& v : conditions) {
        if (v.is_object() && str_of(v.as_object(), "type") == type) {
            return &v.as_object();
        }
    }
    return nullptr;
}

bool is_condition_status(const json::array& conditions, std::string_view type, std::string_view status) noexcept {
    const auto* c = find_condition(conditions, type);
    return c && str_of(*c, "status") == status;
}

} // namespace kcoro::runtime
