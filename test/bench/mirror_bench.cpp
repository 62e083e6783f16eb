// The reference controller end to end, as issue 12 measures it: the
// kcoro-apiserver binary (TLS, its own process, request log on) and the
// configmap-mirror binary (its own process, so its RSS and CPU are its own:
// /proc/PID/status and /proc/PID/stat), driven by this program's client.
//
//   1. idle:    the controller against an empty cluster: RSS, RssAnon,
//               threads, CPU over the idle window
//   2. seed:    N parents (~1.5 KB, app.example.io/managed=true) created by
//               parallel clients: the time the server needs to accept them
//   3. sync:    a fresh controller; time until all N children exist (the
//               server answered the N-th child create: its request log, so
//               no watch of this program loads the server meanwhile), its
//               CPU and RssAnon then, KB per cached object, its requests
//   4. settle:  its CPU and requests in the following seconds
//   5. noop:    500 parent updates that leave the child as it is: the
//               reconciles, their CPU, and the child writes (must be 0)
//   6. repair:  100 children deleted one at a time: delete -> recreated
//               latency p50/p99 (as this client sees the ADDED event)
// One line of figures per phase. The controller's requests are counted from
// the server's request log (its lines carry the User-Agent; this program
// sends "mirror-bench"), so the figures hold whatever the controller's
// code looks like inside.
//
// Any cluster: with --kubeconfig PATH no server is started; the bench runs
// against that kubeconfig's server (a real kube-apiserver, or a
// kcoro-apiserver started by hand). There is no request log then: the sync
// ends when this program's children watch has seen the N-th child, and the
// controller's requests are read from its own rest_client_requests_total
// (by method; writes of every resource). --server-pid PID adds the server's
// CPU when it runs on this machine. The namespace is deleted at the end. With --csv FILE the run's figures are also
// appended to FILE as one CSV row (a header first when FILE is new), for
// `scripts/kcoro-dev bench --plot` (scripts/bench-plot).
//
//   mirror_bench APISERVER MIRROR [--parents N] [--settle SECONDS] [--idle SECONDS]
//                [--updates N] [--deletes N] [--clients N] [--csv FILE]
//                [-- controller flags...]
//   mirror_bench --kubeconfig PATH [--server-pid PID] MIRROR [the same options]
#include "mirror_parent.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/client/config.hpp>
#include <kcoro/client/environment.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/io/clock.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using bench_clock = std::chrono::steady_clock;

namespace {

constexpr std::string_view bench_agent = "mirror-bench";
constexpr std::string_view ns_name = "mirror-bench";

struct settings {
    std::string apiserver, mirror;
    int parents = 10000;
    double settle = 20;
    double idle = 5;
    int updates = 500;
    int deletes = 100;
    int clients = 8;
    std::string csv;  // --csv FILE: append the figures as a CSV row
    std::string kubeconfig;  // --kubeconfig: an existing cluster, no server started
    pid_t server_pid = -1;   // --server-pid: that server's process, for its CPU
    std::vector<std::string> controller_args;
};

// One run's figures as a CSV row: columns in the order they are added.
class csv_row {
public:
    void add(std::string name, double v, int precision = 3) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*f", precision, v);
        cols_.emplace_back(std::move(name), buf);
    }
    void add(std::string name, long v) { cols_.emplace_back(std::move(name), std::to_string(v)); }
    void add(std::string name, int v) { add(std::move(name), static_cast<long>(v)); }
    void add_text(std::string name, const std::string& v) {
        std::string q = "\"";
        for (char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        cols_.emplace_back(std::move(name), q + "\"");
    }
    // Appends the row to `path`, after a header when the file is new or
    // empty; a file whose header differs (another version of this program)
    // is refused rather than mixed.
    bool append_to(const std::string& path, std::string& error) const {
        std::string header, line;
        for (const auto& [name, value] : cols_) {
            header += (header.empty() ? "" : ",") + name;
            line += (line.empty() ? "" : ",") + value;
        }
        std::string first;
        if (std::ifstream in(path); in) std::getline(in, first);
        if (!first.empty() && first != header) {
            error = path + " has other columns: " + first;
            return false;
        }
        std::ofstream out(path, std::ios::app);
        if (first.empty()) out << header << '\n';
        out << line << '\n';
        if (!out) {
            error = "cannot write " + path;
            return false;
        }
        return true;
    }

private:
    std::vector<std::pair<std::string, std::string>> cols_;
};

// The processes this program started, so a failure does not leave them running.
std::vector<pid_t> children_started;

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "mirror_bench: %s\n", what.c_str());
    for (pid_t p : children_started) {
        kill(p, SIGTERM);
        waitpid(p, nullptr, 0);
    }
    std::exit(1);
}

