// kcoro-apiserver end to end: one io_context runs the in-process server and
// the kcoro clients over real sockets (plain HTTP on loopback).
//
//   1. create 10,000 ConfigMaps (32 concurrent writers)
//   2. list the 10,000 objects (one request, no limit)
//   3. open 100 watchers (each its own connection) from the list's revision
//   4. update the 10,000 objects (32 concurrent writers) while the watchers
//      receive every event: update throughput and write-to-delivery latency
//      under load (from just before the update is sent to the event's
//      arrival at each watcher)
//   5. 200 single updates, each waited for at all 100 watchers: latency of
//      an idle server
// Prints figures; asserts nothing (a failure exits 1).
#include "server.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/io/clock.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using bench_clock = std::chrono::steady_clock;

namespace {

constexpr int objects = 10'000;
constexpr int watchers = 100;
constexpr int writers = 32;
constexpr int idle_writes = 200;

double seconds_since(bench_clock::time_point t) {
    return std::chrono::duration<double>(bench_clock::now() - t).count();
}

/// Process CPU seconds (server and clients together): on a shared machine
/// the wall-clock figures include time the process was not scheduled.
double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

[[noreturn]] void fail(const std::string& what, const kcoro::error& e) {
    std::fprintf(stderr, "%s: %s\n", what.c_str(), e.message().c_str());
    std::exit(1);
}

json::object configmap(int i, int seq) {
    json::object o{{"apiVersion", "v1"}, {"kind", "ConfigMap"}};
    kcoro::set_name(o, "cm-" + std::to_string(i));
    kcoro::set_namespace(o, "default");
    kcoro::set_label(o, "app", "bench");
    o["data"] = json::object{{"seq", std::to_string(seq)}, {"payload", std::string(200, 'x')}};
    return o;
}

int seq_of(const json::object& o) {
    const auto* v = kcoro::find_path(o, {"data", "seq"});
    if (v == nullptr || !v->is_string()) {
        return -1;
    }
    int n = -1;
    auto s = v->get_string();
    std::from_chars(s.data(), s.data() + s.size(), n);
    return n;
}

struct state {
    kcoro::group_version_resource cms = kcoro::resources::configmaps();
    // send time per update sequence number (phase 4: seq = index; phase 5:
    // seq = objects + k)
    std::vector<bench_clock::time_point> sent = std::vector<bench_clock::time_point>(objects + idle_writes);
    std::vector<double> load_latency_ms;
    std::vector<double> idle_latency_ms;
    std::vector<int> received_per_seq = std::vector<int>(objects + idle_writes, 0);
    int events = 0;
    int watchers_open = 0;
    int next = 0;
    int writers_done = 0;
    bool stopping = false;
};

asio::awaitable<void> create_worker(kcoro::client::client& c, state& st) {
    const kcoro::create_options co{};
    while (st.next < objects) {
        int i = st.next++;
        const json::object o = configmap(i, -1);  // seq -1: not an update the watchers time
        auto r = co_await c.create(st.cms, "default", o, co);
        if (!r) {
            fail("create", r.error());
        }
    }
    ++st.writers_done;
}

asio::awaitable<void> update_worker(kcoro::client::client& c, state& st) {
    const kcoro::update_options uo{};
    while (st.next < objects) {
        int i = st.next++;
        // No resourceVersion: an unconditional update (AllowUnconditionalUpdate).
        const json::object o = configmap(i, i);
        st.sent[i] = bench_clock::now();
        auto r = co_await c.update(st.cms, o, uo);
        if (!r) {
            fail("update", r.error());
        }
    }
    ++st.writers_done;
}

asio::awaitable<void> watcher(kcoro::client::client& c, state& st, std::string rv) {
    kcoro::watch_options wo;
    wo.label_selector = "app=bench";
    wo.resource_version = rv;
    wo.allow_watch_bookmarks = false;
    wo.timeout_seconds = 3600;
    auto w = co_await c.watch(st.cms, "default", wo);
    if (!w) {
        fail("watch", w.error());
    }
    ++st.watchers_open;
    for (;;) {
        auto ev = co_await w->next();
        if (!ev) {
            if (st.stopping) {
                co_return;
            }
            fail("watch next", ev.error());
        }
        if (!*ev) {
            co_return;
        }
        auto now = bench_clock::now();
        int seq = seq_of(*(*ev)->object);
        if (seq < 0 || seq >= static_cast<int>(st.sent.size())) {
            continue;
        }
        double ms = std::chrono::duration<double, std::milli>(now - st.sent[seq]).count();
        (seq < objects ? st.load_latency_ms : st.idle_latency_ms).push_back(ms);
        ++st.received_per_seq[seq];
        ++st.events;
        if (st.events == watchers * (objects + idle_writes)) {
            w->close();
            co_return;
        }
    }
}

void print_latency(const char* what, std::vector<double>& v) {
    if (v.empty()) {
        std::printf("%s: no samples\n", what);
        return;
    }
    std::sort(v.begin(), v.end());
    auto at = [&](double q) { return v[std::min(v.size() - 1, static_cast<std::size_t>(q * v.size()))]; };
    std::printf("%s: %zu samples, p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", what, v.size(), at(0.50), at(0.99),
                v.back());
}

template <class Pred>
void run_until(asio::io_context& ioc, Pred done) {
    while (!done()) {
        ioc.run_one();
    }
}

} // namespace

