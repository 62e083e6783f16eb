// The machinery every simulated world shares (world.hpp).
#include "world.hpp"

#include "http/route.hpp"
#include "store/status_errors.hpp"

#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/core/status.hpp>
#include <kcoro/runtime/leader_election_fsm.hpp>
#include <kcoro/runtime/shard_member.hpp>
#include <kcoro/runtime/shard_membership_fsm.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/detached.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <charconv>

namespace kcoro::sim {

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;

std::string fmt_time(steady_time t) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    return std::to_string(ms / 1000) + "." + std::to_string(1000 + ms % 1000).substr(1) + "s";
}

target_info parse_target(std::string_view method, std::string_view target) {
    // kcoro-apiserver's own RequestInfo parsing (http/route.hpp).
    target_info t;
    t.write = method != "GET";
    auto r = apiserver::http::parse_route(method, target);
    if (!r) return t;  // the client sends no malformed queries; the server answers 400
    t.verb = r->verb == "deletecollection" ? "delete" : std::move(r->verb);
    t.resource = std::move(r->resource);
    t.ns = std::move(r->ns);
    t.name = std::move(r->name);
    t.sub = std::move(r->subresource);
    const auto& rv = r->query.resource_version;
    std::from_chars(rv.data(), rv.data() + rv.size(), t.resource_version);
    return t;
}

std::string written_name(const target_info& t, const io::http_request& req) {
    if (t.verb != "create") return t.name;
    boost::system::error_code ec;
    auto body = json::parse(req.body, ec);
    return !ec && body.is_object() ? std::string(name_of(body.as_object())) : std::string();
}

std::string controller_uid(const json::object* body, const json::object* live) {
    for (const auto* o : {body, live}) {
        if (!o) continue;
        if (auto c = controller_of(*o)) return c->uid;
    }
    return {};
}

namespace {

io::http_response status_reply(int code, std::string reason, std::string message, int retry_after = 0) {
    status s = status_from_http(code, {});
    s.outcome = "Failure";
    s.reason = std::move(reason);
    s.message = std::move(message);
    if (retry_after > 0) {
        s.details = status_details{};
        s.details->retry_after_seconds = retry_after;
    }
    return apiserver::http::status_response(error::from_status(std::move(s)));
}

apiserver::server_options server_options(std::uint64_t seed) {
    apiserver::server_options o;
    o.listen = false;
    o.store.random_seed = seed;
    o.store.simulate_workloads = true;
    o.store.simulate_delay = 1000ms;
    o.gc_interval = 500ms;
    o.simulate_interval = 500ms;
    return o;
}

} // namespace

void world::trace_sink::write(std::string_view line) {
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    if (line.find("Write refused: the leader lease") != std::string_view::npos) ++w->guard_refusals_;
    w->tr_.line(w->clk_.now(), "log", line);
}

world::world(const sim_options& o, replica_config rc)
    : o_(o), rng_(o.seed), tr_(o.print_trace), srv_(io_.get_executor(), clk_, server_options(o.seed)),
      rc_(std::move(rc)), sink_(std::make_shared<trace_sink>(this)) {
    if (!srv_.start()) throw std::runtime_error("kcoro-apiserver did not start");
    srv_.handler().set_close_streams([this] {
        for (auto& p : peers_) {
            if (p->t) p->t->close_streams(client::stream_end::clean);
        }
    });
    admin_ = &add_peer("admin", false);
    user_ = &add_peer("user", false);
}

world::~world() { shut_down(); }

void world::shut_down() {
    if (shut_down_) return;
    shut_down_ = true;
    faults_on_ = user_on_ = false;
    stopping_ = true;
    for (auto& r : replicas_) {
        if (!r->exit) r->crash.emit(asio::cancellation_type::terminal);
    }
    io::run_virtual(io_, clk_, [&] { return running_replicas() == 0 && actors_ == 0; }, clk_.now() + 1h);
    replicas_.clear();
    for (auto& p : peers_) {
        if (p->t) p->t->close_streams(client::stream_end::clean);
        p->c.reset();
        p->t = nullptr;
    }
    srv_.stop(0ms);
    io::run_virtual(io_, clk_, [] { return false; }, clk_.now() + 1h);
}

std::size_t world::running_replicas() const {
    std::size_t n = 0;
    for (const auto& r : replicas_) n += r->exit ? 0 : 1;
    return n;
}

