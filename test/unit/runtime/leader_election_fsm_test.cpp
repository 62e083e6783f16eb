#include <kcoro/runtime/leader_election_fsm.hpp>

#include <kcoro/core/object.hpp>

#include <doctest/doctest.h>

#include <sstream>

using namespace kcoro;
using namespace kcoro::runtime;
using namespace std::chrono_literals;
namespace json = boost::json;

namespace {

const steady_time t0 = steady_time{} + 1000s;
const wall_time w0 = wall_time{} + 1795951956s;  // 2026-11-29T11:32:36Z

leader_election_config config(std::string id, bool release = false) {
    leader_election_config c;
    c.lease_namespace = "ops";
    c.lease_name = "gw-lock";
    c.identity = std::move(id);
    c.release_on_cancel = release;
    return c;
}

json::object lease_held_by(std::string holder, std::string rv, std::int64_t transitions = 3,
                           std::string renew = "2020-01-01T00:00:00.000000Z") {
    leader_record r{std::move(holder), 15, "2020-01-01T00:00:00.000000Z", std::move(renew), transitions};
    auto l = make_lease(config("x"), r);
    mutable_metadata(l)["resourceVersion"] = rv;
    return l;
}

template <class T>
const T& as(const le_action& a) {
    INFO(a);
    REQUIRE(std::holds_alternative<T>(a));
    return std::get<T>(a);
}

std::string describe(const le_action& a) {
    std::ostringstream os;
    os << a;
    return os.str();
}

// Acquires a fresh lease for "a_1"; returns the stored lease.
json::object acquire(leader_election_fsm& fsm) {
    as<le::get_lease>(fsm.step(le::start{t0}));
    auto create = as<le::create_lease>(fsm.step(le::lease_read{t0, w0, std::nullopt}));
    auto stored = create.body;
    mutable_metadata(stored)["resourceVersion"] = "1";
    auto started = as<le::started_leading>(fsm.step(le::write_succeeded{t0, stored}));
    CHECK(started.renew_at == t0 + 2s);
    return stored;
}

} // namespace

TEST_CASE("identity is hostname_uuid") {
    CHECK(make_leader_identity("gw-7d9f", "0b9c-41") == "gw-7d9f_0b9c-41");
}

TEST_CASE("absent lease: create it holding it") {
    leader_election_fsm fsm(config("a_1"));
    CHECK(fsm.current() == leader_election_fsm::state::idle);
    CHECK(as<le::get_lease>(fsm.step(le::start{t0})).deadline == t0 + 10s);
    auto create = as<le::create_lease>(fsm.step(le::lease_read{t0, w0, std::nullopt}));
    CHECK(create.deadline == t0 + 10s);
    CHECK(create.body.at("apiVersion") == "coordination.k8s.io/v1");
    CHECK(create.body.at("kind") == "Lease");
    CHECK(name_of(create.body) == "gw-lock");
    CHECK(namespace_of(create.body) == "ops");
    auto rec = record_of(create.body);
    CHECK(rec == leader_record{"a_1", 15, "2026-11-29T11:32:36.000000Z", "2026-11-29T11:32:36.000000Z", 0});
    CHECK_FALSE(fsm.is_leader());
    auto stored = create.body;
    mutable_metadata(stored)["resourceVersion"] = "1";
    as<le::started_leading>(fsm.step(le::write_succeeded{t0 + 50ms, stored}));
    CHECK(fsm.is_leader());
}

