#include <kcoro/testing/test_server.hpp>

#include "server.hpp"  // kcoro-apiserver (src/kcoro-apiserver)

#include <kcoro/core/object.hpp>
#include <kcoro/core/yaml.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace kcoro::testing {

namespace asio = boost::asio;
namespace json = boost::json;

struct test_server::impl {
    asio::io_context& ioc;
    test_server_options opts;
    // The test side's clock; with threading::caller the server's too.
    std::unique_ptr<io::manual_clock> manual;
    std::unique_ptr<io::system_clock> system;
    io::clock* test_clock = nullptr;
    // threading::private_thread: the server's own io_context, clock, thread.
    std::unique_ptr<asio::io_context> own_io;
    std::unique_ptr<io::system_clock> server_clock;
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> own_guard;
    std::atomic<bool> quit{false};
    std::thread thread;

    std::unique_ptr<apiserver::server> srv;
    // Written by the server's log sink (its thread), read by the test.
    mutable std::mutex log_mu;
    request_log log;

    apiserver::client_credentials admin_creds;
    client::client_config admin_config;
    std::unique_ptr<client::client> admin;
    std::vector<std::unique_ptr<client::client>> owned_clients;
    std::filesystem::path dir;
    std::string kubeconfig_file;

    impl(asio::io_context& io, test_server_options o) : ioc(io), opts(std::move(o)) {}
    impl(const impl&) = delete;
    impl& operator=(const impl&) = delete;
    // Also when start() fails half-way: the clients before the server, the
    // server's thread joined before the server goes.
    ~impl() {
        owned_clients.clear();
        admin.reset();
        shutdown();
        srv.reset();
        if (!dir.empty()) {
            std::error_code ec;
            std::filesystem::remove_all(dir, ec);
        }
    }

    io::clock& server_side_clock() { return server_clock ? *server_clock : *test_clock; }

    /// Runs `f` where the server lives: here, or on its thread (waiting),
    /// once that runs.
    template <class F>
    auto on_server(F f) const -> decltype(f()) {
        if (!thread.joinable()) return f();
        std::packaged_task<decltype(f())()> task(std::move(f));
        auto done = task.get_future();
        asio::post(*own_io, [&task] { task(); });
        return done.get();
    }

    result<void> load_docs(std::string_view text, const std::string& origin) {
        auto docs = parse_yaml_documents(text);
        if (!docs) return docs.error().with_context(origin);
        for (auto& doc : *docs) {
            if (!doc.is_object()) continue;  // empty documents between ---
            auto r = load_one(doc.get_object());
            if (!r) return r.error().with_context(origin);
        }
        return {};
    }

    result<void> load_one(const json::object& obj) {
        return on_server([&]() -> result<void> {
            auto& store = srv->store();
            const auto* def = store.registry().find_kind(api_version_of(obj), kind_of(obj));
            if (def == nullptr) {
                return error(kcoro_errc::invalid_config, "no resource serves " + std::string(api_version_of(obj)) +
                                                             " " + std::string(kind_of(obj)));
            }
            std::string ns = def->namespaced ? std::string(namespace_of(obj)) : std::string{};
            if (def->namespaced && ns.empty()) ns = "default";
            apiserver::request_context ctx;
            ctx.now = server_side_clock().wall_now();
            ctx.user = "kcoro-testing";
            ctx.field_manager = "kcoro-testing-load";
            auto created = store.create(ctx, def->gvr, ns, obj);
            if (!created) {
                return created.error().with_context(std::string(kind_of(obj)) + " " + std::string(name_of(obj)));
            }
            // A CRD is served (Established) after the store's controllers
            // pass; run them now rather than on the clock. Bounded.
            for (int i = 0; i < 16 && store.gc_step(ctx.now); ++i) {
            }
            return {};
        });
    }

    result<std::unique_ptr<client::client>> make_client(std::string_view user, std::vector<std::string> groups,
                                                        client::client_config* out) {
        auto creds = on_server([&] { return srv->credentials_for(user, std::move(groups)); });
        if (!creds) return creds.error();
        client::client_config cfg;
        cfg.server = creds->server;
        cfg.ca_pem = creds->ca_pem;
        cfg.token = creds->token;
        cfg.client_cert_pem = creds->client_cert_pem;
        cfg.client_key_pem = creds->client_key_pem;
        cfg.source = "kcoro::testing::test_server (" + std::string(user) + ")";
        if (out) {  // the admin's: kept for the kubeconfig
            *out = cfg;
            admin_creds = *creds;
        }
        client::client_options co;
        co.user_agent = "kcoro-testing/" + std::string(user);
        return client::client::create(cfg, *test_clock, co);
    }

