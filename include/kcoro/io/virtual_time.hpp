// Virtual time over a manual_clock: run the io_context until nothing is
// runnable, then jump the clock to the next sleeper's deadline, and repeat.
// An hour of watch timeouts, lease renewals and backoffs costs only the
// handlers that run, not the hour (the deterministic simulation's driver,
// docs/testing.md).
//
// Every timer of the code under test must sleep on the clock (ADR 0003):
// a real asio timer with a finite expiry would never be jumped to, and the
// run would end ("nothing left") or stall at it.
//
// Thread safety: the io_context must be run only by this thread.
#pragma once

#include <kcoro/io/clock.hpp>

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstdint>

namespace kcoro::io {

struct virtual_run_stats {
    std::uint64_t handlers = 0;  // handlers run
    std::uint64_t jumps = 0;     // times the clock moved to a next deadline
};

/// Runs until `done()` holds (true), or virtual time reaches `until` or
/// nothing is left to run and no one sleeps (false; done() is checked once
/// more). done() is checked whenever no handler is ready, so it sees
/// settled states only: every consequence of the last event has run.
template <class Pred>
bool run_virtual(boost::asio::io_context& io, manual_clock& clk, Pred&& done, steady_time until,
                 virtual_run_stats* stats = nullptr) {
    for (;;) {
        if (io.stopped()) io.restart();
        std::size_t n = 0;
        while (std::size_t k = io.poll()) {
            n += k;
            if (io.stopped()) io.restart();
        }
        if (stats) stats->handlers += n;
        if (done()) return true;
        if (clk.now() >= until) return false;
        const auto next = clk.next_deadline();
        if (!next) return done();
        if (*next > until) {
            // Never past the bound: the caller may go on from `until`.
            clk.advance(until - clk.now());
            continue;
        }
        clk.advance(*next > clk.now() ? *next - clk.now() : std::chrono::nanoseconds(0));
        if (stats) ++stats->jumps;
    }
}

/// run_virtual until `until` whatever happens (e.g. a quiet period).
inline void run_virtual_for(boost::asio::io_context& io, manual_clock& clk, std::chrono::nanoseconds d,
                            virtual_run_stats* stats = nullptr) {
    const auto until = clk.now() + d;
    run_virtual(io, clk, [&] { return clk.now() >= until; }, until, stats);
}

} // namespace kcoro::io