TEST_CASE("renew keeps acquireTime and transitions, updates renewTime, keeps resourceVersion") {
    leader_election_fsm fsm(config("a_1"));
    auto stored = acquire(fsm);
    CHECK(as<le::get_lease>(fsm.step(le::timer_fired{t0 + 2s})).deadline == t0 + 12s);
    auto upd = as<le::update_lease>(fsm.step(le::lease_read{t0 + 2s, w0 + 2s, stored}));
    CHECK(upd.deadline == t0 + 12s);
    CHECK(resource_version_of(upd.body) == "1");
    auto rec = record_of(upd.body);
    CHECK(rec.holder_identity == "a_1");
    CHECK(rec.acquire_time == "2026-11-29T11:32:36.000000Z");
    CHECK(rec.renew_time == "2026-11-29T11:32:38.000000Z");
    CHECK(rec.lease_transitions == 0);
    auto next = upd.body;
    mutable_metadata(next)["resourceVersion"] = "2";
    CHECK(as<le::wait_until>(fsm.step(le::write_succeeded{t0 + 2100ms, next})).deadline == t0 + 4100ms);
    CHECK(fsm.is_leader());
}

TEST_CASE("a live lease of another holder: wait; expiry judged by our observation time") {
    leader_election_fsm fsm(config("a_1"));
    as<le::get_lease>(fsm.step(le::start{t0}));
    // The other's renewTime is years old (its clock may be off): ignored.
    auto held = lease_held_by("b_2", "7");
    CHECK(as<le::wait_until>(fsm.step(le::lease_read{t0, w0, held})).deadline == t0 + 2s);
    for (auto at : {2s, 4s, 14s}) {
        as<le::get_lease>(fsm.step(le::timer_fired{t0 + at}));
        CHECK(as<le::wait_until>(fsm.step(le::lease_read{t0 + at, w0 + at, held})).deadline == t0 + at + 2s);
    }
    // 15 s after we first saw this record unchanged: expired, take over.
    as<le::get_lease>(fsm.step(le::timer_fired{t0 + 15s}));
    auto upd = as<le::update_lease>(fsm.step(le::lease_read{t0 + 15s, w0 + 15s, held}));
    auto rec = record_of(upd.body);
    CHECK(rec.holder_identity == "a_1");
    CHECK(rec.lease_transitions == 4);
    CHECK(rec.acquire_time == "2026-11-29T11:32:51.000000Z");
    CHECK(resource_version_of(upd.body) == "7");
    as<le::started_leading>(fsm.step(le::write_succeeded{t0 + 15s, upd.body}));
}

TEST_CASE("a renewing holder resets our observation time") {
    leader_election_fsm fsm(config("a_1"));
    as<le::get_lease>(fsm.step(le::start{t0}));
    as<le::wait_until>(fsm.step(le::lease_read{t0, w0, lease_held_by("b_2", "7")}));
    as<le::get_lease>(fsm.step(le::timer_fired{t0 + 10s}));
    // b renewed: the record changed at t0+10s, so it is valid until t0+25s.
    auto renewed = lease_held_by("b_2", "8", 3, "2020-01-01T00:00:10.000000Z");
    as<le::wait_until>(fsm.step(le::lease_read{t0 + 10s, w0, renewed}));
    as<le::get_lease>(fsm.step(le::timer_fired{t0 + 20s}));
    as<le::wait_until>(fsm.step(le::lease_read{t0 + 20s, w0, renewed}));
    as<le::get_lease>(fsm.step(le::timer_fired{t0 + 25s}));
    as<le::update_lease>(fsm.step(le::lease_read{t0 + 25s, w0, renewed}));
}

TEST_CASE("a released lease (empty holder) is taken at once") {
    leader_election_fsm fsm(config("a_1"));
    as<le::get_lease>(fsm.step(le::start{t0}));
    auto upd = as<le::update_lease>(fsm.step(le::lease_read{t0, w0, lease_held_by("", "9", 5)}));
    CHECK(record_of(upd.body).lease_transitions == 6);
}

