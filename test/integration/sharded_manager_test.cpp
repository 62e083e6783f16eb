// --sharding-ring end to end: three managers (one io_context, one manual
// clock, kcoro-apiserver in process) on the ring "mirror", each with a
// mirror-like controller (parents: ConfigMaps role=parent; children: one
// ConfigMap per parent, controlled by it, naming the replica that wrote it).
// The reconciler is instrumented: at every reconcile start it checks that no
// other replica is inside a reconcile of the same key (exact: everything runs
// on one thread), and at every write that the writer holds the key's hash
// (active or draining, within its validity: the fsm's own state). Each
// reconcile works 300 ms of clock time, so overlaps would be seen.
// Scenarios: the ring converges (every parent's child written by its ring
// owner, the keys spread); a clean stop of one replica moves its keys to the
// two others; a killed replica's keys move after its Lease expired; a
// singleton() controller runs on one replica only (the leader).
#include <kcoro/server/manager.hpp>

#include "harness.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/shard_ring.hpp>
#include <kcoro/runtime/watcher.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using kcoro::object_key;
using kcoro::runtime::fnv1a64;

namespace {

const auto cms = kcoro::resources::configmaps();

// What every replica's reconciler reports to.
struct ledger {
    std::map<object_key, std::set<std::string>> inside;  // key -> replicas reconciling it now
    int overlaps = 0;          // a reconcile started while another replica was inside one of the key
    int foreign_writes = 0;    // a child written by a replica not holding the parent's hash
    int primary_misses = 0;    // ctx.read_primary without the parent, or with one of another share
    std::map<std::string, int> reconciles;  // by replica
};

struct replica {
    std::string id;
    std::unique_ptr<kcoro::server::manager> mgr;
    asio::cancellation_signal kill;
    std::shared_ptr<std::optional<int>> code = std::make_shared<std::optional<int>>();
    bool done() const { return code->has_value(); }
};

struct harness : kcoro::test::harness {
    harness() = default;
    explicit harness(kcoro::test::harness_options o) : kcoro::test::harness(std::move(o)) {}
    kcoro::io::manual_clock& clk = manual_clock();
    ledger led;
    std::vector<std::unique_ptr<replica>> replicas;
    std::map<std::string, std::string> uids;  // parent name -> uid

    ~harness() {
        for (auto& r : replicas) {
            if (!r->done()) r->kill.emit(asio::cancellation_type::terminal);
        }
        settle();
    }

    // Held: active or draining before the end of its validity (what may
    // still be inside a reconcile of the hash).
    static bool holds(kcoro::server::manager& m, std::uint64_t h, kcoro::steady_time now) {
        const auto& f = m.shard()->state();
        return now < f.valid_until() &&
               (kcoro::runtime::contains(f.active(), h) || kcoro::runtime::contains(f.draining(), h));
    }

    // What the replicas shard by: the parent's uid, or its namespace.
    bool namespaces = false;
    std::uint64_t shard_hash(const json::object& parent) const {
        return fnv1a64(namespaces ? kcoro::namespace_of(parent) : kcoro::uid_of(parent));
    }

