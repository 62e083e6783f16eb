// The controller loop with a fake reconciler on a manual clock (no server):
// per-key serialization, reruns, requeue_after, rate-limited retries,
// terminal errors, panics, the concurrency bound, stop and cancellation.
#include <kcoro/runtime/controller.hpp>

#include "run_until.hpp"

#include <kcoro/io/clock.hpp>

#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>
#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <regex>
#include <stdexcept>
#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;
using kcoro::object_key;
using kcoro::result;
using kcoro::runtime::reconcile_result;

namespace {

struct fake_metrics final : kcoro::controller_metrics {
    std::map<kcoro::reconcile_outcome, int> outcomes;
    int errors = 0, terminal = 0, panics = 0;
    std::int64_t active = -1, max_concurrent = -1;
    void reconcile_done(kcoro::reconcile_outcome o, double) override { ++outcomes[o]; }
    void reconcile_error() override { ++errors; }
    void terminal_error() override { ++terminal; }
    void panic() override { ++panics; }
    void set_active_workers(std::int64_t n) override { active = n; }
    void set_max_concurrent_reconciles(std::int64_t n) override { max_concurrent = n; }
    std::map<std::string, int> noop_writes;
    int hot_loops = 0;
    void noop_write(std::string_view resource) override { ++noop_writes[std::string(resource)]; }
    void hot_loop_detected() override { ++hot_loops; }
};

struct line_sink final : kcoro::log_sink {
    std::vector<std::string> lines;
    void write(std::string_view line) override { lines.emplace_back(line); }
};

// What one reconcile does: how long it works (on the manual clock) and how it ends.
struct step {
    std::chrono::nanoseconds work{0};
    result<reconcile_result> out = reconcile_result{};
    bool throws = false;
};

struct harness {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    std::shared_ptr<fake_metrics> metrics = std::make_shared<fake_metrics>();
    // Scripted steps per key (the last one repeats); default: success at once.
    std::map<object_key, std::vector<step>> script;
    std::map<object_key, int> starts, in_flight;
    std::vector<std::pair<object_key, kcoro::steady_time>> start_log;
    int overlap_violations = 0;
    int now_in_flight = 0, max_in_flight = 0;
    std::unique_ptr<kcoro::runtime::controller> ctl;
    std::shared_ptr<std::optional<bool>> finished;
    asio::cancellation_signal cancel;

    explicit harness(std::size_t max_concurrent = 1,
                     const std::function<void(kcoro::runtime::controller_options&)>& tweak = {}) {
        kcoro::runtime::controller_options o;
        o.name = "test";
        o.max_concurrent_reconciles = max_concurrent;
        o.rate_limiter.bucket = std::nullopt;  // per-key backoff only, for exact figures
        o.metrics = metrics;
        std::uint64_t n = 0;
        o.random = [n]() mutable { return ++n * 0x9e3779b97f4a7c15ULL; };
        if (tweak) tweak(o);
        ctl = std::make_unique<kcoro::runtime::controller>(ioc.get_executor(), clk, std::move(o),
                                                          [this](const object_key& k) { return reconcile(k); });
    }

    asio::awaitable<result<reconcile_result>> reconcile(const object_key& k) {
        const object_key key = k;
        if (in_flight[key]++ > 0) ++overlap_violations;
        max_in_flight = std::max(max_in_flight, ++now_in_flight);
        int n = starts[key]++;
        start_log.emplace_back(key, clk.now());
        step s;
        if (auto it = script.find(key); it != script.end() && !it->second.empty()) {
            s = it->second[std::min<std::size_t>(n, it->second.size() - 1)];
        }
        if (s.work.count() > 0) {
            auto ec = co_await clk.sleep_for(s.work);
            if (ec) {
                --in_flight[key];
                --now_in_flight;
                co_return kcoro::error(kcoro::kcoro_errc::cancelled, "cancelled");
            }
        }
        --in_flight[key];
        --now_in_flight;
        if (s.throws) throw std::runtime_error("boom");
        co_return s.out;
    }

