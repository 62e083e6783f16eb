// Controller loop figures (suite bench):
//  1. no-op reconcile throughput of the controller loop alone (fake
//     reconciler, manual clock, no server): keys/s at 1 and 4 reconciles in
//     flight;
//  2. event-to-reconcile-start latency, p50/p99 over 1,000 updates of one
//     ConfigMap: from just before the update is sent to the start of the
//     reconcile that sees it (informer watch -> cache -> handler -> queue ->
//     reconcile). By default kcoro-apiserver runs IN PROCESS on the same
//     io_context (one thread shared by server, client, informer and
//     controller); `--server URL` uses a kcoro-apiserver in another process
//     instead (e.g. `kcoro-apiserver --plain --listen 127.0.0.1:PORT`).
//
//   meson test -C build-release --benchmark --suite bench controller_bench -v
//   build-release/test/bench/controller_bench --server http://127.0.0.1:PORT
#include "server.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/builder.hpp>
#include <kcoro/runtime/controller.hpp>
#include <kcoro/runtime/informer_factory.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;
using kcoro::object_key;
using kcoro::result;
using kcoro::runtime::reconcile_result;
using wall = std::chrono::steady_clock;

namespace {

void throughput(std::size_t concurrency, std::size_t keys, int rounds) {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    kcoro::runtime::controller_options o;
    o.name = "bench";
    o.max_concurrent_reconciles = concurrency;
    o.rate_limiter.bucket = std::nullopt;
    std::uint64_t n = 0;
    o.random = [n]() mutable { return ++n; };
    kcoro::runtime::controller ctl(ioc.get_executor(), clk, o,
                                   [](const object_key&) -> asio::awaitable<result<reconcile_result>> {
                                       co_return reconcile_result{};
                                   });
    std::vector<object_key> ks;
    ks.reserve(keys);
    for (std::size_t i = 0; i < keys; ++i) ks.push_back({"bench", "cm-" + std::to_string(i)});
    asio::co_spawn(ioc, ctl.run(), asio::detached);
    ioc.poll();
    const auto t0 = wall::now();
    for (int r = 0; r < rounds; ++r) {
        for (auto& k : ks) ctl.enqueue(k);
        const auto target = (r + 1) * keys;
        while (ctl.stats().reconciles < target) {
            if (ioc.stopped()) ioc.restart();
            ioc.poll();
        }
    }
    const double secs = std::chrono::duration<double>(wall::now() - t0).count();
    const double total = static_cast<double>(rounds) * static_cast<double>(keys);
    std::printf("controller no-op reconcile, %zu in flight: %.0f reconciles in %.3f s = %.0f keys/s\n",
                concurrency, total, secs, total / secs);
    ctl.stop();
    ioc.poll();
}

void latency(int updates, const std::string& url) {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    kcoro::apiserver::server srv(ioc.get_executor(), clk, {});
    if (url.empty() && !srv.start()) {
        std::printf("latency: server did not start\n");
        return;
    }
    kcoro::client::client_config cfg;
    cfg.server = url.empty() ? srv.url() : url;
    auto admin = kcoro::client::client::create(cfg, clk).value();
    auto op = kcoro::client::client::create(cfg, clk).value();
    kcoro::runtime::informer_factory factory(*op, clk, ioc.get_executor());
    kcoro::runtime::informer_key key;
    key.gvr = kcoro::resources::configmaps();
    key.namespace_ = "default";
    auto& inf = factory.get_or_create(key);

    std::vector<std::optional<wall::time_point>> sent(updates + 1), started(updates + 1);
    auto reconcile = [&](const object_key& key) -> asio::awaitable<result<reconcile_result>> {
        auto obj = inf.cache().get(key);
        if (obj) {
            if (const auto* v = kcoro::find_path(*obj, {"data", "seq"}); v && v->is_string()) {
                int seq = std::atoi(v->as_string().c_str());
                if (seq >= 0 && seq <= updates && !started[seq]) started[seq] = wall::now();
            }
        }
        co_return reconcile_result{};
    };
    kcoro::runtime::controller_options o;
    auto ctl = kcoro::runtime::builder(factory, clk, ioc.get_executor())
                   .named("latency")
                   .for_(inf.key(), {"", "ConfigMap"})
                   .with_options(o)
                   .complete(reconcile);
    asio::co_spawn(ioc, factory.run(), asio::detached);
    asio::co_spawn(ioc, ctl->run(), asio::detached);

    auto run = [&](auto aw) {
        using T = typename decltype(aw)::value_type;
        std::optional<T> out;
        asio::co_spawn(ioc, std::move(aw), [&](std::exception_ptr e, T v) {
            if (e) std::rethrow_exception(e);
            out.emplace(std::move(v));
        });
        while (!out) ioc.run_one_for(10ms);
        return std::move(*out);
    };
    auto obj = boost::json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"lat","namespace":"default"},"data":{"seq":"0"}})");
    sent[0] = wall::now();
    if (!run(admin->create(kcoro::resources::configmaps(), "default", obj.as_object()))) {
        std::printf("latency: create failed\n");
        return;
    }
    auto wait = [&](int i) {
        auto until = wall::now() + 5s;
        while (!started[i] && wall::now() < until) ioc.run_one_for(1ms);
        return started[i].has_value();
    };
    if (!wait(0)) {
        std::printf("latency: the first reconcile never started\n");
        return;
    }
    int missed = 0;
    for (int i = 1; i <= updates; ++i) {
        const std::string patch = R"({"data":{"seq":")" + std::to_string(i) + R"("}})";
        sent[i] = wall::now();
        auto r = run(admin->patch(kcoro::resources::configmaps(), {"default", "lat"}, patch));
        if (!r || !wait(i)) ++missed;
    }
    std::vector<double> us;
    for (int i = 1; i <= updates; ++i) {
        if (sent[i] && started[i]) us.push_back(std::chrono::duration<double, std::micro>(*started[i] - *sent[i]).count());
    }
    std::sort(us.begin(), us.end());
    auto pct = [&](double p) { return us.empty() ? 0.0 : us[std::min(us.size() - 1, static_cast<std::size_t>(p * us.size()))]; };
    std::printf("event-to-reconcile-start latency (%s kcoro-apiserver, %zu updates, %d missed): "
                "p50 %.0f us, p99 %.0f us, max %.0f us\n",
                url.empty() ? "in-process" : "out-of-process", us.size(), missed, pct(0.50), pct(0.99), us.empty() ? 0.0 : us.back());
    (void)run(admin->remove(kcoro::resources::configmaps(), {"default", "lat"}));
    ctl->stop();
    factory.stop();
    if (url.empty()) srv.stop(0ms);
    ioc.run_for(200ms);
}

} // namespace

int main(int argc, char** argv) {
    std::string url;
    if (argc == 3 && std::string(argv[1]) == "--server") url = argv[2];
    throughput(1, 100000, 3);
    throughput(4, 100000, 3);
    latency(1000, url);
    return 0;
}
