#include <kcoro/runtime/manager_fsm.hpp>

#include <doctest/doctest.h>

#include <functional>
#include <set>
#include <sstream>
#include <string>

using namespace kcoro;
using namespace kcoro::runtime;
using namespace std::chrono_literals;
using ph = manager_fsm::phase;

// Failed checks print the actions (a std::vector is not found by ADL).
template <>
struct doctest::StringMaker<manager_actions> {
    static doctest::String convert(const manager_actions& a) {
        std::ostringstream os;
        os << a;
        return os.str().c_str();
    }
};
template <>
struct doctest::StringMaker<manager_action> {
    static doctest::String convert(const manager_action& a) {
        std::ostringstream os;
        os << a;
        return os.str().c_str();
    }
};

namespace {

const steady_time t0 = steady_time{} + 1000s;

manager_fsm_config config(bool elect) {
    manager_fsm_config c;
    c.leader_elect = elect;
    c.graceful_shutdown_timeout = 30s;
    c.cancel_bound = 5s;
    return c;
}

std::string describe(const manager_actions& a) {
    std::ostringstream os;
    os << a;
    return os.str();
}

// Runnable ids used throughout: 0 the informers (background), 1 a
// controller (leader-gated), 2 the elector once election started.
constexpr std::size_t informers = 0, controller = 1, elector = 2;

manager_fsm fresh(bool elect) {
    manager_fsm f(config(elect));
    CHECK(f.step(mgr::runnable_added{informers, runnable_kind::background}).empty());
    CHECK(f.step(mgr::runnable_added{controller, runnable_kind::leader_gated}).empty());
    return f;
}

// Drives a fresh fsm to `target` along the happy path (with leader election
// when `elect`); runnables 0..2 as above.
manager_fsm at(ph target, bool elect = true) {
    auto f = fresh(elect);
    auto go = [&](const manager_input& in) { f.step(in); };
    if (target == ph::idle) return f;
    go(mgr::run{t0});
    if (target == ph::binding) return f;
    go(mgr::servers_bound{t0});
    if (target == ph::syncing) return f;
    go(mgr::caches_synced{t0});
    if (elect) {
        go(mgr::runnable_added{elector, runnable_kind::elector});
        if (target == ph::electing) return f;
        go(mgr::started_leading{t0});
    }
    if (target == ph::leading) return f;
    go(mgr::stop_requested{t0});  // draining_leader_gated: the controller still runs
    if (target == ph::draining_leader_gated) return f;
    go(mgr::runnable_finished{t0, controller, false});  // releasing: the elector runs
    if (target == ph::releasing) return f;
    go(mgr::runnable_finished{t0, elector, false});  // draining_rest: informers run
    if (target == ph::draining_rest) return f;
    if (target == ph::cancelling) {
        go(mgr::deadline_passed{t0 + 30s});
        return f;
    }
    if (target == ph::stopped) {
        go(mgr::runnable_finished{t0, informers, false});
        return f;
    }
    go(mgr::crash{});
    return f;
}

const std::vector<ph> all_phases = {ph::idle,          ph::binding,    ph::syncing,      ph::electing,
                                    ph::leading,       ph::draining_leader_gated, ph::releasing,
                                    ph::draining_rest, ph::cancelling, ph::stopped,   ph::crashed};

struct named_input {
    std::string name;
    manager_input in;
};
std::vector<named_input> all_inputs() {
    const auto t = t0 + 1s;
    return {
        {"run", mgr::run{t}},
        {"runnable_added", mgr::runnable_added{7, runnable_kind::background}},
        {"servers_bound", mgr::servers_bound{t}},
        {"bind_failed", mgr::bind_failed{t}},
        {"caches_synced", mgr::caches_synced{t}},
        {"cache_sync_failed", mgr::cache_sync_failed{t}},
        {"started_leading", mgr::started_leading{t}},
        {"stopped_leading", mgr::stopped_leading{t}},
        {"stop_requested", mgr::stop_requested{t}},
        {"signal_received", mgr::signal_received{t, 15}},
        {"runnable_finished(controller)", mgr::runnable_finished{t, controller, false}},
        {"runnable_failed(informers)", mgr::runnable_finished{t, informers, true}},
        {"deadline_passed", mgr::deadline_passed{t + 60s}},
        {"crash", mgr::crash{}},
    };
}

bool has(const manager_actions& a, const manager_action& x) { return std::find(a.begin(), a.end(), x) != a.end(); }

template <class T>
bool has_kind(const manager_actions& a) {
    for (auto& x : a) {
        if (std::holds_alternative<T>(x)) return true;
    }
    return false;
}

} // namespace