double seconds_since(bench_clock::time_point t) {
    return std::chrono::duration<double>(bench_clock::now() - t).count();
}

// --- processes ----------------------------------------------------------------
struct process {
    pid_t pid = -1;
    process() = default;
    process(const process&) = delete;
    process& operator=(const process&) = delete;
    ~process() { stop(); }
    void start(const std::vector<std::string>& argv, const std::string& log_path) {
        std::vector<std::string> args = argv;
        std::vector<char*> cargs;
        for (auto& a : args) cargs.push_back(a.data());
        cargs.push_back(nullptr);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (posix_spawn(&pid, args[0].c_str(), &fa, nullptr, cargs.data(), environ) != 0) {
            die("cannot start " + args[0]);
        }
        posix_spawn_file_actions_destroy(&fa);
        children_started.push_back(pid);
    }
    bool alive() const { return pid > 0 && waitpid(pid, nullptr, WNOHANG) == 0; }
    void stop() {
        if (pid > 0) {
            kill(pid, SIGTERM);
            int st = 0;
            waitpid(pid, &st, 0);
            std::erase(children_started, pid);
            pid = -1;
        }
    }
};

struct proc_figures {
    double cpu = 0;      // utime + stime, seconds
    long rss_kb = 0;     // VmRSS
    long hwm_kb = 0;     // VmHWM: the peak RSS so far
    long anon_kb = 0;    // RssAnon
    long threads = 0;
};

proc_figures sample(pid_t pid) {
    proc_figures f;
    if (pid <= 0) return f;  // an external server: not measured
    {
        std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        auto close = text.rfind(')');
        if (close != std::string::npos) {
            std::istringstream rest(text.substr(close + 2));
            std::string field;
            unsigned long long utime = 0, stime = 0;
            for (int i = 3; i <= 15 && rest >> field; ++i) {
                if (i == 14) utime = std::stoull(field);
                if (i == 15) stime = std::stoull(field);
            }
            f.cpu = double(utime + stime) / double(sysconf(_SC_CLK_TCK));
        }
    }
    std::ifstream st("/proc/" + std::to_string(pid) + "/status");
    std::string key;
    while (st >> key) {
        long v = 0;
        if (key == "VmRSS:" && st >> v) f.rss_kb = v;
        else if (key == "VmHWM:" && st >> v) f.hwm_kb = v;
        else if (key == "RssAnon:" && st >> v) f.anon_kb = v;
        else if (key == "Threads:" && st >> v) f.threads = v;
        st.ignore(1 << 20, '\n');
    }
    return f;
}

int free_port() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof(a);
    if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
        die("no free port");
    }
    int port = ntohs(a.sin_port);
    close(fd);
    return port;
}

/// A plain HTTP GET on loopback (the controller's probe and metrics
/// servers): the status code and the body; 0 when nothing answers.
std::pair<int, std::string> http_get(int port, const std::string& path) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
        close(fd);
        return {0, {}};
    }
    std::string req = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (write(fd, req.data(), req.size()) != static_cast<ssize_t>(req.size())) {
        close(fd);
        return {0, {}};
    }
    std::string resp;
    char buf[16384];
    for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) resp.append(buf, static_cast<std::size_t>(n));
    close(fd);
    int code = 0;
    if (resp.rfind("HTTP/1.", 0) == 0 && resp.size() > 12) code = std::atoi(resp.c_str() + 9);
    auto body = resp.find("\r\n\r\n");
    return {code, body == std::string::npos ? std::string() : resp.substr(body + 4)};
}

/// The sum of a Prometheus metric's samples whose labels contain `labels`.
double metric_sum(const std::string& text, std::string_view name, std::string_view labels = "") {
    double sum = 0;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#' || line.compare(0, name.size(), name) != 0) continue;
        if (line.size() > name.size() && line[name.size()] != '{' && line[name.size()] != ' ') continue;
        if (!labels.empty() && line.find(labels) == std::string::npos) continue;
        auto sp = line.rfind(' ');
        if (sp != std::string::npos) sum += std::atof(line.c_str() + sp + 1);
    }
    return sum;
}

