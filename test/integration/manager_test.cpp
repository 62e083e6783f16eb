// server::manager in process against kcoro-apiserver, time on a manual clock:
// readiness after sync, liveness from the watchdog, the probe server, graceful
// stop (in-flight work finishes, or is cancelled past the deadline), and two
// managers with leader election (only one runs its leader-gated runnable; on
// failed renewals the old one stops before the new one starts), and a
// "crash" (run_async cancelled: everything stops at once, no lease release,
// the standby leads after the lease expired; the manager is then destroyed).
#include <kcoro/server/manager.hpp>

#include "harness.hpp"
#include "recorders.hpp"
#include "scripted_server.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/io/clock.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>
#include <doctest/doctest.h>

#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;
using kcoro::server::manager;

namespace {

// A runnable that records its start and stop, and optionally works in
// items of `work` (on the clock) until stopped; stop() lets the item in
// flight finish.
struct fake_runnable final : kcoro::runtime::runnable {
    fake_runnable(std::string n, bool gated, kcoro::io::clock& c, std::vector<std::string>& l,
                  std::chrono::nanoseconds w = {})
        : name_(std::move(n)), gated_(gated), clk(c), log(l), work(w) {}

    std::string_view name() const override { return name_; }
    bool needs_leader_election() const override { return gated_; }
    void stop() override {
        stopping = true;
        if (wake) wake->cancel();
    }
    asio::awaitable<void> run() override {
        log.push_back(name_ + " start");
        running = true;
        wake.emplace(co_await asio::this_coro::executor, asio::steady_timer::time_point::max());
        while (!stopping) {
            if (work.count() > 0) {
                in_flight = true;
                auto ec = co_await clk.sleep_for(work);
                in_flight = false;
                if (ec) {
                    cancelled = true;
                    break;
                }
                ++items;
            } else {
                co_await wake->async_wait(asio::as_tuple(asio::use_awaitable));
                auto cs = co_await asio::this_coro::cancellation_state;
                if (cs.cancelled() != asio::cancellation_type::none) {
                    cancelled = true;
                    break;
                }
            }
        }
        running = false;
        log.push_back(name_ + (cancelled ? " cancelled" : " stop"));
    }

    std::string name_;
    bool gated_;
    kcoro::io::clock& clk;
    std::vector<std::string>& log;
    std::chrono::nanoseconds work;
    std::optional<asio::steady_timer> wake;
    bool stopping = false, running = false, in_flight = false, cancelled = false;
    int items = 0;
};

// Collects log lines (to check messages without printing them).
using capture_sink = kcoro::test::line_sink;

// The shared harness (manual clock, memory transport); the managers' probe
// and metrics servers listen on 127.0.0.1 (the tests scrape them over HTTP).
struct harness : kcoro::test::harness {
    kcoro::io::manual_clock& clk = manual_clock();
    kcoro::apiserver::server& srv = server();
    std::vector<std::string> log;
    std::shared_ptr<capture_sink> sink = std::make_shared<capture_sink>();

    // Runs (real time, bounded) until `done`; the manual clock stands still.
    template <class Pred>
    bool wait(Pred done) {
        return run_until(done, 20s);
    }

    kcoro::server::manager_options options() {
        kcoro::server::manager_options o;
        o.metrics_bind_address = "127.0.0.1:0";
        o.health_probe_bind_address = "127.0.0.1:0";
        o.log_level = "debug";
        return o;
    }
    kcoro::server::manager_setup setup(std::string identity = "m1") {
        auto s = manager_setup(std::move(identity));
        s.name = "test-manager";
        s.sink = sink;
        return s;
    }
    std::unique_ptr<manager> make(kcoro::server::manager_options o, kcoro::server::manager_setup s) {
        return make_manager(std::move(o), std::move(s));
    }

    // GET over HTTP from a manager's server; the status code (0: no answer) and body.
    std::pair<int, std::string> http_get(const asio::ip::tcp::endpoint& ep, std::string target) {
        kcoro::client::client_options co;
        co.max_retries = 0;
        auto c = http_client("http://127.0.0.1:" + std::to_string(ep.port()), co);
        kcoro::api_request req;
        req.target = std::move(target);
        req.verb = "GET";
        auto r = run(c->send(req));
        if (r) return {r->status, r->body};
        return {r.error().http_code(), r.error().message()};
    }
};

} // namespace