TEST_CASE("happy path with leader election: the start order, then the stop order") {
    auto f = fresh(true);
    CHECK(f.current() == ph::idle);
    CHECK(f.step(mgr::run{t0}) == manager_actions{mgr::bind_servers{}});
    CHECK(f.current() == ph::binding);
    // 2. background runnables; 3. wait for the caches
    CHECK(f.step(mgr::servers_bound{t0}) == manager_actions{mgr::start_runnable{informers}, mgr::wait_for_sync{}});
    CHECK_FALSE(f.cache_synced());
    // 4. leader election
    CHECK(f.step(mgr::caches_synced{t0}) ==
          manager_actions{mgr::log{mgr::note::caches_synced}, mgr::start_election{}});
    CHECK(f.cache_synced());
    CHECK(f.current() == ph::electing);
    CHECK_FALSE(f.is_leader());
    CHECK(f.step(mgr::runnable_added{elector, runnable_kind::elector}) ==
          manager_actions{mgr::start_runnable{elector}});
    // 5. leader-gated runnables
    CHECK(f.step(mgr::started_leading{t0}) == manager_actions{mgr::start_runnable{controller}});
    CHECK(f.is_leader());
    // A runnable added while leading starts at once.
    CHECK(f.step(mgr::runnable_added{3, runnable_kind::leader_gated}) == manager_actions{mgr::start_runnable{3}});
    // a. stop taking work, b. wait (deadline)
    auto stop = f.step(mgr::stop_requested{t0 + 1s});
    CHECK(stop == manager_actions{mgr::log{mgr::note::stopping}, mgr::arm_deadline{t0 + 31s},
                                  mgr::stop_runnable{controller}, mgr::stop_runnable{3}});
    CHECK(f.current() == ph::draining_leader_gated);
    CHECK_FALSE(f.is_leader());
    CHECK(f.cache_synced());  // readiness does not depend on leadership
    // Nothing new starts while stopping.
    CHECK(f.step(mgr::runnable_added{4, runnable_kind::background}).empty());
    CHECK(f.step(mgr::runnable_finished{t0 + 2s, controller, false}).empty());
    // c. the elector stops (and releases) only after the last writer
    CHECK(f.step(mgr::runnable_finished{t0 + 2s, 3, false}) == manager_actions{mgr::stop_runnable{elector}});
    CHECK(f.current() == ph::releasing);
    // d. the rest
    CHECK(f.step(mgr::runnable_finished{t0 + 3s, elector, false}) == manager_actions{mgr::stop_runnable{informers}});
    // f. servers, exit 0
    CHECK(f.step(mgr::runnable_finished{t0 + 4s, informers, false}) ==
          manager_actions{mgr::stop_servers{}, mgr::log{mgr::note::stopped, 0}, mgr::finished{0}});
    CHECK(f.current() == ph::stopped);
    CHECK(f.exit_code() == 0);
    CHECK_FALSE(f.any_running());
}

TEST_CASE("without leader election the controllers start once the caches synced") {
    auto f = fresh(false);
    f.step(mgr::run{t0});
    f.step(mgr::servers_bound{t0});
    CHECK(f.step(mgr::caches_synced{t0}) ==
          manager_actions{mgr::log{mgr::note::caches_synced}, mgr::start_runnable{controller}});
    CHECK(f.is_leader());
    // The stop skips c (no elector).
    f.step(mgr::stop_requested{t0});
    CHECK(f.step(mgr::runnable_finished{t0, controller, false}) == manager_actions{mgr::stop_runnable{informers}});
    CHECK(f.current() == ph::draining_rest);
}

