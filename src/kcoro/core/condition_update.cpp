#include <kcoro/core/condition_update.hpp>

namespace kcoro {

condition_update plan_condition_update(const condition_view& current, std::string_view status,
                                       std::string_view reason, std::string_view message,
                                       std::int64_t observed_generation) noexcept {
    condition_update u;
    if (current.status != status) {
        u.status = true;
        u.last_transition_time = true;
    } else if (!current.last_transition_time || current.last_transition_time->empty()) {
        u.last_transition_time = true; // malformed entry: filled, not a transition
    }
    u.reason = current.reason != reason;
    u.message = current.message != message;
    u.observed_generation = current.observed_generation != observed_generation;
    return u;
}

} // namespace kcoro