    asio::awaitable<kcoro::result<kcoro::runtime::reconcile_result>> reconcile(replica& r,
                                                                              const kcoro::runtime::reconcile_context& ctx) {
        const object_key key = ctx.key;
        auto& in = led.inside[key];
        if (!in.empty()) ++led.overlaps;
        in.insert(r.id);
        ++led.reconciles[r.id];
        struct leave {
            ledger& l;
            object_key k;
            std::string id;
            ~leave() { l.inside[k].erase(id); }
        } guard{led, key, r.id};
        // The controller's own cache of the primary: the sharded informer,
        // synced, holding the key (a reconcile starts only for a cached key
        // of this share; the parents are never deleted here).
        const auto cached = ctx.read_primary ? ctx.read_primary(key) : nullptr;
        if (!cached || !holds(*r.mgr, shard_hash(*cached), clk.now())) ++led.primary_misses;
        // Work that takes time: a handover must wait for it.
        if (auto ec = co_await clk.sleep_for(300ms); ec) co_return kcoro::error(kcoro::kcoro_errc::cancelled, "cancelled");
        auto parent = co_await r.mgr->client().get(cms, key);
        if (!parent) {
            if (parent.error().http_code() == 404) co_return kcoro::runtime::success();
            co_return parent.error();
        }
        const auto uid = std::string(kcoro::uid_of(**parent));
        if (!holds(*r.mgr, shard_hash(**parent), clk.now())) ++led.foreign_writes;
        json::object child{{"apiVersion", "v1"},
                           {"kind", "ConfigMap"},
                           {"metadata",
                            {{"name", key.name + "-child"},
                             {"namespace", key.ns},
                             {"labels", {{"role", "child"}}},
                             {"ownerReferences",
                              json::array{json::object{{"apiVersion", "v1"},
                                                       {"kind", "ConfigMap"},
                                                       {"name", key.name},
                                                       {"uid", uid},
                                                       {"controller", true}}}}}},
                           {"data", {{"writer", r.id}}}};
        if (hold_key && *hold_key == key && !held) {
            // Paused before its write (as by SIGSTOP) until the test lets it
            // go; not cancellable: a paused process notices nothing.
            held = true;
            co_await gate.async_wait(
                asio::bind_cancellation_slot(asio::cancellation_slot(), asio::as_tuple(asio::use_awaitable)));
        }
        auto w = co_await r.mgr->client().apply(cms, std::move(child), "mirror", true);
        if (!w) {
            write_errors[r.id].push_back(w.error());
            co_return w.error();
        }
        co_return kcoro::runtime::success();
    }

    replica& start(const std::string& id, bool with_singleton = false, bool by_namespace = false) {
        auto r = std::make_unique<replica>();
        auto* raw = r.get();
        r->id = id;
        auto o = manager_options();
        o.sharding_ring = "mirror";
        o.leader_election_namespace = "default";
        if (with_singleton) {
            o.leader_elect = true;
            o.leader_election_id = "mirror-lock";
        }
        o.max_concurrent_reconciles = 4;
        r->mgr = make_manager(o, manager_setup(id));
        kcoro::runtime::informer_key parents{.gvr = cms, .label_selector = "role=parent"};
        kcoro::runtime::informer_key children{.gvr = cms, .label_selector = "role=child"};
        auto b = r->mgr->controller("mirror");
        b.for_(parents).owns(children);
        if (by_namespace) b.shard_by_namespace();
        b.complete([this, raw](const kcoro::runtime::reconcile_context& ctx) { return reconcile(*raw, ctx); });
        if (with_singleton) {
            r->mgr->controller("census")
                .for_(parents)
                .singleton()
                .complete([this, raw](const object_key&) -> asio::awaitable<kcoro::result<kcoro::runtime::reconcile_result>> {
                    census[raw->id]++;
                    co_return kcoro::runtime::success();
                });
        }
        auto code = r->code;
        asio::co_spawn(ioc, r->mgr->run_async(), asio::bind_cancellation_slot(r->kill.slot(), [code](std::exception_ptr e, int c) {
                           code->emplace(e ? -1 : c);
                       }));
        replicas.push_back(std::move(r));
        return *raw;
    }
    std::map<std::string, int> census;
    // r's parent and child informers (keyed as its sharded controller's)
    // hold `n` objects each.
    std::pair<kcoro::runtime::informer*, kcoro::runtime::informer*> caches_hold(replica& r, kcoro::runtime::shard_by parents_by,
                                                                                kcoro::runtime::shard_by children_by, int n) {
        kcoro::runtime::informer_key parents{.gvr = cms, .label_selector = "role=parent", .shard = parents_by};
        kcoro::runtime::informer_key children{.gvr = cms, .label_selector = "role=child", .shard = children_by};
        auto* pi = r.mgr->cache().find(parents);
        auto* ci = r.mgr->cache().find(children);
        REQUIRE(pi);
        REQUIRE(ci);
        CHECK(pi->cache().size() == static_cast<std::size_t>(n));
        CHECK(ci->cache().size() == static_cast<std::size_t>(n));
        return {pi, ci};
    }
    // Every renewal of r's shard Lease answered 503 until the faults are cleared.
    void fail_shard_renewals(replica& r) {
        kcoro::apiserver::http::fault_rule f;
        f.verb = "update";
        f.resource = "leases";
        f.name = r.mgr->shard()->lease_name();
        f.count = 0;
        f.code = 503;
        server().faults().add(f);
    }
    // `parents` parents, r1 and r2 with the singleton "census" (leader election on), settled.
    bool start_pair_with_singleton(int parents) {
        make_parents(parents);
        start("r1", true);
        start("r2", true);
        const std::vector<std::string> both{"r1", "r2"};
        return advance_until([&] { return shares_settled(both) && children_follow(both); }, 60s);
    }
    // A reconcile of hold_key waits at `gate` before its write (once).
    std::optional<object_key> hold_key;
    asio::steady_timer gate{ioc, asio::steady_timer::time_point::max()};
    bool held = false;
    std::map<std::string, std::vector<kcoro::error>> write_errors;  // by replica

