#include <kcoro/core/condition_update.hpp>
#include <kcoro/typed/condition.hpp>

#include <algorithm>

namespace kcoro::typed {

bool set_condition(std::vector<condition>& conditions, const condition& desired, wall_time now) {
    auto transition_time = [&] {
        return desired.last_transition_time.empty() ? timestamp(now) : desired.last_transition_time;
    };
    for (auto& c : conditions) {
        if (c.type != desired.type) {
            continue;
        }
        condition_view current{c.status, c.reason, c.message, c.last_transition_time.str(),
                               c.observed_generation};
        auto u = plan_condition_update(current, desired.status, desired.reason, desired.message,
                                       desired.observed_generation);
        if (u.status)
            c.status = desired.status;
        if (u.last_transition_time)
            c.last_transition_time = transition_time();
        if (u.reason)
            c.reason = desired.reason;
        if (u.message)
            c.message = desired.message;
        if (u.observed_generation)
            c.observed_generation = desired.observed_generation;
        return u.any();
    }
    condition added = desired;
    added.last_transition_time = transition_time();
    conditions.push_back(std::move(added));
    return true;
}

bool remove_condition(std::vector<condition>& conditions, std::string_view type) {
    auto it = std::find_if(conditions.begin(), conditions.end(),
                           [&](const condition& c) { return c.type == type; });
    if (it == conditions.end())
        return false;
    conditions.erase(it);
    return true;
}

const condition* find_condition(const std::vector<condition>& conditions, std::string_view type) noexcept {
    for (const auto& c : conditions) {
        if (c.type == type)
            return &c;
    }
    return nullptr;
}

bool is_condition_status(const std::vector<condition>& conditions, std::string_view type,
                         std::string_view status) noexcept {
    const auto* c = find_condition(conditions, type);
    return c && c->status == status;
}

} // namespace kcoro::typed
