// runtime::shard_member against kcoro-apiserver in process: members of one
// ring, each on its own client, time on a manual clock (the real 15 s / 10 s
// / 2 s). After every 100 ms step no sampled hash is held (active or
// draining, validity not ended) by two members, killed ones included (a
// killed member's state is frozen where its coroutine was cancelled, so its
// validity runs out as a paused process's would).
#include <kcoro/runtime/shard_member.hpp>

#include "harness.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/server/metrics.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;
using kcoro::runtime::hash_ranges;
using kcoro::runtime::shard_member;

namespace {

struct recording_metrics final : kcoro::shard_metrics {
    std::int64_t members = -1;
    std::vector<double> handovers;
    void set_members(std::int64_t n) override { members = n; }
    void handover_done(double seconds) override { handovers.push_back(seconds); }
};

struct member {
    std::string id;
    std::unique_ptr<kcoro::client::client> client;
    std::unique_ptr<shard_member> m;
    asio::cancellation_signal cancel;
    recording_metrics metrics;
    bool running = false;
    int changes = 0;
    std::string stopped_reason;
    hash_ranges dropped;  // every range dropped so far
    bool auto_drain = true;
    hash_ranges undrained;  // dropped, drained() not yet called (auto_drain off)
};

struct harness : kcoro::test::harness {
    kcoro::io::manual_clock& clk = manual_clock();
    std::vector<std::unique_ptr<member>> members;
    std::mt19937_64 rng{24};
    std::vector<std::uint64_t> samples;
    int checks = 0;

    harness() {
        for (int i = 0; i < 2000; ++i) samples.push_back(rng());
        samples.push_back(0);
        samples.push_back(~std::uint64_t{0});
    }

    ~harness() {
        for (auto& m : members) {
            if (m->running) m->cancel.emit(asio::cancellation_type::terminal);
        }
        settle();
        members.clear();
    }

    member& add(std::string id, bool auto_drain = true) {
        auto x = std::make_unique<member>();
        auto* raw = x.get();
        x->id = id;
        x->auto_drain = auto_drain;
        x->client = make_client();
        kcoro::runtime::shard_member_options o;
        o.config.ring = "mirror";
        o.config.identity = id;
        o.lease_namespace = "default";
        o.metrics = &x->metrics;
        o.on_change = [raw](const hash_ranges&) { ++raw->changes; };
        o.on_drop = [raw](const hash_ranges& r) {
            raw->dropped = kcoro::runtime::unite(raw->dropped, r);
            if (raw->auto_drain) {
                raw->m->drained(r);  // no reconcile runs
            } else {
                raw->undrained = kcoro::runtime::unite(raw->undrained, r);  // "in flight" until the test says
            }
        };
        o.on_stopped = [raw](std::string_view why) { raw->stopped_reason = std::string(why); };
        x->m = std::make_unique<shard_member>(*x->client, clk, std::move(o));
        x->running = true;
        asio::co_spawn(ioc, x->m->run(), asio::bind_cancellation_slot(x->cancel.slot(), [raw](std::exception_ptr e) {
                           raw->running = false;
                           if (e) std::rethrow_exception(e);
                       }));
        members.push_back(std::move(x));
        return *raw;
    }

    // Held = active or draining, before the end of its validity (the fsm's
    // view, also for killed members: the strongest reading of "owner").
    static bool holds(const member& x, std::uint64_t h, kcoro::steady_time now) {
        const auto& f = x.m->state();
        return now < f.valid_until() &&
               (kcoro::runtime::contains(f.active(), h) || kcoro::runtime::contains(f.draining(), h));
    }

    // No hash held twice: random samples plus both sides of every range end.
    bool safe() {
        ++checks;
        const auto now = clk.now();
        std::vector<std::uint64_t> hs = samples;
        for (auto& x : members) {
            for (const auto* rs : {&x->m->state().active(), &x->m->state().draining()}) {
                for (const auto& r : *rs) {
                    hs.push_back(r.first);
                    hs.push_back(r.first - 1);
                    hs.push_back(r.last);
                    hs.push_back(r.last + 1);
                }
            }
        }
        for (auto h : hs) {
            int n = 0;
            for (auto& x : members) n += holds(*x, h, now) ? 1 : 0;
            if (n > 1) {
                MESSAGE("hash " << kcoro::runtime::hash_hex(h) << " held by " << n << " members at "
                                << (now - kcoro::steady_time{}) / 1ms << " ms");
                return false;
            }
        }
        return true;
    }