    void make_parents(int n) {
        for (int i = 0; i < n; ++i) {
            const std::string name = "p" + std::to_string(i);
            json::object cm{{"apiVersion", "v1"},
                            {"kind", "ConfigMap"},
                            {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"role", "parent"}}}}},
                            {"data", {{"v", "1"}}}};
            auto made = run(admin().create(cms, "default", std::move(cm)));
            REQUIRE(made);
            uids[name] = std::string(kcoro::uid_of(**made));
        }
    }

    // Every parent's child names the ring owner of its uid among `live`;
    // `by` (optional) counts children per writer.
    bool children_follow(const std::vector<std::string>& live, std::map<std::string, int>* by = nullptr) {
        kcoro::runtime::shard_ring ring(live);
        std::map<std::string, int> count;
        for (const auto& [name, uid] : uids) {
            auto child = run(admin().get(cms, {"default", name + "-child"}));
            if (!child) return false;
            const auto* data = (*child)->if_contains("data");
            const auto* w = data && data->is_object() ? data->as_object().if_contains("writer") : nullptr;
            if (!w || !w->is_string()) return false;
            const std::string writer(w->as_string());
            if (writer != ring.owner_of(fnv1a64(uid))) return false;
            ++count[writer];
        }
        if (by) *by = count;
        return true;
    }
    // Each live member's active ranges are exactly its share of the ring of `live`.
    bool shares_settled(const std::vector<std::string>& live) {
        kcoro::runtime::shard_ring ring(live);
        for (auto& r : replicas) {
            if (std::find(live.begin(), live.end(), r->id) == live.end()) continue;
            if (r->done() || !r->mgr->shard()) return false;
            if (r->mgr->shard()->active() != ring.ranges_of(r->id)) return false;
        }
        return true;
    }
    replica& get(const std::string& id) {
        for (auto& r : replicas)
            if (r->id == id) return *r;
        throw std::logic_error("no replica " + id);
    }
};

constexpr int parents_n = 60;

} // namespace

