// Informer initial sync against the kcoro-apiserver binary in another
// process (plain HTTP, a free port): 10,000 ConfigMaps of about 1 KiB, half
// created with POST and half with server-side apply (both carry
// managedFields: an Update entry and an Apply entry). For each transform (strip managedFields: the default;
// none; metadata-only; streaming list) a fresh informer syncs and we print the time, RSS
// before/after (/proc/self/statm) and heap bytes per cached object (glibc
// mallinfo2, after malloc_trim). Prints figures; asserts nothing.
//
//   informer_sync_bench PATH/TO/kcoro-apiserver [objects] [--watch-cache=false]
//
// The list at resourceVersion=0 is answered whole (as a watch cache does)
// unless --watch-cache=false; the peak RSS during each sync (VmHWM, reset
// through /proc/self/clear_refs) is printed against the RSS after it. A
// fourth informer syncs by a streaming list (sendInitialEvents).
#include <kcoro/client/client.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/informer.hpp>
#include <kcoro/runtime/watcher.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace asio = boost::asio;
namespace json = boost::json;
namespace rt = kcoro::runtime;
using namespace std::chrono_literals;

namespace {

// The peak RSS (VmHWM) since the last reset_peak_rss().
long peak_rss_bytes() {
    std::ifstream in("/proc/self/status");
    std::string key;
    while (in >> key) {
        long kb = 0;
        if (key == "VmHWM:" && in >> kb) return kb * 1024;
        in.ignore(1 << 20, '\n');
    }
    return 0;
}

// Writing 5 to clear_refs resets VmHWM to the current RSS (proc(5)).
void reset_peak_rss() {
    std::ofstream out("/proc/self/clear_refs");
    out << "5";
}

long rss_bytes() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * sysconf(_SC_PAGESIZE);
}

// utime + stime of a process (/proc/PID/stat fields 14 and 15), seconds.
double cpu_seconds(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto close = text.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream rest(text.substr(close + 2));
    std::string field;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {
        if (i == 14) utime = std::stoull(field);
        if (i == 15) stime = std::stoull(field);
    }
    return double(utime + stime) / double(sysconf(_SC_CLK_TCK));
}

// This process's CPU with microsecond resolution (getrusage).
double self_cpu_seconds() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

long heap_in_use() {
    malloc_trim(0);
    return static_cast<long>(mallinfo2().uordblks);
}

struct child {
    pid_t pid = -1;
    ~child() {
        if (pid > 0) {
            kill(pid, SIGTERM);
            int st = 0;
            waitpid(pid, &st, 0);
        }
    }
};

// One handler; an io_context that ran out of work stops itself: restart it.
void run_one(asio::io_context& ioc) {
    if (ioc.stopped()) {
        ioc.restart();
    }
    ioc.run_one();
}

// Runs `aw` on `ioc` to completion.
template <class T>
T run(asio::io_context& ioc, asio::awaitable<T> aw) {
    std::optional<T> out;
    asio::co_spawn(ioc, std::move(aw), [&](std::exception_ptr e, T v) {
        if (e) std::rethrow_exception(e);
        out.emplace(std::move(v));
    });
    while (!out) {
        run_one(ioc);
    }
    return std::move(*out);
}

std::string payload(int i) {
    // ~1 KiB of data per object.
    std::string s = "value-" + std::to_string(i) + "-";
    while (s.size() < 900) {
        s += "abcdefghijklmnopqrstuvwxyz0123456789";
    }
    return s;
}

json::object configmap(int i) {
    json::object o;
    o["apiVersion"] = "v1";
    o["kind"] = "ConfigMap";
    o["metadata"] = json::object{{"name", "cm-" + std::to_string(i)},
                                 {"namespace", "bench"},
                                 {"labels", json::object{{"app", "bench"}, {"index", std::to_string(i)}}}};
    o["data"] = json::object{{"payload", payload(i)}, {"index", std::to_string(i)}};
    return o;
}

