// The informer layer (watcher driver, informer, informer factory) against
// kcoro-apiserver in process, on a manual clock: paged initial sync, event
// order, watch drops, compaction (410 -> relist, tombstone deletes), 403 at
// once, 429 Retry-After, bookmarks, one shared watch for two consumers.
#include <kcoro/runtime/informer.hpp>
#include <kcoro/runtime/informer_factory.hpp>
#include <kcoro/runtime/watcher.hpp>

#include "harness.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/log.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/io/clock.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <map>
#include <stdexcept>

namespace asio = boost::asio;
namespace json = boost::json;
namespace rt = kcoro::runtime;
using namespace std::chrono_literals;
using kcoro::object_key;
using kcoro::object_ptr;

namespace {

const kcoro::group_version_resource configmaps = kcoro::resources::configmaps();

json::object cm(const std::string& ns, const std::string& name, const std::string& value = "v") {
    return json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
                       R"(","namespace":")" + ns + R"("},"data":{"k":")" + value + R"("}})")
        .as_object();
}

std::string describe(const object_ptr& o) {
    return o ? kcoro::key_of(*o).str() : std::string("<null>");
}

// Every notification as a line: "add default/a", "update default/a", "delete default/a",
// "tombstone default/a".
struct recorder {
    std::vector<std::string> log;
    std::vector<std::pair<object_ptr, object_ptr>> updates;
    rt::event_handlers handlers() {
        rt::event_handlers h;
        h.on_add = [this](const object_ptr& o) { log.push_back("add " + describe(o)); };
        h.on_update = [this](const object_ptr& old_obj, const object_ptr& o) {
            log.push_back("update " + describe(o));
            updates.emplace_back(old_obj, o);
        };
        h.on_delete = [this](const object_ptr& o, bool tombstone) {
            log.push_back((tombstone ? "tombstone " : "delete ") + describe(o));
        };
        return h;
    }
    int count(const std::string& line) const { return static_cast<int>(std::count(log.begin(), log.end(), line)); }
};

struct fake_metrics final : kcoro::informer_metrics {
    std::int64_t objects = -1;
    std::map<std::string, int> restarts;
    std::map<std::string, int> relists;
    void set_cache_objects(std::int64_t n) override { objects = n; }
    void watch_restarted(std::string_view reason) override { ++restarts[std::string(reason)]; }
    void relisted(std::string_view reason) override { ++relists[std::string(reason)]; }
};

// The server's log, constructed before the harness that writes to it.
struct server_log_holder {
    std::vector<json::object> server_log;
};

// The shared harness (manual clock, memory transport), the server's log kept.
struct harness : server_log_holder, kcoro::test::harness {
    kcoro::io::manual_clock& clk = manual_clock();
    kcoro::apiserver::server& srv = server();
    kcoro::client::client* admin = &kcoro::test::harness::admin();
    std::unique_ptr<kcoro::client::client> c;  // the informers' client

    static kcoro::test::harness_options with_log(kcoro::apiserver::server_options o, harness* h) {
        kcoro::test::harness_options ho;
        ho.server = std::move(o);
        ho.server.log = [h](const json::object& line) { h->server_log.push_back(line); };
        return ho;
    }

    explicit harness(kcoro::apiserver::server_options o = {}, const std::string& token = "")
        : kcoro::test::harness(with_log(std::move(o), this)) {
        // Retries off: the watcher's own backoff is what these tests look at.
        kcoro::test::client_spec spec;
        spec.token = token;
        spec.options.max_retries = 0;
        c = make_client(spec);
    }

    template <class T>
    T run(asio::awaitable<T> aw) {
        return kcoro::test::harness::run(std::move(aw));
    }

    template <class Pred>
    bool until(Pred p, std::chrono::milliseconds bound = 10s) {
        return run_until(p, bound);
    }

    object_ptr create(const std::string& ns, const std::string& name, const std::string& value = "v") {
        auto r = run(admin->create(configmaps, ns, cm(ns, name, value)));
        REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
        return *r;
    }
    void update(const std::string& ns, const std::string& name, const std::string& value) {
        auto r = run(admin->patch(configmaps, {ns, name}, R"({"data":{"k":")" + value + R"("}})"));
        REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    }
    void remove(const std::string& ns, const std::string& name) {
        auto r = run(admin->remove(configmaps, {ns, name}));
        REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    }