    void start() {
        finished = std::make_shared<std::optional<bool>>();
        auto out = finished;
        auto r = ctl->run();
        asio::co_spawn(ioc, std::move(r), asio::bind_cancellation_slot(cancel.slot(), [out](std::exception_ptr e) {
                           if (e) std::rethrow_exception(e);
                           out->emplace(true);
                       }));
        settle();
    }
    // Runs every ready handler (no time passes on the manual clock).
    void settle() {
        for (int i = 0; i < 50; ++i) {
            if (ioc.stopped()) ioc.restart();
            if (ioc.poll() == 0) break;
        }
    }
    void advance(std::chrono::nanoseconds d) {
        clk.advance(d);
        settle();
    }
    bool done() const { return finished && finished->has_value(); }
    int total_starts() const {
        int t = 0;
        for (auto& [k, n] : starts) t += n;
        return t;
    }
};

const object_key a{"ns", "a"};
const object_key b{"ns", "b"};

} // namespace

TEST_CASE("make_reconcile_id is UUID-like") {
    auto id = kcoro::runtime::make_reconcile_id(0x0123456789abcdefULL, 0xfedcba9876543210ULL);
    CHECK(std::regex_match(id, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")));
    CHECK(id == "01234567-89ab-4def-bedc-ba9876543210");
    CHECK(kcoro::runtime::make_reconcile_id(1, 2) != kcoro::runtime::make_reconcile_id(1, 3));
}

TEST_CASE("success forgets; an add while processing reruns once after, never concurrently") {
    harness h(2);
    h.script[a] = {{10ms}};
    h.start();
    CHECK(h.metrics->max_concurrent == 2);
    h.ctl->enqueue(a);
    h.settle();
    CHECK(h.starts[a] == 1);
    h.ctl->enqueue(a);  // during processing: dirty, rerun after done
    h.ctl->enqueue(a);  // collapses into the same rerun
    h.settle();
    CHECK(h.starts[a] == 1);
    h.advance(10ms);
    CHECK(h.starts[a] == 2);
    h.advance(10ms);
    CHECK(h.starts[a] == 2);  // no third run
    CHECK(h.overlap_violations == 0);
    CHECK(h.ctl->stats().reconciles == 2);
    CHECK(h.metrics->outcomes[kcoro::reconcile_outcome::success] == 2);
    CHECK(h.ctl->queue().queue().num_requeues(a) == 0);
    h.ctl->stop();
    h.settle();
    CHECK(h.done());
}

TEST_CASE("requeue_after runs again after exactly that delay") {
    harness h;
    h.script[a] = {{0ns, reconcile_result{false, 1s}}, {}};
    h.start();
    h.ctl->enqueue(a);
    h.settle();
    CHECK(h.starts[a] == 1);
    h.advance(999ms);
    CHECK(h.starts[a] == 1);
    h.advance(1ms);
    CHECK(h.starts[a] == 2);
    CHECK(h.metrics->outcomes[kcoro::reconcile_outcome::requeue_after] == 1);
    h.advance(10s);
    CHECK(h.starts[a] == 2);
    h.ctl->stop();
    h.settle();
    CHECK(h.done());
}

TEST_CASE("errors retry with 5 ms x 2^n, success forgets the count") {
    harness h;
    const kcoro::error boom(kcoro::api_errc::internal_error, "boom");
    h.script[a] = {{0ns, boom}, {0ns, boom}, {0ns, boom}, {}};
    h.start();
    h.ctl->enqueue(a);
    h.settle();
    CHECK(h.starts[a] == 1);
    const auto t0 = h.clk.now();
    for (auto delay : {5ms, 10ms, 20ms}) {
        int before = h.starts[a];
        h.advance(delay - 1ms);
        CHECK(h.starts[a] == before);
        h.advance(1ms);
        CHECK(h.starts[a] == before + 1);
    }
    CHECK(h.clk.now() - t0 == 35ms);
    CHECK(h.starts[a] == 4);
    CHECK(h.ctl->stats().errors == 3);
    CHECK(h.metrics->errors == 3);
    CHECK(h.ctl->queue().queue().num_requeues(a) == 0);  // forgotten after the success
    // requeue() also backs off through the limiter
    h.script[b] = {{0ns, kcoro::runtime::requeue()}, {}};
    h.ctl->enqueue(b);
    h.settle();
    CHECK(h.starts[b] == 1);
    h.advance(5ms);
    CHECK(h.starts[b] == 2);
    CHECK(h.metrics->outcomes[kcoro::reconcile_outcome::requeue] == 1);
    h.ctl->stop();
    h.settle();
}

TEST_CASE("terminal errors are counted and not requeued") {
    harness h;
    h.script[a] = {{0ns, kcoro::runtime::terminal_error("bad spec")}};
    h.start();
    h.ctl->enqueue(a);
    h.settle();
    h.advance(2000s);
    CHECK(h.starts[a] == 1);
    CHECK(h.ctl->stats().terminal == 1);
    CHECK(h.metrics->terminal == 1);
    CHECK(h.metrics->errors == 1);
    // a new event still reconciles it
    h.ctl->enqueue(a);
    h.settle();
    CHECK(h.starts[a] == 2);
    h.ctl->stop();
    h.settle();
}

TEST_CASE("an exception escaping reconcile is a panic: counted, logged, retried") {
    harness h;
    step thrower;
    thrower.throws = true;
    h.script[a] = {thrower, {}};
    h.start();
    h.ctl->enqueue(a);
    h.settle();
    CHECK(h.starts[a] == 1);
    CHECK(h.ctl->stats().panics == 1);
    CHECK(h.metrics->panics == 1);
    CHECK(h.metrics->errors == 1);
    h.advance(5ms);
    CHECK(h.starts[a] == 2);
    CHECK(h.ctl->stats().panics == 1);
    CHECK(h.metrics->active == 0);
    h.ctl->stop();
    h.settle();
    CHECK(h.done());
}

TEST_CASE("max_concurrent_reconciles = 2: never 3 in flight, every key runs") {
    harness h(2);
    std::vector<object_key> keys;
    for (int i = 0; i < 7; ++i) {
        keys.push_back({"ns", "k" + std::to_string(i)});
        h.script[keys.back()] = {{10ms}};
    }
    h.start();
    for (auto& k : keys) h.ctl->enqueue(k);
    h.settle();
    CHECK(h.now_in_flight == 2);
    CHECK(h.ctl->active_workers() == 2);
    for (int i = 0; i < 10; ++i) h.advance(10ms);
    CHECK(h.total_starts() == 7);
    CHECK(h.max_in_flight == 2);
    CHECK(h.ctl->stats().max_in_flight == 2);
    h.ctl->stop();
    h.settle();
    CHECK(h.done());
}

TEST_CASE("stop(): intake stops, in-flight reconciles finish, run() returns after the drain") {
    harness h(2);
    h.script[a] = {{50ms}};
    h.script[b] = {{50ms}};
    h.start();
    h.ctl->enqueue(a);
    h.ctl->enqueue(b);
    h.settle();
    CHECK(h.now_in_flight == 2);
    h.ctl->enqueue({"ns", "queued"});  // waits for a slot
    h.ctl->stop();
    h.ctl->enqueue({"ns", "late"});  // ignored
    h.settle();
    CHECK_FALSE(h.done());
    h.advance(50ms);
    CHECK(h.done());
    CHECK(h.ctl->stats().reconciles == 2);
    CHECK(h.starts.count({"ns", "queued"}) == 0);
    CHECK(h.starts.count({"ns", "late"}) == 0);
    CHECK(h.ctl->stats().errors == 0);
}

TEST_CASE("stop() before run(): run() returns at once") {
    harness h;
    h.ctl->stop();
    h.start();
    CHECK(h.done());
}

TEST_CASE("cancelling run() cancels in-flight reconciles, without counting panics or errors") {
    harness h;
    h.script[a] = {{1h}};
    h.start();
    h.ctl->enqueue(a);
    h.settle();
    CHECK(h.now_in_flight == 1);
    h.cancel.emit(asio::cancellation_type::terminal);
    h.settle();
    CHECK(h.done());
    CHECK(h.now_in_flight == 0);
    CHECK(h.ctl->stats().panics == 0);
    CHECK(h.ctl->stats().errors == 0);
    CHECK(h.clk.sleepers() == 0);
}

TEST_CASE("a reconcile_context reconciler gets a fresh reconcile ID each time") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    std::vector<std::string> ids;
    kcoro::runtime::controller_options o;
    o.name = "ctx";
    kcoro::runtime::controller ctl(ioc.get_executor(), clk, o,
                                   kcoro::runtime::reconcile_context_func(
                                       [&](const kcoro::runtime::reconcile_context& c)
                                           -> asio::awaitable<result<reconcile_result>> {
                                           ids.push_back(c.reconcile_id);
                                           CHECK(c.key == a);
                                           co_return reconcile_result{};
                                       }));
    auto body = [&]() -> asio::awaitable<bool> {
        co_await ctl.run();
        co_return true;
    };
    auto done = kcoro::test::start(ioc, body());
    ctl.enqueue(a);
    REQUIRE(kcoro::test::run_until(ioc, [&] { return ids.size() == 1; }, 5s));
    ctl.enqueue(a);
    REQUIRE(kcoro::test::run_until(ioc, [&] { return ids.size() == 2; }, 5s));
    CHECK(ids[0] != ids[1]);
    CHECK(ids[0].size() == 36);
    ctl.stop();
    CHECK(kcoro::test::run_until(ioc, [&] { return done->has_value(); }, 5s));
}

TEST_CASE("a cache sync error ends run() without reconciling") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    int calls = 0;
    kcoro::runtime::controller_options o;
    o.name = "sync";
    o.wait_for_sync = [](std::chrono::nanoseconds) -> asio::awaitable<result<void>> {
        co_return kcoro::error(kcoro::api_errc::forbidden, "configmaps is forbidden");
    };
    kcoro::runtime::controller ctl(ioc.get_executor(), clk, o,
                                   [&](const object_key&) -> asio::awaitable<result<reconcile_result>> {
                                       ++calls;
                                       co_return reconcile_result{};
                                   });
    ctl.enqueue(a);
    auto body = [&]() -> asio::awaitable<bool> {
        co_await ctl.run();
        co_return true;
    };
    auto done = kcoro::test::start(ioc, body());
    CHECK(kcoro::test::run_until(ioc, [&] { return done->has_value(); }, 5s));
    CHECK(calls == 0);
    CHECK(kcoro::is_forbidden(ctl.last_error()));
}

