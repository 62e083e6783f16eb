// The manager: the start order, the stop order and the signals, in one place.
#include <kcoro/server/manager.hpp>

#include <kcoro/client/client.hpp>
#include <kcoro/io/certs.hpp>
#include <kcoro/io/http_server.hpp>
#include <kcoro/io/tls.hpp>
#include <kcoro/runtime/manager_fsm.hpp>
#include <kcoro/server/bind_address.hpp>
#include <kcoro/server/leader_write_guard.hpp>
#include <kcoro/server/metrics_auth.hpp>
#include <kcoro/server/metrics_handler.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>

#include <unistd.h>

#include <array>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <deque>
#include <map>

namespace kcoro::server {

namespace {

// SIGINT and SIGTERM are held (blocked) from the start of from_flags until
// run() has installed its handler: a stop asked while the process starts
// (a rollout's or the kubelet's SIGTERM, seconds before the first log line)
// is delivered then and stops it cleanly (exit 0), instead of killing it in
// the middle of its set-up (exit 143; scripts/chaos saw it, an empty log and
// "exited with status 143 unasked"). No other thread exists to take them;
// the exec credential plugin's children start with an empty mask.
void hold_stop_signals(bool hold) noexcept {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    ::pthread_sigmask(hold ? SIG_BLOCK : SIG_UNBLOCK, &set, nullptr);
}

} // namespace

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
using asio::ip::tcp;

result<tcp::endpoint> parse_bind_address(std::string_view address) {
    auto bad = [&](std::string_view why) {
        return error(kcoro_errc::invalid_config,
                     "bind address \"" + std::string(address) + "\": " + std::string(why));
    };
    auto parts = split_bind_address(address);  // the one parser of the flag's text
    if (!parts) return bad(parts.error().message());
    asio::ip::address addr;
    if (parts->host.empty()) {
        addr = asio::ip::address_v6::any();
    } else if (parts->host == "localhost") {
        addr = asio::ip::address_v4::loopback();
    } else {
        boost::system::error_code ec;
        addr = asio::ip::make_address(parts->host, ec);
        if (ec) return bad("host must be an IP address or localhost");
    }
    return tcp::endpoint(addr, parts->port);
}

namespace {

// One runnable the manager runs; its id in the fsm is its index.
struct entry {
    runtime::runnable* r = nullptr;
    std::unique_ptr<runtime::runnable> owned;
    asio::cancellation_signal cancel;
};

std::string resource_label(const runtime::informer_key& k) {
    return k.gvr.group.empty() ? k.gvr.resource : k.gvr.resource + "." + k.gvr.group;
}

/// What client-go's NewLeaderElector refuses (leaderelection.go), plus a
/// lease shorter than the Lease's whole leaseDurationSeconds can hold.
std::optional<std::string> leader_timing_error(const manager_setup& s) {
    using std::chrono::duration;
    if (s.lease_duration < std::chrono::seconds(1)) return "--leader-elect-lease-duration must be at least 1s";
    if (s.lease_duration <= s.renew_deadline)
        return "--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline";
    if (s.retry_period <= std::chrono::nanoseconds::zero()) return "--leader-elect-retry-period must be greater than zero";
    if (duration<double>(s.renew_deadline) <= duration<double>(s.retry_period) * 1.2)
        return "--leader-elect-renew-deadline must be greater than --leader-elect-retry-period * 1.2 (its jitter)";
    return std::nullopt;
}

io::http_response to_response(const http_answer& a) {
    io::http_response r;
    r.status = static_cast<unsigned>(a.status);
    r.content_type = a.content_type;
    r.headers = a.headers;
    r.body = a.body;
    return r;
}

runtime::manager_fsm_config fsm_config(const manager_options& o) {
    runtime::manager_fsm_config c;
    c.leader_elect = o.leader_elect;
    c.graceful_shutdown_timeout = o.graceful_shutdown_timeout;
    return c;
}

} // namespace

// The driver of runtime::manager_fsm: it performs the fsm's actions (servers,
// runnables, the elector, one deadline timer, log lines) and feeds back what
// happened. Every lifecycle decision is the fsm's.
struct manager::impl {
    manager_options opts;
    manager_setup setup;

    std::unique_ptr<asio::io_context> own_ioc;
    asio::io_context* ioc = nullptr;
    std::unique_ptr<io::system_clock> own_clock;
    io::clock* clk = nullptr;
    logger log;
    metrics_registry metrics;
    std::unique_ptr<client::client> own_client;
    client::client* cl = nullptr;
    std::string identity;
    std::unique_ptr<runtime::informer_factory> cache;
    std::map<std::string, std::unique_ptr<runtime::event_recorder>, std::less<>> recorders;
    resource_table resources = resource_table::builtin();
    std::deque<entry> entries;  // by fsm id; stable addresses
    std::unique_ptr<runtime::leader_elector> elector;

    // --sharding-ring (docs/sharding.md).
    std::unique_ptr<shard_metrics> shard_sink;
    std::unique_ptr<runtime::shard_member> shard;
    struct sharded_controller {
        runtime::controller* ctl;
        runtime::informer* primary;
        std::string name;
        std::int64_t owned = 0;  // kcoro_shard_owned_keys: cached primaries in shard_active
    };
    std::deque<sharded_controller> sharded;  // stable: the informer handlers point into it
    std::vector<runtime::informer*> shard_informers;  // filtered to the share (for_ and owns())
    runtime::hash_ranges shard_active;  // as last reported: what a change gained
    runtime::hash_ranges shard_draining;  // dropped, not yet drained: still cached
    void update_shard_filters();
    std::string shard_lost;             // why the member stopped while the manager ran

