// A sharded informer (informer_key::shard, docs/sharding.md) against
// kcoro-apiserver in process on a manual clock: nothing listed before a
// share; the cache keeps exactly the objects whose hash is in the share; a
// grown share relists (adds for what it gained), a shrunk one evicts with
// tombstones; owned objects follow their controller owner's uid; a server
// that ignores shardSelector is detected and the client filters.
#include <kcoro/runtime/informer.hpp>
#include <kcoro/runtime/shard_bucket.hpp>
#include <kcoro/runtime/shard_ring.hpp>
#include <kcoro/runtime/shard_scope.hpp>
#include <kcoro/runtime/watcher.hpp>

#include "harness.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/io/clock.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <set>

namespace asio = boost::asio;
namespace json = boost::json;
namespace rt = kcoro::runtime;
using namespace std::chrono_literals;
using kcoro::object_ptr;

namespace {

const kcoro::group_version_resource configmaps = kcoro::resources::configmaps();
constexpr std::uint64_t half = std::uint64_t{1} << 63;
const rt::hash_ranges lower{{0, half - 1}};
const rt::hash_ranges upper{{half, ~std::uint64_t{0}}};
const rt::hash_ranges everything{{0, ~std::uint64_t{0}}};

kcoro::test::harness_options gate(bool on) {
    kcoro::test::harness_options o;
    o.server.store.sharded_list_and_watch = on;  // --feature-gates=ShardedListAndWatch
    return o;
}

struct harness : kcoro::test::harness {
    explicit harness(bool sharded_list_and_watch = false) : kcoro::test::harness(gate(sharded_list_and_watch)) {}
    kcoro::io::manual_clock& clk = manual_clock();
    std::unique_ptr<kcoro::client::client> c = make_client();

    object_ptr create(const json::object& obj) {
        auto r = run(admin().create(configmaps, "default", obj));
        REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
        return *r;
    }
    object_ptr create(const std::string& name) {
        return create(json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"("}})")
                          .as_object());
    }
    template <class Pred>
    bool until(Pred p, std::chrono::milliseconds bound = 10s) {
        return run_until(p, bound);
    }
};

struct running {
    harness& h;
    rt::informer& inf;
    bool done = false;
    running(harness& hh, rt::informer& i) : h(hh), inf(i) {
        asio::co_spawn(h.ioc, inf.run(), [this](std::exception_ptr e) {
            done = true;
            if (e) std::rethrow_exception(e);
        });
    }
    ~running() {
        inf.stop();
        CHECK(h.until([&] { return done; }, 5s));
    }
};

rt::informer_options options(rt::shard_by by) {
    rt::informer_options o;
    o.key.gvr = configmaps;
    o.key.namespace_ = "default";
    o.key.shard = by;
    o.watcher.random = [] { return 0.5; };
    o.resync_period = 0ns;
    return o;
}

std::set<std::string> names_in(const rt::informer& inf) {
    std::set<std::string> out;
    for (const auto& k : inf.cache().keys()) out.insert(k.name);
    return out;
}

// The names of `objs` whose shard hash is in `rs`.
std::set<std::string> expected(const std::vector<object_ptr>& objs, const rt::hash_ranges& rs, rt::shard_by by) {
    std::set<std::string> out;
    for (const auto& o : objs) {
        if (auto h = rt::shard_hash_of(*o, by); h && rt::contains(rs, *h)) out.insert(std::string(kcoro::name_of(*o)));
    }
    return out;
}

// 40 ConfigMaps and which of them hash into each half. With 40 random uids
// both halves hold some (fails with probability 2^-39).
struct halves {
    std::vector<object_ptr> objs;
    std::set<std::string> low, high;
};
halves create_halves(harness& h) {
    halves out;
    for (int i = 0; i < 40; ++i) out.objs.push_back(h.create("cm-" + std::to_string(i)));
    out.low = expected(out.objs, lower, rt::shard_by::uid);
    out.high = expected(out.objs, upper, rt::shard_by::uid);
    REQUIRE_FALSE(out.low.empty());
    REQUIRE_FALSE(out.high.empty());
    return out;
}