TEST_CASE("bad flags and --help give exit codes; operators add their own flags") {
    harness h;
    const char* bad[] = {"prog", "--no-such-flag"};
    auto s1 = manager::from_flags(2, bad, h.setup());
    CHECK_FALSE(s1.mgr);
    CHECK(s1.exit_code == kcoro::server::exit_usage);
    const char* help[] = {"prog", "--help"};
    auto s2 = manager::from_flags(2, help, h.setup());
    CHECK_FALSE(s2.mgr);
    CHECK(s2.exit_code == 0);
    std::string extra;
    const char* ok[] = {"prog", "--metrics-bind-address=0", "--health-probe-bind-address=0", "--leader-elect",
                        "--leader-election-id=x", "--leader-elect-release-on-cancel", "--extra=v"};
    auto s3 = manager::from_flags(7, ok, h.setup(), [&](kcoro::server::flag_set& f) {
        f.add_string("extra", &extra, "an operator's own flag");
    });
    REQUIRE(s3.mgr);
    CHECK(extra == "v");
    CHECK(s3.mgr->options().leader_elect);
    CHECK_FALSE(s3.mgr->options().metrics_enabled());
    CHECK(s3.mgr->options().max_concurrent_reconciles == 1);  // controller-runtime's default
    s3.mgr.reset();

    // A binary's own default for --max-concurrent-reconciles; the flag still wins.
    const char* plain[] = {"prog", "--metrics-bind-address=0", "--health-probe-bind-address=0"};
    auto with_default = h.setup();
    with_default.default_max_concurrent_reconciles = 8;
    auto s4 = manager::from_flags(3, plain, with_default);
    REQUIRE(s4.mgr);
    CHECK(s4.mgr->options().max_concurrent_reconciles == 8);
    s4.mgr.reset();
    const char* four[] = {"prog", "--metrics-bind-address=0", "--health-probe-bind-address=0",
                          "--max-concurrent-reconciles=4"};
    auto s5 = manager::from_flags(4, four, with_default);
    REQUIRE(s5.mgr);
    CHECK(s5.mgr->options().max_concurrent_reconciles == 4);
    s5.mgr.reset();

    // Leader election timings (kube-controller-manager's flag names): client-go's
    // ordering checks, and whole seconds for the Lease.
    auto timings = [&](const char* lease, const char* renew, const char* retry) {
        const char* args[] = {"prog", "--metrics-bind-address=0", "--health-probe-bind-address=0", lease, renew, retry};
        auto s = manager::from_flags(6, args, h.setup());
        return s.mgr ? 0 : s.exit_code;
    };
    CHECK(timings("--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s",
                  "--leader-elect-retry-period=500ms") == 0);
    CHECK(timings("--leader-elect-lease-duration=3s", "--leader-elect-renew-deadline=3s",
                  "--leader-elect-retry-period=1s") == kcoro::server::exit_usage);
    CHECK(timings("--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s",
                  "--leader-elect-retry-period=2500ms") == kcoro::server::exit_usage);
    CHECK(timings("--leader-elect-lease-duration=900ms", "--leader-elect-renew-deadline=500ms",
                  "--leader-elect-retry-period=100ms") == kcoro::server::exit_usage);
    CHECK(timings("--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s",
                  "--leader-elect-retry-period=0s") == kcoro::server::exit_usage);
}

