// gateway-operator at scale, in process: one operator manager (the
// controller of controller_setup.hpp) against kcoro-apiserver with the
// workload simulation on (no rollout delay). N GatewayInstances are created
// at once; the figures are the wall time until all are Ready, the operator's
// writes and reconciles per instance, and the writes during a quiet period
// afterwards (which must be 0).
//
//   operator_bench [instances=200] [max_concurrent_reconciles...=1 4]
#include "controller_setup.hpp"

#include "desired_state.hpp"
#include "server.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/core/yaml.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/conditions.hpp>
#include <kcoro/server/manager.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

namespace {

struct write_counter final : kcoro::request_metrics {
    long writes = 0;
    long requests = 0;
    void observe(std::string_view, std::string_view method, std::string_view, std::string_view, double) override {
        ++requests;
        if (method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE") ++writes;
    }
};

struct null_sink final : kcoro::log_sink {
    void write(std::string_view) override {}
};

template <class T>
T run(asio::io_context& ioc, asio::awaitable<T> aw) {
    std::optional<T> out;
    asio::co_spawn(ioc, std::move(aw), [&](std::exception_ptr e, T v) {
        if (e) std::rethrow_exception(e);
        out.emplace(std::move(v));
    });
    while (!out) ioc.run_one();
    return std::move(*out);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void one_round(int instances, int workers) {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    kcoro::apiserver::server_options so;
    so.store.simulate_workloads = true;
    so.store.simulate_delay = 0ms;
    so.simulate_interval = 20ms;
    so.gc_interval = 50ms;
    kcoro::apiserver::server srv(ioc.get_executor(), clk, so);
    if (!srv.start()) std::abort();
    kcoro::client::client_config cfg;
    cfg.server = srv.url();
    auto admin = kcoro::client::client::create(cfg, clk).value();
    auto crd = kcoro::parse_yaml(read_file(KCORO_SOURCE_DIR "/deploy/crd/gateway.kcoro.dev_gatewayinstances.yaml"));
    if (!run(ioc, admin->create(kcoro::resources::customresourcedefinitions(), "", crd->as_object(),
                                kcoro::create_options{})))
        std::abort();

    write_counter counter;
    kcoro::client::client_options co;
    co.metrics = &counter;
    auto opclient = kcoro::client::client::create(cfg, clk, co).value();
    kcoro::server::manager_options mo;
    mo.metrics_bind_address = "0";
    mo.health_probe_bind_address = "0";
    mo.max_concurrent_reconciles = workers;
    kcoro::server::manager_setup ms;
    ms.name = "gateway-operator";
    ms.io_context = &ioc;
    ms.clock = &clk;
    ms.client = opclient.get();
    ms.sink = std::make_shared<null_sink>();
    ms.handle_signals = false;
    auto mgr = kcoro::server::manager::create(mo, ms).value();
    gateway::reconciler_options ro;
    ro.rollout_poll = 1s;
    ro.recheck = std::chrono::hours(1);
    auto handle = gateway::setup(*mgr, ro);
    std::optional<int> code;
    asio::co_spawn(ioc, mgr->run_async(), [&](std::exception_ptr, int c) { code = c; });
    while (!mgr->cache_synced()) ioc.run_one_for(10ms);

    const auto t0 = steady::now();
    for (int i = 0; i < instances; ++i) {
        auto obj = json::parse(R"({"apiVersion":"gateway.kcoro.dev/v1alpha1","kind":"GatewayInstance",
          "metadata":{"name":"gw-)" + std::to_string(i) + R"(","namespace":"default"},
          "spec":{"image":"nginx:1.27","replicas":2}})");
        if (!run(ioc, admin->create(gateway::gateway_instances(), "default", obj.as_object(), kcoro::create_options{})))
            std::abort();
    }
    const auto created = steady::now();
    auto all_ready = [&] {
        auto l = run(ioc, admin->list(gateway::gateway_instances(), "default", kcoro::list_options{}));
        if (!l) return false;
        int ready = 0;
        for (const auto& gi : l->items) {
            const auto* cs = kcoro::runtime::conditions_of(*gi);
            ready += cs && kcoro::runtime::is_condition_true(*cs, "Ready") ? 1 : 0;
        }
        return ready == instances;
    };
    auto until = steady::now() + 300s;
    while (!all_ready()) {
        if (steady::now() > until) {
            std::printf("timeout: not all instances Ready after 300 s\n");
            std::abort();
        }
        const auto slice = steady::now() + 100ms;
        while (steady::now() < slice) ioc.run_one_until(slice);
    }
    const auto ready = steady::now();
    const long writes = counter.writes;
    const long requests = counter.requests;
    const auto reconciles = handle.ctl->stats().reconciles;

    // Quiet period: nothing changes, nothing may be written.
    const auto quiet_end = steady::now() + 3s;
    while (steady::now() < quiet_end) ioc.run_one_until(quiet_end);
    const long quiet_writes = counter.writes - writes;

    const double secs = std::chrono::duration<double>(ready - t0).count();
    std::printf("instances=%d max_concurrent_reconciles=%d: all Ready %.2f s after the first create "
                "(creates took %.2f s); per instance: %.2f writes, %.2f requests, %.2f reconciles; "
                "%.0f instances/s; writes in a 3 s quiet period: %ld\n",
                instances, workers, secs, std::chrono::duration<double>(created - t0).count(),
                double(writes) / instances, double(requests) / instances, double(reconciles) / instances,
                instances / secs, quiet_writes);
    mgr->request_stop();
    while (!code) ioc.run_one_for(10ms);
    srv.stop(0ms);
    ioc.poll();
}

} // namespace

int main(int argc, char** argv) {
    int instances = argc > 1 ? std::atoi(argv[1]) : 200;
    std::vector<int> workers;
    for (int i = 2; i < argc; ++i) workers.push_back(std::atoi(argv[i]));
    if (workers.empty()) workers = {1, 4};
    for (int w : workers) one_round(instances, w);
    return 0;
}
