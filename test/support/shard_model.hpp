// A model of a sharding ring's world for shard_membership_fsm (its unit test
// and its fuzz target): one Lease store with its history (each write a new
// revision), and replicas whose drivers do what their state machines ask at
// moments a chooser picks (a seeded PRNG, or the fuzzer's bytes), each
// replica's cache lagging behind the store by a chosen number of revisions
// but only moving forward, as a watch does. Faults: writes failing before or
// after their commit, late answers, writes cancelled at their deadline,
// reaps losing the compare-and-swap, kills,
// pauses, watch stalls, clean removals. The property, checked after every
// step: no hash is held (active, or dropped with reconciles still running)
// by two replicas whose validity has not ended.
#pragma once

#include <kcoro/runtime/shard_membership_fsm.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace kcoro::testing_shard {

using namespace kcoro::runtime;
using namespace std::chrono_literals;

inline const steady_time t0 = steady_time{} + std::chrono::seconds(1000);

inline shard_membership_config model_config(std::string id) {
    shard_membership_config c;
    c.ring = "mirror";
    c.identity = std::move(id);
    c.virtual_nodes = 16;  // the ring's quality is shard_ring_test's business
    c.join_settle = {};    // the admitting list at once; the settle has its own test
    return c;
}

inline shard_lease model_lease(std::string holder, std::string rv, std::optional<shard_announcement> a) {
    return shard_lease{std::move(holder), 15, "renew-" + rv, std::move(rv), std::move(a)};
}

struct model {
    enum class mode { running, paused, killed, stopped };
    struct replica {
        std::string id;
        shard_membership_fsm fsm;
        mode m = mode::running;
        steady_time paused_until{};
        steady_time watch_stalled_until{};  // its cache does not move before
        steady_time answer_not_before{};    // a slow answer to the write committed
        std::chrono::milliseconds next_answer_delay{};  // for the next write committed
        std::chrono::milliseconds pause_after_answer{}; // pause once that answer is in
        bool pause_on_answer = false;
        std::size_t cursor = 0;  // the revision its cache holds
        std::optional<shard_announcement> write;
        steady_time write_deadline{};  // the driver cancels the write then
        bool release = false;
        bool committed = false;
        std::vector<shard_reap> reaps;
        bool list = false;
        std::vector<hash_ranges> inflight;  // dropped, not yet drained
        std::optional<steady_time> wake;
        std::string stop_reason;
    };

    std::function<std::size_t(std::size_t)> choose;  // a number in [0, n)
    steady_time now = t0;
    // Revision -> every Lease (by name) at that revision.
    std::vector<std::map<std::string, shard_lease>> history{{}};
    std::vector<replica> replicas;
    int next_id = 0;
    std::uint64_t checks = 0;
    std::uint64_t handovers = 0;
    bool slow_answers = false;  // some answers to committed writes take seconds
    double write_failures = 0.05;  // writes failing before the commit
    double lost_answers = 0.03;    // answers lost after the commit

    std::string violation;  // the first broken property, empty while none
    std::function<void(const std::string&)> trace;  // sees every step when set

    explicit model(std::function<std::size_t(std::size_t)> c) : choose(std::move(c)) {}

    bool chance(double p) { return static_cast<double>(choose(10000)) < p * 10000; }
    std::size_t pick(std::size_t n) { return n == 0 ? 0 : std::min(choose(n), n - 1); }

    const std::map<std::string, shard_lease>& store() const { return history.back(); }
    void commit(std::map<std::string, shard_lease> next) { history.push_back(std::move(next)); }
    std::string revision() const { return std::to_string(history.size()); }

    replica& add() {
        auto id = "mirror-" + std::to_string(next_id++) + "_uuid";
        auto cfg = model_config(id);
        if (chance(0.5)) cfg.join_settle = cfg.retry_period;  // the manager's setting, for half of them
        replicas.push_back(replica{id, shard_membership_fsm(cfg)});
        auto& r = replicas.back();
        r.cursor = history.size() - 1;
        feed(replicas.size() - 1, sm::start{now});
        return replicas.back();
    }