TEST_CASE("readiness flips only after every informer synced; liveness fails when the loop stalls") {
    harness h;
    auto m = h.make(h.options(), h.setup());
    kcoro::runtime::informer_key key;
    key.gvr = kcoro::resources::configmaps();
    m->cache().get_or_create(key);
    fake_runnable ctl("ctl", true, h.clk, h.log);
    m->add(ctl);

    // The informer's list answers only after 5 s (server clock = manual clock).
    kcoro::apiserver::http::fault_rule f;
    f.action = kcoro::apiserver::http::fault_action::delay;
    f.verb = "list";
    f.resource = "configmaps";
    f.delay = 5000ms;
    h.srv.faults().add(f);

    CHECK(m->probes().handle("/readyz").status == 500);
    auto code = kcoro::test::start(h.ioc, m->run_async());
    REQUIRE(h.wait([&] { return m->probe_endpoint(); }));
    REQUIRE(m->metrics_endpoint());
    CHECK(m->probe_endpoint()->port() != 0);
    CHECK_FALSE(m->cache_synced());
    CHECK_FALSE(ctl.running);  // controllers start after the sync
    auto not_ready = h.http_get(*m->probe_endpoint(), "/readyz/informers");
    CHECK(not_ready.first == 500);
    CHECK(h.http_get(*m->probe_endpoint(), "/healthz").first == 200);  // alive while syncing

    REQUIRE(h.advance_until([&] { return m->cache_synced(); }, 10s));
    CHECK(ctl.running);
    CHECK(m->is_leader());  // no leader election: this replica leads
    auto ready = h.http_get(*m->probe_endpoint(), "/readyz?verbose");
    CHECK(ready.first == 200);
    CHECK(ready.second.find("[+]informers ok") != std::string::npos);
    CHECK(h.http_get(*m->probe_endpoint(), "/healthz/watchdog").first == 200);
    CHECK(h.http_get(*m->probe_endpoint(), "/nope").first == 404);

    // The loop stalls: time passes without the watchdog's tick running.
    h.clk.advance(11s);
    auto stalled = m->probes().handle("/healthz/watchdog");
    CHECK(stalled.status == 500);
    CHECK(m->probes().handle("/healthz").status == 500);
    h.settle();  // the tick runs again
    CHECK(m->probes().handle("/healthz").status == 200);

    m->request_stop();
    REQUIRE(h.advance_until([&] { return code->has_value(); }, 5s));
    CHECK(**code == 0);
    CHECK(h.log == std::vector<std::string>{"ctl start", "ctl stop"});
}

TEST_CASE("graceful stop: in-flight work finishes within the deadline, exit 0") {
    harness h;
    auto o = h.options();
    o.graceful_shutdown_timeout = 30s;
    auto m = h.make(o, h.setup());
    fake_runnable slow("slow", true, h.clk, h.log, 5s);
    fake_runnable bg("bg", false, h.clk, h.log);
    m->add(slow);
    m->add(bg);
    auto code = kcoro::test::start(h.ioc, m->run_async());
    REQUIRE(h.wait([&] { return slow.running; }));
    h.clk.advance(1s);
    REQUIRE(h.wait([&] { return slow.in_flight; }));
    m->request_stop();
    h.settle();
    CHECK_FALSE(code->has_value());  // waiting for the reconcile in flight
    CHECK(bg.running);               // non-gated runnables stop after the gated ones
    REQUIRE(h.advance_until([&] { return code->has_value(); }, 10s));
    CHECK(**code == 0);
    CHECK(slow.items == 1);
    CHECK_FALSE(slow.cancelled);
    CHECK(h.log == std::vector<std::string>{"bg start", "slow start", "slow stop", "bg stop"});
}

TEST_CASE("graceful stop past the deadline: the rest is cancelled, exit 1") {
    harness h;
    auto o = h.options();
    o.graceful_shutdown_timeout = 2s;
    auto m = h.make(o, h.setup());
    fake_runnable slow("slow", true, h.clk, h.log, 60s);
    m->add(slow);
    auto code = kcoro::test::start(h.ioc, m->run_async());
    REQUIRE(h.wait([&] { return slow.in_flight; }));
    m->request_stop();
    REQUIRE(h.advance_until([&] { return code->has_value(); }, 10s));
    CHECK(**code == 1);
    CHECK(slow.cancelled);
}

