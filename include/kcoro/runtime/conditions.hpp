// metav1.Condition helpers on a status.conditions array, as apimachinery's
// meta.SetStatusCondition: lastTransitionTime changes only when `status`
// changes, so a pass that finds nothing new writes nothing new. Pure: time is
// passed in.
//
// Thread safety: functions over caller-owned values.
#pragma once

#include <kcoro/core/time.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace kcoro::runtime {

struct condition {
    std::string type;    // "Ready"
    std::string status;  // "True", "False", "Unknown"
    std::string reason;  // CamelCase
    std::string message;
    std::int64_t observed_generation = 0;
};

/// Sets `c` in `conditions` (a metav1.Condition array); returns whether
/// anything changed. A new condition, or a new status, gets
/// lastTransitionTime = `now`; reason, message and observedGeneration are
/// updated in place without touching it.
bool set_condition(boost::json::array& conditions, const condition& c, wall_time now);
/// The same on an object's status.conditions (created when missing).
bool set_condition(boost::json::object& obj, const condition& c, wall_time now);
/// Removes the condition of this type; returns whether it was there.
bool remove_condition(boost::json::array& conditions, std::string_view type);

/// status.conditions of an object, or nullptr.
const boost::json::array* conditions_of(const boost::json::object& obj) noexcept;
/// The condition of this type, or nullptr.
const boost::json::object* find_condition(const boost::json::array& conditions, std::string_view type) noexcept;
/// The condition's status is `status`.
bool is_condition_status(const boost::json::array& conditions, std::string_view type, std::string_view status) noexcept;
inline bool is_condition_true(const boost::json::array& conditions, std::string_view type) noexcept {
    return is_condition_status(conditions, type, "True");
}
inline bool is_condition_false(const boost::json::array& conditions, std::string_view type) noexcept {
    return is_condition_status(conditions, type, "False");
}

} // namespace kcoro::runtime
