// runtime::leader_elector against kcoro-apiserver in process: two candidates
// on one Lease, time on a manual clock (the real 15 s / 10 s / 2 s), faults
// injected on the Lease updates.
#include <kcoro/runtime/leader_elector.hpp>

#include "harness.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/io/clock.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;
using kcoro::runtime::leader_elector;

namespace {

struct candidate {
    std::string id;
    std::unique_ptr<kcoro::client::client> client;
    std::unique_ptr<leader_elector> le;
    asio::cancellation_signal cancel;
    bool running = false;
    std::vector<std::string> status;  // on_status calls
};

// The shared harness, with the candidates on it.
struct harness : kcoro::test::harness {
    kcoro::io::manual_clock& clk = manual_clock();
    kcoro::apiserver::server& srv = server();
    std::vector<std::string> order;  // "<id> started" / "<id> stopped: reason"
    std::vector<std::unique_ptr<candidate>> cands;

    ~harness() {
        for (auto& c : cands) {
            if (c->running) c->cancel.emit(asio::cancellation_type::terminal);
        }
        settle();
        cands.clear();
    }

    candidate& add(std::string id, bool release_on_cancel = false) {
        auto c = std::make_unique<candidate>();
        c->id = id;
        c->client = make_client();
        kcoro::runtime::leader_elector_options o;
        o.config.lease_namespace = "default";
        o.config.lease_name = "op-lock";
        o.config.identity = id;
        o.config.release_on_cancel = release_on_cancel;
        auto* raw = c.get();
        o.on_started_leading = [this, raw] { order.push_back(raw->id + " started"); };
        o.on_stopped_leading = [this, raw](std::string_view why) {
            order.push_back(raw->id + " stopped: " + std::string(why));
        };
        o.on_status = [raw](bool on) { raw->status.push_back(on ? "1" : "0"); };
        c->le = std::make_unique<leader_elector>(*c->client, clk, std::move(o));
        c->running = true;
        asio::co_spawn(ioc, c->le->run(),
                       asio::bind_cancellation_slot(c->cancel.slot(), [raw](std::exception_ptr e) {
                           raw->running = false;
                           if (e) std::rethrow_exception(e);
                       }));
        cands.push_back(std::move(c));
        return *raw;
    }

    kcoro::runtime::leader_record lease() {
        const kcoro::object_key key{"default", "op-lock"};
        const kcoro::get_options o;
        auto out = run(admin().get(kcoro::resources::leases(), key, o));
        REQUIRE(out);
        return kcoro::runtime::record_of(**out);
    }
};

} // namespace

TEST_CASE("one candidate leads; the other waits while the lease is renewed") {
    harness h;
    auto& a = h.add("a");
    REQUIRE(h.run_until([&] { return a.le->is_leader(); }));
    auto& b = h.add("b");
    bool both = false;
    h.advance_until([&] {
        both = both || (a.le->is_leader() && b.le->is_leader());
        return false;
    }, 40s);
    CHECK_FALSE(both);
    CHECK(a.le->is_leader());
    CHECK_FALSE(b.le->is_leader());
    CHECK(b.le->observed_leader() == "a");
    auto rec = h.lease();
    CHECK(rec.holder_identity == "a");
    CHECK(rec.lease_duration_seconds == 15);
    CHECK(rec.lease_transitions == 0);
    CHECK(a.status == std::vector<std::string>{"0", "1"});
    CHECK(b.status == std::vector<std::string>{"0"});
}

TEST_CASE("failed renewals: the leader stops within the renew deadline, the standby takes over after the lease duration") {
    harness h;
    auto& a = h.add("a");
    REQUIRE(h.run_until([&] { return a.le->is_leader(); }));
    auto& b = h.add("b");
    h.advance_until([] { return false; }, 5s);
    REQUIRE(a.le->is_leader());

    // Every Lease update fails from now on (both candidates).
    kcoro::apiserver::http::fault_rule f;
    f.verb = "update";
    f.resource = "leases";
    f.count = 0;
    f.code = 500;
    h.srv.faults().add(f);
    const auto fault_at = h.clk.now();
    kcoro::steady_time a_lost{}, b_won{};
    bool cleared = false;
    REQUIRE(h.advance_until([&] {
        CHECK_FALSE((a.le->is_leader() && b.le->is_leader()));
        if (!a.le->is_leader() && a_lost == kcoro::steady_time{}) a_lost = h.clk.now();
        if (a.le->lost() && !cleared) {
            h.srv.faults().clear();  // the standby may write again
            cleared = true;
        }
        if (b.le->is_leader() && b_won == kcoro::steady_time{}) b_won = h.clk.now();
        return b.le->is_leader();
    }, 40s));
    CHECK(a.le->lost());
    CHECK_FALSE(a.running);  // the elector returned after losing
    // The old leader stopped within the renew deadline (plus a step) ...
    CHECK(a_lost - fault_at <= 10s + 200ms);
    // ... before the new one started, which took at most a lease duration
    // after the last renewal it saw (plus a retry period to notice it).
    CHECK(a_lost < b_won);
    CHECK(b_won - fault_at <= 15s + 2s + 2s + 200ms);
    REQUIRE(h.order.size() == 3);
    CHECK(h.order[0] == "a started");
    CHECK(h.order[1].rfind("a stopped: ", 0) == 0);
    CHECK(h.order[2] == "b started");
    auto rec = h.lease();
    CHECK(rec.holder_identity == "b");
    CHECK(rec.lease_transitions == 1);
}

TEST_CASE("release on cancel: the lease is given up and the standby takes over at its next retry") {
    harness h;
    auto& a = h.add("a", true);
    REQUIRE(h.run_until([&] { return a.le->is_leader(); }));
    auto& b = h.add("b");
    h.advance_until([] { return false; }, 3s);
    a.le->stop();
    REQUIRE(h.run_until([&] { return !a.running; }));
    CHECK(a.le->released());
    CHECK_FALSE(a.le->lost());
    CHECK(h.lease().holder_identity.empty());
    const auto released_at = h.clk.now();
    REQUIRE(h.advance_until([&] { return b.le->is_leader(); }, 20s));
    CHECK(h.clk.now() - released_at <= 2s + 100ms);
    CHECK(a.status.back() == "0");
}

TEST_CASE("stop without release, and stop of a standby, return promptly") {
    harness h;
    auto& a = h.add("a");
    REQUIRE(h.run_until([&] { return a.le->is_leader(); }));
    auto& b = h.add("b");
    h.settle();
    b.le->stop();
    REQUIRE(h.run_until([&] { return !b.running; }));
    CHECK_FALSE(b.le->released());
    a.le->stop();
    REQUIRE(h.run_until([&] { return !a.running; }));
    CHECK_FALSE(a.le->released());
    CHECK(h.lease().holder_identity == "a");  // kept: no release configured
}

TEST_CASE("default identity is hostname_uuid") {
    auto id = kcoro::runtime::default_leader_identity();
    auto us = id.rfind('_');
    REQUIRE(us != std::string::npos);
    CHECK(id.size() - us - 1 == 36);
    CHECK(id[us + 15] == '4');
    CHECK(kcoro::runtime::default_leader_identity() != id);
}
