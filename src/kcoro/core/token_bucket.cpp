#include <kcoro/core/token_bucket.hpp>

#include <algorithm>

namespace kcoro {

token_bucket::token_bucket(double qps, int burst, steady_time now) noexcept
    : qps_(qps > 0 ? qps : 1e-9), burst_(std::max(burst, 1)), tokens_(burst_), last_(now) {}

void token_bucket::refill(steady_time now) noexcept {
    if (now <= last_) {
        return;
    }
    double elapsed = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min<double>(burst_, tokens_ + elapsed * qps_);
    last_ = now;
}

std::chrono::nanoseconds token_bucket::reserve(steady_time now) noexcept {
    refill(now);
    tokens_ -= 1.0;
    if (tokens_ >= 0) {
        return std::chrono::nanoseconds(0);
    }
    // A negative balance is the queue of reservations ahead of this one.
    return std::chrono::nanoseconds(static_cast<long long>(-tokens_ / qps_ * 1e9));
}

bool token_bucket::try_take(steady_time now) noexcept {
    refill(now);
    if (tokens_ >= 1.0) {
        tokens_ -= 1.0;
        return true;
    }
    return false;
}

} // namespace kcoro