    /// Requests the server answered for `verb` ("list"), successes and failures alike.
    int requests(const std::string& verb) const {
        int n = 0;
        for (const auto& l : server_log) {
            const auto* v = l.if_contains("verb");
            const auto* m = l.if_contains("msg");
            if (v && v->is_string() && v->get_string() == verb && m && m->is_string() &&
                m->get_string() == "request") {
                ++n;
            }
        }
        return n;
    }
};

rt::informer_options options_for(std::string ns = "default", fake_metrics* m = nullptr) {
    rt::informer_options o;
    o.key.gvr = configmaps;
    o.key.namespace_ = std::move(ns);
    o.watcher.random = [] { return 0.5; };  // watch timeout 450 s, backoff x1.5
    o.resync_period = 0ns;
    o.metrics = m;
    return o;
}

// Runs an informer on the harness's io_context; stops it and waits for run()
// to return on destruction.
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

} // namespace

TEST_CASE("informer: the initial list at resourceVersion=0 is one answer, as a watch cache gives it") {
    harness h;
    for (int i = 0; i < 23; ++i) {
        h.create("default", "cm-" + std::to_string(i));
    }
    const int lists_before = h.requests("list");
    auto o = options_for("default", nullptr);
    o.watcher.page_size = 5;  // asked for, and ignored at resourceVersion=0 (cacher.go)
    rt::informer inf(*h.c, h.clk, h.ioc.get_executor(), o);
    recorder rec;
    inf.add_handlers(rec.handlers());
    running r(h, inf);
    const std::chrono::nanoseconds bound = 1min;
    auto synced = h.run(inf.wait_for_sync(bound));
    REQUIRE_MESSAGE(synced, (synced ? "" : synced.error().message()));
    CHECK(inf.cache().size() == 23);
    CHECK(rec.log.size() == 23);
    CHECK(h.requests("list") - lists_before == 1);
    CHECK(inf.source().lists() == 1);
}

TEST_CASE("informer: paged initial sync (no watch cache), then add/update/delete in order") {
    kcoro::apiserver::server_options so;
    so.store.watch_cache = false;  // kube-apiserver --watch-cache=false: RV=0 lists are paged
    harness h(so);
    for (int i = 0; i < 23; ++i) {
        h.create("default", "cm-" + std::to_string(i));
    }
    h.create("kube-system", "elsewhere");
    const int lists_before = h.requests("list");

    fake_metrics m;
    auto o = options_for("default", &m);
    o.watcher.page_size = 5;
    rt::informer inf(*h.c, h.clk, h.ioc.get_executor(), o);
    recorder rec;
    inf.add_handlers(rec.handlers());
    running r(h, inf);

    const std::chrono::nanoseconds bound = 1min;
    auto synced = h.run(inf.wait_for_sync(bound));
    REQUIRE_MESSAGE(synced, (synced ? "" : synced.error().message()));
    CHECK(inf.has_synced());
    CHECK(inf.cache().size() == 23);
    CHECK(rec.log.size() == 23);
    CHECK(rec.count("add default/cm-0") == 1);
    CHECK(h.requests("list") - lists_before == 5);  // 5+5+5+5+3
    CHECK(inf.source().lists() == 5);
    CHECK(m.objects == 23);
    CHECK(inf.name() == "informer configmaps.v1 namespace=default");

    // The watch delivers changes in order.
    REQUIRE(h.until([&] { return inf.source().fsm().state() == rt::watcher_state::watching; }));
    rec.log.clear();
    h.create("default", "x");
    h.update("default", "x", "changed");
    h.remove("default", "x");
    h.create("kube-system", "not-mine");
    REQUIRE(h.until([&] { return rec.log.size() >= 3; }));
    CHECK(rec.log == std::vector<std::string>{"add default/x", "update default/x", "delete default/x"});
    REQUIRE(rec.updates.size() == 1);
    CHECK(kcoro::resource_version_of(*rec.updates[0].first) != kcoro::resource_version_of(*rec.updates[0].second));
    CHECK(inf.cache().size() == 23);
    CHECK(m.relists.empty());
    CHECK(m.restarts.empty());
    // The default transform strips managedFields.
    auto cached = inf.cache().get({"default", "cm-1"});
    REQUIRE(cached);
    CHECK_FALSE(kcoro::managed_fields_of(*cached));
}