    void fail(std::string what) {
        if (violation.empty()) violation = std::move(what);
    }

    void feed(std::size_t i, const sm_input& in) {
        auto& r = replicas[i];
        const auto before = r.fsm.active();
        auto a = r.fsm.step(in);
        if (trace) {
            std::ostringstream os;
            os << (now - t0) / 1ms << " ms " << r.id << " input " << in.index() << " -> " << a;
            trace(os.str());
        }
        if (!a.drop.empty()) r.inflight.push_back(a.drop);
        if (a.write) {
            if (r.write) fail(r.id + ": a second write while one is in flight");
            r.write = a.write;
            r.release = a.release;
            r.write_deadline = a.write_deadline;
            r.committed = false;
        }
        for (auto& x : a.reap) r.reaps.push_back(x);
        if (a.list_leases) r.list = true;
        r.wake = a.wake_at;
        if (a.stopped) {
            r.m = mode::stopped;
            r.stop_reason = a.reason;
        }
        if (a.active_changed) handovers += subtract(r.fsm.active(), before).empty() ? 0 : 1;
        check_invariant();
    }

    // No hash is held (active, or dropped with reconciles still running) by
    // two replicas whose Lease still counts as theirs.
    void check_invariant() {
        ++checks;
        std::vector<std::pair<std::string, hash_ranges>> held;
        for (auto& r : replicas) {
            if (now >= r.fsm.valid_until()) continue;
            held.emplace_back(r.id, unite(r.fsm.active(), r.fsm.draining()));
        }
        for (std::size_t a = 0; a < held.size(); ++a) {
            for (std::size_t b = a + 1; b < held.size(); ++b) {
                if (overlaps(held[a].second, held[b].second)) {
                    fail("at " + std::to_string((now - t0) / 1ms) + " ms: " + held[a].first + " and " + held[b].first +
                         " both hold a hash");
                }
            }
        }
    }

    std::vector<shard_lease> snapshot(std::size_t rev) const {
        std::vector<shard_lease> out;
        for (const auto& [name, l] : history[rev]) out.push_back(l);
        return out;
    }

    // One random thing happens to replica i.
    void act(std::size_t i) {
        auto& r = replicas[i];
        if (r.m != mode::running) return;
        if (r.wake && *r.wake <= now) {
            feed(i, sm::tick{now});
            return;
        }
        switch (pick(7)) {
        case 0:  // the write reaches the store (or fails before it)
            if (r.write && !r.committed) {
                if (now >= r.write_deadline) {  // cancelled before it reached the store
                    r.write.reset();
                    feed(i, sm::lease_write_failed{now});
                    return;
                }
                auto next = store();
                auto it = next.find(r.id);
                if (it != next.end() && it->second.holder != r.id) {
                    // A 409, and the Lease re-read no longer names us: reaped.
                    r.write.reset();
                    feed(i, sm::lease_lost{now});
                    return;
                }
                if (chance(write_failures)) {  // a transport failure
                    r.write.reset();
                    feed(i, sm::lease_write_failed{now});
                    return;
                }
                next[r.id] = model_lease(r.release ? "" : r.id, revision(), *r.write);
                commit(std::move(next));
                r.committed = true;
                if (slow_answers && chance(0.05)) r.answer_not_before = now + std::chrono::milliseconds(1000 + pick(9000));
                if (r.next_answer_delay > 0ms) {
                    r.answer_not_before = now + r.next_answer_delay;
                    r.next_answer_delay = 0ms;
                    r.pause_on_answer = r.pause_after_answer > 0ms;
                }
            }
            break;
        case 1:  // the write's answer arrives (rarely lost after the commit)
            if (r.write && r.committed && (now >= r.answer_not_before || now >= r.write_deadline)) {
                r.write.reset();
                if (now >= r.write_deadline) {  // cancelled: committed, but the driver gave up
                    r.pause_on_answer = false;
                    feed(i, sm::lease_write_failed{now});
                } else if (r.pause_on_answer) {
                    feed(i, sm::lease_written{now});
                    r.m = mode::paused;
                    r.paused_until = now + r.pause_after_answer;
                    r.pause_on_answer = false;
                } else if (chance(lost_answers)) {
                    feed(i, sm::lease_write_failed{now});
                } else {
                    feed(i, sm::lease_written{now});
                }
            }
            break;
        case 2:  // the watch delivers some revisions
            if (r.cursor + 1 < history.size() && now >= r.watch_stalled_until) {
                r.cursor += 1 + pick(history.size() - 1 - r.cursor);
                feed(i, sm::leases_observed{now, snapshot(r.cursor), false});
            }
            break;
        case 3:  // the consistent list asked for
            if (r.list) {
                r.list = false;
                r.cursor = history.size() - 1;
                feed(i, sm::leases_observed{now, snapshot(r.cursor), true});
            }
            break;
        case 4:  // a reap: compare-and-swap on the resourceVersion seen
            if (!r.reaps.empty()) {
                auto x = r.reaps.front();
                r.reaps.erase(r.reaps.begin());
                auto next = store();
                auto it = next.find(x.holder);
                if (it != next.end() && it->second.holder == x.holder && it->second.resource_version == x.resource_version) {
                    it->second.holder.clear();
                    it->second.resource_version = revision();
                    commit(std::move(next));
                    feed(i, sm::reaped{now, x.holder});
                } else {
                    feed(i, sm::reap_failed{now, x.holder});
                }
            }
            break;
        case 5:  // the reconciles of a dropped range end
            if (!r.inflight.empty()) {
                auto d = r.inflight.front();
                r.inflight.erase(r.inflight.begin());
                feed(i, sm::drained{now, d});
            }
            break;
        default:
            feed(i, sm::tick{now});
        }
    }

