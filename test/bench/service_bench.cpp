// Figures for the service layer: a /metrics scrape with many controllers,
// probe answers, log lines, event decisions. Prints; asserts nothing.
#include <kcoro/core/log.hpp>
#include <kcoro/runtime/event_aggregator.hpp>
#include <kcoro/server/health.hpp>
#include <kcoro/server/metrics.hpp>
#include <kcoro/server/metrics_handler.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

using clk = std::chrono::steady_clock;

template <class F>
double per_op_us(int n, F&& f) {
    auto t0 = clk::now();
    for (int i = 0; i < n; ++i) f(i);
    return std::chrono::duration<double, std::micro>(clk::now() - t0).count() / n;
}

struct null_sink final : kcoro::log_sink {
    std::size_t bytes = 0;
    void write(std::string_view line) override { bytes += line.size(); }
};

} // namespace

int main() {
    // A scrape: 20 controllers with their queues, 50 request series.
    kcoro::server::metrics_registry reg(true);
    std::vector<std::unique_ptr<kcoro::controller_metrics>> ctrls;
    std::vector<std::unique_ptr<kcoro::workqueue_metrics>> queues;
    for (int i = 0; i < 20; ++i) {
        auto name = "controller-" + std::to_string(i);
        ctrls.push_back(reg.make_controller_metrics(name));
        queues.push_back(reg.make_workqueue_metrics(name, name));
        ctrls.back()->reconcile_done(kcoro::reconcile_outcome::success, 0.01);
        queues.back()->queue_latency(0.001);
        queues.back()->work_duration(0.01);
    }
    for (int i = 0; i < 50; ++i)
        reg.requests().observe("GET", "GET", "10.0.0." + std::to_string(i) + ":6443", "200", 0.02);
    kcoro::server::metrics_handler mh(reg);
    std::size_t bytes = mh.handle("/metrics").body.size();
    double scrape = per_op_us(200, [&](int) { (void)mh.handle("/metrics"); });
    std::printf("metrics scrape (20 controllers, %zu bytes): %.1f us\n", bytes, scrape);

    double observe = per_op_us(1000000, [&](int i) { ctrls[static_cast<std::size_t>(i % 20)]->reconcile_done(kcoro::reconcile_outcome::success, 0.02); });
    std::printf("reconcile_done observation: %.3f us\n", observe);
    double req = per_op_us(200000, [&](int) { reg.requests().observe("GET", "GET", "10.0.0.1:6443", "200", 0.02); });
    std::printf("rest client observation (label lookup): %.3f us\n", req);

    kcoro::server::health_handler h;
    h.readyz().add("informers", [] { return std::optional<std::string>(); });
    h.readyz().add("leader", [] { return std::optional<std::string>(); });
    double probe = per_op_us(200000, [&](int) { (void)h.handle("/readyz"); });
    double verbose = per_op_us(200000, [&](int) { (void)h.handle("/readyz?verbose&exclude=leader"); });
    std::printf("/readyz: %.3f us, /readyz?verbose&exclude: %.3f us\n", probe, verbose);

    auto sink = std::make_shared<null_sink>();
    kcoro::logger log(kcoro::log_config{kcoro::log_level::info, kcoro::log_format::json,
                                        [] { return kcoro::wall_time{}; }, sink});
    auto rlog = log.for_reconcile("gateway", "example.com", "Gateway", "apps", "gw-1", "4f1c");
    double line = per_op_us(200000, [&](int i) { rlog.info("Reconciled", {{"generation", i}, {"phase", "Ready"}}); });
    double filtered = per_op_us(1000000, [&](int) { rlog.debug("hidden"); });
    std::printf("JSON log line (reconcile logger, 2 fields): %.3f us; filtered debug: %.4f us\n", line, filtered);

    kcoro::runtime::event_aggregator agg({"gateway-operator", "gw_1"});
    kcoro::runtime::event_request ev{boost::json::object{{"kind", "Gateway"}, {"name", "gw-1"}, {"namespace", "apps"}},
                                     std::nullopt, kcoro::runtime::event_type::normal, "Reconciled", "Reconcile",
                                     "ok"};
    kcoro::steady_time t{};
    double repeat = per_op_us(200000, [&](int) { (void)agg.record(ev, t, kcoro::wall_time{}); });
    std::printf("event repeat folded into a series: %.3f us\n", repeat);
    return 0;
}