TEST_CASE("informer: a dropped watch resumes from the last revision, no duplicates, no losses") {
    harness h;
    h.create("default", "a");
    fake_metrics m;
    rt::informer inf(*h.c, h.clk, h.ioc.get_executor(), options_for("default", &m));
    recorder rec;
    inf.add_handlers(rec.handlers());
    running r(h, inf);
    REQUIRE(h.until([&] { return inf.source().fsm().state() == rt::watcher_state::watching; }));
    h.create("default", "b");
    REQUIRE(h.until([&] { return rec.count("add default/b") == 1; }));

    for (int round = 0; round < 3; ++round) {
        const auto rv_before = inf.source().fsm().last_sync_resource_version();
        h.srv.close_watches();
        // Written while the watch may be down: must arrive exactly once.
        h.create("default", "during-" + std::to_string(round));
        h.update("default", "a", "r" + std::to_string(round));
        REQUIRE(h.until([&] { return rec.count("add default/during-" + std::to_string(round)) == 1; }));
        REQUIRE(h.until([&] { return rec.count("update default/a") == round + 1; }));
        CHECK(inf.source().fsm().last_sync_resource_version() != rv_before);
    }
    // Let any duplicate surface before counting.
    h.create("default", "last");
    REQUIRE(h.until([&] { return rec.count("add default/last") == 1; }));
    CHECK(rec.count("add default/a") == 1);
    CHECK(rec.count("add default/b") == 1);
    for (int round = 0; round < 3; ++round) {
        CHECK(rec.count("add default/during-" + std::to_string(round)) == 1);
    }
    CHECK(rec.count("update default/a") == 3);
    CHECK(inf.source().lists() == 1);  // re-watched, never relisted
    CHECK(inf.source().watches() == 4);
    CHECK(m.relists.empty());
    int restarts = 0;
    for (const auto& [reason, n] : m.restarts) restarts += n;
    CHECK(restarts == 3);
    CHECK(inf.cache().size() == 6);
}

TEST_CASE("informer: history compacted while the watch is away -> 410 -> relist; a missed delete is a tombstone") {
    harness h;
    h.create("default", "keep");
    h.create("default", "doomed");
    fake_metrics m;
    rt::informer inf(*h.c, h.clk, h.ioc.get_executor(), options_for("default", &m));
    recorder rec;
    inf.add_handlers(rec.handlers());
    running r(h, inf);
    REQUIRE(h.until([&] { return inf.source().fsm().state() == rt::watcher_state::watching; }));
    rec.log.clear();

    // The watch is closed and its successor sees nothing (stalled) while the
    // object is deleted and the history compacted.
    h.clk.advance(2s);  // not a "very short watch"
    h.srv.stall_watches(true);
    h.srv.close_watches();
    REQUIRE(h.until([&] {
        return inf.source().watches() == 2 && inf.source().fsm().state() == rt::watcher_state::watching;
    }));
    h.remove("default", "doomed");
    h.create("default", "fresh");
    h.srv.compact();
    h.srv.stall_watches(false);

    // 410 on the watch: back off (1.2 s with random 0.5), then relist.
    REQUIRE(h.until([&] { return inf.source().fsm().state() == rt::watcher_state::backing_off; }));
    CHECK(kcoro::is_gone_or_expired(inf.last_error()));
    CHECK(rec.log.empty());
    h.clk.advance(1300ms);
    REQUIRE(h.until([&] { return rec.count("tombstone default/doomed") == 1; }));
    REQUIRE(h.until([&] { return inf.source().fsm().state() == rt::watcher_state::watching; }));
    CHECK(rec.count("add default/fresh") == 1);
    CHECK(rec.count("update default/keep") == 1);  // a relist reports cached objects as updates
    CHECK(rec.count("delete default/doomed") == 0);
    CHECK(inf.cache().size() == 2);
    CHECK_FALSE(inf.cache().get({"default", "doomed"}));
    CHECK(inf.source().lists() == 2);
    CHECK(m.relists["gone"] == 1);
    CHECK_FALSE(inf.last_error());
}

