// The manager's lifecycle as a pure state machine: `step(input) -> actions`,
// time passed in, no I/O. The driver (src/kcoro/server/manager.cpp) binds
// the servers, spawns and cancels the runnables, arms one timer and writes
// the log lines the actions name; every decision about what happens next is
// here. The start and stop orders are the ones written out in
// include/kcoro/server/manager.hpp.
//
// Phases (docs/architecture.md has the table of every input in every phase):
//
//   idle ─run─▶ binding ─servers_bound─▶ syncing ─caches_synced─▶ electing ─started_leading─▶ leading
//                  │                        │                        │                         │
//             bind_failed            sync_failed / stop        stop / lost              stop / lost / failed
//                  ▼                        ▼                        ▼                         ▼
//               draining_leader_gated ─▶ releasing ─▶ draining_rest ─▶ stopped
//                         (past the graceful deadline: cancelling ─▶ stopped)
//   any phase ─crash─▶ crashed (as kill -9: everything cancelled, nothing released)
//
// Without leader election `caches_synced` goes straight to leading. The
// runnables are numbered by the driver (`runnable_added`); the fsm tracks
// which are started and finished, so it knows when a drain is complete.
//
// Thread safety: a value used by one driver.
#pragma once

#include <kcoro/core/time.hpp>

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>
#include <variant>
#include <vector>

namespace kcoro::runtime {

struct manager_fsm_config {
    /// Leader election on: leader-gated runnables wait for started_leading.
    bool leader_elect = false;
    /// Stop order b-d deadline (--graceful-shutdown-timeout).
    std::chrono::nanoseconds graceful_shutdown_timeout = std::chrono::seconds(30);
    /// Past the deadline, how long the cancelled runnables may take to end
    /// before the stop completes anyway (they are reaped after it).
    std::chrono::nanoseconds cancel_bound = std::chrono::seconds(5);
};

/// What a runnable is, for the start and stop orders.
enum class runnable_kind {
    background,    // not leader-gated: informers, event recorders (start order 2)
    leader_gated,  // controllers (start order 5)
    elector,       // the leader elector itself (start order 4, stop order c)
};

namespace mgr {
// --- inputs ---------------------------------------------------------------
/// run() began.
struct run { steady_time now; };
/// The driver numbered a new runnable (ids are the driver's, unique).
struct runnable_added { std::size_t id; runnable_kind kind; };
/// Step 1 done: the metrics and probe servers listen, the watchdog ticks.
struct servers_bound { steady_time now; };
/// Step 1 failed (the driver logged why).
struct bind_failed { steady_time now; };
/// Step 3: every informer synced.
struct caches_synced { steady_time now; };
/// Step 3 failed: the sync timed out or failed (the driver logged why).
struct cache_sync_failed { steady_time now; };
/// The elector acquired the lease.
struct started_leading { steady_time now; };
/// The elector lost the lease.
struct stopped_leading { steady_time now; };
/// request_stop() (as SIGTERM, without the signal count).
struct stop_requested { steady_time now; };
/// SIGTERM or SIGINT.
struct signal_received { steady_time now; int signal; };
/// A runnable's coroutine ended; `failed`: it threw (the driver logged it).
struct runnable_finished { steady_time now; std::size_t id; bool failed; };
/// The deadline of the last arm_deadline passed.
struct deadline_passed { steady_time now; };
/// run_async() was cancelled, or the driver failed: stop as a killed process.
struct crash {};

// --- actions --------------------------------------------------------------
/// Step 1: listen on the metrics and probe addresses, start the watchdog;
/// feed servers_bound or bind_failed.
struct bind_servers {};
/// Spawn this runnable.
struct start_runnable { std::size_t id; };
/// Ask this runnable to stop taking work (runnable::stop()).
struct stop_runnable { std::size_t id; };
/// Cancel this runnable's coroutine at once (terminal).
struct cancel_runnable { std::size_t id; };
/// Step 3: wait for the informers; feed caches_synced or cache_sync_failed.
struct wait_for_sync {};
/// Stop waiting for the informers (a stop came first).
struct cancel_sync_wait {};
/// Step 4: build the elector and add it (runnable_added, kind elector).
struct start_election {};
/// Wake at `at` and feed deadline_passed (replaces any earlier deadline).
struct arm_deadline { steady_time at; };
/// Stop order f: the servers, the watchdog and the signal handler stop.
struct stop_servers {};
/// The leader gauge reads 0 (a crash: the elector cannot say so itself).
struct clear_leader_status {};
/// Exit the process now (a second signal).
struct exit_process { int code; };
/// run() completes with this exit code.
struct finished { int code; };

/// A log line the driver writes (what the operator reads; wording in the driver).
enum class note {
    caches_synced,         // info "caches synced"
    signal_stop,           // info "received signal, stopping"
    signal_exit,           // info "received a second signal, exiting now"
    leadership_lost,       // error "leader election lost"
    stopping,              // info "stopping and waiting for runnables"
    grace_expired,         // error "graceful shutdown timeout"
    stopped,               // info "stopped" {exitCode}
    crashed,               // info "run cancelled: stopping at once"
};
/// `value`: the signal number (signal_*), the exit code (stopped).
struct log { note what; int value = 0; };

bool operator==(const bind_servers&, const bind_servers&);
bool operator==(const start_runnable&, const start_runnable&);
bool operator==(const stop_runnable&, const stop_runnable&);
bool operator==(const cancel_runnable&, const cancel_runnable&);
bool operator==(const wait_for_sync&, const wait_for_sync&);
bool operator==(const cancel_sync_wait&, const cancel_sync_wait&);
bool operator==(const start_election&, const start_election&);
bool operator==(const arm_deadline&, const arm_deadline&);
bool operator==(const stop_servers&, const stop_servers&);
bool operator==(const clear_leader_status&, const clear_leader_status&);
bool operator==(const exit_process&, const exit_process&);
bool operator==(const finished&, const finished&);
bool operator==(const log&, const log&);
} // namespace mgr

using manager_input = std::variant<mgr::run, mgr::runnable_added, mgr::servers_bound, mgr::bind_failed,
                                   mgr::caches_synced, mgr::cache_sync_failed, mgr::started_leading,
                                   mgr::stopped_leading, mgr::stop_requested, mgr::signal_received,
                                   mgr::runnable_finished, mgr::deadline_passed, mgr::crash>;
using manager_action = std::variant<mgr::bind_servers, mgr::start_runnable, mgr::stop_runnable,
                                    mgr::cancel_runnable, mgr::wait_for_sync, mgr::cancel_sync_wait,
                                    mgr::start_election, mgr::arm_deadline, mgr::stop_servers,
                                    mgr::clear_leader_status, mgr::exit_process, mgr::finished, mgr::log>;
using manager_actions = std::vector<manager_action>;

std::ostream& operator<<(std::ostream& os, const manager_action& a);
std::ostream& operator<<(std::ostream& os, const manager_actions& a);

class manager_fsm {
public:
    enum class phase {
        idle,                   // before run()
        binding,                // 1. servers
        syncing,                // 2-3. background runnables started, caches syncing
        electing,               // 4. waiting for the lease
        leading,                // 5. leader-gated runnables run
        draining_leader_gated,  // a-b. they stop taking work, in-flight work finishes
        releasing,              // c. the elector stops (and releases the lease)
        draining_rest,          // d. informers and recorders stop
        cancelling,             // e. past the deadline: everything left cancelled
        stopped,                // f. done; run() returned exit_code()
        crashed,                // cancelled as kill -9: nothing released
    };