TEST_CASE("three managers on one ring: every parent reconciled by its owner only; a stopped and a killed replica's keys move") {
    harness h;
    h.make_parents(parents_n);
    const auto t0 = h.clk.now();
    h.start("r1");
    h.start("r2");
    h.start("r3");
    std::vector<std::string> all{"r1", "r2", "r3"};
    std::map<std::string, int> by;
    REQUIRE(h.advance_until([&] { return h.shares_settled(all) && h.children_follow(all, &by); }, 60s));
    const auto converge = h.clk.now() - t0;
    MESSAGE("3 replicas, " << parents_n << " parents: converged in " << converge / 1ms << " ms of clock; children by r1/r2/r3 "
                           << by["r1"] << "/" << by["r2"] << "/" << by["r3"] << "; reconciles " << h.led.reconciles["r1"]
                           << "/" << h.led.reconciles["r2"] << "/" << h.led.reconciles["r3"]);
    CHECK(h.led.overlaps == 0);
    CHECK(h.led.foreign_writes == 0);
    CHECK(h.led.primary_misses == 0);
    for (auto& id : all) CHECK(by[id] > 0);
    // Each replica's caches hold its share only (informers filtered by the
    // parent's uid, the children by their controller owner's): what it wrote.
    for (auto& r : h.replicas) {
        h.caches_hold(*r, kcoro::runtime::shard_by::uid, kcoro::runtime::shard_by::controller_owner, by[r->id]);
        // No unsharded copy of the parents exists beside it.
        CHECK(r->mgr->cache().find({.gvr = cms, .label_selector = "role=parent"}) == nullptr);
    }
    // The metrics a replica exports with the flag.
    const auto text = h.get("r1").mgr->metrics().serialize();
    CHECK(text.find("kcoro_shard_members{ring=\"mirror\"} 3") != std::string::npos);
    CHECK(text.find("kcoro_shard_unowned_events_total{controller=\"mirror\"}") != std::string::npos);
    // kcoro_shard_owned_keys: the replicas' counts add up to every parent, each its share.
    int owned_sum = 0;
    for (auto& r : h.replicas) {
        const auto t = r->mgr->metrics().serialize();
        const std::string series = "kcoro_shard_owned_keys{controller=\"mirror\"} ";
        const auto at = t.find(series);
        REQUIRE(at != std::string::npos);
        const int n = std::stoi(t.substr(at + series.size()));
        CHECK(n == by[r->id]);
        owned_sum += n;
    }
    CHECK(owned_sum == parents_n);
    // Sharded controllers run on every replica without --leader-elect gating.
    for (auto& r : h.replicas) CHECK(r->mgr->shard() != nullptr);

    // A clean stop: r3 drops its ranges, waits for its reconciles, releases.
    const auto t1 = h.clk.now();
    h.get("r3").mgr->request_stop();
    std::vector<std::string> two{"r1", "r2"};
    REQUIRE(h.advance_until([&] { return h.get("r3").done() && h.shares_settled(two) && h.children_follow(two, &by); }, 60s));
    CHECK(**h.get("r3").code == 0);
    MESSAGE("clean stop of r3: its keys moved in " << (h.clk.now() - t1) / 1ms << " ms; children by r1/r2 " << by["r1"] << "/"
                                                   << by["r2"]);
    CHECK(h.led.overlaps == 0);
    CHECK(h.led.foreign_writes == 0);

    // A parent changed now is reconciled by its owner only (once the
    // handover's own reconciles, and the child events they cause, are done).
    REQUIRE(h.advance_until([&] { return h.get("r1").mgr->idle() && h.get("r2").mgr->idle(); }, 10s));
    const auto before = h.led.reconciles;
    REQUIRE(h.run(h.admin().patch(cms, {"default", "p7"}, R"({"data":{"v":"2"}})")));
    REQUIRE(h.advance_until([&] { return h.led.reconciles != before; }, 5s));
    h.advance_until([] { return false; }, 2s);
    int reconciled_by = 0;
    for (auto& id : two) reconciled_by += h.led.reconciles[id] != before.at(id) ? 1 : 0;
    CHECK(reconciled_by == 1);

    // A kill: r2's coroutine cancelled (no release); r1 takes its keys only
    // after r2's Lease expired and was reaped.
    const auto t2 = h.clk.now();
    h.get("r2").kill.emit(asio::cancellation_type::terminal);
    std::vector<std::string> one{"r1"};
    REQUIRE(h.advance_until([&] { return h.shares_settled(one) && h.children_follow(one, &by); }, 60s));
    const auto took = h.clk.now() - t2;
    MESSAGE("kill of r2: r1 holds the whole ring and rewrote its children in " << took / 1ms << " ms (lease 15 s)");
    CHECK(took >= 10s);  // not before r2's validity (renew deadline) could have ended
    CHECK(h.led.overlaps == 0);
    CHECK(h.led.foreign_writes == 0);
    CHECK(h.led.primary_misses == 0);
    CHECK(by["r1"] == parents_n);
}

TEST_CASE("a singleton() controller runs on the leader only, next to sharded ones on every replica") {
    harness h;
    const std::vector<std::string> both{"r1", "r2"};
    REQUIRE(h.start_pair_with_singleton(12));
    h.advance_until([] { return false; }, 3s);
    const int leaders = (h.get("r1").mgr->is_leader() ? 1 : 0) + (h.get("r2").mgr->is_leader() ? 1 : 0);
    CHECK(leaders == 1);
    const std::string leader = h.get("r1").mgr->is_leader() ? "r1" : "r2";
    const std::string standby = leader == "r1" ? "r2" : "r1";
    CHECK(h.census[leader] == 12);  // every parent, unsharded
    CHECK(h.census[standby] == 0);
    CHECK(h.led.reconciles[standby] > 0);  // the sharded controller does run on the standby
    CHECK(h.led.overlaps == 0);
    CHECK(h.led.foreign_writes == 0);
}