// Creates objects [from, to) with `workers` concurrent coroutines; odd
// indexes by server-side apply.
asio::awaitable<int> create_range(kcoro::client::client& c, int from, int to, int stride) {
    int failed = 0;
    const auto gvr = kcoro::resources::configmaps();
    for (int i = from; i < to; i += stride) {
        const auto obj = configmap(i);
        if (i % 2 == 1) {
            const std::string manager = "bench";
            auto r = co_await c.apply(gvr, obj, manager, false);
            if (!r) std::fprintf(stderr, "apply %d: %s\n", i, r.error().message().c_str());
            failed += r ? 0 : 1;
        } else {
            const kcoro::create_options opts{};
            auto r = co_await c.create(gvr, "bench", obj, opts);
            if (!r) std::fprintf(stderr, "create %d: %s\n", i, r.error().message().c_str());
            failed += r ? 0 : 1;
        }
    }
    co_return failed;
}

struct figures {
    double seconds = 0;
    long rss_before = 0, rss_after = 0;
    long rss_peak = 0;  // VmHWM during the sync
    long heap_before = 0, heap_after = 0;
    std::size_t objects = 0;
    double client_cpu = 0, server_cpu = 0;  // seconds of CPU during the sync
    std::size_t stored = 0;                 // the cache's blocks (compact text, keys, index values)
    std::uint64_t lists = 0;                // list requests (pages) the sync took: no relist storm
};

