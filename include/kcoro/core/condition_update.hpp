// The one rule for setting a metav1.Condition, shared by the JSON helpers
// (runtime/conditions.hpp) and the typed ones (typed/condition.hpp), as
// apimachinery's meta.SetStatusCondition (pkg/api/meta/conditions.go):
// lastTransitionTime moves only when `status` changes, so a pass that finds
// nothing new writes nothing new; reason, message and observedGeneration are
// updated in place. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kcoro {

/// A condition's fields as views; nullopt where the field is absent.
struct condition_view {
    std::optional<std::string_view> status;
    std::optional<std::string_view> reason;
    std::optional<std::string_view> message;
    std::optional<std::string_view> last_transition_time;
    std::optional<std::int64_t> observed_generation;
};

/// Which fields to write.
struct condition_update {
    bool status = false;
    bool last_transition_time = false; // write "now"
    bool reason = false;
    bool message = false;
    bool observed_generation = false;
    bool any() const noexcept {
        return status || last_transition_time || reason || message || observed_generation;
    }
};

/// The writes that turn `current` into the desired status, reason, message and
/// observedGeneration. A status change (or a missing status) moves the
/// transition time; an entry without a transition time gets one without being
/// a transition; an absent field is written even when the desired value is empty.
condition_update plan_condition_update(const condition_view& current, std::string_view status,
                                       std::string_view reason, std::string_view message,
                                       std::int64_t observed_generation) noexcept;

} // namespace kcoro