TEST_CASE("a replica whose shard Lease cannot be renewed stops reconciling and writing; /healthz fails; the other takes over") {
    harness h;
    h.make_parents(20);
    h.start("r1");
    h.start("r2");
    std::vector<std::string> both{"r1", "r2"};
    REQUIRE(h.advance_until([&] { return h.shares_settled(both) && h.children_follow(both); }, 60s));
    auto& r1 = h.get("r1");
    CHECK(r1.mgr->probes().handle("/healthz/sharding").status == 200);

    // r1's renewals fail (503) from now on.
    h.fail_shard_renewals(r1);
    const auto t0 = h.clk.now();
    REQUIRE(h.advance_until([&] { return r1.mgr->shard()->finished(); }, 20s));
    const auto stopped_after = h.clk.now() - t0;
    MESSAGE("r1's renewals failing: it left the ring after " << stopped_after / 1ms << " ms (renew deadline 10 s)");
    CHECK(stopped_after <= 12s);
    h.server().faults().clear();  // so that r2 can reap r1's Lease
    CHECK_FALSE(r1.done());       // the manager runs on; its liveness fails
    CHECK(r1.mgr->probes().handle("/healthz/sharding").status == 500);
    CHECK(r1.mgr->probes().handle("/healthz").status == 500);
    // Its writes are refused unsent, as a lost leader's.
    json::object cm{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "late"}, {"namespace", "default"}}}};
    auto w = h.run(r1.mgr->client().create(cms, "default", std::move(cm)));
    REQUIRE_FALSE(w);
    CHECK(w.error().code() == kcoro::make_error_code(kcoro::kcoro_errc::not_leader));
    CHECK(r1.mgr->metrics().serialize().find("kcoro_leader_write_refused_total 1") != std::string::npos);

    // r2 takes the whole ring once r1's Lease expired and was reaped.
    const auto r1_reconciles = h.led.reconciles["r1"];
    std::vector<std::string> one{"r2"};
    REQUIRE(h.advance_until([&] { return h.shares_settled(one) && h.children_follow(one); }, 40s));
    MESSAGE("r2 holds the ring and rewrote r1's children " << (h.clk.now() - t0) / 1ms << " ms after the fault");
    CHECK(h.led.reconciles["r1"] == r1_reconciles);  // nothing started on r1 since
    CHECK(h.led.overlaps == 0);
    CHECK(h.led.foreign_writes == 0);
}

TEST_CASE("the leader's sharded reconcile that outlives its shard Lease cannot write; the leader's other writes can") {
    // One manager with both Leases: the write guard judges the sharded
    // controller's writes by the shard Lease, not by the leader Lease it
    // also holds (docs/sharding.md, "The write guard").
    harness h;
    const std::vector<std::string> both{"r1", "r2"};
    REQUIRE(h.start_pair_with_singleton(12));
    REQUIRE(h.advance_until([&] { return h.get("r1").mgr->is_leader() || h.get("r2").mgr->is_leader(); }, 20s));
    auto& leader = h.get("r1").mgr->is_leader() ? h.get("r1") : h.get("r2");
    // A parent of the leader's share, changed: its reconcile pauses before its write.
    kcoro::runtime::shard_ring ring(both);
    std::string mine;
    for (const auto& [name, uid] : h.uids) {
        if (ring.owner_of(fnv1a64(uid)) == leader.id) mine = name;
    }
    REQUIRE_FALSE(mine.empty());
    h.hold_key = object_key{"default", mine};
    REQUIRE(h.run(h.admin().patch(cms, {"default", mine}, R"({"data":{"v":"2"}})")));
    REQUIRE(h.advance_until([&] { return h.held; }, 5s));

    // Its shard Lease renewals fail until the member stops; the leader Lease
    // renews on.
    h.fail_shard_renewals(leader);
    REQUIRE(h.advance_until([&] { return leader.mgr->shard()->finished(); }, 20s));
    CHECK(leader.mgr->is_leader());
    REQUIRE(leader.mgr->elector());
    CHECK(leader.mgr->elector()->may_write());

    // The paused reconcile resumes: its write is refused unsent.
    const auto refused_before = h.write_errors[leader.id].size();
    h.gate.cancel();
    REQUIRE(h.advance_until([&] { return h.write_errors[leader.id].size() > refused_before; }, 2s));
    CHECK(h.write_errors[leader.id].back().code() == kcoro::make_error_code(kcoro::kcoro_errc::not_leader));
    CHECK(h.write_errors[leader.id].back().message().find("shard Lease") != std::string::npos);
    // A write of unknown origin (not from a controller's workers) passes on
    // the leader Lease.
    json::object cm{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "by-leader"}, {"namespace", "default"}}}};
    CHECK(h.run(leader.mgr->client().create(cms, "default", std::move(cm))));
    h.server().faults().clear();
    CHECK(h.led.overlaps == 0);
    CHECK(h.led.foreign_writes == 0);
}