TEST_CASE("failure at each acquire step: retry a period later, re-reading") {
    const error timeout(kcoro_errc::deadline_exceeded, "timeout");
    const error conflict(api_errc::conflict, "conflict");
    const error exists(api_errc::already_exists, "exists");
    SUBCASE("get fails") {
        leader_election_fsm fsm(config("a_1"));
        as<le::get_lease>(fsm.step(le::start{t0}));
        CHECK(as<le::wait_until>(fsm.step(le::request_failed{t0 + 10s, timeout})).deadline == t0 + 12s);
        as<le::get_lease>(fsm.step(le::timer_fired{t0 + 12s}));
        CHECK_FALSE(fsm.is_leader());
    }
    SUBCASE("create loses the race") {
        leader_election_fsm fsm(config("a_1"));
        as<le::get_lease>(fsm.step(le::start{t0}));
        as<le::create_lease>(fsm.step(le::lease_read{t0, w0, std::nullopt}));
        as<le::wait_until>(fsm.step(le::request_failed{t0, exists}));
        as<le::get_lease>(fsm.step(le::timer_fired{t0 + 2s}));
        as<le::wait_until>(fsm.step(le::lease_read{t0 + 2s, w0, lease_held_by("b_2", "1")}));
        CHECK_FALSE(fsm.is_leader());
    }
    SUBCASE("takeover conflicts (409): re-read next time") {
        leader_election_fsm fsm(config("a_1"));
        as<le::get_lease>(fsm.step(le::start{t0}));
        as<le::update_lease>(fsm.step(le::lease_read{t0, w0, lease_held_by("", "9")}));
        CHECK(as<le::wait_until>(fsm.step(le::request_failed{t0, conflict})).deadline == t0 + 2s);
        CHECK(as<le::get_lease>(fsm.step(le::timer_fired{t0 + 2s})).deadline == t0 + 12s);
        CHECK(fsm.current() == leader_election_fsm::state::acquiring);
    }
}

TEST_CASE("failure at each renew step: leadership lost once no attempt fits the renew deadline") {
    const error timeout(kcoro_errc::deadline_exceeded, "timeout");
    for (int fail_get = 0; fail_get < 2; ++fail_get) {
        CAPTURE(fail_get);
        leader_election_fsm fsm(config("a_1"));
        auto stored = acquire(fsm);
        // Round starts at t0+2s: deadline t0+12s. Attempts at +2, +4, +6, +8, +10.
        auto now = t0 + 2s;
        as<le::get_lease>(fsm.step(le::timer_fired{now}));
        for (int attempt = 0; attempt < 4; ++attempt) {
            if (!fail_get) as<le::update_lease>(fsm.step(le::lease_read{now, w0, stored}));
            auto w = as<le::wait_until>(fsm.step(le::request_failed{now, timeout}));
            CHECK(w.deadline == now + 2s);
            CHECK(fsm.is_leader());
            now = w.deadline;
            CHECK(as<le::get_lease>(fsm.step(le::timer_fired{now})).deadline == t0 + 12s);
        }
        // The attempt at t0+10s fails: t0+12s leaves no room for another.
        if (!fail_get) as<le::update_lease>(fsm.step(le::lease_read{now, w0, stored}));
        auto lost = as<le::stopped_leading>(fsm.step(le::request_failed{now, timeout}));
        CHECK(lost.reason == "failed to renew lease within the renew deadline: timeout");
        CHECK_FALSE(fsm.is_leader());
        CHECK(fsm.current() == leader_election_fsm::state::lost);
        // Terminal: nothing brings it back.
        as<le::stopped_leading>(fsm.step(le::timer_fired{now + 1s}));
        as<le::stopped_leading>(fsm.step(le::lease_read{now, w0, stored}));
    }
}

TEST_CASE("a slow renew whose timer fires past the deadline loses leadership") {
    leader_election_fsm fsm(config("a_1"));
    auto stored = acquire(fsm);
    as<le::get_lease>(fsm.step(le::timer_fired{t0 + 2s}));
    as<le::wait_until>(fsm.step(le::request_failed{t0 + 3s, error(api_errc::conflict)}));
    as<le::stopped_leading>(fsm.step(le::timer_fired{t0 + 12s}));
}