    health_handler probes;
    watchdog dog;
    std::unique_ptr<metrics_handler> metrics_h;
    std::unique_ptr<metrics_authorizer> metrics_auth;  // --metrics-secure
    std::unique_ptr<io::http_server> metrics_srv;
    std::unique_ptr<io::http_server> probe_srv;
    std::optional<asio::signal_set> signals;
    bool signals_held = false;  // from_flags blocked SIGINT/SIGTERM; run() releases them
    std::optional<asio::steady_timer> wake;  // the main coroutine's wake-up
    asio::cancellation_signal watchdog_cancel;
    asio::cancellation_signal sync_cancel;
    // Coroutines the manager spawned besides the runnables (reap waits).
    bool watchdog_running = false;
    bool sync_waiter_running = false;

    runtime::manager_fsm fsm;
    std::deque<runtime::manager_input> inbox;  // inputs fed while an action runs
    bool stepping = false;
    std::optional<steady_time> deadline;       // the fsm's arm_deadline
    std::optional<int> outcome;                // the fsm's finished

    impl(manager_options o, manager_setup s)
        : opts(std::move(o)), setup(std::move(s)), metrics(true), dog(setup.watchdog_max_stall, steady_time{}),
          fsm(fsm_config(opts)) {
        metrics.set_caches_synced(false);  // kcoro_caches_synced: 1 once step 3 of the start order is done
    }

    void notify() {
        if (wake) wake->cancel();
    }

    // Steps the fsm and performs its actions; an input fed by an action is
    // queued and stepped after it (actions never see a half-done step).
    void feed(runtime::manager_input in) {
        inbox.push_back(std::move(in));
        if (stepping) return;
        stepping = true;
        struct reset {
            bool& b;
            ~reset() { b = false; }
        } guard{stepping};
        while (!inbox.empty()) {
            auto next = std::move(inbox.front());
            inbox.pop_front();
            for (auto& a : fsm.step(next)) std::visit([this](const auto& x) { perform(x); }, a);
        }
    }

    void perform(const runtime::mgr::bind_servers&) {
        if (auto r = bind(); !r) {
            feed(runtime::mgr::bind_failed{clk->now()});
            return;
        }
        feed(runtime::mgr::servers_bound{clk->now()});
    }
    void perform(const runtime::mgr::start_runnable& a) { start(a.id); }
    void perform(const runtime::mgr::stop_runnable& a) { entries[a.id].r->stop(); }
    void perform(const runtime::mgr::cancel_runnable& a) {
        entries[a.id].cancel.emit(asio::cancellation_type::terminal);
    }
    void perform(const runtime::mgr::wait_for_sync&) { start_sync_waiter(); }
    void perform(const runtime::mgr::cancel_sync_wait&) {
        if (sync_waiter_running) sync_cancel.emit(asio::cancellation_type::terminal);
    }
    void perform(const runtime::mgr::start_election&) { start_election(); }
    void perform(const runtime::mgr::arm_deadline& a) {
        deadline = a.at;
        notify();
    }
    void perform(const runtime::mgr::stop_servers&) {
        if (metrics_srv) metrics_srv->stop(std::chrono::milliseconds(0));
        if (probe_srv) probe_srv->stop(std::chrono::milliseconds(0));
        if (watchdog_running) watchdog_cancel.emit(asio::cancellation_type::terminal);
        if (signals) {
            boost::system::error_code ec;
            signals->cancel(ec);
        }
    }
    void perform(const runtime::mgr::clear_leader_status&) { metrics.set_leader(opts.leader_election_id, false); }
    void perform(const runtime::mgr::exit_process& a) { std::_Exit(a.code); }
    void perform(const runtime::mgr::finished& a) {
        // The guard refers to the elector; the client may outlive the manager.
        if (elector || shard) cl->clear_write_guard(this);
        outcome = a.code;
        notify();
    }
    void perform(const runtime::mgr::log& a) {
        using runtime::mgr::note;
        switch (a.what) {
        case note::caches_synced:
            // The fsm accepted the sync (a late answer after a stop is dropped before this).
            metrics.set_caches_synced(true);
            log.info("caches synced");
            break;
        case note::signal_stop: log.info("received signal, stopping", {{"signal", a.value}}); break;
        case note::signal_exit: log.info("received a second signal, exiting now", {{"signal", a.value}}); break;
        case note::leadership_lost: log.error("leader election lost", "stopping: leadership lost"); break;
        case note::stopping:
            log.info("stopping and waiting for runnables",
                     {{"timeout", format_go_duration(opts.graceful_shutdown_timeout)}});
            break;
        case note::grace_expired:
            log.error("graceful shutdown timeout", "runnables did not finish within the grace period; cancelling them");
            break;
        case note::stopped: log.info("stopped", {{"exitCode", a.value}}); break;
        case note::crashed: log.info("run cancelled: stopping at once (no graceful stop, no lease release)"); break;
        }
    }