figures sync_once(asio::io_context& ioc, kcoro::client::client& c, kcoro::io::clock& clk, const char* mode,
                  pid_t server) {
    figures f;
    f.heap_before = heap_in_use();
    f.rss_before = rss_bytes();
    reset_peak_rss();
    rt::informer_options o;
    o.key.gvr = kcoro::resources::configmaps();
    o.key.namespace_ = "bench";
    o.resync_period = 0ns;
    if (std::string_view(mode) == "keep-managedFields") {
        o.transform = [](kcoro::object_ptr p) { return p; };
    } else if (std::string_view(mode) == "metadata-only") {
        o.key.metadata_only = true;
    } else if (std::string_view(mode) == "streaming-list") {
        o.watcher.streaming_list = true;  // sendInitialEvents=true (WatchList)
    }
    auto inf = std::make_unique<rt::informer>(c, clk, ioc.get_executor(), o);
    bool done = false;
    const double self0 = self_cpu_seconds(), server0 = cpu_seconds(server);
    auto t0 = std::chrono::steady_clock::now();
    asio::co_spawn(ioc, inf->run(), [&](std::exception_ptr) { done = true; });
    const std::chrono::nanoseconds bound = 5min;
    auto synced = run(ioc, inf->wait_for_sync(bound));
    f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    f.client_cpu = self_cpu_seconds() - self0;
    f.server_cpu = cpu_seconds(server) - server0;
    if (!synced) {
        std::printf("%s: sync failed: %s\n", mode, synced.error().message().c_str());
    }
    f.objects = inf->cache().size();
    f.stored = inf->cache().stored_bytes();
    f.lists = inf->source().lists();
    f.heap_after = heap_in_use();
    f.rss_after = rss_bytes();
    f.rss_peak = peak_rss_bytes();
    inf->stop();
    while (!done) {
        run_one(ioc);
    }
    inf.reset();
    return f;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s PATH/TO/kcoro-apiserver [objects] [--watch-cache=false]\n", argv[0]);
        return 2;
    }
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    const int n = argc > 2 ? std::atoi(argv[2]) : 10000;
    auto dir = std::filesystem::temp_directory_path() / ("informer-bench-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string kubeconfig = (dir / "kubeconfig").string();

    // The server: plain HTTP on a free port; its kubeconfig names the port.
    child server;
    std::vector<std::string> args{argv[1], "--listen", "127.0.0.1:0", "--plain", "--no-simulate-workloads",
                                  "--history", std::to_string(n * 2 + 1000), "--write-kubeconfig", kubeconfig};
    // Without the watch cache the RV=0 list is paged (500 per page), as
    // kcoro-apiserver answered it before issue 25.
    if (argc > 3 && std::string_view(argv[3]) == "--watch-cache=false") args.push_back(argv[3]);
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    if (posix_spawn(&server.pid, argv[1], &fa, nullptr, cargs.data(), environ) != 0) {
        std::perror("posix_spawn");
        return 1;
    }
    posix_spawn_file_actions_destroy(&fa);
    std::string url;
    for (int i = 0; i < 500 && url.empty(); ++i) {
        std::ifstream in(kubeconfig);
        std::string line;
        while (std::getline(in, line)) {
            auto p = line.find("server: ");
            if (p != std::string::npos) url = line.substr(p + 8);
        }
        if (url.empty()) usleep(20000);
    }
    if (url.empty()) {
        std::fprintf(stderr, "kcoro-apiserver did not start\n");
        return 1;
    }

    asio::io_context ioc;
    kcoro::io::system_clock clk;
    kcoro::client::client_config cfg;
    cfg.server = url;
    auto c = kcoro::client::client::create(cfg, clk).value();

    json::object ns{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", json::object{{"name", "bench"}}}};
    const kcoro::create_options copts{};
    auto made = run(ioc, c->create(kcoro::resources::namespaces(), "", ns, copts));
    if (!made) {
        std::fprintf(stderr, "namespace: %s\n", made.error().message().c_str());
        return 1;
    }
    auto t0 = std::chrono::steady_clock::now();
    const int workers = 8;
    int failed = 0;
    int finished = 0;
    for (int w = 0; w < workers; ++w) {
        asio::co_spawn(ioc, create_range(*c, w, n, workers), [&](std::exception_ptr e, int f) {
            if (e) std::rethrow_exception(e);
            failed += f;
            ++finished;
        });
    }
    while (finished < workers) {
        run_one(ioc);
    }
    double create_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("informer_sync_bench: %d ConfigMaps (~1 KiB data; odd ones by server-side apply) created in %.2f s "
                "(%d failed) against kcoro-apiserver at %s\n",
                n, create_s, failed, url.c_str());

    // Sizes on the wire, with and without managedFields.
    for (const char* name : {"cm-0", "cm-1"}) {
        const kcoro::get_options g{};
        const kcoro::object_key key{"bench", name};
        auto one = run(ioc, c->get(kcoro::resources::configmaps(), key, g));
        if (one) {
            auto full = json::serialize(**one);
            auto stripped = **one;
            kcoro::strip_managed_fields(stripped);
            std::printf("  %s (%s): %zu bytes of JSON, %zu without managedFields\n", name,
                        name[3] == '1' ? "server-side apply" : "POST", full.size(), json::serialize(stripped).size());
        }
    }

    // A first pass absorbs one-time allocations (connections, parser buffers).
    sync_once(ioc, *c, clk, "metadata-only", server.pid);
    for (const char* mode :
         {"strip-managedFields (default)", "keep-managedFields", "metadata-only", "streaming-list"}) {
        std::string m = mode;
        const char* key = m.rfind("strip", 0) == 0 ? "strip" : mode;
        auto f = sync_once(ioc, *c, clk, key, server.pid);
        double per_obj_heap = f.objects ? double(f.heap_after - f.heap_before) / double(f.objects) : 0;
        double per_obj_rss = f.objects ? double(f.rss_after - f.rss_before) / double(f.objects) : 0;
        std::printf("  %-30s sync %zu objects in %.3f s, %llu list pages (CPU: client %.3f s = %.1f us/object, server %.3f s); "
                    "RSS %.1f -> %.1f MiB (%.0f B/object), peak %.1f MiB (%.2fx after); heap in use +%.1f MiB "
                    "(%.0f B/object, of which stored %.0f)\n",
                    mode, f.objects, f.seconds, static_cast<unsigned long long>(f.lists), f.client_cpu, f.objects ? 1e6 * f.client_cpu / double(f.objects) : 0.0,
                    f.server_cpu, f.rss_before / 1048576.0, f.rss_after / 1048576.0, per_obj_rss,
                    f.rss_peak / 1048576.0, f.rss_after ? double(f.rss_peak) / double(f.rss_after) : 0.0,
                    (f.heap_after - f.heap_before) / 1048576.0, per_obj_heap,
                    f.objects ? double(f.stored) / double(f.objects) : 0.0);
    }
    c.reset();
    std::filesystem::remove_all(dir);
    return 0;
}
