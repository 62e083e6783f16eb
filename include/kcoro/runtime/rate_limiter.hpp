// The workqueue's rate limiters, as client-go's workqueue package has them,
// pure with time passed in:
//  - `item_exponential_limiter`: per key, base × 2^failures capped at max
//    (controller-runtime's default 5 ms → 1000 s); `forget` resets a key.
//  - `default_controller_limiter`: the max of the per-key limiter and an
//    optional overall token bucket (10 qps, burst 100), as
//    workqueue.DefaultTypedControllerRateLimiter does.
//
// Thread safety: none; owned by one work_queue on one io_context.
#pragma once

#include <kcoro/core/resource.hpp>
#include <kcoro/core/time.hpp>
#include <kcoro/core/token_bucket.hpp>

#include <chrono>
#include <map>
#include <optional>

namespace kcoro::runtime {

class item_exponential_limiter {
public:
    explicit item_exponential_limiter(std::chrono::nanoseconds base = std::chrono::milliseconds(5),
                                      std::chrono::nanoseconds max = std::chrono::seconds(1000)) noexcept
        : base_(base), max_(max) {}

    /// The delay for this failure of `key`, and counts the failure.
    std::chrono::nanoseconds when(const object_key& key);
    /// Clears the failure count of `key`.
    void forget(const object_key& key) { failures_.erase(key); }
    /// Failures counted for `key` since the last forget.
    int num_requeues(const object_key& key) const noexcept;

private:
    std::chrono::nanoseconds base_;
    std::chrono::nanoseconds max_;
    std::map<object_key, int> failures_;
};

struct bucket_options {
    double qps = 10;
    int burst = 100;
};

struct rate_limiter_options {
    std::chrono::nanoseconds base_delay = std::chrono::milliseconds(5);
    std::chrono::nanoseconds max_delay = std::chrono::seconds(1000);
    /// The overall bucket; nullopt disables it.
    std::optional<bucket_options> bucket = bucket_options{};
};

/// MaxOf(per-key exponential, overall bucket).
class default_controller_limiter {
public:
    explicit default_controller_limiter(rate_limiter_options opts = {});

    /// Delay before `key` may be retried; counts a failure for it.
    std::chrono::nanoseconds when(const object_key& key, steady_time now);
    void forget(const object_key& key) { items_.forget(key); }
    int num_requeues(const object_key& key) const noexcept { return items_.num_requeues(key); }

private:
    rate_limiter_options opts_;
    item_exponential_limiter items_;
    // Created at the first `when`, since a bucket starts full at a time point.
    std::optional<token_bucket> bucket_;
};

} // namespace kcoro::runtime