TEST_CASE("informer: a list forbidden by policy is reported at once by wait_for_sync") {
    kcoro::apiserver::server_options so;
    // bob may get configmaps, not list them.
    auto p = kcoro::apiserver::http::policy::parse(
        "rules:\n- users: [bob]\n  verbs: [get]\n  resources: [configmaps]\n- users: [admin]\n  verbs: ['*']\n  resources: ['*']\n");
    REQUIRE(p.has_value());
    so.policy = *p;
    harness h0(so);
    auto bob = h0.srv.credentials_for("bob");
    REQUIRE(bob.has_value());
    kcoro::test::client_spec spec;
    spec.token = bob->token;
    spec.options.max_retries = 0;
    auto bob_client = h0.make_client(spec);

    rt::informer inf(*bob_client, h0.clk, h0.ioc.get_executor(), options_for("default"));
    running r(h0, inf);
    const auto t0 = h0.clk.now();
    const std::chrono::nanoseconds bound = 2min;
    auto synced = h0.run(inf.wait_for_sync(bound));
    REQUIRE_FALSE(synced);
    CHECK(kcoro::is_forbidden(synced.error()));
    REQUIRE(synced.error().api_status());
    CHECK(synced.error().api_status()->code == 403);
    CHECK(h0.clk.now() == t0);  // at once, not at the timeout
    CHECK_FALSE(inf.has_synced());
    CHECK(kcoro::is_forbidden(inf.last_error()));
}

TEST_CASE("informer: wait_for_sync times out on the clock with the last error") {
    harness h;
    // Every list fails with 500: retried with backoff, never synced.
    kcoro::apiserver::http::fault_rule f;
    f.verb = "list";
    f.resource = "configmaps";
    f.code = 500;
    f.count = 0;
    h.srv.faults().add(f);
    rt::informer inf(*h.c, h.clk, h.ioc.get_executor(), options_for("default"));
    running r(h, inf);
    const std::chrono::nanoseconds bound = 10s;
    auto waiting = kcoro::test::start(h.ioc, inf.wait_for_sync(bound));
    REQUIRE(h.until([&] { return inf.source().fsm().state() == rt::watcher_state::backing_off; }));
    CHECK_FALSE(waiting->has_value());
    h.clk.advance(9s);
    h.until([&] { return waiting->has_value(); }, 200ms);
    CHECK_FALSE(waiting->has_value());
    h.clk.advance(1s);
    REQUIRE(h.until([&] { return waiting->has_value(); }));
    REQUIRE(waiting->has_value());
    REQUIRE_FALSE(**waiting);
    CHECK((*waiting)->error().code() == kcoro::kcoro_errc::not_synced);
    CHECK((*waiting)->error().message().find("500") != std::string::npos);
}

TEST_CASE("informer: 429 with Retry-After on the list: the retry waits for it") {
    harness h;
    h.create("default", "a");
    kcoro::apiserver::http::fault_rule f;
    f.verb = "list";
    f.resource = "configmaps";
    f.code = 429;
    f.retry_after_seconds = 5;
    f.count = 1;
    h.srv.faults().add(f);
    const int lists_before = h.requests("list");

    rt::informer inf(*h.c, h.clk, h.ioc.get_executor(), options_for("default"));
    running r(h, inf);
    REQUIRE(h.until([&] { return inf.source().fsm().state() == rt::watcher_state::backing_off; }));
    CHECK(h.requests("list") - lists_before == 1);
    CHECK(kcoro::is_too_many_requests(inf.last_error()));

    // The jittered backoff would be 1.2 s; Retry-After says 5 s.
    h.clk.advance(4900ms);
    h.until([&] { return false; }, 100ms);  // give a wrongly early retry the chance to show
    CHECK(inf.source().fsm().state() == rt::watcher_state::backing_off);
    CHECK(h.requests("list") - lists_before == 1);
    CHECK_FALSE(inf.has_synced());

    h.clk.advance(100ms);
    REQUIRE(h.until([&] { return inf.has_synced(); }));
    CHECK(h.requests("list") - lists_before == 2);
    CHECK(inf.cache().size() == 1);
}