// --- the server's request log -------------------------------------------------
/// Counts the requests of the server's log lines not sent by this program,
/// incrementally (each call reads what was appended since the last).
struct request_log {
    std::string path;
    std::streamoff offset = 0;
    struct counts {
        std::map<std::string, long> by_verb;  // "create", "get", ... (all resources)
        long child_writes = 0;                // configmaps create/update/patch/delete
        long child_creates = 0;               // configmaps created (answered 201)
        long total = 0;
        counts& operator+=(const counts& o) {
            for (const auto& [v, n] : o.by_verb) by_verb[v] += n;
            child_writes += o.child_writes;
            child_creates += o.child_creates;
            total += o.total;
            return *this;
        }
        std::string str() const {
            std::string out;
            for (const auto& [v, n] : by_verb) out += (out.empty() ? "" : " ") + v + "=" + std::to_string(n);
            return out.empty() ? "none" : out;
        }
    };
    counts read() {
        counts c;
        if (path.empty()) return c;  // an external server: no log
        std::ifstream in(path);
        in.seekg(offset);
        std::string line;
        while (std::getline(in, line)) {
            if (in.eof()) break;  // a line still being written: next time
            offset = in.tellg();
            if (line.find("\"msg\":\"request\"") == std::string::npos) continue;
            boost::system::error_code ec;
            auto v = json::parse(line, ec);
            if (ec || !v.is_object()) continue;
            const auto& o = v.get_object();
            auto str = [&](std::string_view k) -> std::string {
                const auto* x = o.if_contains(k);
                return x && x->is_string() ? std::string(x->get_string()) : std::string();
            };
            if (str("userAgent").rfind(bench_agent, 0) == 0) continue;
            const auto verb = str("verb");
            ++c.by_verb[verb];
            ++c.total;
            const bool write = verb == "create" || verb == "update" || verb == "patch" || verb == "delete";
            if (write && str("path").find("/configmaps") != std::string::npos) {
                ++c.child_writes;
                const auto* code = o.if_contains("code");
                if (verb == "create" && code && code->is_int64() && code->get_int64() == 201) ++c.child_creates;
            }
        }
        return c;
    }
};

json::object parent(int i) { return mirror_objects::mirror_parent(i, ns_name); }

// --- the bench ----------------------------------------------------------------
struct bench {
    settings cfg;
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    std::unique_ptr<kcoro::client::client> c;
    std::filesystem::path dir;
    std::string kubeconfig;
    request_log log;

    // What the children watch saw: name -> times of ADDED events.
    std::map<std::string, bench_clock::time_point> added_at;
    std::set<std::string> children;
    bool stopping = false;
    bool watch_done = true;
    kcoro::client::watch_stream* live_stream = nullptr;

    template <class T>
    T run(asio::awaitable<T> aw) {
        std::optional<T> out;
        std::exception_ptr failed;
        asio::co_spawn(ioc, std::move(aw), [&](std::exception_ptr e, T v) {
            if (e) failed = e;
            else out.emplace(std::move(v));
        });
        while (!out && !failed) {
            if (ioc.stopped()) ioc.restart();
            ioc.run_one();
        }
        if (failed) std::rethrow_exception(failed);
        return std::move(*out);
    }

    /// Runs the io_context (the children watch) until `done` or `timeout`.
    bool run_until(const std::function<bool()>& done, std::chrono::duration<double> timeout) {
        const auto until = bench_clock::now() + std::chrono::duration_cast<bench_clock::duration>(timeout);
        asio::steady_timer tick(ioc);
        while (!done()) {
            if (bench_clock::now() >= until) return false;
            tick.expires_after(5ms);
            bool fired = false;
            tick.async_wait([&](boost::system::error_code) { fired = true; });
            while (!fired) {
                if (ioc.stopped()) ioc.restart();
                ioc.run_one();
            }
        }
        return true;
    }

    void sleep_running(double seconds) {
        run_until([] { return false; }, std::chrono::duration<double>(seconds));
    }

    bool external() const { return !cfg.kubeconfig.empty(); }
    pid_t server_pid() const { return external() ? cfg.server_pid : server.pid; }

