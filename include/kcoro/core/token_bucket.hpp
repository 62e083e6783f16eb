// A token bucket with time passed in (client QPS/burst limiter, the
// workqueue's overall 10 qps / burst 100 limiter). Pure; not thread-safe.
#pragma once

#include <kcoro/core/time.hpp>

#include <chrono>

namespace kcoro {

class token_bucket {
public:
    /// `qps` tokens per second, at most `burst` stored; starts full at `now`.
    token_bucket(double qps, int burst, steady_time now) noexcept;

    /// Reserves one token and returns how long the caller must wait before
    /// using it (zero when one is available now). Reservations queue up, as
    /// golang.org/x/time/rate's Reserve does, so N calls at once are spread.
    std::chrono::nanoseconds reserve(steady_time now) noexcept;

    /// Takes a token only if one is available now.
    bool try_take(steady_time now) noexcept;

    double qps() const noexcept { return qps_; }
    int burst() const noexcept { return burst_; }

private:
    void refill(steady_time now) noexcept;
    double qps_;
    int burst_;
    double tokens_;
    steady_time last_;
};

} // namespace kcoro
