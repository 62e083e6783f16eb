#include <kcoro/runtime/conditions.hpp>

#include <kcoro/core/condition_update.hpp>

#include <optional>

namespace kcoro::runtime {

namespace json = boost::json;

namespace {

std::string_view str_of(const json::object& o, std::string_view key) noexcept {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

std::optional<std::string_view> opt_str(const json::object& o, std::string_view key) noexcept {
    const auto* v = o.if_contains(key);
    if (!v) {
        return std::nullopt;
    }
    return v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

std::optional<std::int64_t> opt_int(const json::object& o, std::string_view key) noexcept {
    const auto* v = o.if_contains(key);
    if (v && v->is_int64()) {
        return v->get_int64();
    }
    if (v && v->is_uint64()) {
        return static_cast<std::int64_t>(v->get_uint64());
    }
    return std::nullopt;
}

} // namespace

bool set_condition(json::array& conditions, const condition& c, wall_time now) {
    for (auto& v : conditions) {
        if (!v.is_object() || str_of(v.as_object(), "type") != c.type) {
            continue;
        }
        auto& o = v.as_object();
        condition_view current{opt_str(o, "status"), opt_str(o, "reason"), opt_str(o, "message"),
                               opt_str(o, "lastTransitionTime"), opt_int(o, "observedGeneration")};
        auto u = plan_condition_update(current, c.status, c.reason, c.message, c.observed_generation);
        if (u.status) o["status"] = c.status;
        if (u.last_transition_time) o["lastTransitionTime"] = format_rfc3339(now);
        if (u.reason) o["reason"] = c.reason;
        if (u.message) o["message"] = c.message;
        if (u.observed_generation) o["observedGeneration"] = c.observed_generation;
        return u.any();
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