int main() {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // figures appear as phases end
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    kcoro::apiserver::server_options so;
    so.store.history_size = 4 * objects;
    // A chunk write may wait while 100 watchers on the same thread catch up
    // (an -O0 build takes minutes): the 30 s default would cut streams.
    so.http.io_timeout = std::chrono::minutes(10);
    so.http.idle_timeout = std::chrono::minutes(10);  // writers' pooled connections idle meanwhile
    kcoro::apiserver::server srv(ioc.get_executor(), clk, so);
    if (auto s = srv.start(); !s) {
        fail("start", s.error());
    }
    kcoro::client::client_config cfg;
    cfg.server = srv.url();
    kcoro::client::client_options co;
    co.max_idle_connections = writers + 4;
    co.max_retries = 0;
    auto writer_client = kcoro::client::client::create(cfg, clk, co).value();
    auto watch_client = kcoro::client::client::create(cfg, clk, co).value();
    state st;

    // 1. create
    auto t = bench_clock::now();
    double c0 = cpu_seconds();
    for (int w = 0; w < writers; ++w) {
        asio::co_spawn(ioc, create_worker(*writer_client, st), asio::detached);
    }
    run_until(ioc, [&] { return st.writers_done == writers; });
    double create_s = seconds_since(t);
    std::printf("create:  %d objects, %d writers: %.3f s = %.0f/s (cpu %.3f s)\n", objects, writers, create_s,
                objects / create_s, cpu_seconds() - c0);

    // 2. list
    std::optional<kcoro::result<kcoro::list_result>> listed;
    t = bench_clock::now();
    c0 = cpu_seconds();
    auto list_task = [&]() -> asio::awaitable<void> {
        const kcoro::list_options lo{};
        auto l = co_await writer_client->list(st.cms, "default", lo);
        listed.emplace(std::move(l));
    };
    asio::co_spawn(ioc, list_task, asio::detached);
    run_until(ioc, [&] { return listed.has_value(); });
    double list_s = seconds_since(t);
    if (!*listed) {
        fail("list", listed->error());
    }
    std::printf("list:    %zu objects in one request: %.3f s (cpu %.3f s)\n", (*listed)->items.size(), list_s,
                cpu_seconds() - c0);
    std::string rv = (*listed)->resource_version;

    // 3. watchers
    t = bench_clock::now();
    for (int w = 0; w < watchers; ++w) {
        asio::co_spawn(ioc, watcher(*watch_client, st, rv), asio::detached);
    }
    run_until(ioc, [&] { return st.watchers_open == watchers; });
    std::printf("watch:   %d watchers open in %.3f s\n", watchers, seconds_since(t));

    // 4. updates under watch load
    st.next = 0;
    st.writers_done = 0;
    t = bench_clock::now();
    c0 = cpu_seconds();
    for (int w = 0; w < writers; ++w) {
        asio::co_spawn(ioc, update_worker(*writer_client, st), asio::detached);
    }
    run_until(ioc, [&] { return st.writers_done == writers; });
    double update_s = seconds_since(t);
    double update_cpu = cpu_seconds() - c0;
    run_until(ioc, [&] { return st.events == watchers * objects; });
    double delivered_s = seconds_since(t);
    double delivered_cpu = cpu_seconds() - c0;
    std::printf("update:  %d objects, %d writers, %d watchers: %.3f s = %.0f/s (cpu %.3f s); all %d events delivered "
                "after %.3f s = %.0f events/s (cpu %.3f s)\n",
                objects, writers, watchers, update_s, objects / update_s, update_cpu, watchers * objects, delivered_s,
                watchers * objects / delivered_s, delivered_cpu);
    print_latency("latency under load (write sent -> event at watcher)", st.load_latency_ms);

    // 5. one write at a time
    auto idle_task = [&]() -> asio::awaitable<void> {
        const kcoro::update_options uo{};
        for (int k = 0; k < idle_writes; ++k) {
            int seq = objects + k;
            const json::object o = configmap(k, seq);
            st.sent[seq] = bench_clock::now();
            auto r = co_await writer_client->update(st.cms, o, uo);
            if (!r) {
                fail("update", r.error());
            }
            while (st.received_per_seq[seq] < watchers) {
                asio::steady_timer tm(ioc, 0ms);
                co_await tm.async_wait(asio::use_awaitable);
            }
        }
        ++st.writers_done;
    };
    st.writers_done = 0;
    asio::co_spawn(ioc, idle_task, asio::detached);
    run_until(ioc, [&] { return st.writers_done == 1; });
    print_latency("latency, one write at a time (write sent -> event at watcher)", st.idle_latency_ms);

    run_until(ioc, [&] { return st.events == watchers * (objects + idle_writes); });
    st.stopping = true;
    srv.stop(0ms);
    writer_client.reset();
    watch_client.reset();
    ioc.run_for(200ms);
    return 0;
}