TEST_CASE("informer: bookmarks advance the revision without events") {
    kcoro::apiserver::server_options so;
    so.handler.bookmark_interval = 1s;
    harness h(so);
    h.create("default", "a");
    rt::informer inf(*h.c, h.clk, h.ioc.get_executor(), options_for("default"));
    recorder rec;
    inf.add_handlers(rec.handlers());
    running r(h, inf);
    REQUIRE(h.until([&] { return inf.source().fsm().state() == rt::watcher_state::watching; }));
    const auto rv0 = inf.source().fsm().last_sync_resource_version();

    auto other = h.create("kube-system", "other");  // moves the revision, not for this informer
    const std::string rv_other(kcoro::resource_version_of(*other));
    CHECK(rv_other != rv0);
    h.clk.advance(1100ms);
    REQUIRE(h.until([&] { return inf.source().fsm().last_sync_resource_version() == rv_other; }));
    CHECK(rec.log == std::vector<std::string>{"add default/a"});

    // A re-watch starts from the bookmark's revision: nothing is replayed.
    h.srv.close_watches();
    h.create("default", "b");
    REQUIRE(h.until([&] { return rec.count("add default/b") == 1; }));
    CHECK(rec.log == std::vector<std::string>{"add default/a", "add default/b"});
    CHECK(inf.source().lists() == 1);
}

TEST_CASE("informer: late handlers get synthetic adds; throwing handlers do not stop it; resync replays updates") {
    harness h;
    h.create("default", "a");
    h.create("default", "b");
    auto o = options_for("default");
    o.resync_period = 10s;
    struct capture final : kcoro::log_sink {
        std::vector<std::string> lines;
        void write(std::string_view line) override { lines.emplace_back(line); }
    };
    auto sink = std::make_shared<capture>();
    kcoro::log_config lc;
    lc.clock = [&] { return h.clk.wall_now(); };
    lc.sink = sink;
    o.log = kcoro::logger(lc);
    rt::informer inf(*h.c, h.clk, h.ioc.get_executor(), o);
    rt::event_handlers thrower;
    thrower.on_add = [](const object_ptr&) { throw std::runtime_error("handler bug"); };
    inf.add_handlers(thrower);
    running r(h, inf);
    const std::chrono::nanoseconds bound = 1min;
    REQUIRE(h.run(inf.wait_for_sync(bound)));
    CHECK(inf.handler_errors() == 2);
    REQUIRE(sink->lines.size() == 2);
    CHECK(sink->lines[0].find("event handler threw") != std::string::npos);
    CHECK(sink->lines[0].find("handler bug") != std::string::npos);

    recorder late;
    auto id = inf.add_handlers(late.handlers());
    CHECK(late.log == std::vector<std::string>{"add default/a", "add default/b"});
    REQUIRE(h.until([&] { return inf.source().fsm().state() == rt::watcher_state::watching; }));
    h.create("default", "c");
    REQUIRE(h.until([&] { return late.count("add default/c") == 1; }));
    CHECK(inf.handler_errors() == 3);

    // Resync: every cached object as an update with old == new, no request.
    late.log.clear();
    const auto lists = inf.source().lists();
    h.clk.advance(11s);  // 10 s + 5% jitter
    REQUIRE(h.until([&] { return late.log.size() == 3; }));
    CHECK(late.count("update default/a") == 1);
    CHECK(late.updates.back().first == late.updates.back().second);
    CHECK(inf.source().lists() == lists);

    inf.remove_handlers(id);
    late.log.clear();
    h.create("default", "d");
    REQUIRE(h.until([&] { return inf.cache().size() == 4; }));
    CHECK(late.log.empty());
}