TEST_CASE("a failure injected at each phase of the start") {
    SUBCASE("bind failure: stop with exit 1, nothing started") {
        auto f = at(ph::binding);
        auto a = f.step(mgr::bind_failed{t0});
        CHECK(a == manager_actions{mgr::log{mgr::note::stopping}, mgr::arm_deadline{t0 + 30s}, mgr::stop_servers{},
                                   mgr::log{mgr::note::stopped, 1}, mgr::finished{1}});
        CHECK_FALSE(f.any_running());
    }
    SUBCASE("caches never sync: the sync wait fails, exit 1") {
        auto f = at(ph::syncing);
        auto a = f.step(mgr::cache_sync_failed{t0 + 120s});
        CHECK(a == manager_actions{mgr::log{mgr::note::stopping}, mgr::arm_deadline{t0 + 150s},
                                   mgr::stop_runnable{informers}});
        CHECK(f.step(mgr::runnable_finished{t0, informers, false}).back() == manager_action{mgr::finished{1}});
        CHECK_FALSE(f.cache_synced());
    }
    SUBCASE("a stop while syncing cancels the wait; a late answer is ignored") {
        auto f = at(ph::syncing);
        auto a = f.step(mgr::stop_requested{t0});
        CHECK(a.front() == manager_action{mgr::cancel_sync_wait{}});
        CHECK(f.step(mgr::caches_synced{t0}).empty());
        CHECK_FALSE(f.cache_synced());
        CHECK(f.step(mgr::runnable_finished{t0, informers, false}).back() == manager_action{mgr::finished{0}});
    }
    SUBCASE("a stop before run: the servers come up, then the stop order runs, exit 0") {
        auto f = fresh(true);
        CHECK(f.step(mgr::stop_requested{t0}).empty());
        CHECK(f.stopping());
        f.step(mgr::run{t0});
        auto a = f.step(mgr::servers_bound{t0});
        CHECK(a == manager_actions{mgr::start_runnable{informers}, mgr::log{mgr::note::stopping},
                                   mgr::arm_deadline{t0 + 30s}, mgr::stop_runnable{informers}});
        CHECK(f.step(mgr::runnable_finished{t0, informers, false}).back() == manager_action{mgr::finished{0}});
    }
    SUBCASE("a stop while electing: no controller ever starts") {
        auto f = at(ph::electing);
        f.step(mgr::stop_requested{t0});
        CHECK(f.current() == ph::releasing);  // no writer to wait for
        CHECK(f.step(mgr::started_leading{t0}).empty());
        CHECK_FALSE(f.is_running(controller));
    }
    SUBCASE("leadership lost: the writers are cancelled at once, exit 1") {
        auto f = at(ph::leading);
        auto a = f.step(mgr::stopped_leading{t0});
        CHECK(a == manager_actions{mgr::stop_runnable{controller}, mgr::cancel_runnable{controller},
                                   mgr::log{mgr::note::leadership_lost}, mgr::log{mgr::note::stopping},
                                   mgr::arm_deadline{t0 + 30s}, mgr::stop_runnable{controller}});
        f.step(mgr::runnable_finished{t0, controller, false});
        f.step(mgr::runnable_finished{t0, elector, false});
        CHECK(f.step(mgr::runnable_finished{t0, informers, false}).back() == manager_action{mgr::finished{1}});
    }
    SUBCASE("a runnable failing while leading stops the manager with exit 1") {
        auto f = at(ph::leading);
        auto a = f.step(mgr::runnable_finished{t0, informers, true});
        CHECK(has(a, mgr::log{mgr::note::stopping}));
        CHECK(has(a, mgr::stop_runnable{controller}));
        f.step(mgr::runnable_finished{t0, controller, false});
        CHECK(f.step(mgr::runnable_finished{t0, elector, false}).back() == manager_action{mgr::finished{1}});
    }
    SUBCASE("a runnable failing while syncing: exit 1") {
        auto f = at(ph::syncing);
        auto a = f.step(mgr::runnable_finished{t0, informers, true});
        CHECK(a.back() == manager_action{mgr::finished{1}});
    }
}