    void shutdown() {
        if (!srv) return;
        on_server([&] { srv->stop(std::chrono::milliseconds(0)); });
        if (own_io) {
            quit = true;
            own_guard.reset();
            if (thread.joinable()) thread.join();
        }
    }
};

result<std::unique_ptr<test_server>> test_server::start(asio::io_context& ioc) {
    return start(ioc, test_server_options());
}

result<std::unique_ptr<test_server>> test_server::start(asio::io_context& ioc, test_server_options opts) {
    auto p = std::make_unique<impl>(ioc, std::move(opts));
    auto& s = *p;
    if (s.opts.clock == clock_mode::manual) {
        s.manual = std::make_unique<io::manual_clock>();
        s.test_clock = s.manual.get();
    } else {
        s.system = std::make_unique<io::system_clock>();
        s.test_clock = s.system.get();
    }
    asio::any_io_executor ex = ioc.get_executor();
    if (s.opts.thread == threading::private_thread) {
        s.own_io = std::make_unique<asio::io_context>(1);
        s.server_clock = std::make_unique<io::system_clock>();
        ex = s.own_io->get_executor();
    }

    apiserver::server_options so;
    so.tls = s.opts.tls;
    so.store.random_seed = s.opts.seed;
    so.store.simulate_workloads = s.opts.simulate_workloads;
    so.store.simulate_pods = s.opts.simulate_pods;
    so.store.simulate_delay = s.opts.simulate_delay;
    so.root_ca_publisher = s.opts.root_ca_publisher;
    so.service_account_controller = s.opts.service_account_controller;
    so.rbac = s.opts.rbac;
    so.store.sharded_list_and_watch = s.opts.sharded_list_and_watch;
    so.log = [st = &s](const json::object& line) {
        if (auto r = request_record::from_log_line(line)) {
            std::lock_guard lock(st->log_mu);
            st->log.add(std::move(*r));
        }
    };
    s.srv = std::make_unique<apiserver::server>(ex, s.server_side_clock(), std::move(so));
    // Nothing runs on the server's io_context yet: load and start here, then
    // hand the server to its thread.
    for (const auto& f : s.opts.crd_files) {
        std::ifstream in(f, std::ios::binary);
        if (!in) {
            return error(kcoro_errc::invalid_config,
                         "kcoro::testing: cannot read " + f + ": " + std::strerror(errno));
        }
        std::ostringstream text;
        text << in.rdbuf();
        if (auto r = s.load_docs(text.str(), f); !r) return r.error();
    }
    if (auto r = s.srv->start(); !r) return r.error().with_context("kcoro::testing: start kcoro-apiserver");
    if (s.own_io) {
        s.own_guard.emplace(s.own_io->get_executor());
        s.thread = std::thread([st = &s] {
            st->own_io->run();
            // Stopped: let the cancelled sessions and loops finish, bounded.
            st->own_io->restart();
            st->own_io->run_for(std::chrono::milliseconds(500));
        });
    }

    auto admin = s.make_client("admin", {"system:masters"}, &s.admin_config);
    if (!admin) return admin.error().with_context("kcoro::testing: admin client");
    s.admin = std::move(*admin);

    // The kubeconfig file, in a private directory removed with the server.
    std::string tmpl = (std::filesystem::temp_directory_path() / "kcoro-testing.XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
        return error(kcoro_errc::invalid_config, "kcoro::testing: mkdtemp: " + std::string(std::strerror(errno)));
    }
    s.dir = tmpl;
    s.kubeconfig_file = (s.dir / "kubeconfig").string();
    {
        std::ofstream out(s.kubeconfig_file, std::ios::trunc);
        out << apiserver::server::kubeconfig_yaml(s.admin_creds);
        if (!out) return error(kcoro_errc::invalid_config, "kcoro::testing: cannot write " + s.kubeconfig_file);
    }
    return std::unique_ptr<test_server>(new test_server(std::move(p)));
}

test_server::test_server(std::unique_ptr<impl> p) : impl_(std::move(p)) {}

test_server::~test_server() = default;

client::client& test_server::client() noexcept { return *impl_->admin; }

result<std::unique_ptr<client::client>> test_server::client_for(std::string_view user, std::vector<std::string> groups) {
    return impl_->make_client(user, std::move(groups), nullptr);
}