    // Every member in `ids` holds exactly its share of the ring of `ids`,
    // owns() agrees at the samples, and the shares cover the whole space.
    bool converged(const std::vector<std::string>& ids) {
        const kcoro::runtime::shard_ring ring(ids);
        hash_ranges all;
        for (auto& x : members) {
            const bool in = std::find(ids.begin(), ids.end(), x->id) != ids.end();
            if (!in) continue;
            const auto share = kcoro::runtime::normalize(ring.ranges_of(x->id));
            if (kcoro::runtime::normalize(x->m->active()) != share) return false;
            if (!x->m->state().draining().empty()) return false;
            all = kcoro::runtime::unite(all, share);
        }
        for (auto h : samples) {
            int n = 0;
            for (auto& x : members) n += x->m->owns(h) ? 1 : 0;
            if (n != 1) return false;
        }
        return all == hash_ranges{kcoro::runtime::hash_range{0, ~std::uint64_t{0}}};
    }

    // Advances until converged on `ids`, checking safety at every step;
    // returns the clock time it took (or nullopt).
    std::optional<std::chrono::milliseconds> converge(const std::vector<std::string>& ids,
                                                      std::chrono::milliseconds limit) {
        const auto t0 = clk.now();
        bool ok = true;
        const bool done = advance_until([&] {
            ok = ok && safe();
            return !ok || converged(ids);
        }, limit);
        REQUIRE(ok);
        if (!done) return std::nullopt;
        return std::chrono::duration_cast<std::chrono::milliseconds>(clk.now() - t0);
    }

    // a, b and c joined and converged on one ring (the start of most cases).
    struct trio {
        member& a;
        member& b;
        member& c;
    };
    trio converged_trio() {
        auto& a = add("a");
        auto& b = add("b");
        auto& c = add("c");
        REQUIRE(converge({"a", "b", "c"}, 60s));
        return {a, b, c};
    }

    std::vector<boost::json::object> ring_leases() {
        kcoro::list_options o;
        o.label_selector = "kcoro.io/sharding-ring=mirror";
        auto out = run(admin().list(kcoro::resources::leases(), "default", o));
        REQUIRE(out);
        std::vector<boost::json::object> v;
        for (auto& i : out->items) v.push_back(*i);
        return v;
    }

    boost::json::object lease_of(const member& x) {
        const kcoro::object_key key{"default", x.m->lease_name()};
        auto out = run(admin().get(kcoro::resources::leases(), key, kcoro::get_options{}));
        REQUIRE(out);
        return **out;
    }
};

} // namespace

