#include <kcoro/runtime/manager_fsm.hpp>

#include <ostream>
#include <type_traits>

namespace kcoro::runtime {

namespace {
// The exit codes of manager::run() (server/manager.hpp), repeated here so
// the pure layer does not depend on the server.
constexpr int code_ok = 0;
constexpr int code_failure = 1;

const char* name_of(mgr::note n) {
    switch (n) {
    case mgr::note::caches_synced: return "caches_synced";
    case mgr::note::signal_stop: return "signal_stop";
    case mgr::note::signal_exit: return "signal_exit";
    case mgr::note::leadership_lost: return "leadership_lost";
    case mgr::note::stopping: return "stopping";
    case mgr::note::grace_expired: return "grace_expired";
    case mgr::note::stopped: return "stopped";
    case mgr::note::crashed: return "crashed";
    }
    return "?";
}
} // namespace

namespace mgr {
bool operator==(const bind_servers&, const bind_servers&) { return true; }
bool operator==(const start_runnable& a, const start_runnable& b) { return a.id == b.id; }
bool operator==(const stop_runnable& a, const stop_runnable& b) { return a.id == b.id; }
bool operator==(const cancel_runnable& a, const cancel_runnable& b) { return a.id == b.id; }
bool operator==(const wait_for_sync&, const wait_for_sync&) { return true; }
bool operator==(const cancel_sync_wait&, const cancel_sync_wait&) { return true; }
bool operator==(const start_election&, const start_election&) { return true; }
bool operator==(const arm_deadline& a, const arm_deadline& b) { return a.at == b.at; }
bool operator==(const stop_servers&, const stop_servers&) { return true; }
bool operator==(const clear_leader_status&, const clear_leader_status&) { return true; }
bool operator==(const exit_process& a, const exit_process& b) { return a.code == b.code; }
bool operator==(const finished& a, const finished& b) { return a.code == b.code; }
bool operator==(const log& a, const log& b) { return a.what == b.what && a.value == b.value; }
} // namespace mgr

std::ostream& operator<<(std::ostream& os, const manager_action& a) {
    auto ms = [](steady_time t) {
        return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    };
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, mgr::bind_servers>) os << "bind_servers";
            else if constexpr (std::is_same_v<T, mgr::start_runnable>) os << "start_runnable{" << x.id << "}";
            else if constexpr (std::is_same_v<T, mgr::stop_runnable>) os << "stop_runnable{" << x.id << "}";
            else if constexpr (std::is_same_v<T, mgr::cancel_runnable>) os << "cancel_runnable{" << x.id << "}";
            else if constexpr (std::is_same_v<T, mgr::wait_for_sync>) os << "wait_for_sync";
            else if constexpr (std::is_same_v<T, mgr::cancel_sync_wait>) os << "cancel_sync_wait";
            else if constexpr (std::is_same_v<T, mgr::start_election>) os << "start_election";
            else if constexpr (std::is_same_v<T, mgr::arm_deadline>) os << "arm_deadline{" << ms(x.at) << "ms}";
            else if constexpr (std::is_same_v<T, mgr::stop_servers>) os << "stop_servers";
            else if constexpr (std::is_same_v<T, mgr::clear_leader_status>) os << "clear_leader_status";
            else if constexpr (std::is_same_v<T, mgr::exit_process>) os << "exit_process{" << x.code << "}";
            else if constexpr (std::is_same_v<T, mgr::finished>) os << "finished{" << x.code << "}";
            else os << "log{" << name_of(x.what) << "," << x.value << "}";
        },
        a);
    return os;
}