TEST_CASE("cancelling run() while it waits for the caches returns without reconciling") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    int calls = 0;
    kcoro::runtime::controller_options o;
    o.name = "sync-cancel";
    o.wait_for_sync = [&clk](std::chrono::nanoseconds) -> asio::awaitable<result<void>> {
        auto ec = co_await clk.sleep_for(1h);
        if (ec) co_return kcoro::error(kcoro::kcoro_errc::cancelled, "cancelled");
        co_return result<void>{};
    };
    kcoro::runtime::controller ctl(ioc.get_executor(), clk, o,
                                   [&](const object_key&) -> asio::awaitable<result<reconcile_result>> {
                                       ++calls;
                                       co_return reconcile_result{};
                                   });
    ctl.enqueue(a);
    asio::cancellation_signal cancel;
    auto body = [&]() -> asio::awaitable<bool> {
        co_await ctl.run();
        co_return true;
    };
    auto done = kcoro::test::start(ioc, body(), &cancel);
    ioc.poll();
    CHECK_FALSE(done->has_value());
    cancel.emit(asio::cancellation_type::terminal);
    CHECK(kcoro::test::run_until(ioc, [&] { return done->has_value(); }, 5s));
    CHECK(calls == 0);
    CHECK(clk.sleepers() == 0);
}