TEST_CASE("three members converge to disjoint shares; a clean stop hands its share over before the lease would expire") {
    harness h;
    auto& a = h.add("a");
    auto& b = h.add("b");
    auto& c = h.add("c");
    auto t = h.converge({"a", "b", "c"}, 60s);
    REQUIRE(t);
    MESSAGE("3 members converged in " << t->count() << " ms of clock time");

    // Each has its own Lease, labelled with the ring, naming it, with its claim.
    auto leases = h.ring_leases();
    CHECK(leases.size() == 3);
    // "<ring>-<16 lowercase hex digits>": a valid name whatever the identity holds.
    CHECK(a.m->lease_name() == "mirror-" + kcoro::runtime::hash_hex(kcoro::runtime::fnv1a64("a")).substr(2));
    CHECK(a.m->lease_name().size() == 7 + 16);
    CHECK(kcoro::runtime::shard_lease_name("mirror", "host_6f1c-uuid").find('_') == std::string::npos);
    for (auto* x : {&a, &b, &c}) {
        auto l = kcoro::runtime::shard_lease_of(h.lease_of(*x));
        CHECK(l.holder == x->id);
        CHECK(l.lease_duration_seconds == 15);
        REQUIRE(l.announcement);
        CHECK(kcoro::runtime::normalize(l.announcement->claimed) == kcoro::runtime::normalize(x->m->active()));
        CHECK(x->changes >= 1);
        CHECK(x->metrics.members == 3);
        CHECK_FALSE(x->metrics.handovers.empty());
    }
    // owns_key hashes the key as the ring does.
    const std::string uid = "6f1c1f5e-6a39-4d2f-9f5e-0e1b5c7a9d11";
    CHECK(a.m->owns_key(uid) + b.m->owns_key(uid) + c.m->owns_key(uid) == 1);
    CHECK(a.m->owns_key(uid) == a.m->owns(kcoro::runtime::fnv1a64(uid)));

    // It stays so while renewals go on.
    bool ok = true;
    h.advance_until([&] {
        ok = ok && h.safe() && h.converged({"a", "b", "c"});
        return !ok;
    }, 30s);
    CHECK(ok);

    // A clean stop: c drops, drains, releases; a and b take its share well
    // before c's Lease could have expired.
    const auto handovers_a = a.metrics.handovers.size();
    c.m->stop();
    t = h.converge({"a", "b"}, 30s);
    REQUIRE(t);
    MESSAGE("clean stop handed over in " << t->count() << " ms of clock time");
    CHECK(*t < 15s);
    REQUIRE(h.run_until([&] { return !c.running; }));
    CHECK(c.m->released());
    CHECK(c.stopped_reason == "left the ring");
    CHECK(c.m->active().empty());
    CHECK_FALSE(c.m->owns(kcoro::runtime::fnv1a64(uid)));
    CHECK(c.metrics.members == 0);
    CHECK(kcoro::runtime::shard_lease_of(h.lease_of(c)).holder.empty());
    CHECK(a.metrics.members == 2);
    CHECK(a.metrics.handovers.size() > handovers_a);
    MESSAGE(h.checks << " safety checks");
}

TEST_CASE("a killed member's share moves only after its lease expired, and its Lease is reaped") {
    harness h;
    auto [a, b, c] = h.converged_trio();

    // Killed: the coroutine ends where it is, nothing released.
    b.cancel.emit(asio::cancellation_type::terminal);
    REQUIRE(h.run_until([&] { return !b.running; }));
    CHECK_FALSE(b.m->released());
    CHECK(b.m->stop_reason().empty());
    CHECK_FALSE(b.m->state().active().empty());  // frozen as it was

    auto t = h.converge({"a", "c"}, 60s);
    REQUIRE(t);
    MESSAGE("kill handed over in " << t->count() << " ms of clock time");
    // Nobody may take b's share before b's own validity (renew deadline 10 s
    // after its last renewal started) ended; expiry is 15 s after the others
    // last saw b's record change (at most a renew period before the kill).
    CHECK(*t >= 10s);
    CHECK(*t <= 25s);
    // b's Lease was reaped: holder "" (a compare-and-swap by a or c).
    CHECK(kcoro::runtime::shard_lease_of(h.lease_of(b)).holder.empty());
    CHECK(a.metrics.members == 2);
    CHECK(c.metrics.members == 2);

    // A stop of one of the two leaves the last with the whole space.
    c.m->stop();
    REQUIRE(h.converge({"a"}, 30s));
    CHECK(a.m->active() == hash_ranges{kcoro::runtime::hash_range{0, ~std::uint64_t{0}}});
    MESSAGE(h.checks << " safety checks");
}

// Advances the clock a second at a time (the admin's list is a request: not
// inside a predicate) until the ring holds `n` Leases, 25 s at most.
bool wait_for_leases(harness& h, std::size_t n) {
    for (int i = 0; i < 25; ++i) {
        if (h.ring_leases().size() == n) return true;
        h.advance_until([] { return false; }, 1s);
    }
    return h.ring_leases().size() == n;
}