TEST_CASE("two managers with leader election: one leader; on failed renewals the old one stops before the new one starts") {
    harness h;
    auto o = h.options();
    o.leader_elect = true;
    o.leader_election_id = "test-manager-lock";
    o.leader_election_namespace = "default";
    auto m1 = h.make(o, h.setup("m1"));
    auto m2 = h.make(o, h.setup("m2"));
    fake_runnable c1("m1", true, h.clk, h.log);
    fake_runnable c2("m2", true, h.clk, h.log);
    m1->add(c1);
    m2->add(c2);
    auto code1 = kcoro::test::start(h.ioc, m1->run_async());
    REQUIRE(h.wait([&] { return c1.running; }));
    auto code2 = kcoro::test::start(h.ioc, m2->run_async());
    bool both = false;
    h.advance_until([&] {
        both = both || (c1.running && c2.running);
        return false;
    }, 20s);
    CHECK_FALSE(both);
    CHECK(m1->is_leader());
    CHECK_FALSE(m2->is_leader());
    // The standby is ready: readiness never depends on leadership.
    CHECK(m2->probes().handle("/readyz").status == 200);
    CHECK(m1->metrics().serialize().find("leader_election_master_status{name=\"test-manager-lock\"} 1") !=
          std::string::npos);
    CHECK(m2->metrics().serialize().find("leader_election_master_status{name=\"test-manager-lock\"} 0") !=
          std::string::npos);

    kcoro::apiserver::http::fault_rule f;
    f.verb = "update";
    f.resource = "leases";
    f.count = 0;
    f.code = 503;
    h.srv.faults().add(f);
    bool cleared = false;
    REQUIRE(h.advance_until([&] {
        both = both || (c1.running && c2.running);
        if (code1->has_value() && !cleared) {
            h.srv.faults().clear();
            cleared = true;
        }
        return c2.running;
    }, 40s));
    CHECK_FALSE(both);
    REQUIRE(code1->has_value());
    CHECK(**code1 == 1);  // leadership lost: exit non-zero
    CHECK(h.log == std::vector<std::string>{"m1 start", "m1 cancelled", "m2 start"});
    CHECK(m2->is_leader());

    m2->request_stop();
    REQUIRE(h.advance_until([&] { return code2->has_value(); }, 5s));
    CHECK(**code2 == 0);
}

TEST_CASE("leader write guard: a stalled leader's writes are refused unsent until it has renewed") {
    harness h;
    auto o = h.options();
    o.leader_elect = true;
    o.leader_election_id = "guard-lock";
    o.leader_election_namespace = "default";
    auto m = h.make(o, h.setup("m1"));
    fake_runnable c("m1", true, h.clk, h.log);
    m->add(c);
    auto code = kcoro::test::start(h.ioc, m->run_async());
    REQUIRE(h.wait([&] { return c.running; }));

    auto create = [&](std::string name) {
        boost::json::object cm{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                               {"metadata", boost::json::object{{"name", name}, {"namespace", "default"}}}};
        std::optional<kcoro::result<kcoro::object_ptr>> out;
        auto op = [&m, &out, cm = std::move(cm)]() -> asio::awaitable<void> {
            std::string ns = "default";
            kcoro::create_options co;
            out = co_await m->client().create(kcoro::resources::configmaps(), ns, cm, co);
        };
        asio::co_spawn(h.ioc, op, asio::detached);
        REQUIRE(h.wait([&] { return out.has_value(); }));
        return std::move(*out);
    };
    auto refused = [&] {
        const auto text = m->metrics().serialize();
        const std::string_view key = "\nkcoro_leader_write_refused_total ";
        const auto at = text.find(key);
        return at == std::string::npos ? -1.0 : std::stod(text.substr(at + key.size()));
    };
    CHECK(create("before")); // leading and renewed: sent
    CHECK(refused() == 0);

    // A stall: the clock moves past the renew deadline while nothing runs
    // (SIGSTOP, a long pause). The elector has not noticed yet; the write
    // that runs first is refused without being sent.
    h.clk.advance(11s);
    CHECK(m->is_leader());
    auto stale = create("stale");
    REQUIRE_FALSE(stale);
    CHECK(stale.error().code() == make_error_code(kcoro::kcoro_errc::not_leader));
    CHECK(refused() == 1);
    // The elector then renews (no one else took the lease): writes go again.
    h.settle();
    CHECK(m->is_leader());
    CHECK(create("after"));
    CHECK(refused() == 1);
    CHECK(h.srv.store().get(kcoro::resources::configmaps(), "default", "before"));
    CHECK_FALSE(h.srv.store().get(kcoro::resources::configmaps(), "default", "stale"));  // never sent

    m->request_stop();
    REQUIRE(h.advance_until([&] { return code->has_value(); }, 5s));
    CHECK(**code == 0);
}