TEST_CASE("workqueue metrics: adds, retries and the periodic unfinished-work report; stop ends the reporter") {
    struct fake_queue_metrics final : kcoro::workqueue_metrics {
        int adds = 0, retries = 0, unfinished = 0;
        void add() override { ++adds; }
        void set_depth(std::int64_t) override {}
        void queue_latency(double) override {}
        void work_duration(double) override {}
        void set_unfinished_work(double) override { ++unfinished; }
        void set_longest_running(double) override {}
        void retry() override { ++retries; }
    };
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    auto qm = std::make_shared<fake_queue_metrics>();
    kcoro::runtime::controller_options o;
    o.name = "qm";
    o.queue_metrics = qm;
    o.rate_limiter.bucket = std::nullopt;
    int calls = 0;
    kcoro::runtime::controller ctl(ioc.get_executor(), clk, o,
                                   [&](const object_key&) -> asio::awaitable<result<reconcile_result>> {
                                       if (++calls == 1) co_return kcoro::error(kcoro::api_errc::internal_error, "x");
                                       co_return reconcile_result{};
                                   });
    auto body = [&]() -> asio::awaitable<bool> {
        co_await ctl.run();
        co_return true;
    };
    auto done = kcoro::test::start(ioc, body());
    ctl.enqueue(a);
    ioc.poll();
    clk.advance(5ms);
    ioc.poll();
    CHECK(calls == 2);
    CHECK(qm->adds >= 2);
    CHECK(qm->retries == 1);
    const int before = qm->unfinished;
    clk.advance(500ms);
    ioc.poll();
    CHECK(qm->unfinished > before);
    ctl.stop();
    CHECK(kcoro::test::run_until(ioc, [&] { return done->has_value(); }, 5s));
    CHECK(clk.sleepers() == 0);
}