TEST_CASE("the Leases of members that left or were reaped are deleted a lease duration later; the ring goes on") {
    harness h;
    auto [a, b, c] = h.converged_trio();
    c.m->stop();  // leaves: its Lease stays with holder ""
    REQUIRE(h.converge({"a", "b"}, 30s));
    REQUIRE(h.run_until([&] { return !c.running; }));
    CHECK(h.ring_leases().size() == 3);
    // Within a lease duration of holder "" unchanged plus a few lists.
    CHECK(wait_for_leases(h, 2));
    for (const auto& l : h.ring_leases()) CHECK_FALSE(kcoro::runtime::shard_lease_of(l).holder.empty());

    b.cancel.emit(asio::cancellation_type::terminal);  // killed: reaped, then deleted
    REQUIRE(h.converge({"a"}, 60s));
    CHECK(wait_for_leases(h, 1));
    CHECK(kcoro::runtime::shard_lease_of(h.lease_of(a)).holder == "a");
    // The survivor still renews and holds everything.
    bool ok = true;
    h.advance_until([&] {
        ok = ok && h.safe() && h.converged({"a"});
        return !ok;
    }, 20s);
    CHECK(ok);
}

TEST_CASE("a member stopped before it joined leaves nothing behind") {
    harness h;
    auto& a = h.add("a");
    a.m->stop();
    REQUIRE(h.advance_until([&] { return !a.running; }, 10s));
    CHECK(a.m->active().empty());
    CHECK_FALSE(a.m->stop_reason().empty());
}

TEST_CASE("renewals failing: the member stops within its validity, before the others take its share") {
    harness h;
    auto [a, b, c] = h.converged_trio();

    // Every update of a's Lease fails from now on (a reap of it too, so the
    // fault is cleared once a has stopped).
    kcoro::apiserver::http::fault_rule f;
    f.verb = "update";
    f.resource = "leases";
    f.name = a.m->lease_name();
    f.count = 0;
    f.code = 500;
    h.server().faults().add(f);
    const auto fault_at = h.clk.now();
    kcoro::steady_time a_stopped{};
    bool ok = true;
    REQUIRE(h.advance_until([&] {
        ok = ok && h.safe();
        if (!a.running && a_stopped == kcoro::steady_time{}) {
            a_stopped = h.clk.now();
            h.server().faults().clear();
        }
        return !ok || (!a.running && h.converged({"b", "c"}));
    }, 60s));
    REQUIRE(ok);
    CHECK(a.m->stop_reason() != "left the ring");
    CHECK(a.m->active().empty());
    // Within the renew deadline of its last successful write (a retry period
    // before the fault at most), plus a step.
    CHECK(a_stopped - fault_at <= 10s + 100ms);
    MESSAGE("a stopped after " << (a_stopped - fault_at) / 1ms << " ms, b and c converged after "
                               << (h.clk.now() - fault_at) / 1ms << " ms");
    CHECK(h.clk.now() - fault_at >= 11s);  // b and c waited for a's lease to expire
    CHECK(kcoro::runtime::shard_lease_of(h.lease_of(a)).holder.empty());  // reaped
    CHECK(b.metrics.members == 2);
}

TEST_CASE("a Lease emptied behind the member's back: its next write meets a 409, it re-reads and stops at once") {
    harness h;
    auto& a = h.add("a");
    h.add("b");
    REQUIRE(h.converge({"a", "b"}, 60s));

    // Outside the protocol (so no safety check here): an admin empties a's holder.
    auto l = h.lease_of(a);
    l["spec"].as_object()["holderIdentity"] = "";
    REQUIRE(h.run(h.admin().update(kcoro::resources::leases(), l, kcoro::update_options{})));
    const auto t0 = h.clk.now();
    REQUIRE(h.advance_until([&] { return !a.running; }, 10s));
    CHECK(h.clk.now() - t0 <= 2s + 100ms);  // its next renewal
    CHECK(a.m->stop_reason() == "shard lease taken from us");
    CHECK(a.stopped_reason == "shard lease taken from us");
    CHECK_FALSE(a.m->released());
    CHECK(a.m->active().empty());
    REQUIRE(h.converge({"b"}, 30s));
}