TEST_CASE("informer: streaming list (sendInitialEvents) syncs without a list request") {
    harness h;
    h.create("default", "a");
    h.create("default", "b");
    auto o = options_for("default");
    o.watcher.streaming_list = true;
    rt::informer inf(*h.c, h.clk, h.ioc.get_executor(), o);
    recorder rec;
    inf.add_handlers(rec.handlers());
    running r(h, inf);
    const std::chrono::nanoseconds bound = 1min;
    auto synced = h.run(inf.wait_for_sync(bound));
    REQUIRE_MESSAGE(synced, (synced ? "" : synced.error().message()));
    CHECK(inf.cache().size() == 2);
    CHECK(inf.source().lists() == 0);
    CHECK(inf.source().watches() == 1);
    CHECK(inf.source().fsm().streaming_enabled());
    // The same stream goes on as the watch.
    h.create("default", "c");
    REQUIRE(h.until([&] { return rec.count("add default/c") == 1; }));
    CHECK(inf.source().watches() == 1);
    CHECK(rec.log == std::vector<std::string>{"add default/a", "add default/b", "add default/c"});
}

TEST_CASE("informer: metadata-only lists and watches PartialObjectMetadata from the server") {
    harness h;
    h.create("default", "a", "payload");
    auto o = options_for("default");
    o.key.metadata_only = true;
    rt::informer inf(*h.c, h.clk, h.ioc.get_executor(), o);
    running r(h, inf);
    const std::chrono::nanoseconds bound = 1min;
    REQUIRE(h.run(inf.wait_for_sync(bound)));
    auto a = inf.cache().get({"default", "a"});
    REQUIRE(a);
    CHECK_FALSE(a->contains("data"));
    CHECK(a->contains("metadata"));
    CHECK(kcoro::name_of(*a) == "a");
    // The server sent metadata only (the data never travelled): its kind says so.
    CHECK(kcoro::kind_of(*a) == "PartialObjectMetadata");
    CHECK(kcoro::api_version_of(*a) == "meta.k8s.io/v1");
    // Watch events too.
    h.create("default", "b", "payload");
    REQUIRE(h.until([&] { return inf.cache().get({"default", "b"}) != nullptr; }));
    auto b = inf.cache().get({"default", "b"});
    CHECK(kcoro::kind_of(*b) == "PartialObjectMetadata");
    CHECK_FALSE(b->contains("data"));
}

TEST_CASE("informer_factory: two consumers share one informer and one watch; namespace scoping; cached reads") {
    harness h;
    h.create("default", "a");
    h.create("kube-system", "sys");
    rt::informer_factory_options fo;
    fo.namespace_ = "default";
    fo.random = [] { return 0.5; };
    int metrics_made = 0;
    fo.make_metrics = [&](const rt::informer_key&) {
        ++metrics_made;
        return std::make_unique<fake_metrics>();
    };
    rt::informer_factory cache(*h.c, h.clk, h.ioc.get_executor(), fo);

    rt::informer_key key;
    key.gvr = configmaps;
    auto& one = cache.get_or_create(key);
    auto& two = cache.get_or_create(key);
    CHECK(&one == &two);
    CHECK(one.key().namespace_ == "default");
    rt::informer_key scoped = key;
    scoped.namespace_ = "default";
    CHECK(&cache.get_or_create(scoped) == &one);
    // Cluster-scoped resources are not scoped.
    rt::informer_key ns_key;
    ns_key.gvr = kcoro::resources::namespaces();
    auto& namespaces = cache.get_or_create(ns_key);
    CHECK(namespaces.key().namespace_.empty());
    CHECK(metrics_made == 2);

    recorder first, second;
    one.add_handlers(first.handlers());
    two.add_handlers(second.handlers());
    bool done = false;
    asio::co_spawn(h.ioc, cache.run(), [&](std::exception_ptr e) {
        done = true;
        if (e) std::rethrow_exception(e);
    });
    const std::chrono::nanoseconds bound = 1min;
    auto synced = h.run(cache.wait_for_sync(bound));
    REQUIRE_MESSAGE(synced, (synced ? "" : synced.error().message()));
    CHECK(cache.has_synced());
    REQUIRE(h.until([&] {
        return one.source().fsm().state() == rt::watcher_state::watching &&
               namespaces.source().fsm().state() == rt::watcher_state::watching;
    }));
    CHECK(h.open_streams() == 2);  // configmaps + namespaces
    CHECK(one.source().watches() == 1);

    h.create("default", "b");
    REQUIRE(h.until([&] { return first.count("add default/b") == 1 && second.count("add default/b") == 1; }));
    CHECK(first.log == second.log);
    CHECK(first.count("add kube-system/sys") == 0);

    // Cached reads.
    CHECK(cache.get(configmaps, {"default", "a"}));
    CHECK_FALSE(cache.get(configmaps, {"default", "zzz"}));
    CHECK(cache.list(configmaps).size() == 2);
    CHECK(cache.list(configmaps, "default").size() == 2);
    CHECK(cache.get(kcoro::resources::namespaces(), {"", "kube-system"}));
    CHECK(cache.by_index(configmaps, rt::namespace_index, "default").size() == 2);

    // An informer asked for while running starts at once.
    rt::informer_key other;
    other.gvr = configmaps;
    other.namespace_ = "kube-system";
    auto& sys = cache.get_or_create(other);
    auto synced2 = h.run(cache.wait_for_sync(bound));
    REQUIRE(synced2);
    CHECK(sys.cache().size() == 1);

    cache.stop();
    REQUIRE(h.until([&] { return done; }));
    CHECK_FALSE(one.source().fsm().state() == rt::watcher_state::watching);
}