TEST_CASE("the context a reconciler takes by reference lives, unchanged, for the whole reconcile") {
    // Run under ASan by the unit suite: a reference to a context that died
    // at the first suspension would be a stack-use-after-return.
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    std::vector<std::string> seen;
    kcoro::runtime::controller_options o;
    o.name = "refs";
    o.max_concurrent_reconciles = 2;
    kcoro::runtime::controller ctl(ioc.get_executor(), clk, o,
                                   [&](const kcoro::runtime::reconcile_context& ctx)
                                       -> asio::awaitable<result<reconcile_result>> {
                                       const std::string id_before = ctx.reconcile_id;
                                       const object_key& key = ctx.key;  // a reference into the context
                                       co_await clk.sleep_for(10ms);
                                       seen.push_back(key.str() + " " + ctx.field_manager + " " +
                                                      (ctx.reconcile_id == id_before ? "same-id" : "other-id"));
                                       co_return kcoro::runtime::success();
                                   });
    auto finished = kcoro::test::start(ioc, [](kcoro::runtime::controller& c) -> asio::awaitable<bool> {
        co_await c.run();
        co_return true;
    }(ctl));
    ioc.poll();
    for (int i = 0; i < 6; ++i) ctl.enqueue({"ns", "k" + std::to_string(i)});
    for (int i = 0; i < 10; ++i) {
        ioc.restart();
        ioc.poll();
        clk.advance(10ms);
    }
    ioc.restart();
    ioc.poll();
    REQUIRE(seen.size() == 6);
    CHECK(seen[0] == "ns/k0 refs same-id");  // an empty field manager hands over the controller's name
    CHECK(seen[5] == "ns/k5 refs same-id");

    // The key-only form: its reference too.
    std::vector<std::string> keys;
    kcoro::runtime::controller by_key(ioc.get_executor(), clk, o,
                                      [&](const object_key& k) -> asio::awaitable<result<reconcile_result>> {
                                          co_await clk.sleep_for(5ms);
                                          keys.push_back(k.str());
                                          co_return kcoro::runtime::success();
                                      });
    auto finished2 = kcoro::test::start(ioc, [](kcoro::runtime::controller& c) -> asio::awaitable<bool> {
        co_await c.run();
        co_return true;
    }(by_key));
    ioc.restart();
    ioc.poll();
    by_key.enqueue({"ns", "x"});
    by_key.enqueue({"ns", "y"});
    for (int i = 0; i < 4; ++i) {
        ioc.restart();
        ioc.poll();
        clk.advance(5ms);
    }
    ioc.restart();
    ioc.poll();
    CHECK(keys == std::vector<std::string>{"ns/x", "ns/y"});
    ctl.stop();
    by_key.stop();
    ioc.restart();
    ioc.poll();
    CHECK(finished->has_value());
    CHECK(finished2->has_value());
}