TEST_CASE("an answer that arrives at or after the renew deadline loses leadership") {
    // Regression (libFuzzer, leader_election_fsm): a late read was answered
    // with an update and the fsm led on past its round's deadline.
    for (int late_write = 0; late_write < 2; ++late_write) {
        CAPTURE(late_write);
        leader_election_fsm fsm(config("a_1"));
        auto stored = acquire(fsm);
        CHECK(as<le::get_lease>(fsm.step(le::timer_fired{t0 + 2s})).deadline == t0 + 12s);
        le_action a;
        if (late_write) {
            auto u = as<le::update_lease>(fsm.step(le::lease_read{t0 + 3s, w0, stored}));
            a = fsm.step(le::write_succeeded{t0 + 12s, u.body});
        } else {
            a = fsm.step(le::lease_read{t0 + 12s, w0, stored});
        }
        CHECK(as<le::stopped_leading>(a).reason == "failed to renew lease within the renew deadline");
        CHECK_FALSE(fsm.is_leader());
    }
}

TEST_CASE("renew reading another live holder stops leading at once") {
    leader_election_fsm fsm(config("a_1"));
    acquire(fsm);
    as<le::get_lease>(fsm.step(le::timer_fired{t0 + 2s}));
    auto lost = as<le::stopped_leading>(fsm.step(le::lease_read{t0 + 2s, w0, lease_held_by("b_2", "5")}));
    CHECK(lost.reason == "lease is held by b_2");
}

TEST_CASE("a deleted lease is recreated by the leader") {
    leader_election_fsm fsm(config("a_1"));
    acquire(fsm);
    as<le::get_lease>(fsm.step(le::timer_fired{t0 + 2s}));
    auto c = as<le::create_lease>(fsm.step(le::lease_read{t0 + 2s, w0 + 2s, std::nullopt}));
    as<le::wait_until>(fsm.step(le::write_succeeded{t0 + 2s, c.body}));
    CHECK(fsm.is_leader());
}

TEST_CASE("shutdown releases the lease when configured") {
    SUBCASE("leader with release_on_cancel") {
        leader_election_fsm fsm(config("a_1", true));
        auto stored = acquire(fsm);
        auto rel = as<le::update_lease>(fsm.step(le::shutdown{t0 + 1s, w0 + 1s}));
        CHECK(rel.deadline == t0 + 11s);
        auto rec = record_of(rel.body);
        CHECK(rec.holder_identity.empty());
        CHECK(rec.lease_duration_seconds == 1);
        CHECK(rec.lease_transitions == 0);
        CHECK(rec.renew_time == "2026-11-29T11:32:37.000000Z");
        CHECK(resource_version_of(rel.body) == "1");
        CHECK(rel.body.at("spec").as_object().at("holderIdentity") == "");  // written, not omitted
        CHECK(as<le::finished>(fsm.step(le::write_succeeded{t0 + 1s, rel.body})).released);
        CHECK(fsm.current() == leader_election_fsm::state::done);
    }
    SUBCASE("release fails") {
        leader_election_fsm fsm(config("a_1", true));
        acquire(fsm);
        as<le::update_lease>(fsm.step(le::shutdown{t0 + 1s, w0}));
        CHECK_FALSE(as<le::finished>(fsm.step(le::request_failed{t0 + 1s, error(api_errc::conflict)})).released);
    }
    SUBCASE("leader without release_on_cancel") {
        leader_election_fsm fsm(config("a_1", false));
        acquire(fsm);
        CHECK_FALSE(as<le::finished>(fsm.step(le::shutdown{t0 + 1s, w0})).released);
    }
    SUBCASE("not leading") {
        leader_election_fsm fsm(config("a_1", true));
        as<le::get_lease>(fsm.step(le::start{t0}));
        CHECK_FALSE(as<le::finished>(fsm.step(le::shutdown{t0, w0})).released);
        as<le::finished>(fsm.step(le::timer_fired{t0 + 2s}));
    }
}

TEST_CASE("actions print readably") {
    CHECK(describe(le::get_lease{steady_time{} + 1500ms}) == "get_lease{deadline=1500ms}");
    CHECK(describe(le::stopped_leading{"x"}) == "stopped_leading{x}");
    CHECK(describe(le::finished{true}) == "finished{released=1}");
}