std::ostream& operator<<(std::ostream& os, const manager_actions& a) {
    os << "[";
    for (std::size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
    return os << "]";
}

std::ostream& operator<<(std::ostream& os, manager_fsm::phase p) {
    using ph = manager_fsm::phase;
    switch (p) {
    case ph::idle: return os << "idle";
    case ph::binding: return os << "binding";
    case ph::syncing: return os << "syncing";
    case ph::electing: return os << "electing";
    case ph::leading: return os << "leading";
    case ph::draining_leader_gated: return os << "draining_leader_gated";
    case ph::releasing: return os << "releasing";
    case ph::draining_rest: return os << "draining_rest";
    case ph::cancelling: return os << "cancelling";
    case ph::stopped: return os << "stopped";
    case ph::crashed: return os << "crashed";
    }
    return os << "?";
}

manager_fsm::manager_fsm(manager_fsm_config cfg) : cfg_(cfg) {}

bool manager_fsm::stopping() const noexcept {
    switch (phase_) {
    case phase::draining_leader_gated:
    case phase::releasing:
    case phase::draining_rest:
    case phase::cancelling:
    case phase::stopped:
    case phase::crashed: return true;
    default: return stop_pending_;
    }
}

bool manager_fsm::is_running(std::size_t id) const noexcept {
    return id < slots_.size() && slots_[id].started && !slots_[id].finished;
}

bool manager_fsm::any_running() const noexcept {
    for (auto& s : slots_) {
        if (s.started && !s.finished) return true;
    }
    return false;
}

bool manager_fsm::kind_running(runnable_kind k) const noexcept {
    for (auto& s : slots_) {
        if (s.kind == k && s.started && !s.finished) return true;
    }
    return false;
}

bool manager_fsm::phase_started(runnable_kind k) const noexcept {
    if (stopping()) return false;
    switch (k) {
    case runnable_kind::background:
        return phase_ == phase::syncing || phase_ == phase::electing || phase_ == phase::leading;
    case runnable_kind::elector: return phase_ == phase::electing || phase_ == phase::leading;
    case runnable_kind::leader_gated: return phase_ == phase::leading;
    }
    return false;
}

void manager_fsm::start(std::size_t id, manager_actions& out) {
    auto& s = slots_[id];
    if (s.started) return;
    s.started = true;
    out.push_back(mgr::start_runnable{id});
}

void manager_fsm::start_kind(runnable_kind k, manager_actions& out) {
    for (std::size_t id = 0; id < slots_.size(); ++id) {
        if (slots_[id].known && slots_[id].kind == k) start(id, out);
    }
}

manager_actions manager_fsm::step(const manager_input& in) {
    manager_actions out;
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, mgr::crash>) {
                on_crash(out);
            } else if (phase_ == phase::crashed) {
                // A killed process decides nothing more; its coroutines are
                // reaped by the driver (runnable_finished only bookkeeping).
                if constexpr (std::is_same_v<T, mgr::runnable_finished>) {
                    if (x.id < slots_.size()) slots_[x.id].finished = true;
                } else if constexpr (std::is_same_v<T, mgr::runnable_added>) {
                    if (x.id >= slots_.size()) slots_.resize(x.id + 1);
                    slots_[x.id].known = true;
                    slots_[x.id].kind = x.kind;
                }
            } else if constexpr (std::is_same_v<T, mgr::run>) {
                if (phase_ != phase::idle) return;  // run() twice: the first one decides
                phase_ = phase::binding;
                out.push_back(mgr::bind_servers{});
            } else if constexpr (std::is_same_v<T, mgr::runnable_added>) {
                if (x.id >= slots_.size()) slots_.resize(x.id + 1);
                auto& s = slots_[x.id];
                if (s.known) return;  // the driver numbers each runnable once
                s.known = true;
                s.kind = x.kind;
                if (phase_started(x.kind)) start(x.id, out);
            } else if constexpr (std::is_same_v<T, mgr::servers_bound>) {
                if (phase_ != phase::binding) return;
                // 2. every runnable not gated by leadership; 3. the sync.
                phase_ = phase::syncing;
                start_kind(runnable_kind::background, out);
                if (stop_pending_) {
                    begin_stop(x.now, failed_ ? code_failure : code_ok, out);
                } else {
                    waiting_for_sync_ = true;
                    out.push_back(mgr::wait_for_sync{});
                }
            } else if constexpr (std::is_same_v<T, mgr::bind_failed>) {
                if (phase_ == phase::binding) begin_stop(x.now, code_failure, out);
            } else if constexpr (std::is_same_v<T, mgr::caches_synced>) {
                if (phase_ != phase::syncing) return;  // a stop came first
                waiting_for_sync_ = false;
                synced_ = true;
                out.push_back(mgr::log{mgr::note::caches_synced});
                if (cfg_.leader_elect) {
                    phase_ = phase::electing;
                    out.push_back(mgr::start_election{});
                } else {
                    phase_ = phase::leading;
                    start_kind(runnable_kind::leader_gated, out);
                }
            } else if constexpr (std::is_same_v<T, mgr::cache_sync_failed>) {
                if (phase_ != phase::syncing) return;
                waiting_for_sync_ = false;
                begin_stop(x.now, code_failure, out);
            } else if constexpr (std::is_same_v<T, mgr::started_leading>) {
                if (phase_ != phase::electing) return;  // stopping: never start writers now
                phase_ = phase::leading;
                start_kind(runnable_kind::leader_gated, out);
            } else if constexpr (std::is_same_v<T, mgr::stopped_leading>) {
                if (phase_ == phase::leading || phase_ == phase::electing) {
                    lose_leadership(out);
                    out.push_back(mgr::log{mgr::note::leadership_lost});
                    begin_stop(x.now, code_failure, out);
                } else if (phase_ == phase::draining_leader_gated) {
                    // Lost while draining: the writers go now (never two
                    // active writers); the exit code stays the stop's.
                    lose_leadership(out);
                }
            } else if constexpr (std::is_same_v<T, mgr::stop_requested>) {
                on_stop(x.now, out);
            } else if constexpr (std::is_same_v<T, mgr::signal_received>) {
                on_signal(x, out);
            } else if constexpr (std::is_same_v<T, mgr::runnable_finished>) {
                on_finished(x, out);
            } else {
                static_assert(std::is_same_v<T, mgr::deadline_passed>);
                on_deadline(x, out);
            }
        },
        in);
    return out;
}

