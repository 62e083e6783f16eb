#include <kcoro/runtime/shard_membership_fsm.hpp>

#include <kcoro/core/object.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <sstream>

using namespace kcoro;
using namespace kcoro::runtime;
using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
const hash_ranges everything{{0, top}};
const steady_time t0 = steady_time{} + 1000s;

shard_membership_config config(std::string id) {
    shard_membership_config c;
    c.ring = "mirror";
    c.identity = std::move(id);
    c.virtual_nodes = 16;  // the ring's quality is shard_ring_test's business
    return c;
}

shard_lease lease(std::string holder, std::string rv, std::optional<shard_announcement> a) {
    return shard_lease{std::move(holder), 15, "renew-" + rv, std::move(rv), std::move(a)};
}

// ---------------------------------------------------------------------------
// A model of the ring's world: one Lease store with its history (each write a
// new revision), and replicas whose drivers do what their FSM asks at random
// moments, each replica's cache lagging behind the store by a random number of
// revisions but only moving forward, as a watch does.
// ---------------------------------------------------------------------------
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
        bool release = false;
        bool committed = false;
        std::vector<shard_reap> reaps;
        bool list = false;
        std::vector<hash_ranges> inflight;  // dropped, not yet drained
        std::optional<steady_time> wake;
        std::string stop_reason;
    };

    std::mt19937_64 rng;
    steady_time now = t0;
    // Revision -> every Lease (by name) at that revision.
    std::vector<std::map<std::string, shard_lease>> history{{}};
    std::vector<replica> replicas;
    int next_id = 0;
    std::uint64_t checks = 0;
    std::uint64_t handovers = 0;
    bool slow_answers = false;  // some answers to committed writes take seconds

    explicit model(std::uint64_t seed) : rng(seed) {}

    bool chance(double p) { return std::uniform_real_distribution<>(0, 1)(rng) < p; }
    std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); }

    const std::map<std::string, shard_lease>& store() const { return history.back(); }
    void commit(std::map<std::string, shard_lease> next) { history.push_back(std::move(next)); }
    std::string revision() const { return std::to_string(history.size()); }

    replica& add() {
        auto id = "mirror-" + std::to_string(next_id++) + "_uuid";
        replicas.push_back(replica{id, shard_membership_fsm(config(id))});
        auto& r = replicas.back();
        r.cursor = history.size() - 1;
        feed(replicas.size() - 1, sm::start{now});
        return replicas.back();
    }

    void feed(std::size_t i, const sm_input& in) {
        auto& r = replicas[i];
        const auto before = r.fsm.active();
        auto a = r.fsm.step(in);
        if (!a.drop.empty()) r.inflight.push_back(a.drop);
        if (a.write) {
            REQUIRE_FALSE(r.write);  // one write at a time
            r.write = a.write;
            r.release = a.release;
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
                INFO("at " << (now - t0) / 1ms << " ms: " << held[a].first << " and " << held[b].first);
                REQUIRE_FALSE(overlaps(held[a].second, held[b].second));
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
                auto next = store();
                auto it = next.find(r.id);
                if (chance(0.05) || (it != next.end() && it->second.holder != r.id)) {
                    // A transport failure, or a 409: our Lease was reaped.
                    r.write.reset();
                    feed(i, sm::lease_write_failed{now});
                    return;
                }
                next[r.id] = lease(r.release ? "" : r.id, revision(), *r.write);
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
            if (r.write && r.committed && now >= r.answer_not_before) {
                r.write.reset();
                if (r.pause_on_answer) {
                    feed(i, sm::lease_written{now});
                    r.m = mode::paused;
                    r.paused_until = now + r.pause_after_answer;
                    r.pause_on_answer = false;
                } else if (chance(0.03)) {
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
        while (now < end) {
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
    bool converged(bool explain = false) const {
        const shard_ring ring(running_ids(), 16);
        for (const auto& r : replicas) {
            if (r.m != mode::running) continue;
            if (r.fsm.active() != ring.ranges_of(r.id) || !r.fsm.draining().empty() || now >= r.fsm.valid_until()) {
                if (explain) {
                    MESSAGE(r.id << " state " << int(r.fsm.current()) << " active " << fraction_of_space(r.fsm.active())
                                 << " of " << fraction_of_space(ring.ranges_of(r.id)) << " draining "
                                 << r.fsm.draining().size() << " view " << r.fsm.view().size() << " running "
                                 << ring.members().size() << " gen " << r.fsm.generation() << " announced "
                                 << to_annotation(r.fsm.announced()).substr(0, 300));
                }
                return false;
            }
        }
        if (explain && ring.empty()) MESSAGE("no replica runs");
        return !ring.empty();
    }

    // Runs until converged; returns how long it took.
    std::chrono::milliseconds settle(std::chrono::milliseconds limit = 120s) {
        const auto from = now;
        while (!converged() && now - from < limit) run(100ms);
        return std::chrono::duration_cast<std::chrono::milliseconds>(now - from);
    }
};

template <class T>
std::string text(const T& x) {
    std::ostringstream os;
    os << x;
    return os.str();
}

} // namespace

TEST_CASE("the announcement round-trips through the annotation, bad ones read as nullopt") {
    shard_announcement a{7, {"a_1", "b_2"}, {{0, 0xff}, {0x8000000000000000ULL, top}}, {{"b_2", 3}}};
    const auto s = to_annotation(a);
    CHECK(s.find("[\"0x8000000000000000\",\"0x10000000000000000\"]") != std::string::npos);
    CHECK(s.find("[\"0x0000000000000000\",\"0x0000000000000100\"]") != std::string::npos);
    CHECK(parse_announcement(s) == a);
    CHECK_FALSE(parse_announcement("").has_value());
    CHECK_FALSE(parse_announcement("[]").has_value());
    CHECK_FALSE(parse_announcement(R"({"claimed":[]})").has_value());  // no generation
    CHECK_FALSE(parse_announcement(R"({"gen":1,"claimed":[["0x10","0x20"]]})").has_value());  // not 16 digits
    CHECK_FALSE(parse_announcement(R"({"gen":1,"claimed":[["0x0000000000000020","0x0000000000000010"]]})").has_value());
    CHECK(parse_announcement(R"({"gen":1,"claimed":[]})") == shard_announcement{1, {}, {}, {}});
}

TEST_CASE("shard_lease_of reads a Lease") {
    boost::json::object l{{"apiVersion", "coordination.k8s.io/v1"}, {"kind", "Lease"}};
    mutable_metadata(l)["resourceVersion"] = "42";
    l["spec"] = boost::json::object{{"holderIdentity", "a_1"}, {"leaseDurationSeconds", 15},
                                    {"renewTime", "2026-12-05T08:00:00.000000Z"}};
    set_annotation(l, shard_state_annotation, to_annotation({3, {"a_1"}, everything, {}}));
    const auto s = shard_lease_of(l);
    CHECK(s.holder == "a_1");
    CHECK(s.lease_duration_seconds == 15);
    CHECK(s.renew_time == "2026-12-05T08:00:00.000000Z");
    CHECK(s.resource_version == "42");
    REQUIRE(s.announcement.has_value());
    CHECK(s.announcement->generation == 3);
    CHECK(s.announcement->claimed == everything);
}

TEST_CASE("a lone replica: announce, list, claim, activate; stop when the Lease is not renewed") {
    shard_membership_fsm fsm(config("a_1"));
    auto a = fsm.step(sm::start{t0});
    REQUIRE(a.write.has_value());  // announce ourselves first, claiming nothing
    CHECK(a.write->claimed.empty());
    CHECK_FALSE(a.release);
    // No activation before our Lease is written and a fresh list is read.
    a = fsm.step(sm::leases_observed{t0, {}, true});
    CHECK(fsm.active().empty());
    a = fsm.step(sm::lease_written{t0 + 100ms});
    CHECK(a.list_leases);
    CHECK(fsm.valid_until() == t0 + 10s);  // from the write's start
    CHECK(fsm.active().empty());
    a = fsm.step(sm::leases_observed{t0 + 200ms, {lease("a_1", "1", shard_announcement{1, {"a_1"}, {}, {}})}, true});
    REQUIRE(a.write.has_value());  // the claim first...
    CHECK(a.write->claimed == everything);
    const auto gen = a.write->generation;
    CHECK(gen > 1);
    CHECK(fsm.active().empty());
    a = fsm.step(sm::lease_written{t0 + 300ms});  // ...then the range
    CHECK(a.active_changed);
    CHECK(fsm.active() == everything);
    CHECK(fsm.may_reconcile(12345, t0 + 300ms));
    CHECK(fsm.announced().generation == gen);
    REQUIRE(a.wake_at.has_value());
    CHECK(*a.wake_at == t0 + 200ms + 2s);  // the renewal: a retry period after the write began

    // Renewals fail from now on: everything stops at the validity's end.
    a = fsm.step(sm::tick{t0 + 2200ms});
    REQUIRE(a.write.has_value());
    a = fsm.step(sm::lease_write_failed{t0 + 3s});
    CHECK_FALSE(a.write.has_value());  // a retry period later
    CHECK(fsm.may_reconcile(1, t0 + 10s - 1ms));
    CHECK_FALSE(fsm.may_reconcile(1, t0 + 10200ms));
    a = fsm.step(sm::tick{t0 + 10200ms});
    CHECK(a.stopped);
    CHECK(a.drop == everything);
    CHECK(fsm.active().empty());
    CHECK(fsm.current() == shard_membership_fsm::state::stopped);
    INFO(text(a));
    CHECK(text(a).find("stopped: shard lease not renewed") != std::string::npos);
}

TEST_CASE("a joining replica activates nothing until the holder acked its claim and released the ranges") {
    // "a_1" holds everything; "b_2" joins.
    shard_membership_fsm b(config("b_2"));
    b.step(sm::start{t0});
    b.step(sm::lease_written{t0});
    shard_announcement a_ann{5, {"a_1"}, everything, {}};
    auto a = b.step(sm::leases_observed{t0, {lease("a_1", "10", a_ann), lease("b_2", "11", b.announced())}, true});
    REQUIRE(a.write.has_value());
    const auto claim = a.write->claimed;
    const auto gen = a.write->generation;
    CHECK_FALSE(claim.empty());
    // We hold nothing, so nothing we hold lies in a_1's claim: acked.
    CHECK(a.write->acks == std::map<std::string, std::uint64_t>{{"a_1", 5}});
    b.step(sm::lease_written{t0 + 100ms});
    CHECK(b.active().empty());  // a_1 has not acked gen, and claims everything
    // a_1 acks but still claims everything (still draining): nothing yet.
    b.step(sm::leases_observed{t0 + 200ms, {lease("a_1", "12", shard_announcement{6, {"a_1", "b_2"}, everything, {{"b_2", gen}}})}});
    CHECK(b.active().empty());
    // a_1 released b's share.
    auto rest = subtract(everything, claim);
    auto r = b.step(sm::leases_observed{t0 + 300ms, {lease("a_1", "13", shard_announcement{7, {"a_1", "b_2"}, rest, {{"b_2", gen}}})}});
    CHECK(r.active_changed);
    CHECK(b.active() == claim);
}

TEST_CASE("a holder drops what a newcomer's ring gives it, and keeps it claimed and unacked until drained") {
    shard_membership_fsm a(config("a_1"));
    a.step(sm::start{t0});
    a.step(sm::lease_written{t0});
    a.step(sm::leases_observed{t0, {}, true});
    a.step(sm::lease_written{t0});
    REQUIRE(a.active() == everything);

    const shard_ring two({"a_1", "b_2"}, 16);
    const auto b_share = two.ranges_of("b_2");
    auto r = a.step(sm::leases_observed{t0 + 1s, {lease("b_2", "20", shard_announcement{3, {"a_1", "b_2"}, b_share, {}})}});
    CHECK(r.drop == b_share);  // stopped at once...
    CHECK(a.active() == two.ranges_of("a_1"));
    CHECK(a.draining() == b_share);
    REQUIRE(r.write.has_value());
    CHECK(r.write->claimed == everything);  // ...but still claimed,
    CHECK_FALSE(r.write->acks.contains("b_2"));  // and b's claim not acked
    a.step(sm::lease_written{t0 + 1100ms});

    r = a.step(sm::drained{t0 + 1500ms, b_share});
    CHECK(a.draining().empty());
    REQUIRE(r.write.has_value());
    CHECK(r.write->claimed == two.ranges_of("a_1"));  // released
    CHECK(r.write->acks.at("b_2") == 3);              // and acked in the same write
    CHECK(r.write->view == std::vector<std::string>{"a_1", "b_2"});
}

TEST_CASE("a member seen expired is reaped by resourceVersion and blocks until then") {
    shard_membership_fsm b(config("b_2"));
    b.step(sm::start{t0});
    b.step(sm::lease_written{t0});
    const shard_ring two({"a_1", "b_2"}, 16);
    // a_1 acked b's first generation, claims its own share, then stops renewing.
    auto r = b.step(sm::leases_observed{t0, {lease("a_1", "7", shard_announcement{4, {"a_1", "b_2"}, two.ranges_of("a_1"), {{"b_2", 1}}})}, true});
    REQUIRE(r.write.has_value());
    const auto gen = r.write->generation;
    b.step(sm::lease_written{t0 + 100ms});
    CHECK(b.active().empty());  // a_1 has not acked gen yet
    r = b.step(sm::leases_observed{t0 + 200ms, {lease("a_1", "8", shard_announcement{4, {"a_1", "b_2"}, two.ranges_of("a_1"), {{"b_2", gen}}})}});
    CHECK(b.active() == two.ranges_of("b_2"));
    // Renewals of b go on; a_1's record stays as seen at t0 + 200ms.
    for (auto t = t0 + 2s; t < t0 + 15200ms; t += 2s) {
        b.step(sm::tick{t});
        b.step(sm::lease_written{t});
    }
    r = b.step(sm::tick{t0 + 15200ms});
    REQUIRE(r.reap.size() == 1);
    CHECK(r.reap[0] == shard_reap{"a_1", "8"});
    REQUIRE(r.write.has_value());  // we now want everything...
    CHECK(r.write->claimed == everything);
    b.step(sm::lease_written{t0 + 15300ms});
    CHECK(b.active() == two.ranges_of("b_2"));  // ...but a_1 blocks until reaped
    // The reap fails: a_1 renewed after all. Read again.
    r = b.step(sm::reap_failed{t0 + 15400ms, "a_1"});
    CHECK(r.list_leases);
    CHECK(b.active() == two.ranges_of("b_2"));
    CHECK(r.reap.empty());  // not again before the list answered
    r = b.step(sm::leases_observed{t0 + 15500ms, {lease("a_1", "8", shard_announcement{4, {"a_1", "b_2"}, two.ranges_of("a_1"), {{"b_2", gen}}})}, true});
    REQUIRE(r.reap.size() == 1);  // it shows the same record: still expired by our clock
    CHECK(r.reap[0].resource_version == "8");
    r = b.step(sm::reaped{t0 + 15600ms, "a_1"});
    CHECK(b.active() == everything);
    CHECK(b.view() == std::vector<std::string>{"b_2"});
}

TEST_CASE("model: add, clean removal, kill and pause over random interleavings, never two holders of a hash") {
    for (std::uint64_t seed = 1; seed <= 100; ++seed) {
        CAPTURE(seed);
        model w(seed);
        for (int i = 0; i < 3; ++i) w.add();
        auto t = w.settle();
        MESSAGE("seed " << seed << ": 3 replicas settled in " << t.count() << " ms");
        REQUIRE(w.converged());

        // Add a 4th: it gets about a quarter, all from the others.
        auto& d = w.add();
        const auto d_id = d.id;
        t = w.settle();
        REQUIRE(w.converged());
        CHECK(fraction_of_space(w.find(d_id)->fsm.active()) == doctest::Approx(0.25).epsilon(0.6));
        MESSAGE("seed " << seed << ": a 4th added, settled in " << t.count() << " ms");

        // Clean removal of one: it drains, releases its Lease, the others cover it.
        w.feed(0, sm::shutdown{w.now});
        t = w.settle();
        REQUIRE(w.converged());
        CHECK(w.replicas[0].m == model::mode::stopped);
        CHECK(w.replicas[0].stop_reason.starts_with("left the ring"));
        MESSAGE("seed " << seed << ": clean removal settled in " << t.count() << " ms");

        // Kill one: after its lease expires it is reaped and its share taken.
        auto& killed = w.replicas[1];
        killed.m = model::mode::killed;
        t = w.settle();
        REQUIRE(w.converged());
        CHECK(t <= 15s + 10s);  // the lease duration, then the handover
        MESSAGE("seed " << seed << ": kill settled in " << t.count() << " ms");

        // Pause one (SIGSTOP) longer than the lease: the others take over; when
        // it wakes it finds its Lease gone and stops.
        w.add();
        w.settle();
        auto& paused = w.replicas[2];
        paused.m = model::mode::paused;
        paused.paused_until = w.now + 30s;
        w.run(35s);
        CHECK(paused.m == model::mode::stopped);
        CHECK(paused.stop_reason == "shard lease not renewed within the renew deadline");
        t = w.settle();
        REQUIRE(w.converged());

        // One replica's watch stalls longer than the lease: the others look
        // expired to it, its reaps fail on their resourceVersions, nothing moves.
        {
            const auto ids = w.running_ids();
            auto* s = w.find(ids[w.pick(ids.size())]);
            s->watch_stalled_until = w.now + 40s;
            w.run(45s);
            CHECK(s->m == model::mode::running);
            CHECK(w.running_ids() == ids);
            t = w.settle();
            REQUIRE(w.converged());
        }

        // A renewal answered 8 s after it was committed, then a pause: the
        // replica's validity counts from the write's start, so it ends before
        // the others can see its Lease expire and take its share.
        {
            const auto ids = w.running_ids();
            auto* s = w.find(ids[w.pick(ids.size())]);
            s->next_answer_delay = 8s;
            s->pause_after_answer = 30s;
            w.run(50s);
            CHECK(s->m == model::mode::stopped);
            t = w.settle();
            REQUIRE(w.converged());
        }

        // A random stretch: replicas come and go, caches lag, writes fail,
        // some answers come late (a replica may stop for it).
        w.slow_answers = true;
        for (int k = 0; k < 8; ++k) {
            switch (w.pick(5)) {
            case 4: {
                auto ids = w.running_ids();
                if (!ids.empty()) w.find(ids[w.pick(ids.size())])->watch_stalled_until = w.now + std::chrono::seconds(w.pick(40));
                break;
            }
            case 0: w.add(); break;
            case 1: {
                auto ids = w.running_ids();
                if (ids.size() > 1) {
                    for (std::size_t i = 0; i < w.replicas.size(); ++i) {
                        if (w.replicas[i].id == ids[w.pick(ids.size())]) w.feed(i, sm::shutdown{w.now});
                    }
                }
                break;
            }
            case 2: {
                auto ids = w.running_ids();
                if (ids.size() > 1) w.find(ids[w.pick(ids.size())])->m = model::mode::killed;
                break;
            }
            default: {
                auto ids = w.running_ids();
                if (ids.size() > 1) {
                    auto* p = w.find(ids[w.pick(ids.size())]);
                    p->m = model::mode::paused;
                    p->paused_until = w.now + std::chrono::seconds(5 + w.pick(30));
                }
            }
            }
            w.run(std::chrono::milliseconds(w.pick(20000)));
        }
        w.slow_answers = false;
        if (w.running_ids().size() < 2) w.add();
        t = w.settle(180s);
        CHECK(w.converged(true));
        MESSAGE("seed " << seed << ": " << w.checks << " invariant checks, " << w.history.size() << " lease writes, "
                        << w.handovers << " activations, final settle " << t.count() << " ms");
    }
}