client::client_config test_server::config() const { return impl_->admin_config; }
std::string test_server::url() const { return impl_->admin_config.server; }
const std::string& test_server::kubeconfig_path() const noexcept { return impl_->kubeconfig_file; }
std::string test_server::kubeconfig_yaml() const { return apiserver::server::kubeconfig_yaml(impl_->admin_creds); }

server::manager_options test_server::manager_options() const {
    server::manager_options o;
    o.metrics_bind_address = "0";
    o.health_probe_bind_address = "0";
    return o;
}

server::manager_setup test_server::manager_setup(std::string name) {
    auto c = impl_->make_client(name, {"system:masters"}, nullptr);
    if (!c) throw std::runtime_error("kcoro::testing: client for " + name + ": " + c.error().message());
    impl_->owned_clients.push_back(std::move(*c));
    server::manager_setup s;
    s.name = std::move(name);
    s.io_context = &impl_->ioc;
    s.clock = impl_->test_clock;
    s.client = impl_->owned_clients.back().get();
    s.handle_signals = false;
    return s;
}

result<void> test_server::load_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return error(kcoro_errc::invalid_config, "kcoro::testing: cannot read " + path + ": " + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    return impl_->load_docs(text.str(), path);
}

result<void> test_server::load_yaml(std::string_view text) { return impl_->load_docs(text, "manifest"); }
result<void> test_server::load(const json::object& obj) { return impl_->load_one(obj); }

object_ptr test_server::get(const group_version_resource& gvr, const object_key& key) const {
    auto r = impl_->on_server([&]() -> std::optional<result<json::object>> {
        auto& store = impl_->srv->store();
        if (store.registry().find(gvr) == nullptr) return std::nullopt;
        return store.get(gvr, key.ns, key.name);
    });
    if (!r) {
        std::ostringstream gv;
        gv << gvr;
        throw std::invalid_argument("kcoro::testing: get " + key.str() + ": the server does not serve " + gv.str());
    }
    if (*r) return std::make_shared<const json::object>(std::move(**r));
    if (is_not_found(r->error())) return nullptr;
    throw std::invalid_argument("kcoro::testing: get " + key.str() + ": " + r->error().message());
}

std::uint64_t test_server::inject(const fault& f) {
    apiserver::http::fault_rule r;
    switch (f.action) {
    case fault_action::fail: r.action = apiserver::http::fault_action::fail; break;
    case fault_action::delay: r.action = apiserver::http::fault_action::delay; break;
    case fault_action::drop_after_commit: r.action = apiserver::http::fault_action::drop_after_commit; break;
    }
    r.verb = f.verb;
    r.resource = f.resource;
    r.name = f.name;
    r.count = f.count;
    r.code = f.code;
    r.retry_after_seconds = f.retry_after_seconds;
    r.message = f.message;
    r.delay = f.delay;
    return impl_->on_server([&] { return impl_->srv->faults().add(std::move(r)); });
}

void test_server::clear_faults() {
    impl_->on_server([&] { impl_->srv->faults().clear(); });
}
void test_server::close_watches() {
    impl_->on_server([&] { impl_->srv->close_watches(); });
}
void test_server::compact() {
    impl_->on_server([&] { impl_->srv->compact(); });
}
void test_server::stall_watches(bool on) {
    impl_->on_server([&] { impl_->srv->stall_watches(on); });
}
std::vector<std::string> test_server::fault_log() const {
    return impl_->on_server([&] { return impl_->srv->faults().entries(); });
}

std::size_t test_server::faults_fired() const {
    std::size_t n = 0;
    for (const auto& line : fault_log()) n += line.starts_with("fired: ");
    return n;
}

result<void> test_server::set_policy(std::string_view text) {
    auto p = apiserver::http::policy::parse(text);
    if (!p) return p.error().with_context("kcoro::testing: policy");
    impl_->on_server([&] { impl_->srv->access().set_policy(std::move(*p)); });
    return {};
}
void test_server::clear_policy() {
    impl_->on_server([&] { impl_->srv->access().set_policy(std::nullopt); });
}

request_log test_server::requests() const {
    std::lock_guard lock(impl_->log_mu);
    return impl_->log;
}
void test_server::clear_requests() {
    std::lock_guard lock(impl_->log_mu);
    impl_->log.clear();
}
std::uint64_t test_server::current_revision() const {
    return impl_->on_server([&] { return static_cast<std::uint64_t>(impl_->srv->store().current_revision()); });
}

io::clock& test_server::clock() noexcept { return *impl_->test_clock; }