void world::violation(std::string what) {
    // One report per distinct message: the run goes on, the trace shows the rest.
    if (!reported_.insert(what).second) return;
    std::string line = fmt_time(clk_.now()) + " " + what;
    tr_.line(clk_.now(), "VIOLATION", what);
    violations_.push_back(std::move(line));
}

world::peer& world::add_peer(std::string name, bool op) {
    auto p = std::make_unique<peer>();
    p->name = std::move(name);
    p->op = op;
    client::memory_transport_options mo;
    mo.user_agent = (op ? rc_.name + "/" : "sim-") + p->name;
    mo.remote_address = p->name + ":0";
    peer* raw = p.get();
    p->clock = std::make_unique<stall_clock>(clk_);
    auto t = std::make_unique<client::memory_transport>(
        *p->clock, [this, raw](io::http_request r) { return intercept(raw, std::move(r)); }, mo);
    p->t = t.get();
    client::client_config cfg;
    cfg.server = srv_.url();
    cfg.ns = std::string(user_ns);
    p->c = client::client::create(cfg, *p->clock, std::move(t));
    peers_.push_back(std::move(p));
    return *peers_.back();
}

// --- replicas ---------------------------------------------------------------

void world::start_replica() {
    auto r = std::make_unique<replica>();
    r->identity = "op-" + std::to_string(++generation_);
    r->p = &add_peer(r->identity, true);

    server::manager_options mo;
    mo.metrics_bind_address = "0";
    mo.health_probe_bind_address = "0";
    mo.leader_elect = rc_.leader_elect;
    mo.leader_election_namespace = rc_.lease_namespace;
    mo.leader_election_id = rc_.lease_name;
    mo.sharding_ring = rc_.sharding_ring;
    mo.log_level = "info";
    // What --max-concurrent-reconciles gives (manager_setup's default only
    // applies to from_flags).
    if (rc_.max_concurrent_reconciles) mo.max_concurrent_reconciles = static_cast<std::int64_t>(rc_.max_concurrent_reconciles);
    server::manager_setup s;
    s.name = rc_.name;
    s.io_context = &io_;
    s.clock = r->p->clock.get();
    s.client = r->p->c.get();
    s.sink = sink_;
    s.handle_signals = false;
    s.identity = r->identity;
    s.leader_election_release_on_cancel = true;
    s.random = [this] { return rng_.real(); };
    auto m = server::manager::create(std::move(mo), std::move(s));
    if (!m) {
        violation("manager did not start: " + m.error().message());
        return;
    }
    r->mgr = std::move(*m);
    install(*r);
    tr_.line(clk_.now(), "replica", "start " + r->identity);
    auto* rp = r.get();
    asio::co_spawn(io_, r->mgr->run_async(),
                   asio::bind_cancellation_slot(rp->crash.slot(), [this, rp](std::exception_ptr e, int code) {
                       rp->exit = e ? -1 : code;
                       tr_.line(clk_.now(), "replica", rp->identity + " exited " + std::to_string(*rp->exit));
                       // Exited by itself (leadership lost): restarted, as
                       // its Deployment's kubelet would. A clean removal
                       // (the Deployment scaled down) is not.
                       if (!rp->crashed && !rp->removed && !stopping_) {
                           asio::co_spawn(io_, restart_later(rp), asio::detached);
                       }
                   }));
    replicas_.push_back(std::move(r));
}

// A kill -9 of one replica at a random moment, and a fresh one on the same store.
asio::awaitable<void> world::crash_and_restart(replica* r) {
    ++actors_;
    ++pending_starts_;
    tr_.line(clk_.now(), "fault", "crash " + r->identity);
    r->crashed = true;
    r->crash.emit(asio::cancellation_type::terminal);
    while (!r->exit) {
        if (co_await clk_.sleep_for(100ms)) break;
    }
    r->mgr.reset();
    r->keep.reset();
    r->p->c.reset();
    r->p->t = nullptr;
    auto restart_after = rng_.millis(1s, 20s);
    co_await clk_.sleep_for(restart_after);
    if (!stopping_) start_replica();
    --pending_starts_;
    --actors_;
}

asio::awaitable<void> world::restart_later(replica* r) {
    ++actors_;
    ++pending_starts_;
    r->crashed = true;  // handled
    auto backoff = rng_.millis(5s, 15s);
    co_await clk_.sleep_for(backoff);
    r->mgr.reset();
    r->keep.reset();
    r->p->c.reset();
    r->p->t = nullptr;
    if (!stopping_) start_replica();
    --pending_starts_;
    --actors_;
}