// Two candidates against one in-memory lease store, driven step by step with
// manual time: only one leads at any instant; when the leader's requests
// start failing, it stops before the other takes over, within the lease
// duration.
namespace {

struct fake_store {
    std::optional<json::object> lease;
    int rv = 0;
};

struct candidate {
    explicit candidate(std::string id) : fsm(config(std::move(id))) {}
    leader_election_fsm fsm;
    le_action pending = le::wait_until{};
    steady_time wake{};
    bool failing = false;
    bool leading = false;
    steady_time last_renew{};
    std::optional<steady_time> started, stopped;
};

void run_until_wait(candidate& c, fake_store& s, steady_time now, le_action a) {
    for (;;) {
        if (auto* w = std::get_if<le::wait_until>(&a)) {
            c.wake = w->deadline;
            return;
        }
        if (auto* st = std::get_if<le::started_leading>(&a)) {
            c.leading = true;
            c.started = now;
            c.last_renew = now;
            c.wake = st->renew_at;
            return;
        }
        if (std::get_if<le::stopped_leading>(&a)) {
            c.leading = false;
            c.stopped = now;
            c.wake = steady_time::max();
            return;
        }
        if (std::get_if<le::finished>(&a)) {
            c.wake = steady_time::max();
            return;
        }
        const error down(kcoro_errc::deadline_exceeded, "apiserver unreachable");
        if (c.failing) {
            a = c.fsm.step(le::request_failed{now, down});
        } else if (std::get_if<le::get_lease>(&a)) {
            a = c.fsm.step(le::lease_read{now, w0 + (now - t0), s.lease});
        } else if (auto* cr = std::get_if<le::create_lease>(&a)) {
            if (s.lease) {
                a = c.fsm.step(le::request_failed{now, error(api_errc::already_exists)});
            } else {
                s.lease = cr->body;
                mutable_metadata(*s.lease)["resourceVersion"] = std::to_string(++s.rv);
                a = c.fsm.step(le::write_succeeded{now, *s.lease});
            }
        } else if (auto* up = std::get_if<le::update_lease>(&a)) {
            if (!s.lease || resource_version_of(up->body) != resource_version_of(*s.lease)) {
                a = c.fsm.step(le::request_failed{now, error(api_errc::conflict)});
            } else {
                s.lease = up->body;
                mutable_metadata(*s.lease)["resourceVersion"] = std::to_string(++s.rv);
                if (c.leading) c.last_renew = now;
                a = c.fsm.step(le::write_succeeded{now, *s.lease});
            }
        }
    }
}

} // namespace

TEST_CASE("two candidates: one leader; the other takes over after the leader's renewals fail") {
    fake_store store;
    candidate a("a_1");
    candidate b("b_2");
    run_until_wait(a, store, t0, a.fsm.step(le::start{t0}));
    run_until_wait(b, store, t0 + 300ms, b.fsm.step(le::start{t0 + 300ms}));
    REQUIRE(a.leading);
    CHECK_FALSE(b.leading);

    const auto fail_at = t0 + 60s;
    for (auto now = t0 + 100ms; now < t0 + 120s; now += 100ms) {
        if (now >= fail_at) a.failing = true;
        for (auto* c : {&a, &b})
            if (c->wake <= now) run_until_wait(*c, store, now, c->fsm.step(le::timer_fired{now}));
        REQUIRE_FALSE((a.leading && b.leading));
    }
    REQUIRE(a.stopped);
    REQUIRE(b.started);
    CHECK(*a.stopped < *b.started);                              // the old leader stops first
    CHECK(*a.stopped <= a.last_renew + 2s + 10s);                 // within retry + renew deadline
    // Lease duration after b last saw the record change, which b notices
    // within one retry period; plus one retry period to act.
    CHECK(*b.started <= a.last_renew + 15s + 4s + 200ms);
    CHECK(*b.started >= a.last_renew + 15s);                      // never before the lease expired
    CHECK(record_of(*store.lease).holder_identity == "b_2");
    CHECK(record_of(*store.lease).lease_transitions == 1);
}