TEST_CASE("a dropped range with a reconcile in flight stays with its holder until drained() is called") {
    harness h;
    auto& a = h.add("a", false);
    REQUIRE(h.converge({"a"}, 60s));
    CHECK(a.undrained.empty());

    // b joins: a drops b's share at once but reports nothing drained.
    auto& b = h.add("b");
    const auto b_share = kcoro::runtime::normalize(kcoro::runtime::shard_ring({"a", "b"}).ranges_of("b"));
    bool ok = true;
    h.advance_until([&] {
        ok = ok && h.safe();
        return !ok;
    }, 30s);
    REQUIRE(ok);
    CHECK(kcoro::runtime::normalize(a.undrained) == b_share);
    CHECK(kcoro::runtime::normalize(a.m->state().draining()) == b_share);
    for (const auto& r : b_share) CHECK_FALSE(a.m->owns(r.first));  // no new reconcile starts there
    CHECK(b.m->active().empty());  // b waits: nothing of its share is free
    CHECK_FALSE(h.converged({"a", "b"}));

    // The reconciles end: b gets its share within a few retry periods.
    a.m->drained(a.undrained);
    a.undrained.clear();
    auto t = h.converge({"a", "b"}, 30s);
    REQUIRE(t);
    CHECK(*t <= 6s);
    MESSAGE("after drained(), b got its share in " << t->count() << " ms; waited 30 s before");
}

TEST_CASE("a hung list does not hold back the renewals: the member gives it up after a retry period") {
    harness h;
    auto& a = h.add("a");
    auto& b = h.add("b");
    REQUIRE(h.converge({"a", "b"}, 60s));

    // The next list of the ring's Leases (whoever sends it) is answered 20 s late.
    kcoro::apiserver::http::fault_rule f;
    f.action = kcoro::apiserver::http::fault_action::delay;
    f.verb = "list";
    f.resource = "leases";
    f.count = 1;
    f.delay = 20s;
    h.server().faults().add(f);
    bool ok = true;
    h.advance_until([&] {
        ok = ok && h.safe() && a.running && b.running;
        return !ok;
    }, 30s);
    CHECK(ok);
    CHECK(h.server().faults().entries().size() >= 1);  // it fired
    CHECK(h.converged({"a", "b"}));
}

TEST_CASE("each request of the driver failing in turn: the members still converge, never two holders") {
    using kcoro::apiserver::http::fault_action;
    struct scenario {
        std::string what;
        fault_action action;
        const char* verb;
        int count;
    };
    const scenario scenarios[] = {
        {"create fails", fault_action::fail, "create", 2},
        {"create commits, answer lost", fault_action::drop_after_commit, "create", 2},
        {"update fails", fault_action::fail, "update", 4},
        {"update commits, answer lost", fault_action::drop_after_commit, "update", 4},
        {"list fails", fault_action::fail, "list", 3},
        {"get fails (the re-read after a lost answer)", fault_action::fail, "get", 2},
    };
    for (const auto& sc : scenarios) {
        CAPTURE(sc.what);
        harness h;
        kcoro::apiserver::http::fault_rule f;
        f.action = sc.action;
        f.verb = sc.verb;
        f.resource = "leases";
        f.count = sc.count;
        f.code = 500;
        h.server().faults().add(f);
        if (std::string_view(sc.verb) == "get") {
            // A get only follows a lost answer: lose two update answers too.
            kcoro::apiserver::http::fault_rule d;
            d.action = fault_action::drop_after_commit;
            d.verb = "update";
            d.resource = "leases";
            d.count = 2;
            h.server().faults().add(d);
        }
        h.add("a");
        h.add("b");
        h.add("c");
        auto t = h.converge({"a", "b", "c"}, 60s);
        CHECK(t);
        if (t) MESSAGE(sc.what << ": converged in " << t->count() << " ms");
        // The scenario's own rule fired.
        int fired = 0;
        for (const auto& e : h.server().faults().entries()) {
            fired += e.find(std::string(" ") + sc.verb) != std::string::npos ? 1 : 0;
        }
        CHECK(fired >= 1);
        for (auto& x : h.members) CHECK(x->running);
    }
}