// --- the interposer: latency, faults, request-level invariants --------------

asio::awaitable<void> world::hold_while_stalled(peer* p) {
    while (p->clock && p->clock->stalled()) {
        const auto until = p->clock->stalled_until();
        co_await clk_.sleep_until(until);
    }
}

void world::check_leader_safety(peer& p, const target_info& t) {
    // Leader safety: every write but the lease's own goes out while this
    // replica holds a lease that nobody else could have taken yet. Events
    // are not leader-gated (the recorder flushes what a reconcile recorded,
    // also after the leadership ended, as controller-runtime's broadcaster
    // does): not checked.
    if (!rc_.leader_elect || t.resource == "leases" || t.resource == "events") return;
    const auto now = clk_.wall_now();
    auto lease = srv_.store().get(resources::leases(), rc_.lease_namespace, rc_.lease_name);
    bool ok = false;
    if (lease) {
        auto rec = runtime::record_of(*lease);
        auto renewed = parse_rfc3339(rec.renew_time);
        ok = rec.holder_identity == p.name && renewed &&
             now <= *renewed + std::chrono::seconds(rec.lease_duration_seconds);
    }
    if (!ok) {
        violation("leader safety: " + p.name + " sent " + t.verb + " " + t.resource + " " + t.name +
                  " without a valid lease");
    }
}

io::http_stream world::wrap_stream(peer* p, std::uint64_t id, io::http_stream s) {
    auto inner = std::make_shared<std::function<asio::awaitable<void>(io::http_stream_writer&)>>(std::move(s.body));
    s.body = [this, p, id, inner](io::http_stream_writer& w) -> asio::awaitable<void> {
        struct traced final : io::http_stream_writer {
            world* self;
            peer* p;
            std::uint64_t id;
            io::http_stream_writer* w;
            bool dropped = false;
            asio::awaitable<bool> write(std::string chunk) override {
                if (dropped) co_return false;
                std::size_t lines = 0;
                for (char c : chunk) lines += c == '\n';
                self->tr_.mix(chunk);
                self->tr_.line(self->clk_.now(), "event",
                               "#" + std::to_string(id) + " " + p->name + " lines=" + std::to_string(lines) +
                                   " bytes=" + std::to_string(chunk.size()));
                if (self->faults_on_ && p->op && self->rng_.chance(0.01)) {
                    // The connection breaks mid-chunk: half a line arrives.
                    ++self->faults_;
                    self->tr_.line(self->clk_.now(), "fault", "#" + std::to_string(id) + " stream cut mid-chunk");
                    dropped = true;
                    auto half = chunk.substr(0, chunk.size() / 2);
                    co_await w->write(std::move(half));
                    co_return false;
                }
                co_await self->hold_while_stalled(p);  // a stopped process reads nothing
                if (self->rc_.lagging_watches && self->faults_on_ && p->op && self->rng_.chance(0.05)) {
                    ++self->faults_;
                    const auto lag = self->rng_.millis(50ms, 2s);
                    self->tr_.line(self->clk_.now(), "fault",
                                   "#" + std::to_string(id) + " event delayed " + std::to_string(lag.count()) + "ms");
                    co_await self->clk_.sleep_for(lag);
                }
                co_return co_await w->write(std::move(chunk));
            }
        };
        traced tw;
        tw.self = this;
        tw.p = p;
        tw.id = id;
        tw.w = &w;
        auto op = (*inner)(tw);
        co_await std::move(op);
        tr_.line(clk_.now(), "event", "#" + std::to_string(id) + " end");
    };
    return s;
}

