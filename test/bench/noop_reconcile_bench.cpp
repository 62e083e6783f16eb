// The CPU of a reconcile that writes nothing (issue 12: at most 20 µs).
//
// The configmap-mirror controller on a manager (the binary's code path:
// cached reads of the parent and of the owned child, apply_owned's
// comparison against our managedFields entry, the hot-loop tracker, the
// controller's metrics) against kcoro-apiserver in process. Once every child
// exists and the controller is idle, every parent key is enqueued `--rounds`
// times; each reconcile finds its child as desired and writes nothing. The
// figure is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID) over the
// reconciles: queue, reconcile coroutine, cache decodes, desired child,
// comparison. Nothing goes to the server (the request count is printed to
// prove it), so the server sharing the thread adds nothing. The watch event
// that normally triggers such a reconcile (TLS read, decode, cache update) is
// measured end to end by mirror_bench's "noop" phase instead.
//
//   build/test/bench/noop_reconcile_bench [--parents 2000] [--rounds 5]
#include "mirror.hpp"
#include "server.hpp"

#include "mirror_parent.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/log.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/server/manager.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <optional>
#include <string>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

double thread_cpu() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "noop_reconcile_bench: %s\n", what.c_str());
    std::exit(1);
}

json::object parent(int i) { return mirror_objects::mirror_parent(i, "default"); }

template <class Pred>
void run_until(asio::io_context& ioc, Pred done, std::chrono::seconds bound, const char* what) {
    const auto end = std::chrono::steady_clock::now() + bound;
    while (!done()) {
        if (std::chrono::steady_clock::now() > end) die(std::string("timed out: ") + what);
        if (ioc.stopped()) ioc.restart();
        ioc.run_one_for(20ms);
    }
}

// The controller logs each child it writes; the figures are what matters here.
struct null_sink final : kcoro::log_sink {
    void write(std::string_view) override {}
};

bool idle(const kcoro::runtime::controller& c) {
    const auto& q = c.queue().queue();
    return q.len() == 0 && q.num_processing() == 0 && q.num_waiting() == 0;
}

} // namespace

int main(int argc, char** argv) {
    int parents = 2000, rounds = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--parents") parents = std::atoi(argv[i + 1]);
        else if (a == "--rounds") rounds = std::atoi(argv[i + 1]);
        else die("usage: noop_reconcile_bench [--parents N] [--rounds R]");
    }
    if (parents <= 0 || rounds <= 0) die("--parents and --rounds want positive numbers");

    asio::io_context ioc;
    kcoro::io::system_clock clk;
    std::size_t requests = 0;
    kcoro::apiserver::server_options so;
    so.log = [&](const json::object&) { ++requests; };
    kcoro::apiserver::server srv(ioc.get_executor(), clk, so);
    if (!srv.start()) die("the server did not start");
    kcoro::client::client_config cfg;
    cfg.server = srv.url();
    cfg.token = srv.credentials_for("admin").value().token;
    auto admin = kcoro::client::client::create(cfg, clk).value();
    cfg.token = srv.credentials_for("operator").value().token;
    auto op = kcoro::client::client::create(cfg, clk).value();

    kcoro::server::manager_options mo;
    mo.metrics_bind_address = "0";
    mo.health_probe_bind_address = "0";
    mo.max_concurrent_reconciles = 1;
    kcoro::server::manager_setup ms;
    ms.name = "configmap-mirror";
    ms.io_context = &ioc;
    ms.clock = &clk;
    ms.client = op.get();
    ms.handle_signals = false;
    ms.sink = std::make_shared<null_sink>();
    auto created = kcoro::server::manager::create(std::move(mo), std::move(ms));
    if (!created) die("manager: " + created.error().message());
    auto mgr = std::move(*created);
    mirror::reconciler rec(mgr->client());
    auto& ctl = mirror::add_to(*mgr, rec);

    for (int i = 0; i < parents; ++i) {
        std::optional<bool> ok;
        auto p = parent(i);
        asio::co_spawn(ioc, admin->create(kcoro::resources::configmaps(), "default", p),
                       [&](std::exception_ptr e, kcoro::result<kcoro::object_ptr> r) { ok = !e && r.has_value(); });
        run_until(ioc, [&] { return ok.has_value(); }, 30s, "seeding");
        if (!*ok) die("create parent-" + std::to_string(i) + " failed");
    }
    auto exit_code = std::make_shared<std::optional<int>>();
    asio::co_spawn(ioc, mgr->run_async(), [exit_code](std::exception_ptr, int rc) { *exit_code = rc; });

    auto& children = mgr->cache().get_or_create(mirror::children_key());
    const auto want = static_cast<std::size_t>(parents);
    // Converged: every child cached, and the reconciles the children's own
    // ADDED events caused are done.
    run_until(ioc, [&] { return children.cache().size() == want && idle(ctl); }, 300s, "sync");
    std::uint64_t settled = ctl.stats().reconciles;
    run_until(ioc, [&] {
        const bool quiet = idle(ctl) && ctl.stats().reconciles == settled;
        settled = ctl.stats().reconciles;
        return quiet;
    }, 60s, "settling");

    const auto base = ctl.stats().reconciles;
    const auto requests_before = requests;
    const double cpu0 = thread_cpu();
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < rounds; ++r) {
        for (int i = 0; i < parents; ++i) ctl.enqueue({"default", "parent-" + std::to_string(i)});
        const auto target = base + std::uint64_t(r + 1) * std::uint64_t(parents);
        run_until(ioc, [&] { return ctl.stats().reconciles >= target; }, 300s, "no-op reconciles");
    }
    const double cpu = thread_cpu() - cpu0;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double n = double(rounds) * double(parents);
    std::printf("no-op reconcile (configmap-mirror, %d parents x %d rounds, 1 in flight): %.1f us CPU each "
                "(%.0f reconciles in %.3f s CPU, %.3f s wall); requests to the server meanwhile: %zu\n",
                parents, rounds, 1e6 * cpu / n, n, cpu, wall, requests - requests_before);

    mgr->request_stop();
    run_until(ioc, [&] { return exit_code->has_value(); }, 60s, "stopping");
    srv.stop(0ms);
    return requests == requests_before ? 0 : 2;
}