void test_server::advance(std::chrono::nanoseconds d) {
    if (!impl_->manual) throw std::logic_error("kcoro::testing: advance() needs clock_mode::manual");
    impl_->manual->advance(d);
    // The woken sleepers resume here, not at the test's next wait.
    if (impl_->ioc.stopped()) impl_->ioc.restart();
    impl_->ioc.poll();
}

bool test_server::advance_until(const std::function<bool()>& done, std::chrono::nanoseconds step,
                                std::chrono::milliseconds bound) {
    if (!impl_->manual) throw std::logic_error("kcoro::testing: advance_until() needs clock_mode::manual");
    auto& ioc = impl_->ioc;
    const auto end = std::chrono::steady_clock::now() + bound;
    while (!done()) {
        if (std::chrono::steady_clock::now() > end) return false;
        if (ioc.stopped()) ioc.restart();
        if (ioc.run_one_for(std::chrono::milliseconds(1)) == 0) impl_->manual->advance(step);
    }
    return true;
}

asio::io_context& test_server::io_context() noexcept { return impl_->ioc; }

std::vector<object_ptr> test_server::list(const group_version_resource& gvr, std::string_view ns) const {
    auto r = impl_->on_server([&]() -> std::optional<result<json::object>> {
        auto& store = impl_->srv->store();
        if (store.registry().find(gvr) == nullptr) return std::nullopt;
        return store.list(gvr, ns, apiserver::list_options{});
    });
    if (!r) {
        std::ostringstream gv;
        gv << gvr;
        throw std::invalid_argument("kcoro::testing: list: the server does not serve " + gv.str());
    }
    if (!*r) throw std::invalid_argument("kcoro::testing: list: " + r->error().message());
    std::vector<object_ptr> out;
    if (const auto* items = (*r)->if_contains("items"); items && items->is_array()) {
        for (const auto& item : items->get_array()) {
            if (item.is_object()) out.push_back(std::make_shared<const json::object>(item.get_object()));
        }
    }
    return out;
}

std::vector<k8s::event> test_server::events(std::string_view ns) const {
    auto out = list<k8s::event>(ns);
    // Oldest first: by eventTime (or a core/v1 Event's firstTimestamp), then name.
    auto when = [](const k8s::event& e) {
        return e.event_time.empty() ? e.deprecated_first_timestamp.time_point() : e.event_time.time_point();
    };
    std::stable_sort(out.begin(), out.end(), [&](const k8s::event& a, const k8s::event& b) {
        auto wa = when(a), wb = when(b);
        return wa != wb ? wa < wb : a.metadata.name < b.metadata.name;
    });
    return out;
}

std::vector<k8s::event> test_server::events_about(std::string_view kind, const object_key& regarding) const {
    std::vector<k8s::event> out;
    for (auto& e : events(regarding.ns)) {
        if (e.regarding.kind == kind && e.regarding.name == regarding.name && e.regarding.namespace_ == regarding.ns) {
            out.push_back(std::move(e));
        }
    }
    return out;
}

// --- running_manager ---------------------------------------------------------

running_manager::running_manager(test_server& srv, server::manager& mgr)
    : srv_(srv), mgr_(mgr), run_(spawn(srv.io_context(), mgr.run_async())) {}

running_manager::~running_manager() {
    if (!run_.done()) stop();
}

bool running_manager::wait_synced(std::chrono::milliseconds bound) {
    return srv_.run_until([&] { return mgr_.cache_synced() || run_.done(); }, bound) && !run_.done();
}

bool running_manager::wait_idle(std::chrono::milliseconds bound) {
    auto& ioc = srv_.io_context();
    const auto end = std::chrono::steady_clock::now() + bound;
    for (;;) {
        if (run_.done() || std::chrono::steady_clock::now() > end) return false;
        if (ioc.stopped()) ioc.restart();
        // Everything ready now, and what it makes ready (the server's
        // handlers too with threading::caller: a commit's watch events are
        // written before poll() returns 0).
        if (ioc.poll() != 0) continue;
        if (!mgr_.idle()) {
            ioc.run_one_for(std::chrono::milliseconds(5));
            continue;
        }
        // Idle with nothing ready: one short wait for bytes still on their
        // way through the loopback (or from the server's own thread).
        if (ioc.run_one_for(std::chrono::milliseconds(2)) == 0 && mgr_.idle()) return true;
    }
}

int running_manager::stop(std::chrono::milliseconds bound) {
    mgr_.request_stop();
    if (!srv_.run_until([&] { return run_.done(); }, bound)) return -1;
    return run_.get();
}

} // namespace kcoro::testing
