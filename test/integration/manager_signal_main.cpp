// A manager process for the signal test (manager_signal_test.py): one slow
// leader-gated runnable whose work items take --work-ms; an in-process
// kcoro-apiserver on its own thread stands in for the cluster. Markers go
// to stderr (with the manager's log lines), one per line:
//   marker: started | item begin | item done | stopped | cancelled | exit <code>
#include <kcoro/server/manager.hpp>

#include "server.hpp"

#include <kcoro/core/resource.hpp>
#include <kcoro/io/clock.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/this_coro.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

namespace asio = boost::asio;

namespace {

void marker(const char* what) {
    std::fprintf(stderr, "marker: %s\n", what);
    std::fflush(stderr);
}

struct slow_runnable final : kcoro::runtime::runnable {
    slow_runnable(kcoro::io::clock& c, std::chrono::milliseconds w) : clk(c), work(w) {}
    std::string_view name() const override { return "slow"; }
    bool needs_leader_election() const override { return true; }
    void stop() override { stopping = true; }
    asio::awaitable<void> run() override {
        marker("started");
        while (!stopping) {
            marker("item begin");
            auto ec = co_await clk.sleep_for(work);
            if (ec) {
                marker("cancelled");
                co_return;
            }
            marker("item done");
        }
        marker("stopped");
    }
    kcoro::io::clock& clk;
    std::chrono::milliseconds work;
    bool stopping = false;
};

} // namespace

int main(int argc, char** argv) {
    // The API server on its own thread and io_context.
    asio::io_context api_ioc(1);
    kcoro::io::system_clock api_clk;
    kcoro::apiserver::server srv(api_ioc.get_executor(), api_clk);
    if (!srv.start()) return 3;
    auto guard = asio::make_work_guard(api_ioc);
    // Signals are the manager's (its thread holds them while it starts):
    // this thread must never take them. It is created with them blocked (a
    // thread inherits its creator's mask); blocking them from inside the
    // thread raced the test's SIGTERM on a loaded CI machine (the thread
    // had not run yet, took the signal and the process died with -15).
    sigset_t stop_signals, before;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    ::pthread_sigmask(SIG_BLOCK, &stop_signals, &before);
    std::thread api_thread([&] { api_ioc.run(); });
    ::pthread_sigmask(SIG_SETMASK, &before, nullptr);

    asio::io_context ioc(1);
    kcoro::io::system_clock clk;
    kcoro::server::manager_setup setup;
    setup.name = "signal-test";
    setup.io_context = &ioc;
    setup.clock = &clk;
    kcoro::client::client_config cfg;
    cfg.server = srv.url();
    setup.client_config = cfg;
    std::int64_t work_ms = 1000;
    std::int64_t startup_ms = 0;
    auto start = kcoro::server::manager::from_flags(argc, argv, setup, [&](kcoro::server::flag_set& f) {
        f.add_int("work-ms", &work_ms, "duration of one work item in milliseconds", 1);
        f.add_int("startup-ms", &startup_ms, "a slow set-up between from_flags and run (milliseconds)", 0);
    });
    int code = start.exit_code;
    if (start.mgr && startup_ms > 0) {
        // A set-up that takes time (clients, caches, controllers): a stop
        // asked now must wait for run() and stop cleanly.
        std::fprintf(stderr, "marker: setting up\n");
        std::this_thread::sleep_for(std::chrono::milliseconds(startup_ms));
    }
    if (start.mgr) {
        slow_runnable slow(clk, std::chrono::milliseconds(work_ms));
        start.mgr->add(slow);
        // A watch and pooled client connections must not keep the process alive.
        kcoro::runtime::informer_key key;
        key.gvr = kcoro::resources::configmaps();
        start.mgr->cache().get_or_create(key);
        code = start.mgr->run();
        start.mgr.reset();
    }
    asio::post(api_ioc, [&] { srv.stop(std::chrono::milliseconds(0)); });
    guard.reset();
    api_ioc.stop();
    api_thread.join();
    std::fprintf(stderr, "marker: exit %d\n", code);
    return code;
}