TEST_CASE("writes reported through the context are counted; no-op writes and a hot loop reach the metrics and the log") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    auto metrics = std::make_shared<fake_metrics>();
    auto sink = std::make_shared<line_sink>();
    kcoro::runtime::controller_options o;
    o.name = "looper";
    o.metrics = metrics;
    o.hot_loop = {3, 1min};
    kcoro::log_config lc;
    lc.sink = sink;
    lc.clock = [] { return kcoro::wall_time{}; };
    o.log = kcoro::logger(lc);
    int passes = 0;
    kcoro::runtime::controller ctl(ioc.get_executor(), clk, o,
                                   [&](const kcoro::runtime::reconcile_context& ctx)
                                       -> asio::awaitable<result<reconcile_result>> {
                                       ++passes;
                                       const kcoro::group_version_resource widgets{"example.com", "v1", "widgets"};
                                       ctx.note_write({widgets, ctx.key, kcoro::runtime::write_op::updated, "status",
                                                       passes % 2 == 0});
                                       co_return kcoro::runtime::success();
                                   });
    auto finished = kcoro::test::start(ioc, [](kcoro::runtime::controller& c) -> asio::awaitable<bool> {
        co_await c.run();
        co_return true;
    }(ctl));
    // The object's own events wake it again and again: 10 passes, 1 s apart.
    for (int i = 0; i < 10; ++i) {
        ctl.enqueue({"ns", "w"});
        ioc.restart();
        ioc.poll();
        clk.advance(1s);
    }
    CHECK(passes == 10);
    CHECK(ctl.stats().writes == 10);
    CHECK(ctl.stats().noop_writes == 5);
    CHECK(metrics->noop_writes["widgets.example.com"] == 5);
    // More than 3 writing reconciles in a minute: one alarm for the window.
    CHECK(ctl.stats().hot_loops == 1);
    CHECK(metrics->hot_loops == 1);
    int warnings = 0;
    for (const auto& l : sink->lines) {
        if (l.find("Warning: hot loop") == std::string::npos) continue;
        ++warnings;
        CHECK(l.find(R"("name":"w")") != std::string::npos);
        CHECK(l.find("4 writing reconciles of ns/w in 3s (2 no-op writes); wrote: updated status of widgets.example.com ns/w") !=
              std::string::npos);
    }
    CHECK(warnings == 1);
    // A minute later it is still looping: the next window's alarm.
    for (int i = 0; i < 60; ++i) {
        ctl.enqueue({"ns", "w"});
        ioc.restart();
        ioc.poll();
        clk.advance(1s);
    }
    CHECK(ctl.stats().hot_loops == 2);
    ctl.stop();
    ioc.restart();
    ioc.poll();
    CHECK(finished->has_value());
}

namespace {

// A sharded controller: `cache` stands for the primary cache's uid hashes,
// `owned` for the ring's gate (may_reconcile now).
struct sharded_harness {
    std::map<object_key, std::uint64_t> cache;
    std::function<bool(std::uint64_t)> owned = [](std::uint64_t h) { return h < 100; };
    int unowned_events = 0;
    // Sharded by namespace: the key's namespace length stands for its hash.
    bool by_namespace = false;
    harness h;
    explicit sharded_harness(std::size_t max_concurrent = 1, bool namespaces = false)
        : by_namespace(namespaces), h(max_concurrent, [this](kcoro::runtime::controller_options& o) {
              o.sharding.owns = [this](std::uint64_t x) { return owned(x); };
              if (by_namespace) o.sharding.key_hash = [](const object_key& k) { return k.ns.size() * 50; };
              o.sharding.hash_of = [this](const object_key& k) -> std::optional<std::uint64_t> {
                  auto it = cache.find(k);
                  if (it == cache.end()) return std::nullopt;
                  return it->second;
              };
              o.sharding.on_unowned = [this] { ++unowned_events; };
          }) {}
};

} // namespace

TEST_CASE("sharded: only keys whose hash this replica owns are queued; unknown hashes are not queued") {
    sharded_harness s;
    auto& h = s.h;
    const object_key mine{"ns", "mine"}, theirs{"ns", "theirs"}, gone{"ns", "gone"}, unknown{"ns", "unknown"};
    s.cache[mine] = 5;
    s.cache[theirs] = 500;
    h.start();
    CHECK(h.ctl->sharded());
    h.ctl->enqueue(mine);
    h.ctl->enqueue(theirs);
    h.ctl->enqueue_hashed(gone, 7);     // deleted: not cached, its hash told by the event
    h.ctl->enqueue_hashed(mine, 900);   // an event naming another owner's hash for a key...
    h.ctl->enqueue(unknown);            // not cached, no hash: nothing of ours
    h.ctl->enqueue_after(theirs, 1ms);
    h.advance(1ms);
    CHECK(h.starts[mine] == 1);
    CHECK(h.starts[gone] == 1);
    CHECK(h.starts.count(theirs) == 0);
    CHECK(h.starts.count(unknown) == 0);
    CHECK(s.unowned_events == 3);  // theirs twice, mine's foreign hash once
    CHECK(h.ctl->stats().unowned == 3);
    CHECK(h.ctl->queue().queue().len() == 0);
    h.ctl->stop();
    h.settle();
    CHECK(h.done());
}

