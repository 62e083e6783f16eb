// Time only through an injectable clock (ADR 0003). Every timer in kcoro
// (RequeueAfter, backoff, lease renewal, token refresh, bookmarks) sleeps on
// a `clock`, so tests and the deterministic simulation can drive time by
// hand. Pure code never reads a clock: it is given time points.
//
// Thread safety: a clock is used from the one io_context it serves.
#pragma once

#include <kcoro/core/time.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>

namespace kcoro::io {

using kcoro::steady_time;
using kcoro::wall_time;

class clock {
public:
    virtual ~clock() = default;
    /// Monotonic time, for deadlines and durations.
    virtual steady_time now() const = 0;
    /// Wall time, for timestamps written to objects (lease renewTime, conditions).
    virtual wall_time wall_now() const = 0;
    /// Completes at `deadline` with no error, or with operation_aborted when the
    /// awaiting coroutine's cancellation slot fires first.
    virtual boost::asio::awaitable<boost::system::error_code> sleep_until(steady_time deadline) = 0;

    boost::asio::awaitable<boost::system::error_code> sleep_for(std::chrono::nanoseconds d);
};

/// The real clock, over asio::steady_timer.
class system_clock final : public clock {
public:
    steady_time now() const override { return std::chrono::steady_clock::now(); }
    wall_time wall_now() const override { return std::chrono::system_clock::now(); }
    boost::asio::awaitable<boost::system::error_code> sleep_until(steady_time deadline) override;
};

/// A clock that only moves when told: `advance` wakes the sleepers whose
/// deadline has passed, in deadline order (ties in order of sleeping).
class manual_clock final : public clock {
public:
    explicit manual_clock(wall_time wall_start = wall_time{} + std::chrono::hours(24 * 365 * 56));
    steady_time now() const override { return now_; }
    wall_time wall_now() const override { return wall_start_ + (now_ - steady_time{}); }
    boost::asio::awaitable<boost::system::error_code> sleep_until(steady_time deadline) override;

    /// Moves time forward and wakes due sleepers (they resume when the
    /// io_context next runs handlers).
    void advance(std::chrono::nanoseconds d);
    /// Moves time to the earliest pending deadline, if any; returns false when
    /// nobody sleeps.
    bool advance_to_next();
    /// The earliest deadline of a sleeper not yet woken; nullopt when none.
    std::optional<steady_time> next_deadline() const noexcept;
    std::size_t sleepers() const noexcept { return waiters_.size(); }

private:
    struct waiter;
    steady_time now_{};
    wall_time wall_start_;
    std::uint64_t seq_ = 0;
    std::map<std::pair<steady_time, std::uint64_t>, waiter*> waiters_;
};

} // namespace kcoro::io
