// metav1.Condition, typed, and the helpers over a status' condition list.
// The update rule is the one runtime/conditions.hpp applies to JSON
// (core/condition_update.hpp): lastTransitionTime moves only when status
// changes; reason, message and observedGeneration are updated in place.
//
// Thread safety: functions over caller-owned values.
#pragma once

#include <kcoro/core/time.hpp>
#include <kcoro/typed/declare.hpp>

#include <string_view>
#include <vector>

namespace kcoro::typed {

struct condition {
    std::string type;   // "Ready"
    std::string status; // "True", "False", "Unknown"
    std::int64_t observed_generation = 0;
    timestamp last_transition_time;
    std::string reason; // CamelCase
    std::string message;
    unknown_fields unknown;
    friend bool operator==(const condition&, const condition&) = default;
};
BOOST_DESCRIBE_STRUCT(condition, (),
                      (type, status, observed_generation, last_transition_time, reason, message))
// The bounds of metav1.Condition's own schema.
KCORO_FIELDS(condition, field("type").required().max_length(316),
             field("status").required().one_of("True", "False", "Unknown"),
             field("observed_generation").omit_empty().minimum(0), field("last_transition_time").required(),
             field("reason").required().min_length(1).max_length(1024),
             field("message").required().max_length(32768))

/// Sets `desired` in `conditions` (meta.SetStatusCondition); true when
/// anything changed. A new condition, or a new status, gets
/// desired.last_transition_time, or `now` when that is unset.
bool set_condition(std::vector<condition>& conditions, const condition& desired, wall_time now);
/// Removes the condition of this type; true when it was there.
bool remove_condition(std::vector<condition>& conditions, std::string_view type);
/// The condition of this type, or nullptr.
const condition* find_condition(const std::vector<condition>& conditions, std::string_view type) noexcept;
bool is_condition_status(const std::vector<condition>& conditions, std::string_view type,
                         std::string_view status) noexcept;
inline bool is_condition_true(const std::vector<condition>& conditions, std::string_view type) noexcept {
    return is_condition_status(conditions, type, "True");
}
inline bool is_condition_false(const std::vector<condition>& conditions, std::string_view type) noexcept {
    return is_condition_status(conditions, type, "False");
}

} // namespace kcoro::typed