    // Spawns one runnable; its completion is fed back (and wakes reap()).
    void start(std::size_t id) {
        auto& e = entries[id];
        log.debug("starting runnable", {{"runnable", e.r->name()}});
        auto done = [this, id](std::exception_ptr ex) {
            bool failed = false;
            if (ex && fsm.current() != runtime::manager_fsm::phase::crashed) {
                const auto name = entries[id].r->name();
                try {
                    std::rethrow_exception(ex);
                } catch (const std::exception& x) {
                    log.error(x.what(), "runnable failed", {{"runnable", name}});
                } catch (...) {
                    log.error("unknown exception", "runnable failed", {{"runnable", name}});
                }
                failed = true;
            }
            feed(runtime::mgr::runnable_finished{clk->now(), id, failed});
            notify();
        };
        asio::co_spawn(*ioc, e.r->run(), asio::bind_cancellation_slot(e.cancel.slot(), done));
    }

    entry& add_entry(runtime::runnable* r, std::unique_ptr<runtime::runnable> owned,
                     runtime::runnable_kind kind) {
        auto& e = entries.emplace_back();
        e.r = r;
        e.owned = std::move(owned);
        feed(runtime::mgr::runnable_added{entries.size() - 1, kind});  // started at once if its phase began
        return e;
    }
    entry& add_entry(runtime::runnable* r, std::unique_ptr<runtime::runnable> owned) {
        const auto kind =
            r->needs_leader_election() ? runtime::runnable_kind::leader_gated : runtime::runnable_kind::background;
        return add_entry(r, std::move(owned), kind);
    }

    asio::awaitable<void> watchdog_loop() {
        for (;;) {
            dog.progress(clk->now());
            auto ec = co_await clk->sleep_for(setup.watchdog_interval);
            if (ec) co_return;
        }
    }

    void handle_signals() {
        signals->async_wait([this](boost::system::error_code ec, int sig) {
            if (ec) return;
            feed(runtime::mgr::signal_received{clk->now(), sig});
            // Not after the stop finished: a pending wait would keep the
            // io_context from running out.
            const auto p = fsm.current();
            if (p != runtime::manager_fsm::phase::stopped && p != runtime::manager_fsm::phase::crashed)
                handle_signals();
        });
    }

    result<void> listen(std::unique_ptr<io::http_server>& srv, const std::string& address, io::http_handler h,
                        std::string_view what, std::shared_ptr<asio::ssl::context> tls = nullptr) {
        auto ep = parse_bind_address(address);
        if (!ep) return ep.error();
        srv = std::make_unique<io::http_server>(ioc->get_executor(), *clk, h, io::http_server_options{}, tls);
        auto bound = srv->listen(*ep);
        if (!bound && ep->address().is_v6() && ep->address().is_unspecified()) {
            // No IPv6 here: every IPv4 address instead.
            srv = std::make_unique<io::http_server>(ioc->get_executor(), *clk, std::move(h), io::http_server_options{},
                                                    tls);
            bound = srv->listen(tcp::endpoint(asio::ip::address_v4::any(), ep->port()));
        }
        if (!bound) return bound.error().with_context(std::string(what) + " server: listen on " + address);
        log.info(std::string("starting ") + std::string(what) + " server",
                 {{"bindAddress", bound->address().to_string() + ":" + std::to_string(bound->port())},
                  {"secure", tls != nullptr}});
        return {};
    }

    static result<std::shared_ptr<asio::ssl::context>> make_metrics_tls() {
        auto ca = io::certificate_authority::create("kcoro-metrics-ca");
        if (!ca) return ca.error();
        std::array<char, 256> host{};
        std::vector<std::string> names{"localhost"};
        if (::gethostname(host.data(), host.size() - 1) == 0 && host[0] != '\0') names.emplace_back(host.data());
        auto pair = ca->issue_server(names, {"127.0.0.1", "::1"});
        if (!pair) return pair.error();
        io::tls_server_options t;
        t.cert_chain_pem = pair->cert_pem + ca->cert_pem();
        t.key_pem = pair->key_pem;
        return io::make_server_tls_context(t);
    }

    std::string lease_namespace() const {
        return opts.leader_election_namespace.empty() ? cl->config().ns : opts.leader_election_namespace;
    }
    // The shard Lease's validity has not passed (run() of the member still running).
    bool shard_valid() const { return shard && !shard->finished() && clk->now() < shard->state().valid_until(); }
    // Installs the one write guard of the client: with leader election, the
    // leader lease's validity; with sharding, the shard Lease's. A
    // controller's write is judged by its own Lease (its origin, carried by
    // its workers' executor); one of unknown origin by either.
    void install_write_guard();
    std::deque<client::write_origin> origins;  // stable: executors point into it
    void start_sharding();
    void shard_changed(const runtime::hash_ranges& active);
    void shard_dropped(const runtime::hash_ranges& ranges);