    void start_server() {
        dir = std::filesystem::temp_directory_path() / ("mirror-bench-" + std::to_string(getpid()));
        std::filesystem::create_directories(dir);
        if (external()) {
            kubeconfig = cfg.kubeconfig;
        } else {
            kubeconfig = (dir / "kubeconfig").string();
            log.path = (dir / "apiserver.log").string();
            const long history = 4L * cfg.parents + 4L * cfg.updates + 10000;
            server.start({cfg.apiserver, "--listen", "127.0.0.1:0", "--tls", "--no-simulate-workloads", "--history",
                          std::to_string(history), "--write-kubeconfig", kubeconfig},
                         log.path);
        }
        for (int i = 0; i < 500 && !external(); ++i) {
            std::ifstream in(kubeconfig);
            std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            if (text.find("client-key-data") != std::string::npos) break;
            usleep(20000);
        }
        kcoro::client::load_options lo;
        lo.kubeconfig = kubeconfig;
        auto loaded = kcoro::client::load_config(lo, kcoro::client::environment::process());
        if (!loaded) die("kubeconfig: " + loaded.error().message());
        kcoro::client::client_options co;
        co.user_agent = std::string(bench_agent);
        co.max_idle_connections = static_cast<std::size_t>(cfg.clients) + 2;
        auto made = kcoro::client::client::create(*loaded, clk, co);
        if (!made) die("client: " + made.error().message());
        c = std::move(*made);
        json::object ns{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", json::object{{"name", ns_name}}}};
        const kcoro::create_options copts{};
        const std::string cluster_scope;
        for (int i = 0; i < 100; ++i) {
            auto r = run(c->create(kcoro::resources::namespaces(), cluster_scope, ns, copts));
            if (r) break;
            if (kcoro::is_already_exists(r.error())) die("namespace " + std::string(ns_name) + " exists already");
            if (i == 99) die("namespace: " + r.error().message());
            usleep(50000);
        }
        log.read();  // our own start-up requests
    }

    process server;
    process controller;
    int metrics_port = 0, probe_port = 0;

    void start_controller(const std::string& log_name) {
        metrics_port = free_port();
        probe_port = free_port();
        std::vector<std::string> args{cfg.mirror, "--kubeconfig", kubeconfig,
                                      "--metrics-bind-address", "127.0.0.1:" + std::to_string(metrics_port),
                                      "--health-probe-bind-address", "127.0.0.1:" + std::to_string(probe_port)};
        args.insert(args.end(), cfg.controller_args.begin(), cfg.controller_args.end());
        controller.start(args, (dir / log_name).string());
        last_requests.clear();
    }

    bool wait_ready(double timeout) {
        const auto t0 = bench_clock::now();
        while (seconds_since(t0) < timeout) {
            if (!controller.alive()) die("the controller exited; see " + (dir / "mirror.log").string());
            if (http_get(probe_port, "/readyz").first == 200) return true;
            sleep_running(0.02);
        }
        return false;
    }

    // External mode: the controller's own request counters, per method,
    // since the last call (reset when a controller starts).
    std::map<std::string, double> last_requests;
    request_log::counts requests() {
        auto c = log.read();
        if (!external()) return c;
        auto [code, body] = http_get(metrics_port, "/metrics");
        if (code != 200) return c;
        for (const char* m : {"GET", "POST", "PUT", "PATCH", "DELETE"}) {
            const std::string label = std::string("method=\"") + m + "\"";
            const double now = metric_sum(body, "rest_client_requests_total", label);
            const long n = std::lround(now - last_requests[m]);
            last_requests[m] = now;
            if (n <= 0) continue;
            c.by_verb[m] += n;
            c.total += n;
            if (std::string_view(m) != "GET") c.child_writes += n;  // writes of every resource
        }
        return c;
    }

    double reconciles() {
        auto [code, body] = http_get(metrics_port, "/metrics");
        return code == 200 ? metric_sum(body, "controller_runtime_reconcile_total") : -1;
    }

    // The children watch: every ADDED child, with the time it was seen.
    asio::awaitable<void> watch_children(std::string rv) {
        const auto gvr = kcoro::resources::configmaps();
        while (!stopping) {
            kcoro::watch_options o;
            o.label_selector = "app.example.io/child=true";
            o.resource_version = rv;
            o.allow_watch_bookmarks = true;
            const std::string ns{ns_name};
            auto stream = co_await c->watch(gvr, ns, o);
            if (!stream) die("watch children: " + stream.error().message());
            live_stream = &*stream;
            while (!stopping) {
                auto ev = co_await stream->next();
                if (stopping || !ev || !*ev) break;  // re-watch from the last revision
                const auto& e = **ev;
                if (e.type == kcoro::watch_event_type::error) die("watch children: " + e.to_error().message());
                if (!e.resource_version.empty()) rv = e.resource_version;
                if (!e.object) continue;
                std::string name(kcoro::name_of(*e.object));
                if (e.type == kcoro::watch_event_type::added) {
                    added_at[name] = bench_clock::now();
                    children.insert(name);
                } else if (e.type == kcoro::watch_event_type::deleted) {
                    children.erase(name);
                }
            }
            live_stream = nullptr;
        }
        watch_done = true;
    }

    /// Ends the children watch and waits for its coroutine.
    void stop_watch() {
        stopping = true;
        if (live_stream) live_stream->close();
        run_until([&] { return watch_done; }, std::chrono::seconds(10));
    }

    std::string list_revision(const std::string& selector) {
        kcoro::list_options o;
        o.label_selector = selector;
        o.limit = 1;
        const std::string ns{ns_name};
        auto l = run(c->list(kcoro::resources::configmaps(), ns, o));
        if (!l) die("list: " + l.error().message());
        return l->resource_version;
    }

    // The JSON of one object as the controller's cache holds it: without
    // managedFields, or (a child the controller applies) with them: the
    // informers keep the controller's own entry for server-side apply's
    // drift check, and every entry of a child is the controller's.
    std::size_t json_bytes(const std::string& name, bool keep_managed_fields = false) {
        const kcoro::get_options g{};
        const kcoro::object_key key{std::string(ns_name), name};
        auto o = run(c->get(kcoro::resources::configmaps(), key, g));
        if (!o) return 0;
        auto copy = **o;
        if (!keep_managed_fields) kcoro::strip_managed_fields(copy);
        return json::serialize(copy).size();
    }

    // --- phases ---------------------------------------------------------------
    proc_figures idle_phase() {
        start_controller("mirror-idle.log");
        if (!wait_ready(60)) die("the idle controller did not become ready");
        sleep_running(1.0);  // start-up work done
        auto a = sample(controller.pid);
        sleep_running(cfg.idle);
        auto b = sample(controller.pid);
        auto reqs = requests();
        std::printf("idle:   empty cluster: RSS %.1f MB, RssAnon %.1f MB, %ld threads; CPU %.3f s in %.0f s; "
                    "requests %s\n",
                    b.rss_kb / 1024.0, b.anon_kb / 1024.0, b.threads, b.cpu - a.cpu, cfg.idle, reqs.str().c_str());
        row.add("idle_rss_mb", b.rss_kb / 1024.0, 2);
        row.add("idle_anon_mb", b.anon_kb / 1024.0, 2);
        row.add("idle_cpu_s", b.cpu - a.cpu);
        controller.stop();
        log.read();
        return b;
    }

    asio::awaitable<int> create_range(int from, int to, int stride) {
        int failed = 0;
        const auto gvr = kcoro::resources::configmaps();
        const std::string ns{ns_name};
        for (int i = from; i < to; i += stride) {
            const auto obj = parent(i);
            const kcoro::create_options opts{};
            auto r = co_await c->create(gvr, ns, obj, opts);
            if (!r) {
                std::fprintf(stderr, "create parent-%d: %s\n", i, r.error().message().c_str());
                ++failed;
            }
        }
        co_return failed;
    }

    double seed_phase() {
        const auto t0 = bench_clock::now();
        const double server0 = sample(server_pid()).cpu;
        int failed = 0, finished = 0;
        for (int w = 0; w < cfg.clients; ++w) {
            asio::co_spawn(ioc, create_range(w, cfg.parents, cfg.clients), [&](std::exception_ptr e, int f) {
                if (e) std::rethrow_exception(e);
                failed += f;
                ++finished;
            });
        }
        while (finished < cfg.clients) {
            if (ioc.stopped()) ioc.restart();
            ioc.run_one();
        }
        const double s = seconds_since(t0);
        const double server_cpu = sample(server_pid()).cpu - server0;
        log.read();
        std::printf("seed:   %d parents (%zu B of JSON each) created in %.2f s by %d parallel clients "
                    "(%.0f creates/s, %d failed); server CPU %.2f s\n",
                    cfg.parents, json_bytes("parent-0"), s, cfg.clients, cfg.parents / s, failed, server_cpu);
        row.add("seed_s", s);
        row.add("seed_server_cpu_s", server_cpu);
        return s;
    }

    void sync_phase(double seed_s, const proc_figures& idle) {
        const auto rv = list_revision("app.example.io/child=true");
        if (external()) {
            // No request log: the sync ends when the children watch has seen
            // the N-th child (it costs the server one watch).
            watch_done = false;
            asio::co_spawn(ioc, watch_children(rv), [](std::exception_ptr e) {
                if (e) std::rethrow_exception(e);
            });
        }
        const auto t0 = bench_clock::now();
        const double server0 = sample(server_pid()).cpu;
        start_controller("mirror.log");
        // Done when the server has answered the N-th child create (its
        // request log, read every 5 ms): the seed phase had no watcher
        // either, so the two times compare the same server work.
        request_log::counts reqs;
        const long want = cfg.parents;
        double first_child = -1;  // the start-up: process, config, TLS, the list of every parent
        if (!run_until([&] {
                if (external()) {
                    const long seen = static_cast<long>(children.size());
                    if (first_child < 0 && seen > 0) first_child = seconds_since(t0);
                    return seen >= want || !controller.alive();
                }
                reqs += log.read();
                if (first_child < 0 && reqs.child_creates > 0) first_child = seconds_since(t0);
                return reqs.child_creates >= want || !controller.alive();
            }, std::chrono::minutes(30))) {
            die("not all children after 30 minutes: " + std::to_string(reqs.child_creates));
        }
        if (!controller.alive()) die("the controller exited during the sync");
        const double s = seconds_since(t0);
        auto f = sample(controller.pid);
        const double server_cpu = sample(server_pid()).cpu - server0;
        reqs += requests();
        const std::size_t parent_json = json_bytes("parent-0"), child_json = json_bytes("parent-0-observed", true);
        const double cached_json = double(cfg.parents) * double(parent_json + child_json);
        const double objects = 2.0 * cfg.parents;
        std::printf("sync:   all %d children in %.2f s (%.2fx the seed time; the first after %.2f s); controller CPU %.2f s "
                    "(%.0f us/parent); RssAnon %.1f MB = %.2f KB per cached object over idle "
                    "(%.2fx the %.1f MB of cached JSON); RSS %.1f MB, peak %.1f MB (%.2fx); server CPU %.2f s; "
                    "requests %s; child writes %ld\n",
                    cfg.parents, s, s / seed_s, first_child, f.cpu, 1e6 * f.cpu / cfg.parents, f.anon_kb / 1024.0,
                    double(f.anon_kb - idle.anon_kb) / objects, double(f.anon_kb) * 1024.0 / cached_json,
                    cached_json / 1048576.0, f.rss_kb / 1024.0, f.hwm_kb / 1024.0,
                    f.rss_kb > 0 ? double(f.hwm_kb) / double(f.rss_kb) : 0.0, server_cpu, reqs.str().c_str(),
                    reqs.child_writes);
        row.add("sync_s", s);
        row.add("sync_first_child_s", first_child);
        row.add("sync_controller_cpu_s", f.cpu);
        row.add("sync_us_per_parent", 1e6 * f.cpu / cfg.parents, 1);
        row.add("sync_anon_mb", f.anon_kb / 1024.0, 2);
        row.add("sync_rss_mb", f.rss_kb / 1024.0, 2);
        row.add("sync_peak_rss_mb", f.hwm_kb / 1024.0, 2);
        row.add("sync_kb_per_object", double(f.anon_kb - idle.anon_kb) / objects);
        row.add("cached_json_mb", cached_json / 1048576.0, 2);
        row.add("sync_server_cpu_s", server_cpu);
        row.add("sync_child_writes", reqs.child_writes);
        last_ = f;
        // The children watch for the phases after (replayed from before the
        // sync: every child's ADDED event), before the settle phase starts.
        if (!external()) {
            watch_done = false;
            asio::co_spawn(ioc, watch_children(rv), [](std::exception_ptr e) {
                if (e) std::rethrow_exception(e);
            });
        }
        const std::size_t all = static_cast<std::size_t>(cfg.parents);
        if (!run_until([&] { return children.size() >= all; }, std::chrono::minutes(5))) {
            die("the children watch saw " + std::to_string(children.size()) + " children");
        }
        log.read();
    }

    void settle_phase() {
        auto a = sample(controller.pid);
        sleep_running(cfg.settle);
        auto b = sample(controller.pid);
        auto reqs = requests();
        std::printf("settle: %.0f s after sync: controller CPU %.3f s; RssAnon %.1f MB; requests %s; "
                    "child writes %ld\n",
                    cfg.settle, b.cpu - a.cpu, b.anon_kb / 1024.0, reqs.str().c_str(), reqs.child_writes);
        row.add("settle_s", cfg.settle, 1);
        row.add("settle_cpu_s", b.cpu - a.cpu);
        row.add("settle_anon_mb", b.anon_kb / 1024.0, 2);
        last_ = b;
    }

    asio::awaitable<int> touch_range(int from, int to, int stride, int round) {
        int failed = 0;
        const auto gvr = kcoro::resources::configmaps();
        for (int i = from; i < to; i += stride) {
            const kcoro::object_key key{std::string(ns_name), "parent-" + std::to_string(i)};
            std::string patch = R"({"metadata":{"annotations":{"bench.example.io/touched":")" +
                                std::to_string(round) + R"("}}})";
            const kcoro::patch_options opts{};
            auto r = co_await c->patch(gvr, key, std::move(patch), opts);
            failed += r ? 0 : 1;
        }
        co_return failed;
    }

    void noop_phase() {
        const int n = std::min(cfg.updates, cfg.parents);
        const double before = reconciles();
        auto a = sample(controller.pid);
        const auto t0 = bench_clock::now();
        int failed = 0, finished = 0;
        const int workers = std::max(1, std::min(cfg.clients, n));
        for (int w = 0; w < workers; ++w) {
            asio::co_spawn(ioc, touch_range(w, n, workers, 1), [&](std::exception_ptr e, int f) {
                if (e) std::rethrow_exception(e);
                failed += f;
                ++finished;
            });
        }
        run_until([&] { return finished == workers; }, std::chrono::minutes(5));
        // Until the controller reconciled each updated parent (or 30 s);
        // scraped every 100 ms: a scrape costs the controller CPU too.
        auto next_scrape = bench_clock::now();
        run_until([&] {
            if (bench_clock::now() < next_scrape) return false;
            next_scrape = bench_clock::now() + 100ms;
            return reconciles() - before >= n;
        }, std::chrono::seconds(30));
        const double s = seconds_since(t0);
        sleep_running(0.5);  // a late write would show
        auto b = sample(controller.pid);
        const double done = reconciles() - before;
        auto reqs = requests();
        std::printf("noop:   %d parent updates (%d failed): %.0f reconciles in %.2f s; controller CPU %.3f s "
                    "(%.1f us/reconcile); requests %s; child writes %ld\n",
                    n, failed, done, s, b.cpu - a.cpu, done > 0 ? 1e6 * (b.cpu - a.cpu) / done : 0.0,
                    reqs.str().c_str(), reqs.child_writes);
        row.add("noop_updates", n);
        row.add("noop_reconciles", done, 0);
        row.add("noop_us_per_reconcile", done > 0 ? 1e6 * (b.cpu - a.cpu) / done : 0.0, 1);
        row.add("noop_child_writes", reqs.child_writes);
    }

    void repair_phase() {
        const int n = std::min(cfg.deletes, cfg.parents);
        const auto gvr = kcoro::resources::configmaps();
        std::vector<double> ms;
        for (int i = 0; i < n; ++i) {
            const std::string name = "parent-" + std::to_string(i * std::max(1, cfg.parents / n)) + "-observed";
            const kcoro::object_key key{std::string(ns_name), name};
            added_at.erase(name);
            const kcoro::delete_options opts{};
            auto r = run(c->remove(gvr, key, opts));
            if (!r) die("delete " + name + ": " + r.error().message());
            const auto t0 = bench_clock::now();
            if (!run_until([&] { return added_at.contains(name); }, std::chrono::seconds(30))) {
                die(name + " not recreated within 30 s");
            }
            ms.push_back(std::chrono::duration<double, std::milli>(added_at[name] - t0).count());
        }
        std::sort(ms.begin(), ms.end());
        auto pct = [&](double p) { return ms[std::min(ms.size() - 1, static_cast<std::size_t>(p * ms.size()))]; };
        auto reqs = requests();
        std::printf("repair: %d children deleted one at a time: recreated after p50 %.1f ms, p99 %.1f ms "
                    "(max %.1f); requests %s; child writes %ld\n",
                    n, pct(0.50), pct(0.99), ms.back(), reqs.str().c_str(), reqs.child_writes);
        row.add("repair_p50_ms", pct(0.50), 2);
        row.add("repair_p99_ms", pct(0.99), 2);
    }

    proc_figures last_;
    csv_row row;
};