TEST_CASE("shard_by_namespace(): each namespace's parents reconciled by one replica; the server selects the namespaces") {
    kcoro::test::harness_options o;
    o.server.store.sharded_list_and_watch = true;  // --feature-gates=ShardedListAndWatch
    harness h(o);
    h.namespaces = true;
    // 3 parents in each of 10 namespaces.
    std::vector<std::string> nss;
    for (int n = 0; n < 10; ++n) {
        // Names that differ in their first byte (FNV-1a of strings that
        // differ only at the end lands in a narrow arc, docs/sharding.md).
        nss.push_back(std::string(1, static_cast<char>('a' + n)) + "-team");
        json::object ns{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", nss.back()}}}};
        REQUIRE(h.run(h.admin().create(kcoro::resources::namespaces(), "", std::move(ns))));
        for (int i = 0; i < 3; ++i) {
            json::object cm{{"apiVersion", "v1"},
                            {"kind", "ConfigMap"},
                            {"metadata", {{"name", "p" + std::to_string(i)}, {"namespace", nss.back()}, {"labels", {{"role", "parent"}}}}},
                            {"data", {{"v", "1"}}}};
            REQUIRE(h.run(h.admin().create(cms, nss.back(), std::move(cm))));
        }
    }
    h.start("r1", false, true);
    h.start("r2", false, true);
    const std::vector<std::string> both{"r1", "r2"};
    kcoro::runtime::shard_ring ring(both);
    // Every child written by the ring owner of its namespace.
    auto children_by_namespace_owner = [&](std::map<std::string, int>* by) {
        std::map<std::string, int> count;
        for (const auto& ns : nss) {
            for (int i = 0; i < 3; ++i) {
                auto child = h.run(h.admin().get(cms, {ns, "p" + std::to_string(i) + "-child"}));
                if (!child) return false;
                const auto* w = (*child)->at("data").as_object().if_contains("writer");
                if (!w || w->as_string() != ring.owner_of(fnv1a64(ns))) return false;
                ++count[std::string(w->as_string())];
            }
        }
        if (by) *by = count;
        return true;
    };
    std::map<std::string, int> by;
    REQUIRE(h.advance_until([&] { return h.shares_settled(both) && children_by_namespace_owner(&by); }, 60s));
    MESSAGE("by namespace, 10 namespaces x 3 parents: children by r1/r2 " << by["r1"] << "/" << by["r2"]);
    CHECK(by["r1"] > 0);
    CHECK(by["r2"] > 0);
    CHECK(h.led.overlaps == 0);
    CHECK(h.led.foreign_writes == 0);
    CHECK(h.led.primary_misses == 0);
    for (auto& r : h.replicas) {
        // Exactly its namespaces' objects, selected by the server.
        auto [pi, ci] = h.caches_hold(*r, kcoro::runtime::shard_by::namespace_, kcoro::runtime::shard_by::namespace_, by[r->id]);
        CHECK(pi->server_filtering() == std::optional<bool>(true));
        CHECK(ci->server_filtering() == std::optional<bool>(true));
        CHECK(pi->source().target().shard_selector.starts_with("shardRange(object.metadata.namespace, "));
    }

    // A parent deleted: its child's event maps to the deleted parent's key,
    // whose namespace still names the owner (no cache needed).
    const std::string ns = nss.front();
    const auto owner = std::string(ring.owner_of(fnv1a64(ns)));
    const std::string other = owner == "r1" ? "r2" : "r1";
    REQUIRE(h.advance_until([&] { return h.get("r1").mgr->idle() && h.get("r2").mgr->idle(); }, 10s));
    const auto before = h.led.reconciles;
    REQUIRE(h.run(h.admin().remove(cms, {ns, "p0"})));
    REQUIRE(h.advance_until([&] { return h.led.reconciles[owner] > (before.count(owner) ? before.at(owner) : 0); }, 10s));
    h.advance_until([] { return false; }, 2s);
    CHECK(h.led.reconciles[other] == (before.count(other) ? before.at(other) : 0));
    CHECK(h.led.overlaps == 0);
}