TEST_CASE("release on cancel: a clean stop hands the lease over at once") {
    harness h;
    auto o = h.options();
    o.leader_elect = true;
    o.leader_election_id = "release-lock";
    o.leader_election_namespace = "default";
    auto s1 = h.setup("m1");
    s1.leader_election_release_on_cancel = true;
    auto m1 = h.make(o, s1);
    auto m2 = h.make(o, h.setup("m2"));
    fake_runnable c1("m1", true, h.clk, h.log);
    fake_runnable c2("m2", true, h.clk, h.log);
    m1->add(c1);
    m2->add(c2);
    auto code1 = kcoro::test::start(h.ioc, m1->run_async());
    REQUIRE(h.wait([&] { return c1.running; }));
    auto code2 = kcoro::test::start(h.ioc, m2->run_async());
    h.advance_until([] { return false; }, 3s);
    m1->request_stop();
    REQUIRE(h.wait([&] { return code1->has_value(); }));
    CHECK(**code1 == 0);
    REQUIRE(m1->elector());
    CHECK(m1->elector()->released());
    const auto stopped_at = h.clk.now();
    REQUIRE(h.advance_until([&] { return c2.running; }, 20s));
    CHECK(h.clk.now() - stopped_at <= 2100ms);
    CHECK(h.log == std::vector<std::string>{"m1 start", "m1 stop", "m2 start"});
    m2->request_stop();
    REQUIRE(h.advance_until([&] { return code2->has_value(); }, 5s));
}

TEST_CASE("--metrics-secure: HTTPS; TokenReview and SubjectAccessReview per token; decisions cached") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    using kcoro::test::step;
    auto review = [](std::string token, std::string answer) {
        step s;
        s.expect.method = "POST";
        s.expect.path = "/apis/authentication.k8s.io/v1/tokenreviews";
        s.expect.body_contains = "\"token\":\"" + token + "\"";
        s.answer.status = 201;
        s.answer.body = R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","status":)" + answer + "}";
        return s;
    };
    auto access = [](std::string user, bool allowed) {
        step s;
        s.expect.method = "POST";
        s.expect.path = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
        s.expect.body_contains = "\"nonResourceAttributes\":{\"path\":\"/metrics\",\"verb\":\"get\"}";
        s.answer.status = 201;
        s.answer.body = R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":")" +
                        user + R"("},"status":{"allowed":)" + (allowed ? "true" : "false") + "}}";
        return s;
    };
    std::vector<step> script{
        review("good", R"({"authenticated":true,"user":{"username":"prometheus","groups":["monitoring"]}})"),
        access("prometheus", true),
        review("bad", R"({"authenticated":false,"error":"invalid token"})"),
        review("eve", R"({"authenticated":true,"user":{"username":"eve"}})"),
        access("eve", false),
    };
    kcoro::test::scripted_server api(ioc, script);

    kcoro::server::manager_options o;
    o.metrics_bind_address = "127.0.0.1:0";
    o.health_probe_bind_address = "0";
    o.metrics_secure = true;
    kcoro::server::manager_setup s;
    s.io_context = &ioc;
    s.clock = &clk;
    kcoro::client::client_config cfg;
    cfg.server = api.url();
    s.client_config = cfg;
    s.sink = std::make_shared<capture_sink>();
    s.handle_signals = false;
    auto made = manager::create(o, s);
    REQUIRE(made);
    auto& m = **made;
    auto code = kcoro::test::start(ioc, m.run_async());
    REQUIRE(kcoro::test::run_until(ioc, [&] { return m.metrics_endpoint() && m.cache_synced(); }));

    auto scrape = [&](std::string token, bool tls = true) {
        kcoro::client::client_config sc;
        sc.server = std::string(tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(m.metrics_endpoint()->port());
        sc.insecure_skip_tls_verify = true;
        sc.token = token;
        kcoro::client::client_options co;
        co.max_retries = 0;
        auto c = kcoro::client::client::create(sc, clk, co).value();
        std::optional<int> status;
        auto op = [&]() -> asio::awaitable<void> {
            kcoro::api_request req;
            req.target = "/metrics";
            req.verb = "GET";
            auto r = co_await c->send(req);
            status = r ? r->status : r.error().http_code();
        };
        asio::co_spawn(ioc, op, asio::detached);
        REQUIRE(kcoro::test::run_until(ioc, [&] { return status.has_value(); }));
        return *status;
    };
    CHECK(scrape("") == 401);       // no token: no review
    CHECK(scrape("good") == 200);
    CHECK(scrape("good") == 200);   // cached: no second review
    CHECK(scrape("bad") == 401);
    CHECK(scrape("eve") == 403);
    CHECK(scrape("good", false) == 0);  // plain HTTP gets no answer
    CHECK(api.remaining() == 0);
    CHECK(api.failures().empty());
    clk.advance(61s);  // the allowed decision expired: reviewed again
    api.add(review("good", R"({"authenticated":true,"user":{"username":"prometheus"}})"));
    api.add(access("prometheus", true));
    CHECK(scrape("good") == 200);
    CHECK(api.remaining() == 0);

    m.request_stop();
    REQUIRE(kcoro::test::run_until(ioc, [&] { return code->has_value(); }));
    CHECK(**code == 0);
    api.stop();
    kcoro::test::run_until(ioc, [] { return false; }, 50ms);
}