TEST_CASE("sharded by namespace: the key's namespace decides; the primary cache and the events' hashes do not") {
    sharded_harness s(1, true);
    auto& h = s.h;
    const object_key mine{"n", "a"}, theirs{"nnn", "b"}, gone{"n", "deleted"};
    s.cache[theirs] = 5;  // a uid hash the namespace overrides
    h.start();
    h.ctl->enqueue(mine);               // 50: owned, nothing cached
    h.ctl->enqueue(theirs);             // 150: not owned, whatever the cache says
    h.ctl->enqueue_hashed(gone, 900);   // an event's uid hash: ignored, the namespace owns it
    h.settle();
    CHECK(h.starts[mine] == 1);
    CHECK(h.starts[gone] == 1);
    CHECK(h.starts.count(theirs) == 0);
    CHECK(s.unowned_events == 1);
    h.ctl->stop();
    h.settle();
    CHECK(h.done());
}

TEST_CASE("sharded: the gate is checked when a reconcile starts, not only when it is queued") {
    sharded_harness s;  // one worker
    auto& h = s.h;
    s.cache[a] = 1;
    s.cache[b] = 2;
    h.script[a] = {{10ms}};
    h.start();
    h.ctl->enqueue(a);
    h.ctl->enqueue(b);  // queued while owned
    h.settle();
    CHECK(h.starts[a] == 1);
    s.owned = [](std::uint64_t x) { return x != 2; };  // b's range lost (or the validity passed) meanwhile
    h.advance(10ms);
    CHECK(h.starts.count(b) == 0);
    CHECK(h.ctl->stats().unowned == 1);
    CHECK(h.ctl->idle());
    h.ctl->stop();
    h.settle();
    CHECK(h.done());
}

TEST_CASE("sharded: drop_ranges takes the range's keys out of the queue and reports drained once its reconcile in flight ended") {
    sharded_harness s(2);
    auto& h = s.h;
    const object_key c{"ns", "c"}, d{"ns", "d"};
    s.cache[a] = 10;   // in the dropped range, in flight
    s.cache[b] = 20;   // in the dropped range, queued behind
    s.cache[c] = 90;   // kept, in flight
    s.cache[d] = 95;   // kept, queued
    h.script[a] = {{50ms}};
    h.script[c] = {{80ms}};
    h.start();
    h.ctl->enqueue(a);
    h.ctl->enqueue(c);
    h.settle();
    h.ctl->enqueue(b);
    h.ctl->enqueue(d);
    h.ctl->enqueue(a);  // a rerun pending behind the one in flight
    h.settle();
    REQUIRE(h.now_in_flight == 2);
    const kcoro::runtime::hash_ranges dropped{{0, 49}};
    CHECK(h.ctl->in_flight_in(dropped) == 1);
    s.owned = [](std::uint64_t x) { return x >= 50 && x < 100; };  // the ring drops [0, 49] first
    int drained = 0;
    h.ctl->drop_ranges(dropped, [&] { ++drained; });
    h.settle();
    CHECK(drained == 0);                          // a still runs
    CHECK(h.ctl->queue().queue().len() == 1);     // d only
    h.advance(49ms);
    CHECK(drained == 0);
    h.advance(1ms);                               // a ends
    CHECK(drained == 1);
    CHECK(h.ctl->in_flight_in(dropped) == 0);
    h.advance(100ms);
    CHECK(h.starts[a] == 1);                      // its rerun was dropped
    CHECK(h.starts.count(b) == 0);
    CHECK(h.starts[d] == 1);
    CHECK(h.overlap_violations == 0);
    // Nothing of the range in flight: drained at once.
    int again = 0;
    h.ctl->drop_ranges({{0, 49}}, [&] { ++again; });
    CHECK(again == 1);
    h.ctl->stop();
    h.settle();
    CHECK(h.done());
}