settings parse_args(int argc, char** argv) {
    settings s;
    std::vector<std::string> args(argv + 1, argv + argc);
    std::vector<std::string> positional;
    for (std::size_t i = 0; i < args.size(); ++i) {
        auto num = [&]() -> double {
            if (i + 1 >= args.size()) die("missing value for " + args[i]);
            return std::atof(args[++i].c_str());
        };
        if (args[i] == "--") {
            s.controller_args.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
            break;
        } else if (args[i] == "--parents") s.parents = static_cast<int>(num());
        else if (args[i] == "--settle") s.settle = num();
        else if (args[i] == "--idle") s.idle = num();
        else if (args[i] == "--updates") s.updates = static_cast<int>(num());
        else if (args[i] == "--deletes") s.deletes = static_cast<int>(num());
        else if (args[i] == "--clients") s.clients = std::max(1, static_cast<int>(num()));
        else if (args[i] == "--server-pid") s.server_pid = static_cast<pid_t>(num());
        else if (args[i] == "--kubeconfig") {
            if (i + 1 >= args.size()) die("missing value for --kubeconfig");
            s.kubeconfig = args[++i];
        }
        else if (args[i] == "--csv") {
            if (i + 1 >= args.size()) die("missing value for --csv");
            s.csv = args[++i];
        } else positional.push_back(args[i]);
    }
    const std::size_t want = s.kubeconfig.empty() ? 2 : 1;
    if (positional.size() != want || s.parents < 1) {
        die("usage: mirror_bench APISERVER MIRROR [--parents N] [--settle S] [--idle S] [--updates N] "
            "[--deletes N] [--clients N] [--csv FILE] [-- controller flags]\n"
            "       mirror_bench --kubeconfig PATH [--server-pid PID] MIRROR [the same options]");
    }
    if (want == 2) s.apiserver = positional[0];
    s.mirror = positional.back();
    return s;
}

} // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    bench b;
    b.cfg = parse_args(argc, argv);
    long load_pct = 0;
    if (std::ifstream la("/proc/loadavg"); la) {
        double l1 = 0;
        la >> l1;
        load_pct = static_cast<long>(l1 * 100);
    }
    std::printf("mirror_bench: %d parents, settle %.0f s, %d no-op updates, %d deletes; %ld cores, load %.2f\n",
                b.cfg.parents, b.cfg.settle, b.cfg.updates, b.cfg.deletes, sysconf(_SC_NPROCESSORS_ONLN),
                load_pct / 100.0);
    {
        std::string args;
        for (const auto& a : b.cfg.controller_args) args += (args.empty() ? "" : " ") + a;
        b.row.add("parents", b.cfg.parents);
        b.row.add("clients", b.cfg.clients);
        b.row.add_text("controller_args", args);
        b.row.add("cores", sysconf(_SC_NPROCESSORS_ONLN));
        b.row.add("load", load_pct / 100.0, 2);
    }
    b.start_server();
    const auto idle = b.idle_phase();
    const double seed_s = b.seed_phase();
    b.sync_phase(seed_s, idle);
    b.settle_phase();
    b.noop_phase();
    b.repair_phase();
    b.controller.stop();
    b.stop_watch();
    if (b.external()) {
        // Leave the cluster as found (the namespace's objects go with it).
        const kcoro::delete_options opts{};
        const kcoro::object_key key{"", std::string(ns_name)};
        auto r = b.run(b.c->remove(kcoro::resources::namespaces(), key, opts));
        if (!r) std::fprintf(stderr, "mirror_bench: delete namespace %s: %s\n", ns_name.data(), r.error().message().c_str());
    }
    b.c.reset();
    b.server.stop();
    std::filesystem::remove_all(b.dir);
    if (!b.cfg.csv.empty()) {
        std::string error;
        if (!b.row.append_to(b.cfg.csv, error)) die(error);
        std::printf("csv:    one row appended to %s\n", b.cfg.csv.c_str());
    }
    return 0;
}