    result<void> bind();
    void start_sync_waiter();
    void start_election();
    asio::awaitable<int> run();
    asio::awaitable<int> run_guarded();
    asio::awaitable<void> reap();
};

// The start order (1-5) and the stop order (a-f) are written out once, in
// include/kcoro/server/manager.hpp; manager_fsm decides, these perform.

// 1. metrics and probe servers, watchdog. A failure is logged here.
result<void> manager::impl::bind() {
    auto ex = ioc->get_executor();
    dog = watchdog(setup.watchdog_max_stall, clk->now());
    if (opts.metrics_enabled()) {
        metrics_h = std::make_unique<metrics_handler>(metrics);
        io::http_handler h = [this](io::http_request req) -> asio::awaitable<io::http_reply> {
            co_return to_response(metrics_h->handle(req.target));
        };
        std::shared_ptr<asio::ssl::context> tls;
        if (opts.metrics_secure) {
            // HTTPS with a self-signed certificate, every scrape authorised
            // by a TokenReview and a SubjectAccessReview (controller-runtime's
            // secure metrics without a certificate directory).
            auto ctx = make_metrics_tls();
            if (!ctx) {
                log.error(ctx.error(), "unable to set up TLS for the metrics server");
                return ctx.error();
            }
            tls = std::move(*ctx);
            metrics_auth = std::make_unique<metrics_authorizer>(*cl, *clk);
            h = [this](io::http_request req) -> asio::awaitable<io::http_reply> {
                std::string authorization(req.header("Authorization"));
                std::string path = req.target.substr(0, req.target.find('?'));
                auto denied = co_await metrics_auth->check(std::move(authorization), std::move(path));
                if (denied) co_return to_response(*denied);
                co_return to_response(metrics_h->handle(req.target));
            };
        }
        if (auto r = listen(metrics_srv, opts.metrics_bind_address, std::move(h), "metrics", tls); !r) {
            log.error(r.error(), "unable to start the metrics server");
            return r.error();
        }
    }
    if (opts.probes_enabled()) {
        io::http_handler h = [this](io::http_request req) -> asio::awaitable<io::http_reply> {
            co_return to_response(probes.handle(req.target));
        };
        if (auto r = listen(probe_srv, opts.health_probe_bind_address, std::move(h), "health probe"); !r) {
            log.error(r.error(), "unable to start the health probe server");
            return r.error();
        }
    }
    watchdog_running = true;
    asio::co_spawn(ex, watchdog_loop(),
                   asio::bind_cancellation_slot(watchdog_cancel.slot(), [this](std::exception_ptr) {
                       watchdog_running = false;
                       notify();
                   }));
    return {};
}

// 3. wait for the caches to sync (the fsm drops a late answer after a stop).
void manager::impl::start_sync_waiter() {
    // Then "caches synced" (the fsm's note), then the controllers' "Starting
    // Controller" and "Starting workers": the log reads in the start order.
    log.info("Waiting for caches to sync");
    auto waiter = [this]() -> asio::awaitable<void> {
        auto r = co_await cache->wait_for_sync(setup.cache_sync_timeout);
        if (fsm.current() != runtime::manager_fsm::phase::syncing) co_return;
        if (!r) {
            log.error(r.error(), "failed to wait for caches to sync");
            feed(runtime::mgr::cache_sync_failed{clk->now()});
        } else {
            feed(runtime::mgr::caches_synced{clk->now()});
        }
    };
    sync_waiter_running = true;
    asio::co_spawn(*ioc, waiter, asio::bind_cancellation_slot(sync_cancel.slot(), [this](std::exception_ptr) {
                       sync_waiter_running = false;
                       notify();
                   }));
}

// 4. leader election; its callbacks feed the fsm (5. leader-gated runnables).
void manager::impl::start_election() {
    runtime::leader_elector_options lo;
    lo.config.lease_namespace =
        opts.leader_election_namespace.empty() ? cl->config().ns : opts.leader_election_namespace;
    lo.config.lease_name = opts.leader_election_id;
    lo.config.identity = identity;
    lo.config.lease_duration = setup.lease_duration;
    lo.config.renew_deadline = setup.renew_deadline;
    lo.config.retry_period = setup.retry_period;
    lo.config.release_on_cancel = setup.leader_election_release_on_cancel;
    lo.log = log.with_name("leader-election");
    lo.on_status = [this](bool on) { metrics.set_leader(opts.leader_election_id, on); };
    lo.on_started_leading = [this] { feed(runtime::mgr::started_leading{clk->now()}); };
    lo.on_stopped_leading = [this](std::string_view) { feed(runtime::mgr::stopped_leading{clk->now()}); };
    elector = std::make_unique<runtime::leader_elector>(*cl, *clk, std::move(lo));
    install_write_guard();
    add_entry(elector.get(), nullptr, runtime::runnable_kind::elector);
}

void manager::impl::install_write_guard() {
    // Every write but the exempt ones waits on the local lease validity
    // (server/leader_write_guard.hpp); removed when run() ends.
    const std::string lease_ns = lease_namespace();
    const std::string lease_name = opts.leader_election_id;
    cl->set_write_guard(this, [this, lease_ns, lease_name](const api_request& req,
                                                           const client::write_origin* origin) -> std::optional<error> {
        write_guard_state st;
        st.leader_elect = elector != nullptr;
        st.leader_valid = elector && elector->may_write();
        st.sharding = shard != nullptr;
        st.shard_valid = shard_valid();
        st.lease_namespace = lease_ns;
        st.lease_name = lease_name;
        st.ring = opts.sharding_ring;
        if (write_allowed(req, origin, st)) return std::nullopt;
        metrics.leader_write_refused();
        const bool by_shard = origin ? origin->gate == client::write_gate::shard : !elector;
        const std::string lease = by_shard ? "shard Lease" : "leader lease";
        const std::string request = std::string(to_string(req.method)) + " " + req.target;
        const std::string msg = "Write refused: the " + lease + " may have been taken over";
        if (origin) log.info(msg, {{"request", request}, {"controller", origin->controller}});
        else log.info(msg, {{"request", request}});
        return error(kcoro_errc::not_leader, std::string("leader write guard: ") + to_string(req.method) + " " +
                                                 req.target + " refused: the " + lease + " validity has passed");
    });
}

// --sharding-ring: the member (a background runnable, started with the
// informers so it joins while they sync) and its hooks.
void manager::impl::start_sharding() {
    shard_sink = metrics.make_shard_metrics(opts.sharding_ring);
    runtime::shard_member_options so;
    so.config.ring = opts.sharding_ring;
    so.config.identity = identity;
    so.config.lease_duration = setup.lease_duration;
    so.config.renew_deadline = setup.renew_deadline;
    so.config.retry_period = setup.retry_period;
    so.config.join_settle = setup.retry_period;
    so.lease_namespace = lease_namespace();
    so.metrics = shard_sink.get();
    so.log = log.with_name("sharding");
    so.on_change = [this](const runtime::hash_ranges& active) { shard_changed(active); };
    so.on_drop = [this](const runtime::hash_ranges& ranges) { shard_dropped(ranges); };
    so.on_stopped = [this](std::string_view reason) {
        if (fsm.stopping()) return;  // the clean leave of a stop
        shard_lost = std::string(reason);
        log.error(shard_lost, "sharding ring membership ended: no sharded reconcile starts; /healthz fails",
                  {{"ring", opts.sharding_ring}});
    };
    shard = std::make_unique<runtime::shard_member>(*cl, *clk, std::move(so));
    log.info("sharding on", {{"ring", opts.sharding_ring},
                             {"leaseNamespace", lease_namespace()},
                             {"lease", shard->lease_name()},
                             // Each sharded informer logs whether the server
                             // applied its shardSelector or the client filters.
                             {"filtering", "informers keep the share: the server's shardSelector where it "
                                           "echoes shardInfo, else the client filters"}});
    install_write_guard();
    add_entry(shard.get(), nullptr, runtime::runnable_kind::background);
    probes.healthz().add("sharding", [this]() -> std::optional<std::string> {
        if (shard_lost.empty()) return std::nullopt;
        return "sharding ring membership ended: " + shard_lost;
    });
}

// Gained ranges: queue the cached keys that are ours now (a resync of the
// share; their events were dropped while another replica owned them).
void manager::impl::shard_changed(const runtime::hash_ranges& active) {
    const auto gained = runtime::subtract(active, shard_active);
    shard_active = active;
    update_shard_filters();
    log.info("shard share changed", {{"ring", opts.sharding_ring},
                                     {"ranges", static_cast<std::int64_t>(active.size())},
                                     {"fraction", runtime::fraction_of_space(active)}});
    // One pass per controller: recount what is ours, queue what was gained.
    for (auto& sc : sharded) {
        sc.owned = 0;
        const auto by = sc.primary->key().shard;  // uid, or namespace
        sc.primary->cache().for_each([&](const object_ptr& obj) {
            const auto h = runtime::shard_hash_of(*obj, by);
            if (!h || !runtime::contains(active, *h)) return;
            ++sc.owned;
            if (runtime::contains(gained, *h)) sc.ctl->enqueue_hashed(key_of(*obj), *h);
        });
        metrics.set_shard_owned_keys(sc.name, sc.owned);
    }
}

// Dropped ranges: every sharded controller takes their keys out of its
// queue; once none runs a reconcile of them, the member may release them.
void manager::impl::shard_dropped(const runtime::hash_ranges& ranges) {
    shard_active = runtime::subtract(shard_active, ranges);
    // Still cached while a reconcile of them may run; evicted once drained.
    shard_draining = runtime::unite(shard_draining, ranges);
    for (auto& sc : sharded) {
        sc.owned = 0;
        const auto by = sc.primary->key().shard;
        sc.primary->cache().for_each([&](const object_ptr& obj) {
            const auto h = runtime::shard_hash_of(*obj, by);
            if (h && runtime::contains(shard_active, *h)) ++sc.owned;
        });
        metrics.set_shard_owned_keys(sc.name, sc.owned);
    }
    auto done = [this, ranges] {
        shard_draining = runtime::subtract(shard_draining, ranges);
        update_shard_filters();
        shard->drained(ranges);
    };
    if (sharded.empty()) {
        done();
        return;
    }
    auto left = std::make_shared<std::size_t>(sharded.size());
    for (auto& sc : sharded) {
        sc.ctl->drop_ranges(ranges, [left, done] {
            if (--*left == 0) done();
        });
    }
}

// The sharded informers keep what this replica holds: active and draining.
void manager::impl::update_shard_filters() {
    const auto held = runtime::unite(shard_active, shard_draining);
    for (auto* inf : shard_informers) inf->set_shard(held);
}

// The main coroutine: feeds run, then sleeps until the fsm finishes, waking
// for its deadline (deadline_passed) or for anything that changed it.
asio::awaitable<int> manager::impl::run() {
    auto ex = co_await asio::this_coro::executor;
    wake.emplace(ex, asio::steady_timer::time_point::max());
    if (setup.handle_signals) {
        signals.emplace(ex, SIGINT, SIGTERM);
        handle_signals();
    }
    if (signals_held) {
        // A signal that arrived since from_flags is delivered now, to the handler.
        signals_held = false;
        hold_stop_signals(false);
    }
    feed(runtime::mgr::run{clk->now()});
    while (!outcome) {
        if (deadline && clk->now() >= *deadline) {
            deadline.reset();
            feed(runtime::mgr::deadline_passed{clk->now()});
            continue;
        }
        if (deadline) {
            auto s = clk->sleep_until(*deadline);
            auto w = wake->async_wait(asio::as_tuple(asio::use_awaitable));
            auto race = std::move(s) || std::move(w);
            co_await std::move(race);
        } else {
            co_await wake->async_wait(asio::as_tuple(asio::use_awaitable));
        }
        // run_async() cancelled: out to run_guarded (a crash).
        auto cs = co_await asio::this_coro::cancellation_state;
        if (cs.cancelled() != asio::cancellation_type::none)
            throw boost::system::system_error(asio::error::operation_aborted, "manager: cancelled");
    }
    co_return *outcome;
}

// ----------------------------------------------------------------------------
// CANCELLATION of run_async() (a "crash" in an in-process simulation): to the
// outside world the manager stops as a killed process would: every runnable
// (informers, elector, recorders, controllers) is cancelled at once, with no
// graceful stop and no lease release (the fsm's crash input); no request is
// sent once run_async() completed. Inside, nothing is left behind:
// run_async() completes only after every coroutine the manager spawned
// finished, so the manager can then be destroyed (and the io_context keep
// running other things).
// ----------------------------------------------------------------------------

// Waits (no deadline: runnables must honour cancellation, runnable.hpp) until
// nothing the manager spawned is left; whatever is still running after the
// stop order is cancelled first.
asio::awaitable<void> manager::impl::reap() {
    auto ex = co_await asio::this_coro::executor;
    if (!wake) wake.emplace(ex, asio::steady_timer::time_point::max());
    auto left = [&] { return fsm.any_running() || watchdog_running || sync_waiter_running; };
    if (left()) {
        for (std::size_t id = 0; id < entries.size(); ++id) {
            if (fsm.is_running(id)) entries[id].cancel.emit(asio::cancellation_type::terminal);
        }
        if (sync_waiter_running) sync_cancel.emit(asio::cancellation_type::terminal);
        if (watchdog_running) watchdog_cancel.emit(asio::cancellation_type::terminal);
    }
    while (left()) {
        co_await wake->async_wait(asio::as_tuple(asio::use_awaitable));
    }
    // The servers' sessions call into the manager (handlers capture it):
    // they end soon after stop(0) (cancelled socket operations); bounded.
    for (int i = 0; i < 100000; ++i) {
        const bool sessions = (metrics_srv && metrics_srv->session_count() > 0) ||
                              (probe_srv && probe_srv->session_count() > 0);
        if (!sessions) break;
        co_await asio::post(ex, asio::use_awaitable);
    }
}

asio::awaitable<int> manager::impl::run_guarded() {
    int code = exit_failure;
    std::exception_ptr failure;
    try {
        code = co_await run();
    } catch (...) {
        failure = std::current_exception();
    }
    auto cs = co_await asio::this_coro::cancellation_state;
    const bool cancelled = cs.cancelled() != asio::cancellation_type::none;
    if (cancelled || failure) feed(runtime::mgr::crash{});
    // Waiting for the cancelled runnables must not throw at once.
    co_await asio::this_coro::reset_cancellation_state();
    co_await reap();
    if (cancelled) {
        log.info("stopped (cancelled)");
        throw boost::system::system_error(asio::error::operation_aborted, "manager::run_async cancelled");
    }
    if (failure) std::rethrow_exception(failure);
    co_return code;
}

// ----------------------------------------------------------------------------
manager::manager(std::unique_ptr<impl> p) : impl_(std::move(p)) {}

manager::~manager() {
    // The guard refers to this manager's elector; the client may outlive it.
    if (impl_ && impl_->cl) impl_->cl->clear_write_guard(impl_.get());
    if (impl_ && impl_->signals_held) hold_stop_signals(false);  // never ran
}

result<std::unique_ptr<manager>> manager::create(manager_options opts, manager_setup setup) {
    if (auto v = validate(opts); !v) return v.error();
    if (opts.metrics_enabled()) {
        if (auto ep = parse_bind_address(opts.metrics_bind_address); !ep)
            return ep.error().with_context("--metrics-bind-address");
    }
    if (opts.probes_enabled()) {
        if (auto ep = parse_bind_address(opts.health_probe_bind_address); !ep)
            return ep.error().with_context("--health-probe-bind-address");
    }
    auto level = parse_log_level(opts.log_level);
    auto format = parse_log_format(opts.log_format);
    if (!level) return error(kcoro_errc::invalid_config, "--log-level: unknown level \"" + opts.log_level + "\"");
    if (!format) return error(kcoro_errc::invalid_config, "--log-format: unknown format \"" + opts.log_format + "\"");

    auto p = std::make_unique<impl>(std::move(opts), std::move(setup));
    auto& s = *p;
    if (s.setup.io_context) {
        s.ioc = s.setup.io_context;
    } else {
        s.own_ioc = std::make_unique<asio::io_context>(1);
        s.ioc = s.own_ioc.get();
    }
    if (s.setup.clock) {
        s.clk = s.setup.clock;
    } else {
        s.own_clock = std::make_unique<io::system_clock>();
        s.clk = s.own_clock.get();
    }
    s.dog = watchdog(s.setup.watchdog_max_stall, s.clk->now());  // restarted by run()
    log_config lc;
    lc.level = *level;
    lc.format = *format;
    auto* clk = s.clk;
    lc.clock = [clk] { return clk->wall_now(); };
    lc.sink = s.setup.sink ? s.setup.sink : std::make_shared<ostream_sink>(std::cerr);
    s.log = logger(std::move(lc)).with_name(s.setup.name);

    if (s.setup.client) {
        s.cl = s.setup.client;
    } else {
        client::client_config cfg;
        if (s.setup.client_config) {
            cfg = *s.setup.client_config;
        } else {
            client::load_options lo;
            lo.kubeconfig = s.opts.kubeconfig;
            auto env = s.setup.env ? *s.setup.env : client::environment::process();
            auto loaded = client::load_config(lo, env);
            if (!loaded) return loaded.error();
            cfg = std::move(*loaded);
        }
        client::client_options co;
        co.metrics = &s.metrics.requests();
        if (s.setup.env) co.env = s.setup.env;
        auto c = client::client::create(cfg, *s.clk, co);
        if (!c) return c.error();
        s.own_client = std::move(*c);
        s.cl = s.own_client.get();
        s.log.info("client configured", {{"source", cfg.source}, {"server", cfg.server}});
    }
    s.identity = s.setup.identity.empty() ? runtime::default_leader_identity() : s.setup.identity;

    runtime::informer_factory_options fo;
    fo.namespace_ = s.opts.watch_namespace;
    fo.resync_period = s.opts.sync_period;
    auto* reg = &s.metrics;
    fo.make_metrics = [reg](const runtime::informer_key& k) { return reg->make_informer_metrics(resource_label(k)); };
    fo.random = s.setup.random;
    // Watcher failures, handler exceptions and each sharded informer's
    // filtering mode (server or client) reach the manager's log.
    fo.log = s.log.with_name("cache");
    s.cache = std::make_unique<runtime::informer_factory>(*s.cl, *s.clk, s.ioc->get_executor(), std::move(fo));
    s.add_entry(s.cache.get(), nullptr);

    // Probes: readiness once every informer synced; liveness from the watchdog.
    auto* raw = p.get();
    s.probes.readyz().add("informers", [raw]() -> std::optional<std::string> {
        if (raw->fsm.cache_synced()) return std::nullopt;
        return std::string("informers have not synced yet");
    });
    s.probes.healthz().add("watchdog", [raw]() { return raw->dog.check(raw->clk->now()); });
    if (!s.opts.sharding_ring.empty()) s.start_sharding();

    return std::unique_ptr<manager>(new manager(std::move(p)));
}

manager_start manager::from_flags(int argc, const char* const* argv, manager_setup setup,
                                  const std::function<void(flag_set&)>& add_flags) {
    // Released here unless the manager takes them over (run() releases them).
    struct held_signals {
        bool on;
        ~held_signals() {
            if (on) hold_stop_signals(false);
        }
    } held{setup.handle_signals};
    if (held.on) hold_stop_signals(true);
    std::string program = argc > 0 && argv[0] ? argv[0] : "manager";
    if (auto slash = program.rfind('/'); slash != std::string::npos) program = program.substr(slash + 1);
    flag_set flags(program);
    manager_options opts;
    opts.max_concurrent_reconciles = setup.default_max_concurrent_reconciles;
    add_manager_flags(flags, opts);
    flags.add_bool("leader-elect-release-on-cancel", &setup.leader_election_release_on_cancel,
                   "Release the leader election lease on a clean stop, so a standby takes over at once.");
    // kube-controller-manager's names (component-base leaderelectionconfig.go);
    // scripts/chaos shortens them so a killed leader is replaced in seconds.
    flags.add_duration("leader-elect-lease-duration", &setup.lease_duration,
                       "How long a standby waits after the last observed renewal before taking the lease.");
    flags.add_duration("leader-elect-renew-deadline", &setup.renew_deadline,
                       "How long the leader keeps retrying a renewal before it gives leadership up.");
    flags.add_duration("leader-elect-retry-period", &setup.retry_period,
                       "Wait between attempts to acquire or renew the lease.");
    if (add_flags) add_flags(flags);
    manager_start out;
    auto parsed = flags.parse(argc, argv);  // skips argv[0]
    if (!parsed) {
        std::cerr << parsed.error().message() << "\n" << flags.usage();
        out.exit_code = exit_usage;
        return out;
    }
    if (*parsed == parse_outcome::help_requested) {
        std::cout << flags.usage();
        out.exit_code = exit_ok;
        return out;
    }
    // client-go's NewLeaderElector checks (leaderelection.go); the Lease
    // holds whole seconds, so a shorter duration cannot be written.
    if (auto bad = leader_timing_error(setup)) {
        std::cerr << program << ": " << *bad << "\n";
        out.exit_code = exit_usage;
        return out;
    }
    if (setup.name == "manager") setup.name = program;
    auto m = create(std::move(opts), std::move(setup));
    if (!m) {
        std::cerr << program << ": " << m.error().message() << "\n";
        out.exit_code = exit_failure;
        return out;
    }
    out.mgr = std::move(*m);
    out.mgr->impl_->signals_held = held.on;
    held.on = false;
    return out;
}

asio::io_context& manager::ctx() noexcept { return *impl_->ioc; }
asio::any_io_executor manager::executor() noexcept { return impl_->ioc->get_executor(); }
io::clock& manager::clock() noexcept { return *impl_->clk; }
client::client& manager::client() noexcept { return *impl_->cl; }
runtime::informer_factory& manager::cache() noexcept { return *impl_->cache; }
metrics_registry& manager::metrics() noexcept { return impl_->metrics; }
const logger& manager::log() const noexcept { return impl_->log; }
const manager_options& manager::options() const noexcept { return impl_->opts; }
const std::string& manager::name() const noexcept { return impl_->setup.name; }
const std::function<double()>& manager::random_source() const noexcept { return impl_->setup.random; }
const std::string& manager::identity() const noexcept { return impl_->identity; }

runtime::event_recorder& manager::events(std::string_view reporting_controller) {
    auto& s = *impl_;
    if (auto it = s.recorders.find(reporting_controller); it != s.recorders.end()) return *it->second;
    runtime::event_recorder_options o;
    o.aggregator.reporting_controller = std::string(reporting_controller);
    o.aggregator.reporting_instance = s.identity;
    auto* reg = &s.metrics;
    o.on_drop = [reg](std::string_view reason) { reg->event_dropped(reason); };
    o.log = s.log.with_name("events");
    auto rec = std::make_unique<runtime::event_recorder>(*s.cl, *s.clk, std::move(o));
    auto& ref = *rec;
    s.recorders.emplace(std::string(reporting_controller), std::move(rec));
    s.add_entry(&ref, nullptr);
    return ref;
}

runtime::event_recorder& manager::recorder() { return events(impl_->setup.name); }

resource_table& manager::resources() noexcept { return impl_->resources; }

controller_builder manager::controller(std::string name) { return controller_builder(*this, std::move(name)); }

void manager::add(runtime::runnable& r) { impl_->add_entry(&r, nullptr); }

runtime::runnable& manager::add(std::unique_ptr<runtime::runnable> r) {
    auto* raw = r.get();
    impl_->add_entry(raw, std::move(r));
    return *raw;
}

void manager::add_healthz_check(std::string name, health_check check) {
    impl_->probes.healthz().add(std::move(name), std::move(check));
}
void manager::add_readyz_check(std::string name, health_check check) {
    impl_->probes.readyz().add(std::move(name), std::move(check));
}
const health_handler& manager::probes() const noexcept { return impl_->probes; }

asio::awaitable<int> manager::run_async() { return impl_->run_guarded(); }

int manager::run() {
    auto& ioc = *impl_->ioc;
    std::optional<int> code;
    asio::co_spawn(ioc, run_async(), [&code](std::exception_ptr e, int c) {
        if (e) std::rethrow_exception(e);
        code = c;
    });
    while (!code && !ioc.stopped()) ioc.run_one();
    // Let the stop finish closing connections, but never hang on a straggler.
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!ioc.stopped()) {
        const auto left = end - std::chrono::steady_clock::now();
        if (left <= std::chrono::steady_clock::duration::zero()) break;
        if (ioc.run_one_for(left) == 0) break;
    }
    return code.value_or(exit_failure);
}