struct recorder {
    std::vector<std::string> log;
    rt::event_handlers handlers() {
        rt::event_handlers h;
        h.on_add = [this](const object_ptr& o) { log.push_back("add " + std::string(kcoro::name_of(*o))); };
        h.on_delete = [this](const object_ptr& o, bool tombstone) {
            log.push_back((tombstone ? "tombstone " : "delete ") + std::string(kcoro::name_of(*o)));
        };
        return h;
    }
    std::set<std::string> named(const std::string& verb) const {
        std::set<std::string> out;
        for (const auto& l : log) {
            if (l.starts_with(verb + " ")) out.insert(l.substr(verb.size() + 1));
        }
        return out;
    }
};

// Owners need not exist for the filter: the reference's uid decides.
// Varied in the first bytes: FNV-1a of strings differing only in their last
// bytes lands in a narrow arc (docs/sharding.md).
std::string owner_uid_of(int i) { return std::to_string(1000 + i) + "0000-0000-4000-8000-000000000000"; }

// ConfigMap child-<i>, controlled by p<i> of uid `owner_uid`.
json::object child_of(int i, const std::string& owner_uid) {
    return json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"child-)" + std::to_string(i) +
                       R"(","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"p)" + std::to_string(i) +
                       R"(","uid":")" + owner_uid + R"(","controller":true}]}})")
        .as_object();
}

} // namespace

TEST_CASE("sharded informer by uid: only the share is cached; grown share relists, shrunk share evicts") {
    harness h;
    const halves split = create_halves(h);
    const auto& objs = split.objs;
    const auto& low = split.low;

    rt::informer inf(*h.c, h.clk, h.ioc.get_executor(), options(rt::shard_by::uid));
    recorder rec;
    inf.add_handlers(rec.handlers());
    running r(h, inf);

    // No share yet: nothing is listed, and an empty share changes nothing.
    h.settle();
    inf.set_shard({});
    h.settle();
    CHECK(inf.source().lists() == 0);
    CHECK_FALSE(inf.has_synced());

    inf.set_shard(lower);
    const std::chrono::nanoseconds bound = 1min;
    REQUIRE(h.run(inf.wait_for_sync(bound)));
    CHECK(names_in(inf) == low);
    CHECK(rec.named("add") == low);
    // kcoro-apiserver without the gate ignores shardSelector: the informer
    // notices (no shardInfo echoed) and the client keeps filtering.
    REQUIRE(inf.server_filtering().has_value());
    CHECK_FALSE(*inf.server_filtering());
    CHECK(inf.source().target().shard_selector.empty());

    // Watch events: only the share's objects come in.
    REQUIRE(h.until([&] { return inf.source().fsm().state() == rt::watcher_state::watching; }));
    std::vector<object_ptr> more;
    for (int i = 40; i < 60; ++i) more.push_back(h.create("cm-" + std::to_string(i)));
    auto all = objs;
    all.insert(all.end(), more.begin(), more.end());
    const auto low_all = expected(all, lower, rt::shard_by::uid);
    const auto high_all = expected(all, upper, rt::shard_by::uid);
    REQUIRE(h.until([&] { return names_in(inf) == low_all; }));

    // Grown to everything: one relist at the last revision brings the rest as adds.
    const auto lists = inf.source().lists();
    rec.log.clear();
    inf.set_shard(everything);
    REQUIRE(h.until([&] { return inf.cache().size() == all.size(); }));
    CHECK(inf.source().lists() == lists + 1);
    CHECK(rec.named("add") == high_all);
    CHECK(rec.named("tombstone").empty());

    // Shrunk to the upper half: the lower half leaves at once, as tombstones, no list.
    rec.log.clear();
    inf.set_shard(upper);
    CHECK(names_in(inf) == high_all);
    CHECK(rec.named("tombstone") == low_all);
    CHECK(inf.source().lists() == lists + 1);

    // Moved: lower again (gained lower, lost upper): the relist's snapshot
    // drops the upper half as tombstones and adds the lower.
    rec.log.clear();
    inf.set_shard(lower);
    REQUIRE(h.until([&] { return names_in(inf) == low_all; }));
    CHECK(rec.named("tombstone") == high_all);
    CHECK(rec.named("add") == low_all);
}