TEST_CASE("may_write: leading and before the last successful round's start plus renew_deadline") {
    leader_election_fsm fsm(config("a_1"));
    CHECK_FALSE(fsm.may_write(t0));  // not leading yet
    auto stored = acquire(fsm);
    CHECK(fsm.valid_until() == t0 + 10s);
    CHECK(fsm.may_write(t0 + 9999ms));
    CHECK_FALSE(fsm.may_write(t0 + 10s));  // a stall past it: refused though still "leading"
    CHECK(fsm.is_leader());

    // A renew round started at t0 + 2s and answered at t0 + 3s extends it to t0 + 12s.
    as<le::get_lease>(fsm.step(le::timer_fired{t0 + 2s}));
    auto upd = as<le::update_lease>(fsm.step(le::lease_read{t0 + 2500ms, w0 + 2500ms, stored}));
    auto renewed = upd.body;
    mutable_metadata(renewed)["resourceVersion"] = "2";
    as<le::wait_until>(fsm.step(le::write_succeeded{t0 + 3s, renewed}));
    CHECK(fsm.valid_until() == t0 + 12s);
    CHECK(fsm.may_write(t0 + 11s));
    CHECK_FALSE(fsm.may_write(t0 + 12s));

    // Lost or releasing: never.
    as<le::get_lease>(fsm.step(le::timer_fired{t0 + 5s}));
    as<le::stopped_leading>(fsm.step(le::lease_read{t0 + 5s, w0 + 5s, lease_held_by("b_2", "3")}));
    CHECK_FALSE(fsm.may_write(t0 + 5s));
}

TEST_CASE("a renewal committed late (the client retried it) shortens the next round: it never outlasts the lease others see") {
    // Found by the simulator (seed 66): the renew body stamped renewTime at
    // t0+2s, a 429 with Retry-After made the client send it again at t0+6s,
    // and it committed then. Others count from renewTime t0+2s (expired at
    // t0+17s); a round started at t0+8s with a 10 s budget would have led
    // until t0+18s.
    leader_election_fsm fsm(config("a_1"));
    auto stored = acquire(fsm);
    as<le::get_lease>(fsm.step(le::timer_fired{t0 + 2s}));
    auto upd = as<le::update_lease>(fsm.step(le::lease_read{t0 + 2s, w0 + 2s, stored}));
    auto next = upd.body;
    mutable_metadata(next)["resourceVersion"] = "2";
    CHECK(as<le::wait_until>(fsm.step(le::write_succeeded{t0 + 6s, next})).deadline == t0 + 8s);
    CHECK(fsm.leading_until() == t0 + 14s);  // renewTime + renew_deadline + retry_period
    CHECK(as<le::get_lease>(fsm.step(le::timer_fired{t0 + 8s})).deadline == t0 + 14s);
    // Nothing answers: leadership ends at t0+14s, before the lease (t0+17s).
    CHECK(as<le::wait_until>(fsm.step(le::request_failed{t0 + 9s, error(kcoro_errc::deadline_exceeded)})).deadline ==
          t0 + 11s);
    as<le::get_lease>(fsm.step(le::timer_fired{t0 + 11s}));
    as<le::stopped_leading>(fsm.step(le::request_failed{t0 + 12s, error(kcoro_errc::deadline_exceeded)}));
    CHECK_FALSE(fsm.is_leader());
}

TEST_CASE("a renew timer that fires after the lease as written ran out (a stall) loses leadership at once") {
    // Found by libFuzzer (leader_election_fsm): the round's deadline was
    // capped by leading_until() and so lay in the past.
    leader_election_fsm fsm(config("a_1"));
    acquire(fsm);
    const auto late = fsm.leading_until() + 1s;
    auto a = fsm.step(le::timer_fired{late});
    as<le::stopped_leading>(a);
    CHECK_FALSE(fsm.is_leader());
    CHECK_FALSE(fsm.may_write(late));
}