    // Time moves by up to max_gap between rounds; in each round about two
    // random things happen per replica, so a write usually completes within
    // a few hundred milliseconds and a slow one is rare.
    void run(std::chrono::milliseconds for_, std::chrono::milliseconds max_gap = 100ms) {
        const auto end = now + for_;
        while (now < end && violation.empty()) {
            now += std::chrono::milliseconds(pick(static_cast<std::size_t>(max_gap.count()) + 1));
            for (auto& r : replicas) {
                if (r.m == mode::paused && now >= r.paused_until) r.m = mode::running;
            }
            for (std::size_t k = 0; k < 2 * replicas.size(); ++k) act(pick(replicas.size()));
        }
    }

    replica* find(const std::string& id) {
        for (auto& r : replicas) {
            if (r.id == id) return &r;
        }
        return nullptr;
    }

    std::vector<std::string> running_ids() const {
        std::vector<std::string> ids;
        for (const auto& r : replicas) {
            if (r.m == mode::running) ids.push_back(r.id);
        }
        return ids;
    }

    // Every running replica is active on exactly its share of the ring of
    // the running replicas (which then partition the space).
    bool converged(std::string* why = nullptr) const {
        const shard_ring ring(running_ids(), 16);
        for (const auto& r : replicas) {
            if (r.m != mode::running) continue;
            if (r.fsm.active() != ring.ranges_of(r.id) || !r.fsm.draining().empty() || now >= r.fsm.valid_until()) {
                if (why) {
                    *why = r.id + ": active " + std::to_string(fraction_of_space(r.fsm.active())) + " of " +
                           std::to_string(fraction_of_space(ring.ranges_of(r.id))) + ", draining " +
                           std::to_string(r.fsm.draining().size()) + " ranges, view of " +
                           std::to_string(r.fsm.view().size()) + ", " + std::to_string(ring.members().size()) +
                           " running";
                }
                return false;
            }
        }
        if (why && ring.empty()) *why = "no replica runs";
        return !ring.empty();
    }

    // Runs until converged; returns how long it took.
    std::chrono::milliseconds settle(std::chrono::milliseconds limit = 120s) {
        const auto from = now;
        while (!converged() && violation.empty() && now - from < limit) run(100ms);
        return std::chrono::duration_cast<std::chrono::milliseconds>(now - from);
    }
};

} // namespace kcoro::testing_shard