void manager_fsm::lose_leadership(manager_actions& out) {
    for (std::size_t id = 0; id < slots_.size(); ++id) {
        if (slots_[id].kind != runnable_kind::leader_gated || !is_running(id)) continue;
        out.push_back(mgr::stop_runnable{id});
        out.push_back(mgr::cancel_runnable{id});
    }
}

void manager_fsm::on_stop(steady_time now, manager_actions& out) {
    switch (phase_) {
    case phase::idle:
    case phase::binding: stop_pending_ = true; break;  // acted on once the servers are up
    case phase::syncing:
    case phase::electing:
    case phase::leading: begin_stop(now, failed_ ? code_failure : code_ok, out); break;
    default: break;  // already stopping
    }
}

void manager_fsm::on_signal(const mgr::signal_received& s, manager_actions& out) {
    if (phase_ == phase::stopped) return;  // the handler is gone by then
    ++signals_;
    if (signals_ == 1) {
        out.push_back(mgr::log{mgr::note::signal_stop, s.signal});
        on_stop(s.now, out);
    } else {
        out.push_back(mgr::log{mgr::note::signal_exit, s.signal});
        out.push_back(mgr::exit_process{code_failure});
    }
}

void manager_fsm::begin_stop(steady_time now, int code, manager_actions& out) {
    code_ = code;
    stop_pending_ = false;
    if (waiting_for_sync_) {
        waiting_for_sync_ = false;
        out.push_back(mgr::cancel_sync_wait{});
    }
    out.push_back(mgr::log{mgr::note::stopping});
    out.push_back(mgr::arm_deadline{now + cfg_.graceful_shutdown_timeout});
    // a. leader-gated runnables stop taking work
    phase_ = phase::draining_leader_gated;
    for (std::size_t id = 0; id < slots_.size(); ++id) {
        if (slots_[id].kind == runnable_kind::leader_gated && is_running(id)) out.push_back(mgr::stop_runnable{id});
    }
    advance(now, out);
}