asio::awaitable<io::http_reply> world::intercept(peer* p, io::http_request req) {
    const auto id = ++req_seq_;
    const auto t = parse_target(req.method, req.target);
    // A replica's reconcile request in flight (not a watch, the lease or an
    // Event): while there is one, the world is not settled (converged_now).
    struct in_flight {
        int* n;
        ~in_flight() {
            if (n) --*n;
        }
    } counted{nullptr};
    if (p->op && t.verb != "watch" && t.resource != "leases" && t.resource != "events") {
        counted.n = &ops_in_flight_;
        ++ops_in_flight_;
    }
    tr_.line(clk_.now(), "req", "#" + std::to_string(id) + " " + p->name + " " + req.method + " " + req.target);
    // Sharded: checked as it is sent (what the replica holds then; its
    // reconcile is in flight until the answer, so a draining range stays held).
    if (p->op && t.write && !shut_down_ && !rc_.sharding_ring.empty()) check_shard_safety(*p, t, req);
    if (clk_.now() < p->partitioned_until) {
        // Partitioned away: nothing reaches the server.
        tr_.line(clk_.now(), "fault", "#" + std::to_string(id) + " partitioned");
        co_await hold_while_stalled(p);
        co_return io::http_drop{};
    }
    // Request latency: a few milliseconds, sometimes a spike.
    auto latency = rng_.chance(0.02) ? rng_.millis(200ms, 3s) : rng_.millis(1ms, 8ms);
    co_await clk_.sleep_for(latency);
    if (p->op && t.write && t.resource == "events") ++p->event_writes;
    if (p->op && t.write && t.resource != "leases" && t.resource != "events" && !shut_down_ && counts_as_write(t, req)) {
        ++p->writes;
    }
    if (faults_on_ && p->op && t.verb == "get" && t.resource != "leases" && rng_.chance(0.002)) {
        // Stalled in the middle of a reconcile (a GC pause right after a
        // read): the answer waits, and so does everything else of it.
        ++faults_;
        const auto d = rng_.millis(15s, 60s);
        p->clock->stall_until(clk_.now() + d);
        tr_.line(clk_.now(), "fault", "#" + std::to_string(id) + " stall " + p->name + " for " + std::to_string(d.count()) + "ms");
    }
    if (o_.no_write_guard && p->op && t.resource == "leases" && p->c) {
        // The defect: the manager installed its write guard before its
        // elector's first lease request; this replica runs without it.
        p->c->set_write_guard(p, {});
    }
    if (p->op && t.write && !shut_down_) {
        if (rc_.sharding_ring.empty()) check_leader_safety(*p, t);
        else check_shard_lease(*p, t);
        check_write(*p, t, req);
    }

    enum class fault { none, e500, e503, e429, lost_ack, read_timeout, expired, too_large };
    fault f = fault::none;
    const std::uint64_t rv = t.resource_version;
    if (faults_on_ && p->op) {
        const double x = rng_.real();
        if (t.verb == "watch") {
            if (x < 0.05) f = fault::expired;
            else if (x < 0.065 && rv > 0) f = fault::too_large;  // an apiserver whose cache lags ours
        } else if (t.verb == "list" && rv > 0 && x >= 0.095 && x < 0.11) {
            f = fault::too_large;
        } else if (x < 0.02) {
            f = fault::e500;
        } else if (x < 0.035) {
            f = fault::e503;
        } else if (x < 0.06) {
            f = fault::e429;
        } else if (t.write && x < 0.09) {
            f = fault::lost_ack;
        } else if (x < 0.095 && (!t.write || o_.late_writes)) {
            f = fault::read_timeout;
        }
    }
    const std::string tag = "#" + std::to_string(id) + " ";
    switch (f) {
    case fault::none:
    case fault::lost_ack:
        break;
    case fault::e500:
        ++faults_;
        tr_.line(clk_.now(), "fault", tag + "500");
        co_return status_reply(500, "InternalError", "Internal error occurred: injected");
    case fault::e503:
        ++faults_;
        tr_.line(clk_.now(), "fault", tag + "503");
        co_return status_reply(503, "ServiceUnavailable", "the server is currently unable to handle the request");
    case fault::e429: {
        ++faults_;
        const int ra = static_cast<int>(rng_.between(1, 5));
        tr_.line(clk_.now(), "fault", tag + "429 retryAfter=" + std::to_string(ra));
        co_return status_reply(429, "TooManyRequests", "the server has received too many requests", ra);
    }
    case fault::read_timeout: {
        // The answer comes after the client's 60 s deadline; a write commits
        // after its client gave up.
        ++faults_;
        tr_.line(clk_.now(), "fault", tag + (t.write ? "late write" : "read timeout"));
        if (t.write) note_late_write(*p, t, req);
        ++late_pending_;
        co_await clk_.sleep_for(61s);
        --late_pending_;
        break;
    }
    case fault::too_large: {
        // Another apiserver replica, whose watch cache is behind the revision
        // asked for (after a failover): a list gets the 504, a watch the
        // ERROR event, as kcoro-apiserver answers them (docs/apiserver.md).
        ++faults_;
        tr_.line(clk_.now(), "fault", tag + "too large resource version");
        auto e = apiserver::errors::too_large_resource_version(rv, rv > 1 ? rv - 1 : 0);
        if (t.verb == "list") co_return apiserver::http::status_response(e);
        io::http_stream s;
        auto line = std::string("{\"type\":\"ERROR\",\"object\":") + json::serialize(encode_status(*e.api_status())) + "}\n";
        s.body = [line](io::http_stream_writer& w) -> asio::awaitable<void> {
            auto chunk = line;
            co_await w.write(std::move(chunk));
        };
        co_await hold_while_stalled(p);
        co_return s;
    }
    case fault::expired: {
        ++faults_;
        tr_.line(clk_.now(), "fault", tag + "watch 410 Expired");
        io::http_stream s;
        auto line = std::string("{\"type\":\"ERROR\",\"object\":") +
                    json::serialize(encode_status(*apiserver::errors::expired(
                        "too old resource version: 1 (" + std::to_string(srv_.store().current_revision()) + ")")
                                                       .api_status())) +
                    "}\n";
        s.body = [line](io::http_stream_writer& w) -> asio::awaitable<void> {
            auto chunk = line;
            co_await w.write(std::move(chunk));
        };
        co_await hold_while_stalled(p);
        co_return s;
    }
    }

    auto op = srv_.handler()(std::move(req));
    auto reply = co_await std::move(op);
    if (auto* r = std::get_if<io::http_response>(&reply)) {
        tr_.mix(r->body);
        tr_.line(clk_.now(), "resp", tag + std::to_string(r->status) + " bytes=" + std::to_string(r->body.size()));
        if (o_.handover_without_release && p->op && t.resource == "leases" && t.verb == "list" && r->status == 200) {
            r->body = forge_releases(r->body, p->name);
        }
        // What the client received: not an answer it gave up waiting for
        // (read timeout) or one that never arrives (lost acknowledgement).
        if (p->op && !shut_down_ && f != fault::read_timeout && f != fault::lost_ack) note_response(*p, t, *r);
        if (f == fault::lost_ack && r->status < 300) {
            ++faults_;
            tr_.line(clk_.now(), "fault", tag + "lost acknowledgement (committed)");
            co_await hold_while_stalled(p);
            co_return io::http_drop{};
        }
        // Response latency.
        co_await clk_.sleep_for(rng_.millis(1ms, 4ms));
        co_await hold_while_stalled(p);
        co_return reply;
    }
    if (auto* s = std::get_if<io::http_stream>(&reply)) {
        tr_.line(clk_.now(), "resp", tag + std::to_string(s->status) + " stream");
        co_await hold_while_stalled(p);
        co_return wrap_stream(p, id, std::move(*s));
    }
    tr_.line(clk_.now(), "resp", tag + "dropped");
    co_await hold_while_stalled(p);
    co_return reply;
}