void manager::request_stop() { impl_->feed(runtime::mgr::stop_requested{impl_->clk->now()}); }

bool manager::is_leader() const noexcept { return impl_->fsm.is_leader(); }
bool manager::cache_synced() const noexcept { return impl_->fsm.cache_synced(); }

bool manager::idle() const noexcept {
    const auto& s = *impl_;
    if (!s.fsm.cache_synced()) return false;
    for (const auto& e : s.entries) {
        const auto* c = dynamic_cast<const runtime::controller*>(e.r);
        if (c && !c->idle()) return false;
    }
    for (const auto& [name, rec] : s.recorders) {
        if (rec->queued() != 0) return false;
    }
    return true;
}

std::optional<tcp::endpoint> manager::metrics_endpoint() const {
    if (!impl_->metrics_srv) return std::nullopt;
    return impl_->metrics_srv->local_endpoint();
}
std::optional<tcp::endpoint> manager::probe_endpoint() const {
    if (!impl_->probe_srv) return std::nullopt;
    return impl_->probe_srv->local_endpoint();
}
runtime::leader_elector* manager::elector() noexcept { return impl_->elector.get(); }
runtime::shard_member* manager::shard() noexcept { return impl_->shard.get(); }

const client::write_origin* manager::write_origin(std::string controller, client::write_gate gate) {
    return &impl_->origins.emplace_back(std::move(controller), gate);
}