// Moves through the stop order as far as the runnables' completions allow.
void manager_fsm::advance(steady_time, manager_actions& out) {
    for (;;) {
        switch (phase_) {
        case phase::draining_leader_gated:
            // b. their in-flight work finished
            if (kind_running(runnable_kind::leader_gated)) return;
            // c. leader election (releases the lease after the writers stopped)
            phase_ = phase::releasing;
            for (std::size_t id = 0; id < slots_.size(); ++id) {
                if (slots_[id].kind == runnable_kind::elector && is_running(id)) out.push_back(mgr::stop_runnable{id});
            }
            break;
        case phase::releasing:
            if (kind_running(runnable_kind::elector)) return;
            // d. everything else
            phase_ = phase::draining_rest;
            for (std::size_t id = 0; id < slots_.size(); ++id) {
                if (slots_[id].kind == runnable_kind::background && is_running(id))
                    out.push_back(mgr::stop_runnable{id});
            }
            break;
        case phase::draining_rest:
            if (kind_running(runnable_kind::background)) return;
            finish(out);
            return;
        case phase::cancelling:
            if (any_running()) return;
            finish(out);
            return;
        default: return;
        }
    }
}

void manager_fsm::finish(manager_actions& out) {
    // f. servers and watchdog
    phase_ = phase::stopped;
    out.push_back(mgr::stop_servers{});
    out.push_back(mgr::log{mgr::note::stopped, code_});
    out.push_back(mgr::finished{code_});
}

void manager_fsm::on_finished(const mgr::runnable_finished& f, manager_actions& out) {
    if (f.id >= slots_.size() || !slots_[f.id].started || slots_[f.id].finished) return;
    slots_[f.id].finished = true;
    if (phase_ == phase::stopped) return;
    if (f.failed) {
        failed_ = true;
        // A failure stops the manager with exit_failure; once stopping, the
        // stop's exit code stands.
        on_stop(f.now, out);
        if (stop_pending_) return;
    }
    advance(f.now, out);
}

void manager_fsm::on_deadline(const mgr::deadline_passed& d, manager_actions& out) {
    switch (phase_) {
    case phase::draining_leader_gated:
    case phase::releasing:
    case phase::draining_rest:
        // e. past the deadline: cancel what is left
        out.push_back(mgr::log{mgr::note::grace_expired});
        code_ = code_failure;
        phase_ = phase::cancelling;
        for (std::size_t id = 0; id < slots_.size(); ++id) {
            if (is_running(id)) out.push_back(mgr::cancel_runnable{id});
        }
        out.push_back(mgr::arm_deadline{d.now + cfg_.cancel_bound});
        advance(d.now, out);
        break;
    case phase::cancelling: finish(out); break;  // stragglers are reaped after run()
    default: break;  // a deadline of an earlier phase
    }
}

void manager_fsm::on_crash(manager_actions& out) {
    if (phase_ == phase::crashed) return;
    const bool was_running = phase_ != phase::idle && phase_ != phase::stopped;
    phase_ = phase::crashed;
    stop_pending_ = false;
    if (!was_running) return;
    out.push_back(mgr::log{mgr::note::crashed});
    for (std::size_t id = 0; id < slots_.size(); ++id) {
        if (is_running(id)) out.push_back(mgr::cancel_runnable{id});
    }
    if (waiting_for_sync_) {
        waiting_for_sync_ = false;
        out.push_back(mgr::cancel_sync_wait{});
    }
    out.push_back(mgr::stop_servers{});
    if (cfg_.leader_elect) out.push_back(mgr::clear_leader_status{});
}

} // namespace kcoro::runtime
