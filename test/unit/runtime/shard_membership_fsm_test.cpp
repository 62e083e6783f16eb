#include <kcoro/runtime/shard_membership_fsm.hpp>

#include <kcoro/core/object.hpp>

#include <doctest/doctest.h>

#include "shard_model.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <sstream>

using namespace kcoro;
using namespace kcoro::runtime;
using namespace kcoro::testing_shard;
using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
const hash_ranges everything{{0, top}};
shard_membership_config config(std::string id) { return model_config(std::move(id)); }

shard_lease lease(std::string holder, std::string rv, std::optional<shard_announcement> a) {
    return model_lease(std::move(holder), std::move(rv), std::move(a));
}


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
    CHECK(a.write_deadline == t0 + 10s);
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

TEST_CASE("replicas started together: the admitting list waits join_settle, so the first claim is the ring's share") {
    // Without the settle the first to list saw only itself, claimed (and
    // listed) everything, then dropped most of it as the others appeared.
    auto cfg = config("a_1");
    cfg.join_settle = 2s;
    shard_membership_fsm a(cfg);
    a.step(sm::start{t0});
    auto r = a.step(sm::lease_written{t0 + 100ms});
    CHECK_FALSE(r.list_leases);
    REQUIRE(r.wake_at.has_value());
    CHECK(*r.wake_at == t0 + 2s);  // the settle, counted from the write's start
    // The periodic list shows only us: still nothing claimed.
    r = a.step(sm::leases_observed{t0 + 1s, {lease("a_1", "1", a.announced())}, false});
    CHECK_FALSE(r.list_leases);
    CHECK(a.announced().claimed.empty());
    CHECK(a.view() == std::vector<std::string>{"a_1"});
    CHECK((!r.write || r.write->claimed.empty()));
    // A fresh list asked for a failed reap before the settle admits nobody.
    r = a.step(sm::reap_failed{t0 + 1100ms, "x_9"});
    CHECK(r.list_leases);
    r = a.step(sm::leases_observed{t0 + 1200ms, {lease("a_1", "1", a.announced())}, true});
    CHECK((!r.write || r.write->claimed.empty()));
    // b_2 wrote its Lease meanwhile; the settle's list sees it.
    r = a.step(sm::tick{t0 + 2s});
    CHECK(r.list_leases);
    if (r.write) {  // the renewal falls due at the same moment: still claiming nothing
        CHECK(r.write->claimed.empty());
        a.step(sm::lease_written{t0 + 2050ms});
    }
    shard_announcement b_ann{2, {"b_2"}, {}, {}};
    r = a.step(sm::leases_observed{t0 + 2100ms, {lease("a_1", "1", a.announced()), lease("b_2", "2", b_ann)}, true});
    REQUIRE(r.write.has_value());
    const shard_ring two({"a_1", "b_2"}, cfg.virtual_nodes);
    CHECK(r.write->claimed == two.ranges_of("a_1"));
    CHECK(r.write->claimed != everything);
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

TEST_CASE("lease_lost stops at once; while leaving with nothing held it is our own release") {
    shard_membership_fsm a(config("a_1"));
    a.step(sm::start{t0});
    a.step(sm::lease_written{t0});
    a.step(sm::leases_observed{t0, {}, true});
    a.step(sm::lease_written{t0});
    REQUIRE(a.active() == everything);
    auto r = a.step(sm::lease_lost{t0 + 1s});
    CHECK(r.stopped);
    CHECK(r.reason == "shard lease taken from us");
    CHECK(r.drop == everything);
    CHECK(a.active().empty());
    CHECK(a.step(sm::tick{t0 + 2s}).stopped);  // terminal

    shard_membership_fsm b(config("b_2"));
    b.step(sm::start{t0});
    b.step(sm::lease_written{t0});
    b.step(sm::leases_observed{t0, {}, true});
    b.step(sm::lease_written{t0});
    r = b.step(sm::shutdown{t0 + 1s});
    CHECK(r.drop == everything);
    CHECK_FALSE(r.write.has_value());  // the claim is unchanged while draining: nothing to write yet
    r = b.step(sm::drained{t0 + 1100ms, everything});
    REQUIRE(r.write.has_value());
    CHECK(r.release);
    CHECK(r.write->claimed.empty());
    r = b.step(sm::lease_written{t0 + 1200ms});  // released
    CHECK(r.stopped);
    CHECK(r.reason == "left the ring");
}

TEST_CASE("model: add, clean removal, kill and pause over random interleavings, never two holders of a hash") {
    for (std::uint64_t seed = 1; seed <= 100; ++seed) {
        CAPTURE(seed);
        std::mt19937_64 rng(seed);
        model w([&rng](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); });
        for (int i = 0; i < 3; ++i) w.add();
        auto t = w.settle();
        MESSAGE("seed " << seed << ": 3 replicas settled in " << t.count() << " ms");
        REQUIRE_MESSAGE(w.violation.empty(), w.violation);
        REQUIRE(w.converged());

        // Add a 4th: it gets about a quarter, all from the others.
        auto& d = w.add();
        const auto d_id = d.id;
        t = w.settle();
        REQUIRE_MESSAGE(w.violation.empty(), w.violation);
        REQUIRE(w.converged());
        CHECK(fraction_of_space(w.find(d_id)->fsm.active()) == doctest::Approx(0.25).epsilon(0.6));
        MESSAGE("seed " << seed << ": a 4th added, settled in " << t.count() << " ms");

        // Clean removal of one: it drains, releases its Lease, the others cover it.
        w.feed(0, sm::shutdown{w.now});
        t = w.settle();
        REQUIRE_MESSAGE(w.violation.empty(), w.violation);
        REQUIRE(w.converged());
        CHECK(w.replicas[0].m == model::mode::stopped);
        CHECK(w.replicas[0].stop_reason.starts_with("left the ring"));
        MESSAGE("seed " << seed << ": clean removal settled in " << t.count() << " ms");

        // Kill one: after its lease expires it is reaped and its share taken.
        auto& killed = w.replicas[1];
        killed.m = model::mode::killed;
        t = w.settle();
        REQUIRE_MESSAGE(w.violation.empty(), w.violation);
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
        REQUIRE_MESSAGE(w.violation.empty(), w.violation);
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
            REQUIRE_MESSAGE(w.violation.empty(), w.violation);
            REQUIRE(w.converged());
        }

        // A renewal answered 8 s after it was committed, then a pause: the
        // replica's validity counts from the write's start, so it ends before
        // the others can see its Lease expire and take its share.
        {
            // There must be others: a replica may have stopped rightly by now
            // (seed 92: four renewals in a row failed or lost their answers).
            if (w.running_ids().size() < 2) {
                w.add();
                w.settle();
            }
            const auto ids = w.running_ids();
            auto* s = w.find(ids[w.pick(ids.size())]);
            s->next_answer_delay = 8s;
            s->pause_after_answer = 30s;
            w.run(50s);
            CHECK(s->m == model::mode::stopped);
            t = w.settle();
            REQUIRE_MESSAGE(w.violation.empty(), w.violation);
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
        REQUIRE_MESSAGE(w.violation.empty(), w.violation);
        std::string why;
        CHECK_MESSAGE(w.converged(&why), why);
        MESSAGE("seed " << seed << ": " << w.checks << " invariant checks, " << w.history.size() << " lease writes, "
                        << w.handovers << " activations, final settle " << t.count() << " ms, "
                        << (w.now - t0) / 1s << " s of virtual time");
    }
}