TEST_CASE("sharded informer by controller owner: children follow their owner's uid; no owner, no share") {
    harness h;
    std::vector<object_ptr> children;
    for (int i = 0; i < 30; ++i) {
        children.push_back(h.create(child_of(i, owner_uid_of(i))));
    }
    h.create("orphan");  // no controller owner: no replica caches it
    const auto low = expected(children, lower, rt::shard_by::controller_owner);
    REQUIRE_FALSE(low.empty());
    REQUIRE(low.size() < children.size());

    rt::informer inf(*h.c, h.clk, h.ioc.get_executor(), options(rt::shard_by::controller_owner));
    running r(h, inf);
    inf.set_shard(lower);
    const std::chrono::nanoseconds bound = 1min;
    REQUIRE(h.run(inf.wait_for_sync(bound)));
    CHECK(names_in(inf) == low);
    // The server cannot select by an owner's uid: the selector is never sent.
    CHECK(inf.source().target().shard_selector.empty());
    CHECK_FALSE(inf.server_filtering().has_value());

    // A child whose controller owner changes to one outside the share leaves
    // the cache as a delete (as a server drops an object leaving a selector).
    std::string moved;
    for (const auto& c : children) {
        if (low.contains(std::string(kcoro::name_of(*c)))) {
            moved = std::string(kcoro::name_of(*c));
            break;
        }
    }
    std::string outside_uid;
    for (int i = 0; !outside_uid.size(); ++i) {
        auto u = std::to_string(5000 + i) + "ffff-0000-4000-8000-000000000000";
        if (!rt::contains(lower, rt::fnv1a64(u))) outside_uid = u;
    }
    auto p = h.run(h.admin().patch(configmaps, {"default", moved},
                                   R"({"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"q","uid":")" +
                                       outside_uid + R"(","controller":true}]}})"));
    REQUIRE_MESSAGE(p, (p ? "" : p.error().message()));
    REQUIRE(h.until([&] { return inf.cache().get({"default", moved}) == nullptr; }));
    CHECK(inf.cache().size() == low.size() - 1);
}