// --- state invariants ---------------------------------------------------------

void world::check_state() {
    std::size_t leaders = 0;
    std::string who;
    for (const auto& r : replicas_) {
        // Leading: it believes so and its local lease validity holds (a
        // stalled replica still believes it leads until it resumes; the
        // write guard keeps it from acting on it).
        if (r->mgr && !r->exit && r->mgr->is_leader() && r->mgr->elector() && r->mgr->elector()->may_write()) {
            ++leaders;
            who += " " + r->identity;
        }
    }
    if (leaders > 1) violation("leader safety: two replicas lead at once:" + who);
    if (!rc_.sharding_ring.empty()) check_shard_state();

    if (srv_.store().current_revision() == checked_rev_) return;
    checked_rev_ = srv_.store().current_revision();
    check_store();
}

// --- the user and the fault injector ------------------------------------------

asio::awaitable<void> world::user_loop() {
    ++actors_;
    while (user_on_) {
        auto pause = rng_.millis(500ms, 20s);
        if (co_await clk_.sleep_for(pause)) break;
        if (!user_on_) break;
        co_await user_step();
    }
    --actors_;
}

world::peer* world::running_replica_peer() {
    std::vector<peer*> ops;
    for (auto& r : replicas_) {
        if (!r->exit && r->p->t) ops.push_back(r->p);
    }
    return ops.empty() ? nullptr : ops[rng_.below(ops.size())];
}

