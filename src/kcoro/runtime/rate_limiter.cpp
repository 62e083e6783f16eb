#include <kcoro/runtime/rate_limiter.hpp>

#include <algorithm>

namespace kcoro::runtime {

std::chrono::nanoseconds item_exponential_limiter::when(const object_key& key) {
    int exp = failures_[key]++;
    // Saturate before the shift can overflow: 2^62 ns is far past any cap.
    if (exp >= 62) {
        return max_;
    }
    auto factor = std::int64_t{1} << exp;
    if (base_.count() > 0 && factor > max_.count() / base_.count()) {
        return max_;
    }
    return std::min(max_, base_ * factor);
}

int item_exponential_limiter::num_requeues(const object_key& key) const noexcept {
    auto it = failures_.find(key);
    return it == failures_.end() ? 0 : it->second;
}

default_controller_limiter::default_controller_limiter(rate_limiter_options opts)
    : opts_(opts), items_(opts.base_delay, opts.max_delay) {}

std::chrono::nanoseconds default_controller_limiter::when(const object_key& key, steady_time now) {
    auto d = items_.when(key);
    if (opts_.bucket) {
        if (!bucket_) {
            bucket_.emplace(opts_.bucket->qps, opts_.bucket->burst, now);
        }
        d = std::max(d, bucket_->reserve(now));
    }
    return d;
}

} // namespace kcoro::runtime