namespace {

// Counts every request attempt a client finished, and when it last wrote.
struct request_counter final : kcoro::request_metrics {
    explicit request_counter(kcoro::io::clock& c) : clk(c) {}
    void observe(std::string_view, std::string_view method, std::string_view, std::string_view,
                 double) override {
        ++total;
        if (method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE") {
            ++writes;
            last_write = clk.now();
        }
    }
    kcoro::io::clock& clk;
    int total = 0;
    int writes = 0;
    kcoro::steady_time last_write{};
};

void watch_leases(manager& m) {
    kcoro::runtime::informer_key key;
    key.gvr = kcoro::resources::leases();
    m.cache().get_or_create(key);
}

bool is_operation_aborted(std::exception_ptr e) {
    try {
        std::rethrow_exception(e);
    } catch (const boost::system::system_error& x) {
        return x.code() == asio::error::operation_aborted;
    } catch (...) {
        return false;
    }
}

} // namespace

TEST_CASE("cancelling run_async is a crash: all stops at once, no release; the standby leads after the lease expires") {
    harness h;
    auto o = h.options();
    o.leader_elect = true;
    o.leader_election_id = "crash-lock";
    o.leader_election_namespace = "default";
    // m1 on its own client, to count what it sends.
    request_counter sent(h.clk);
    kcoro::test::client_spec spec;
    spec.user = "m1";
    spec.metrics = &sent;
    auto c1 = h.make_client(spec);
    auto s1 = h.setup("m1");
    s1.client = c1.get();
    s1.leader_election_release_on_cancel = true;  // a crash releases nothing all the same
    auto m1 = h.make(o, s1);
    auto m2 = h.make(o, h.setup("m2"));
    fake_runnable r1("m1", true, h.clk, h.log);
    fake_runnable b1("m1-background", false, h.clk, h.log);
    fake_runnable r2("m2", true, h.clk, h.log);
    m1->add(r1);
    m1->add(b1);
    m1->recorder();
    watch_leases(*m1);  // an informer (watch) too
    m2->add(r2);

    asio::cancellation_signal crash;
    std::optional<std::exception_ptr> outcome1;
    std::optional<int> code1;
    auto on_done = [&](std::exception_ptr e, int c) {
        outcome1 = e;
        code1 = c;
    };
    asio::co_spawn(h.ioc, m1->run_async(), asio::bind_cancellation_slot(crash.slot(), on_done));
    REQUIRE(h.wait([&] { return r1.running; }));
    auto code2 = kcoro::test::start(h.ioc, m2->run_async());
    h.advance_until([] { return false; }, 5s);  // m1 renews, m2 waits
    REQUIRE(m1->is_leader());
    REQUIRE_FALSE(m2->is_leader());
    REQUIRE(sent.writes >= 2);  // created, then renewed the lease

    // The crash: no clock time passes until run_async completed.
    const auto crashed_at = h.clk.now();
    crash.emit(asio::cancellation_type::terminal);
    REQUIRE(h.wait([&] { return outcome1.has_value(); }));
    CHECK(h.clk.now() == crashed_at);
    REQUIRE(*outcome1);
    CHECK(is_operation_aborted(*outcome1));
    CHECK_FALSE(m1->is_leader());
    CHECK_FALSE(r1.running);
    CHECK(r1.cancelled);  // cancelled, not stopped gracefully
    CHECK_FALSE(b1.running);
    CHECK(b1.cancelled);
    REQUIRE(m1->elector());
    CHECK_FALSE(m1->elector()->released());
    const int sent_at_crash = sent.total;
    const auto last_renewal = sent.last_write;

    // The standby takes over only once the old lease expired (15 s after
    // m1's last renewal, as m2 observed it: within one retry period).
    REQUIRE(h.advance_until([&] { return r2.running; }, 40s));
    CHECK(m2->is_leader());
    CHECK(h.clk.now() - last_renewal >= 15s);
    CHECK(h.clk.now() - last_renewal <= 15s + 2 * 2s + 200ms);
    CHECK(sent.total == sent_at_crash);  // the crashed manager sent nothing more
    CHECK(h.log == std::vector<std::string>{"m1-background start", "m1 start", "m1 cancelled",
                                            "m1-background cancelled", "m2 start"});

    // Destroyed while the io_context keeps going (ASan/valgrind: clean).
    m1.reset();
    h.advance_until([] { return false; }, 3s);
    CHECK(sent.total == sent_at_crash);
    CHECK(m2->is_leader());
    m2->request_stop();
    REQUIRE(h.advance_until([&] { return code2->has_value(); }, 5s));
    CHECK(**code2 == 0);
}