runtime::informer_key manager::controller_key(runtime::informer_key k, runtime::shard_by by) const {
    if (impl_->shard) k.shard = by;
    return k;
}

void manager::add_sharded(runtime::controller& c, runtime::informer& primary,
                          const std::vector<runtime::informer*>& owned) {
    auto& s = *impl_;
    for (auto* inf : owned) {
        if (std::find(s.shard_informers.begin(), s.shard_informers.end(), inf) == s.shard_informers.end())
            s.shard_informers.push_back(inf);
    }
    if (std::find(s.shard_informers.begin(), s.shard_informers.end(), &primary) == s.shard_informers.end())
        s.shard_informers.push_back(&primary);
    const auto held = runtime::unite(s.shard_active, s.shard_draining);
    if (!held.empty()) {
        for (auto* inf : s.shard_informers) inf->set_shard(held);
    }
    auto& sc = s.sharded.emplace_back(impl::sharded_controller{&c, &primary, std::string(c.name()), 0});
    s.metrics.shard_controller_added(sc.name);
    // The owned count follows adds and deletes between share changes
    // (neither a uid nor a namespace changes, so updates do not move it).
    auto* ip = impl_.get();
    auto owned_delta = [ip, &sc, by = primary.key().shard](const object_ptr& o, std::int64_t d) {
        if (!o) return;
        const auto h = runtime::shard_hash_of(*o, by);
        if (!h || !runtime::contains(ip->shard_active, *h)) return;
        sc.owned += d;
        ip->metrics.set_shard_owned_keys(sc.name, sc.owned);
    };
    runtime::event_handlers h;
    h.reads_old_object = false;
    h.on_add = [owned_delta](const object_ptr& o) { owned_delta(o, 1); };
    h.on_delete = [owned_delta](const object_ptr& o, bool) { owned_delta(o, -1); };
    primary.add_handlers(std::move(h));
    s.log.info("controller sharded", {{"controller", std::string(c.name())}, {"ring", s.opts.sharding_ring}});
}

} // namespace kcoro::server