asio::awaitable<void> world::fault_loop() {
    ++actors_;
    while (faults_on_) {
        auto pause = rng_.millis(5s, 90s);
        if (co_await clk_.sleep_for(pause)) break;
        if (!faults_on_) break;
        const double x = rng_.real();
        ++faults_;
        if (x < 0.22) {
            tr_.line(clk_.now(), "fault", "close every watch");
            srv_.close_watches();
        } else if (x < 0.40) {
            auto& p = *peers_[rng_.below(peers_.size())];
            tr_.line(clk_.now(), "fault", "cut the streams of " + p.name);
            if (p.t) p.t->close_streams(client::stream_end::cut);
        } else if (x < 0.55) {
            // One replica partitioned away (its requests fail) while the other may take over.
            if (auto* p = running_replica_peer()) {
                const auto d = rng_.millis(5s, 40s);
                p->partitioned_until = clk_.now() + d;
                tr_.line(clk_.now(), "fault", "partition " + p->name + " for " + std::to_string(d.count()) + "ms");
            }
        } else if (x < 0.67) {
            tr_.line(clk_.now(), "fault", "compact at revision " + std::to_string(srv_.store().current_revision()));
            srv_.store().compact();
            if (rng_.chance(0.5)) srv_.close_watches();
        } else if (x < 0.8) {
            // One replica stalled (SIGSTOP, a GC pause): its timers and what
            // reaches it wait until it resumes; long enough, mostly, for the
            // other to take its lease over (15 s after its last renewal).
            if (auto* p = running_replica_peer()) {
                const auto d = rng_.millis(5s, 60s);
                p->clock->stall_until(clk_.now() + d);
                tr_.line(clk_.now(), "fault", "stall " + p->name + " for " + std::to_string(d.count()) + "ms");
            }
        } else if (!rc_.sharding_ring.empty() && x >= 0.89) {
            // The Deployment scaled: a replica leaves the ring cleanly
            // (SIGTERM: drop, drain, release) or one joins; 3 to 5 members.
            const auto n = members();
            const auto alive = running(true);
            if (n < 5 && (n <= 3 || alive.empty() || rng_.chance(0.5))) {
                tr_.line(clk_.now(), "fault", "add a replica");
                start_replica();
            } else if (!alive.empty()) {
                auto* r = alive[rng_.below(alive.size())];
                r->removed = true;
                tr_.line(clk_.now(), "fault", "remove " + r->identity + " (clean stop)");
                r->mgr->request_stop();
            }
        } else {
            const auto alive = running(false);
            if (!alive.empty()) {
                auto* r = alive[rng_.below(alive.size())];
                asio::co_spawn(io_, crash_and_restart(r), asio::detached);
            }
        }
    }
    --actors_;
}

// --- the run ----------------------------------------------------------------

bool world::converged_now() {
    // The store as it should be, and no reconcile waiting on an answer that
    // could still change it (a write held by a latency spike, say).
    return ops_in_flight_ == 0 && (rc_.sharding_ring.empty() || ring_covered(nullptr)) && converged(nullptr);
}

// --- sharded ------------------------------------------------------------------

namespace {

std::string range_text(const runtime::hash_range& r) { return "[" + runtime::hash_hex(r.first) + ", " + runtime::end_hex(r) + ")"; }

} // namespace

std::vector<world::replica*> world::running(bool staying) const {
    std::vector<replica*> out;
    for (const auto& r : replicas_) {
        if (!r->exit && !r->crashed && !(staying && r->removed)) out.push_back(r.get());
    }
    return out;
}

std::size_t world::members() const { return static_cast<std::size_t>(pending_starts_) + running(true).size(); }

runtime::shard_member* world::valid_member(replica& r) const {
    // A killed process holds nothing (its coroutines are being cancelled).
    if (!r.mgr || r.exit || r.crashed) return nullptr;
    auto* m = r.mgr->shard();
    return m && !m->finished() && clk_.now() < m->state().valid_until() ? m : nullptr;
}

runtime::hash_ranges world::held(replica& r) const {
    auto* m = valid_member(r);
    return m ? runtime::unite(m->state().active(), m->state().draining()) : runtime::hash_ranges{};
}

world::replica* world::replica_of(const peer& p) {
    for (auto& r : replicas_) {
        if (r->p == &p) return r.get();
    }
    return nullptr;
}

void world::check_shard_safety(peer& p, const target_info& t, const io::http_request& req) {
    if (t.resource == "leases" || t.resource == "events") return;
    const std::string uid = primary_uid_of_write(t, req);
    if (uid.empty()) return;
    const auto h = runtime::fnv1a64(uid);
    const std::string what = p.name + " sent " + t.verb + " " + t.resource + " " + t.name + " for uid " + uid + " (hash " +
                             runtime::hash_hex(h) + ")";
    auto* self = replica_of(p);
    if (!self || !runtime::contains(held(*self), h)) violation("shard safety: " + what + " outside what it holds");
    for (auto& q : replicas_) {
        if (q.get() != self && runtime::contains(held(*q), h)) {
            violation("shard safety: " + what + " while " + q->identity + " holds it");
        }
    }
}

