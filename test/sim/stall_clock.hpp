// A replica's clock in the simulation: the world's virtual clock, except that
// while the replica is stalled (SIGSTOP, a long GC pause, CPU starvation) its
// timers do not fire. A sleeper due during a stall wakes when the stall ends,
// as every handler of a stopped process runs once it continues; now() is the
// world's time throughout, so what runs after the stall sees how long it was.
// The interposer holds the replica's responses and watch chunks the same way
// (world.cpp), so that after a stall its timers and its I/O are ready at
// once, in the order they became due: a reconcile may resume before the
// elector notices the lease is gone (the leader write guard's case).
//
// Thread safety: the io_context's one thread, like the clock it wraps.
#pragma once

#include <kcoro/io/clock.hpp>

#include <algorithm>

namespace kcoro::sim {

class stall_clock final : public io::clock {
public:
    explicit stall_clock(io::manual_clock& base) : base_(base) {}

    steady_time now() const override { return base_.now(); }
    wall_time wall_now() const override { return base_.wall_now(); }
    boost::asio::awaitable<boost::system::error_code> sleep_until(steady_time deadline) override {
        for (;;) {
            auto ec = co_await base_.sleep_until(deadline);
            if (ec || base_.now() >= until_) co_return ec;
            deadline = until_;  // due while stalled: when the stall ends
        }
    }

    /// Stalls the replica until `t` (a stall already longer is kept).
    void stall_until(steady_time t) noexcept { until_ = std::max(until_, t); }
    bool stalled() const noexcept { return base_.now() < until_; }
    steady_time stalled_until() const noexcept { return until_; }

private:
    io::manual_clock& base_;
    steady_time until_{};
};

} // namespace kcoro::sim