    explicit manager_fsm(manager_fsm_config cfg);

    manager_actions step(const manager_input& in);

    phase current() const noexcept { return phase_; }
    /// Leader-gated runnables may run (manager::is_leader).
    bool is_leader() const noexcept { return phase_ == phase::leading; }
    /// Every informer synced once (stays true while stopping).
    bool cache_synced() const noexcept { return synced_; }
    /// A stop (or crash) began: no runnable starts any more.
    bool stopping() const noexcept;
    /// The exit code so far (final once stopped).
    int exit_code() const noexcept { return code_; }
    /// A started runnable has not finished.
    bool any_running() const noexcept;
    /// This runnable was started and has not finished.
    bool is_running(std::size_t id) const noexcept;
    const manager_fsm_config& config() const noexcept { return cfg_; }

private:
    struct slot {
        runnable_kind kind = runnable_kind::background;
        bool known = false;
        bool started = false;
        bool finished = false;
    };

    void start(std::size_t id, manager_actions& out);
    void start_kind(runnable_kind k, manager_actions& out);
    bool kind_running(runnable_kind k) const noexcept;
    bool phase_started(runnable_kind k) const noexcept;
    void lose_leadership(manager_actions& out);
    void begin_stop(steady_time now, int code, manager_actions& out);
    void advance(steady_time now, manager_actions& out);
    void finish(manager_actions& out);
    void on_signal(const mgr::signal_received& s, manager_actions& out);
    void on_stop(steady_time now, manager_actions& out);
    void on_finished(const mgr::runnable_finished& f, manager_actions& out);
    void on_deadline(const mgr::deadline_passed& d, manager_actions& out);
    void on_crash(manager_actions& out);

    manager_fsm_config cfg_;
    phase phase_ = phase::idle;
    std::vector<slot> slots_;  // by runnable id
    bool synced_ = false;
    bool waiting_for_sync_ = false;
    bool stop_pending_ = false;  // a stop asked for before the servers were up
    bool failed_ = false;        // a runnable failed: exit_failure
    int signals_ = 0;
    int code_ = 0;
};

std::ostream& operator<<(std::ostream& os, manager_fsm::phase p);

} // namespace kcoro::runtime