TEST_CASE("sharded informer by controller owner bucket: the server sends only the share's labelled children; the selector follows the share") {
    harness h;
    std::vector<object_ptr> labelled, unlabelled;
    for (int i = 0; i < 40; ++i) {
        const std::string owner_uid = owner_uid_of(i);
        auto o = child_of(i, owner_uid);
        // Every fourth child was written without the helpers: no label.
        if (i % 4 == 3) {
            unlabelled.push_back(h.create(o));
        } else {
            rt::stamp_shard_bucket(o, owner_uid);
            labelled.push_back(h.create(o));
        }
    }
    h.create("orphan");
    const auto low = expected(labelled, lower, rt::shard_by::controller_owner);
    const auto high = expected(labelled, upper, rt::shard_by::controller_owner);
    REQUIRE_FALSE(low.empty());
    REQUIRE_FALSE(high.empty());
    REQUIRE_FALSE(expected(unlabelled, lower, rt::shard_by::controller_owner).empty());

    rt::informer inf(*h.c, h.clk, h.ioc.get_executor(), options(rt::shard_by::controller_owner_bucket));
    running r(h, inf);
    inf.set_shard(lower);
    const std::chrono::nanoseconds bound = 1min;
    REQUIRE(h.run(inf.wait_for_sync(bound)));
    // The lower half is buckets 000-1ff: the server selected the labelled
    // children of the share; the unlabelled ones of the share never came.
    const auto& sel = inf.source().target().label_selector;
    CHECK(sel.starts_with("kcoro.io/shard-bucket in (000,001,"));
    CHECK(sel.ends_with(",1fe,1ff)"));
    CHECK(names_in(inf) == low);
    CHECK(inf.source().target().shard_selector.empty());  // KEP-5866 cannot select by an owner

    // Grown to the whole space: no requirement, a relist; now the server
    // sends every child, the client keeps those with a controller owner.
    inf.set_shard(everything);
    auto all = expected(labelled, everything, rt::shard_by::controller_owner);
    for (const auto& n : expected(unlabelled, everything, rt::shard_by::controller_owner)) all.insert(n);
    REQUIRE(h.until([&] { return names_in(inf) == all; }));
    CHECK(inf.source().target().label_selector.empty());

    // Shrunk to the upper half: the lower half is evicted, no relist (a
    // narrower selector needs none); the next list or watch asks for the
    // upper buckets. The unlabelled children of the upper half, listed
    // while the share was everything, stay: they are of the share.
    inf.set_shard(upper);
    auto upper_now = high;
    for (const auto& n : expected(unlabelled, upper, rt::shard_by::controller_owner)) upper_now.insert(n);
    REQUIRE(h.until([&] { return names_in(inf) == upper_now; }));
    CHECK(inf.source().target().label_selector.starts_with("kcoro.io/shard-bucket in (200,201,"));
    // Moved to the lower half (gained: a relist with the lower buckets).
    inf.set_shard(lower);
    REQUIRE(h.until([&] { return names_in(inf) == low; }));
    CHECK(inf.source().target().label_selector.ends_with(",1fe,1ff)"));
    // A labelled child of the share created now arrives by the watch.
    const std::string owner_uid = [] {
        for (int i = 0;; ++i) {
            auto u = std::to_string(7000 + i) + "aaaa-0000-4000-8000-000000000000";
            if (rt::contains(lower, rt::fnv1a64(u))) return u;
        }
    }();
    auto late = json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"late","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"q","uid":")" +
                            owner_uid + R"(","controller":true}]}})")
                    .as_object();
    rt::stamp_shard_bucket(late, owner_uid);
    h.create(late);
    REQUIRE(h.until([&] { return inf.cache().get({"default", "late"}) != nullptr; }));
}

TEST_CASE("sharded informer by uid on a server with ShardedListAndWatch: the server filters, the selector follows the share") {
    harness h(true);
    const halves split = create_halves(h);
    const auto& objs = split.objs;
    const auto& low = split.low;

    rt::informer inf(*h.c, h.clk, h.ioc.get_executor(), options(rt::shard_by::uid));
    running r(h, inf);
    inf.set_shard(lower);
    const std::chrono::nanoseconds bound = 1min;
    REQUIRE(h.run(inf.wait_for_sync(bound)));
    CHECK(names_in(inf) == low);
    // The server echoed shardInfo: it filters, and the informer keeps asking.
    REQUIRE(inf.server_filtering().has_value());
    CHECK(*inf.server_filtering());
    CHECK(inf.source().target().shard_selector == *rt::shard_selector(lower, rt::shard_field::uid));

    // Creates in both halves while watching (the watch carries the selector):
    // the cache follows the lower half.
    REQUIRE(h.until([&] { return inf.source().fsm().state() == rt::watcher_state::watching; }));
    std::vector<object_ptr> more;
    for (int i = 40; i < 60; ++i) more.push_back(h.create("cm-" + std::to_string(i)));
    auto all = objs;
    all.insert(all.end(), more.begin(), more.end());
    const auto low_all = expected(all, lower, rt::shard_by::uid);
    REQUIRE(h.until([&] { return names_in(inf) == low_all; }));

    // Grown to everything: the relist asks for the new share.
    inf.set_shard(everything);
    REQUIRE(h.until([&] { return inf.cache().size() == all.size(); }));
    CHECK(inf.source().target().shard_selector == *rt::shard_selector(everything, rt::shard_field::uid));
    CHECK(*inf.server_filtering());
}