TEST_CASE("a failure injected at each phase of the stop") {
    SUBCASE("past the deadline while draining writers: everything cancelled, exit 1") {
        auto f = at(ph::draining_leader_gated);
        auto a = f.step(mgr::deadline_passed{t0 + 30s});
        CHECK(a == manager_actions{mgr::log{mgr::note::grace_expired}, mgr::cancel_runnable{informers},
                                   mgr::cancel_runnable{controller}, mgr::cancel_runnable{elector},
                                   mgr::arm_deadline{t0 + 35s}});
        CHECK(f.current() == ph::cancelling);
        f.step(mgr::runnable_finished{t0 + 31s, informers, true});  // cancelled: no new failure handling
        f.step(mgr::runnable_finished{t0 + 31s, controller, false});
        CHECK(f.step(mgr::runnable_finished{t0 + 31s, elector, false}) ==
              manager_actions{mgr::stop_servers{}, mgr::log{mgr::note::stopped, 1}, mgr::finished{1}});
    }
    SUBCASE("a runnable ignoring cancellation: the stop completes after the bound anyway") {
        auto f = at(ph::cancelling);
        CHECK(f.step(mgr::deadline_passed{t0 + 35s}).back() == manager_action{mgr::finished{1}});
        CHECK(f.any_running());  // left to the driver's reap
    }
    SUBCASE("past the deadline while releasing the lease") {
        auto f = at(ph::releasing);
        auto a = f.step(mgr::deadline_passed{t0 + 30s});
        CHECK(has(a, mgr::cancel_runnable{elector}));
        CHECK(f.exit_code() == 1);
    }
    SUBCASE("past the deadline while the informers stop") {
        auto f = at(ph::draining_rest);
        auto a = f.step(mgr::deadline_passed{t0 + 30s});
        CHECK(has(a, mgr::cancel_runnable{informers}));
        CHECK(f.step(mgr::runnable_finished{t0, informers, false}).back() == manager_action{mgr::finished{1}});
    }
    SUBCASE("a stale deadline of an earlier stop phase does nothing outside the stop") {
        auto f = at(ph::leading);
        CHECK(f.step(mgr::deadline_passed{t0 + 30s}).empty());
    }
    SUBCASE("leadership lost while draining cancels the writers, the exit code stays") {
        auto f = at(ph::draining_leader_gated);
        CHECK(f.step(mgr::stopped_leading{t0}) ==
              manager_actions{mgr::stop_runnable{controller}, mgr::cancel_runnable{controller}});
        f.step(mgr::runnable_finished{t0, controller, false});
        f.step(mgr::runnable_finished{t0, elector, false});
        CHECK(f.step(mgr::runnable_finished{t0, informers, false}).back() == manager_action{mgr::finished{0}});
    }
    SUBCASE("a second signal exits the process at once with 1") {
        auto f = at(ph::leading);
        auto first = f.step(mgr::signal_received{t0, 15});
        CHECK(first.front() == manager_action{mgr::log{mgr::note::signal_stop, 15}});
        CHECK(f.current() == ph::draining_leader_gated);
        CHECK(f.step(mgr::signal_received{t0, 2}) ==
              manager_actions{mgr::log{mgr::note::signal_exit, 2}, mgr::exit_process{1}});
    }
    SUBCASE("a runnable failing while draining keeps the stop's exit code") {
        auto f = at(ph::draining_rest);
        CHECK(f.step(mgr::runnable_finished{t0, informers, true}).back() == manager_action{mgr::finished{0}});
    }
}