TEST_CASE("cancelling run_async while the caches sync; destroying managers never run or finished") {
    harness h;
    {
        auto never = h.make(h.options(), h.setup("never"));  // never run: destroyed as is
        never->recorder();
        watch_leases(*never);
    }
    // Lists hang (delayed on the manual clock): the crash comes mid-sync.
    kcoro::apiserver::http::fault_rule f;
    f.action = kcoro::apiserver::http::fault_action::delay;
    f.verb = "list";
    f.resource = "leases";
    f.count = 0;
    f.delay = 1h;
    h.srv.faults().add(f);
    auto m = h.make(h.options(), h.setup("m1"));
    fake_runnable b("bg", false, h.clk, h.log);
    fake_runnable g("gated", true, h.clk, h.log);
    m->add(b);
    m->add(g);
    watch_leases(*m);
    asio::cancellation_signal crash;
    std::optional<std::exception_ptr> outcome;
    auto on_done = [&](std::exception_ptr e, int) { outcome = e; };
    asio::co_spawn(h.ioc, m->run_async(), asio::bind_cancellation_slot(crash.slot(), on_done));
    REQUIRE(h.wait([&] { return b.running; }));
    h.advance_until([] { return false; }, 1s);
    CHECK_FALSE(m->cache_synced());
    crash.emit(asio::cancellation_type::terminal);
    REQUIRE(h.wait([&] { return outcome.has_value(); }));
    REQUIRE(*outcome);
    CHECK(is_operation_aborted(*outcome));
    CHECK(h.log == std::vector<std::string>{"bg start", "bg cancelled"});
    m.reset();
    h.srv.faults().clear();
    h.advance_until([] { return false; }, 2s);

    // Finished normally, then destroyed.
    auto done = h.make(h.options(), h.setup("m2"));
    watch_leases(*done);
    auto code = kcoro::test::start(h.ioc, done->run_async());
    REQUIRE(h.advance_until([&] { return done->cache_synced(); }, 5s));
    done->request_stop();
    REQUIRE(h.advance_until([&] { return code->has_value(); }, 5s));
    CHECK(**code == 0);
    done.reset();
    h.advance_until([] { return false; }, 1s);
}
