// The live /metrics of a running manager (leader election on, one informer,
// one controller that reconciled, one event recorded) fetched over HTTP: every
// family issue 5 lists is present with its labels. When KCORO_METRICS_OUT is
// set, the scrape is written there (metrics_live_test.sh runs promtool on it).
#include <kcoro/server/manager.hpp>

#include "server.hpp"

#include "../support/run_until.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/controller.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

struct null_sink final : kcoro::log_sink {
    void write(std::string_view) override {}
};

bool has_line_starting(const std::string& text, const std::string& prefix) {
    std::size_t pos = 0;
    while (pos < text.size()) {
        auto end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        if (text.compare(pos, prefix.size(), prefix) == 0) return true;
        pos = end + 1;
    }
    return false;
}

} // namespace

TEST_CASE("live /metrics carries controller-runtime's and kcoro's families") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    kcoro::apiserver::server srv(ioc.get_executor(), clk);
    REQUIRE(srv.start());

    kcoro::server::manager_options o;
    o.metrics_bind_address = "127.0.0.1:0";
    o.health_probe_bind_address = "127.0.0.1:0";
    o.leader_elect = true;
    o.leader_election_id = "metrics-test";
    o.leader_election_namespace = "default";
    kcoro::server::manager_setup s;
    s.name = "metrics-test";
    s.io_context = &ioc;
    s.clock = &clk;
    kcoro::client::client_config cfg;
    cfg.server = srv.url();
    s.client_config = cfg;
    s.handle_signals = false;
    s.sink = std::make_shared<null_sink>();
    auto made = kcoro::server::manager::create(o, s);
    REQUIRE(made);
    auto& m = **made;
    // Not synced before the manager runs (1 in the scrape below, after the sync).
    CHECK(m.metrics().serialize().find("\nkcoro_caches_synced 0\n") != std::string::npos);

    kcoro::runtime::informer_key key;
    key.gvr = kcoro::resources::configmaps();
    auto& inf = m.cache().get_or_create(key);
    kcoro::runtime::controller_options co;
    co.name = "demo";
    co.metrics = m.metrics().make_controller_metrics("demo");
    co.queue_metrics = m.metrics().make_workqueue_metrics("demo", "demo");
    int reconciled = 0;
    kcoro::runtime::reconcile_func fn = [&](const kcoro::object_key&) -> asio::awaitable<kcoro::result<kcoro::runtime::reconcile_result>> {
        ++reconciled;
        co_return kcoro::runtime::success();
    };
    kcoro::runtime::controller ctl(m.executor(), m.clock(), co, fn);
    inf.add_handlers({.on_add = [&](const kcoro::object_ptr& obj) { ctl.enqueue(kcoro::key_of(*obj)); },
                      .on_update = {},
                      .on_delete = {}});
    m.add(ctl);

    // One ConfigMap for the controller to reconcile.
    boost::json::object cm{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                           {"metadata", {{"name", "cm1"}, {"namespace", "default"}}}};
    std::optional<kcoro::result<kcoro::object_ptr>> created;
    auto create_op = [&]() -> asio::awaitable<void> {
        const auto gvr = kcoro::resources::configmaps();
        const kcoro::create_options opts;
        created.emplace(co_await m.client().create(gvr, "default", cm, opts));
    };
    asio::co_spawn(ioc, create_op, asio::detached);
    REQUIRE(kcoro::test::run_until(ioc, [&] { return created.has_value(); }, 10s));
    REQUIRE(*created);

    auto code = kcoro::test::start(ioc, m.run_async());
    REQUIRE(kcoro::test::run_until(ioc, [&] { return m.is_leader() && reconciled > 0; }, 20s));
    const boost::json::object& pod = ***created;
    m.recorder().record(pod, kcoro::runtime::event_type::normal, "Tested", "Test", "a test event");
    // An invalid event (no reason) is dropped and counted.
    m.recorder().record(pod, kcoro::runtime::event_type::normal, "", "Test", "dropped");
    REQUIRE(kcoro::test::run_until(ioc, [&] { return m.recorder().written() >= 1; }, 10s));

    // Fetch /metrics over HTTP.
    kcoro::client::client_config mc;
    mc.server = "http://127.0.0.1:" + std::to_string(m.metrics_endpoint()->port());
    auto scraper = kcoro::client::client::create(mc, clk).value();
    std::optional<kcoro::result<kcoro::client::http_response>> got;
    auto op = [&]() -> asio::awaitable<void> {
        kcoro::api_request req;
        req.target = "/metrics";
        req.verb = "GET";
        got.emplace(co_await scraper->send(req));
    };
    asio::co_spawn(ioc, op, asio::detached);
    REQUIRE(kcoro::test::run_until(ioc, [&] { return got.has_value(); }, 10s));
    REQUIRE(got->has_value());
    const auto& resp = **got;
    CHECK(resp.status == 200);
    CHECK(resp.content_type == "text/plain; version=0.0.4; charset=utf-8");
    const std::string& text = resp.body;

    const char* families[] = {
        "# TYPE controller_runtime_reconcile_total counter",
        "# TYPE controller_runtime_reconcile_errors_total counter",
        "# TYPE controller_runtime_terminal_reconcile_errors_total counter",
        "# TYPE controller_runtime_reconcile_panics_total counter",
        "# TYPE controller_runtime_reconcile_time_seconds histogram",
        "# TYPE controller_runtime_max_concurrent_reconciles gauge",
        "# TYPE controller_runtime_active_workers gauge",
        "# TYPE workqueue_depth gauge",
        "# TYPE workqueue_adds_total counter",
        "# TYPE workqueue_queue_duration_seconds histogram",
        "# TYPE workqueue_work_duration_seconds histogram",
        "# TYPE workqueue_unfinished_work_seconds gauge",
        "# TYPE workqueue_longest_running_processor_seconds gauge",
        "# TYPE workqueue_retries_total counter",
        "# TYPE rest_client_requests_total counter",
        "# TYPE rest_client_request_duration_seconds histogram",
        "# TYPE leader_election_master_status gauge",
        "# TYPE process_cpu_seconds_total counter",
        "# TYPE process_resident_memory_bytes gauge",
        "# TYPE process_open_fds gauge",
        "# TYPE process_start_time_seconds gauge",
        "# TYPE kcoro_events_dropped_total counter",
        "# TYPE kcoro_informer_cache_objects gauge",
        "# TYPE kcoro_caches_synced gauge",
    };
    for (const char* f : families) {
        CHECK_MESSAGE(text.find(f) != std::string::npos, f);
    }
    const char* series[] = {
        "controller_runtime_reconcile_total{controller=\"demo\",result=\"success\"}",
        "controller_runtime_reconcile_total{controller=\"demo\",result=\"error\"} 0",
        "controller_runtime_reconcile_total{controller=\"demo\",result=\"requeue\"} 0",
        "controller_runtime_reconcile_total{controller=\"demo\",result=\"requeue_after\"} 0",
        "controller_runtime_reconcile_errors_total{controller=\"demo\"} 0",
        "controller_runtime_reconcile_time_seconds_bucket{controller=\"demo\",le=\"0.005\"}",
        "controller_runtime_reconcile_time_seconds_bucket{controller=\"demo\",le=\"60\"}",
        "workqueue_adds_total{controller=\"demo\",name=\"demo\"}",
        "workqueue_queue_duration_seconds_bucket{controller=\"demo\",name=\"demo\",le=\"1e-08\"}",
        "workqueue_work_duration_seconds_bucket{controller=\"demo\",name=\"demo\",le=\"1000\"}",
        "leader_election_master_status{name=\"metrics-test\"} 1",
        "kcoro_events_dropped_total{reason=\"invalid\"} 1",
        "kcoro_informer_cache_objects{resource=\"configmaps\"}",
        "kcoro_caches_synced 1",
        "rest_client_requests_total{code=\"200\",host=",
    };
    for (const char* p : series) {
        CHECK_MESSAGE(has_line_starting(text, p), p);
    }
    CHECK(text.find("rest_client_request_duration_seconds_bucket{host=") != std::string::npos);

    if (const char* out = std::getenv("KCORO_METRICS_OUT")) {
        std::ofstream f(out);
        f << text;
    }

    m.request_stop();
    REQUIRE(kcoro::test::run_until(ioc, [&] { return code->has_value(); }, 20s));
    CHECK(**code == 0);
    srv.stop(0ms);
    kcoro::test::run_until(ioc, [&] { return srv.http_server()->session_count() == 0; }, 5s);
}