TEST_CASE("a crash (kill -9) in every running phase cancels everything and releases nothing") {
    for (auto p : {ph::binding, ph::syncing, ph::electing, ph::leading, ph::draining_leader_gated, ph::releasing,
                   ph::draining_rest, ph::cancelling}) {
        CAPTURE(p);
        auto f = at(p);
        std::set<std::size_t> running;
        for (std::size_t id : {informers, controller, elector}) {
            if (f.is_running(id)) running.insert(id);
        }
        auto a = f.step(mgr::crash{});
        INFO(describe(a));
        CHECK(f.current() == ph::crashed);
        CHECK(a.front() == manager_action{mgr::log{mgr::note::crashed}});
        for (auto id : running) CHECK(has(a, mgr::cancel_runnable{id}));
        CHECK(has(a, mgr::stop_servers{}));
        CHECK(has(a, mgr::clear_leader_status{}));
        // No graceful stop, no release, no exit code decided.
        CHECK_FALSE(has_kind<mgr::stop_runnable>(a));
        CHECK_FALSE(has_kind<mgr::finished>(a));
        CHECK(has_kind<mgr::cancel_sync_wait>(a) == (p == ph::syncing));
        // Afterwards nothing decides anything.
        for (auto& n : all_inputs()) {
            CAPTURE(n.name);
            CHECK(f.step(n.in).empty());
            CHECK(f.current() == ph::crashed);
        }
    }
}

// Every input in every phase: the result is one of the transitions written
// in docs/architecture.md, and none is undefined: no start while stopping,
// no finished twice, stop actions only for runnables that run, the phase
// moves only forward along the orders.
TEST_CASE("table: every input in every phase") {
    auto rank = [](ph p) { return static_cast<int>(p); };
    for (bool elect : {true, false}) {
        for (auto p : all_phases) {
            if (!elect && (p == ph::electing || p == ph::releasing)) continue;
            for (auto& n : all_inputs()) {
                CAPTURE(elect);
                CAPTURE(p);
                CAPTURE(n.name);
                auto f = at(p, elect);
                REQUIRE(f.current() == p);
                const bool was_stopping = f.stopping();
                const auto before = f;
                auto a = f.step(n.in);
                INFO(describe(a));
                const auto q = f.current();
                // Forward only (crashed is the last phase; stopped -> crashed allowed).
                CHECK(rank(q) >= rank(p));
                if (p == ph::crashed) CHECK(a.empty());
                if (p == ph::stopped) {
                    // Done: only bookkeeping, except that a crash marks it.
                    CHECK(a.empty());
                }
                int finishes = 0;
                for (auto& x : a) {
                    if (auto* s = std::get_if<mgr::start_runnable>(&x)) {
                        CHECK_FALSE(was_stopping);
                        CHECK_FALSE(before.is_running(s->id));
                    }
                    if (auto* s = std::get_if<mgr::stop_runnable>(&x)) CHECK(before.is_running(s->id));
                    if (auto* c = std::get_if<mgr::cancel_runnable>(&x)) CHECK(before.is_running(c->id));
                    if (auto* fin = std::get_if<mgr::finished>(&x)) {
                        ++finishes;
                        CHECK(fin->code == f.exit_code());
                        CHECK(q == ph::stopped);
                    }
                    if (std::holds_alternative<mgr::exit_process>(x)) CHECK(n.name == "signal_received");
                }
                CHECK(finishes <= 1);
                if (q == ph::stopped && p != ph::stopped) CHECK(finishes == 1);
                // A leader-gated runnable runs only while leading or draining.
                if (f.is_running(controller) && !before.is_running(controller)) CHECK(q == ph::leading);
                // Leadership never survives a stop or a crash.
                if (f.stopping()) CHECK_FALSE(f.is_leader());
            }
        }
    }
}

TEST_CASE("actions print readably") {
    CHECK(describe({mgr::bind_servers{}, mgr::start_runnable{3}, mgr::arm_deadline{t0}, mgr::finished{1},
                    mgr::log{mgr::note::stopped, 1}}) ==
          "[bind_servers, start_runnable{3}, arm_deadline{1000000ms}, finished{1}, log{stopped,1}]");
    std::ostringstream os;
    os << ph::draining_leader_gated;
    CHECK(os.str() == "draining_leader_gated");
}