void world::check_shard_lease(peer& p, const target_info& t) {
    // As leader safety: every write but the Leases' and Events' reaches the
    // server while the writer's own shard Lease names it and has not expired.
    if (t.resource == "leases" || t.resource == "events") return;
    auto lease = srv_.store().get(resources::leases(), rc_.lease_namespace,
                                  runtime::shard_lease_name(rc_.sharding_ring, p.name));
    bool ok = false;
    if (lease) {
        auto l = runtime::shard_lease_of(*lease);
        auto renewed = parse_rfc3339(l.renew_time);
        ok = l.holder == p.name && renewed && clk_.wall_now() <= *renewed + std::chrono::seconds(l.lease_duration_seconds);
    }
    if (!ok) {
        violation("shard safety: " + p.name + " sent " + t.verb + " " + t.resource + " " + t.name +
                  " without a valid shard Lease");
    }
}

void world::check_shard_state() {
    // No hash held (active or draining) by two replicas whose validity lasts.
    std::vector<std::pair<const replica*, runtime::hash_ranges>> holders;
    for (auto& r : replicas_) {
        auto h = held(*r);
        if (!h.empty()) holders.emplace_back(r.get(), std::move(h));
    }
    for (std::size_t i = 0; i < holders.size(); ++i) {
        for (std::size_t j = i + 1; j < holders.size(); ++j) {
            auto both = runtime::intersect(holders[i].second, holders[j].second);
            if (!both.empty()) {
                violation("shard safety: " + holders[i].first->identity + " and " + holders[j].first->identity +
                          " both hold " + range_text(both.front()) +
                          (both.size() > 1 ? " and " + std::to_string(both.size() - 1) + " more ranges" : ""));
            }
        }
    }
}

bool world::ring_covered(std::string* why) {
    runtime::hash_ranges all;
    for (auto& r : replicas_) {
        if (auto* m = valid_member(*r)) all = runtime::unite(all, m->state().active());
    }
    const runtime::hash_ranges space{{0, ~std::uint64_t{0}}};
    if (all == space) return true;
    if (why) {
        auto missing = runtime::subtract(space, all);
        *why = "the ring leaves " + std::to_string(missing.size()) + " ranges unowned, the first " +
               range_text(missing.front());
    }
    return false;
}

std::string world::forge_releases(std::string_view body, const std::string& self) const {
    boost::system::error_code ec;
    auto v = json::parse(body, ec);
    if (ec || !v.is_object()) return std::string(body);
    auto* items = v.as_object().if_contains("items");
    if (!items || !items->is_array()) return std::string(body);
    std::optional<std::uint64_t> own_gen;
    for (const auto& it : items->get_array()) {
        if (!it.is_object()) continue;
        auto l = runtime::shard_lease_of(it.get_object());
        if (l.holder == self && l.announcement) own_gen = l.announcement->generation;
    }
    for (auto& it : items->get_array()) {
        if (!it.is_object()) continue;
        auto l = runtime::shard_lease_of(it.get_object());
        if (l.holder == self || !l.announcement) continue;
        auto a = *l.announcement;
        a.claimed.clear();
        if (own_gen) a.acks[self] = *own_gen;
        it.get_object()["metadata"].as_object()["annotations"].as_object()[runtime::shard_state_annotation] =
            runtime::to_annotation(a);
    }
    return json::serialize(v);
}

asio::awaitable<void> world::kubelet_loop() {
    // /healthz fails ("sharding") once a replica's membership ended (its
    // Lease lost or its validity passed); three failed probes 10 s apart and
    // the kubelet kills it and starts another.
    while (!stopping_) {
        if (co_await clk_.sleep_for(10s)) break;
        if (stopping_) break;
        for (auto* r : running(true)) {
            auto* m = r->mgr ? r->mgr->shard() : nullptr;
            r->failed_probes = m && m->finished() ? r->failed_probes + 1 : 0;
            if (r->failed_probes >= 3) {
                tr_.line(clk_.now(), "kubelet", r->identity + " failed its liveness probe 3 times: restarted");
                asio::co_spawn(io_, crash_and_restart(r), asio::detached);
            }
        }
    }
}