TEST_CASE("informer_factory: wait_for_sync reports a forbidden informer at once; stop before run") {
    kcoro::apiserver::server_options so;
    auto p = kcoro::apiserver::http::policy::parse(
        "rules:\n- users: [bob]\n  verbs: [list, watch]\n  resources: [configmaps]\n");
    REQUIRE(p.has_value());
    so.policy = *p;
    harness h(so);
    auto bob = h.srv.credentials_for("bob");
    REQUIRE(bob.has_value());
    kcoro::test::client_spec spec;
    spec.token = bob->token;
    auto bob_client = h.make_client(spec);

    rt::informer_factory_options fo;
    fo.random = [] { return 0.5; };
    rt::informer_factory cache(*bob_client, h.clk, h.ioc.get_executor(), fo);
    rt::informer_key cms;
    cms.gvr = configmaps;
    cache.get_or_create(cms);
    rt::informer_key secrets;
    secrets.gvr = kcoro::resources::secrets();
    cache.get_or_create(secrets);
    bool done = false;
    asio::co_spawn(h.ioc, cache.run(), [&](std::exception_ptr) { done = true; });
    const std::chrono::nanoseconds bound = 2min;
    const auto t0 = h.clk.now();
    auto synced = h.run(cache.wait_for_sync(bound));
    REQUIRE_FALSE(synced);
    CHECK(kcoro::is_forbidden(synced.error()));
    CHECK(h.clk.now() == t0);
    cache.stop();
    REQUIRE(h.until([&] { return done; }));

    // Cancelling run() (the manager's hard deadline) stops every informer and returns.
    rt::informer_factory cancelled(*bob_client, h.clk, h.ioc.get_executor(), fo);
    auto& cancelled_cms = cancelled.get_or_create(cms);
    asio::cancellation_signal cancel;
    bool cancelled_done = false;
    asio::co_spawn(h.ioc, cancelled.run(), asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr e) {
                       cancelled_done = true;
                       if (e) std::rethrow_exception(e);
                   }));
    REQUIRE(h.until([&] { return cancelled_cms.source().fsm().state() == rt::watcher_state::watching; }));
    cancel.emit(asio::cancellation_type::terminal);
    REQUIRE(h.until([&] { return cancelled_done; }));
    CHECK(cancelled_cms.source().fsm().state() == rt::watcher_state::stopped);

    // A factory stopped before it ran returns at once.
    rt::informer_factory idle(*bob_client, h.clk, h.ioc.get_executor(), fo);
    idle.stop();
    bool idle_done = false;
    asio::co_spawn(h.ioc, idle.run(), [&](std::exception_ptr) { idle_done = true; });
    REQUIRE(h.until([&] { return idle_done; }));
}