std::uint64_t world::writes() const {
    std::uint64_t n = 0;
    for (const auto& p : peers_) n += p->writes;
    return n;
}

std::uint64_t world::event_writes() const {
    std::uint64_t n = 0;
    for (const auto& p : peers_) n += p->event_writes;
    return n;
}

sim_result world::run() {
    sim_result out;
    io::virtual_run_stats stats;
    tr_.line(clk_.now(), "sim", "seed " + std::to_string(o_.seed));
    set_up();
    for (int i = 0; i < o_.replicas; ++i) start_replica();
    if (!rc_.sharding_ring.empty()) asio::co_spawn(io_, kubelet_loop(), asio::detached);

    auto settle_check = [&] {
        check_state();
        return false;
    };
    // Chaos.
    faults_on_ = user_on_ = true;
    asio::co_spawn(io_, user_loop(), asio::detached);
    asio::co_spawn(io_, fault_loop(), asio::detached);
    io::run_virtual(io_, clk_, settle_check, clk_.now() + o_.chaos, &stats);

    // Faults and user stop.
    faults_on_ = user_on_ = false;
    tr_.line(clk_.now(), "sim", "chaos over");
    // ... and what they delayed has happened (a late write commits up to 61 s on).
    io::run_virtual(io_, clk_, [&] { check_state(); return actors_ == 0 && late_pending_ == 0; }, clk_.now() + 10min,
                    &stats);
    before_converge();
    if (running_replicas() == 0) start_replica();

    // Liveness.
    const auto converge_start = clk_.now();
    bool ok = io::run_virtual(
        io_, clk_, [&] { check_state(); return converged_now(); }, clk_.now() + o_.converge_bound, &stats);
    if (!ok) {
        std::string why;
        if (!rc_.sharding_ring.empty() && !ring_covered(&why)) why += "; ";
        std::string store_why;
        converged(&store_why);
        why += store_why;
        violation("liveness: not converged " + fmt_time(steady_time{} + o_.converge_bound) + " after the faults stopped: " +
                  why);
    } else {
        tr_.line(clk_.now(), "sim",
                 "converged after " + fmt_time(steady_time{} + (clk_.now() - converge_start)));
    }
    if (ok && after_converge()) {
        const auto again = clk_.now();
        if (!io::run_virtual(io_, clk_, [&] { check_state(); return converged_now(); }, clk_.now() + o_.converge_bound,
                             &stats)) {
            std::string why;
            converged(&why);
            violation("liveness: not converged again within " + fmt_time(steady_time{} + o_.converge_bound) +
                      " once the world changed after convergence: " + why);
            ok = false;
        } else {
            tr_.line(clk_.now(), "sim", "converged again after " + fmt_time(steady_time{} + (clk_.now() - again)));
        }
    }

    // Efficiency: quiet and converged, nobody writes (lease renewals aside;
    // the world's nudges are events that must change nothing). Event
    // series recorded before end within 6 min + a tick, with their final
    // count (event_aggregator, client-go's rules): Events are counted from
    // 8 minutes in.
    const auto quiet_end = clk_.now() + o_.quiet;
    const std::uint64_t before = writes();
    if (ok) nudge();
    io::run_virtual(io_, clk_, settle_check, std::min(quiet_end, clk_.now() + 8min), &stats);
    const std::uint64_t events_before = event_writes();
    io::run_virtual(io_, clk_, settle_check, quiet_end, &stats);
    if (ok && writes() != before) {
        violation("efficiency: " + std::to_string(writes() - before) + " writes in a quiet converged period of " +
                  fmt_time(steady_time{} + o_.quiet));
    }
    if (ok && event_writes() != events_before) {
        violation("efficiency: " + std::to_string(event_writes() - events_before) +
                  " Event writes in a quiet converged period, after the series tails");
    }
    if (std::string why; ok && !converged(&why)) violation("converged state lost in the quiet period: " + why);

    out.violations = violations_;
    out.trace_hash = tr_.hash();
    out.trace_lines = tr_.lines();
    out.requests = req_seq_;
    out.faults = faults_;
    out.guard_refusals = guard_refusals_;
    out.handlers = stats.handlers;
    out.virtual_time = clk_.now().time_since_epoch();
    shut_down();
    return out;
}

sim_result run_seed(const sim_options& opts) {
    auto w = opts.world == world_kind::configmap_mirror ? make_mirror_world(opts) : make_operator_world(opts);
    return w->run();
}

} // namespace kcoro::sim
