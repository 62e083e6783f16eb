// One simulated world (sim.hpp): the server, the peers (each client with its
// memory transport and the interposer that injects faults and checks the
// request-level invariants), the operator replicas, the user and the fault
// injector.
#include "sim.hpp"

#include "prng.hpp"
#include "trace.hpp"

#include "controller_setup.hpp"
#include "desired_state.hpp"
#include "instance_status.hpp"
#include "server.hpp"
#include "store/status_errors.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/client/memory_transport.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/core/status.hpp>
#include <kcoro/core/time.hpp>
#include <kcoro/core/yaml.hpp>
#include <kcoro/io/virtual_time.hpp>
#include <kcoro/runtime/conditions.hpp>
#include <kcoro/runtime/leader_election_fsm.hpp>
#include <kcoro/server/manager.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/serialize.hpp>

#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

namespace kcoro::sim {

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

constexpr std::string_view ns = "default";
constexpr std::string_view registry_ns = "kcoro-system";
constexpr std::string_view lease_name = "gateway-operator.gateway.kcoro.dev";
constexpr int instance_names = 4;

std::string fmt_time(steady_time t) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    return std::to_string(ms / 1000) + "." + std::to_string(1000 + ms % 1000).substr(1) + "s";
}

// What a request is about, from its method and target.
struct target_info {
    std::string verb;
    std::string resource;
    std::string ns;
    std::string name;
    std::string sub;
    bool write = false;
};

target_info parse_target(std::string_view method, std::string_view target) {
    target_info t;
    std::string_view path = target.substr(0, target.find('?'));
    std::string_view query = target.size() > path.size() ? target.substr(path.size()) : std::string_view{};
    std::vector<std::string_view> seg;
    for (std::size_t i = 1; i <= path.size();) {
        auto j = path.find('/', i);
        if (j == std::string_view::npos) j = path.size();
        if (j > i) seg.push_back(path.substr(i, j - i));
        i = j + 1;
    }
    std::size_t idx = !seg.empty() && seg[0] == "api" ? 2 : 3;
    if (idx + 1 < seg.size() && seg[idx] == "namespaces" && idx + 2 < seg.size()) {
        t.ns = std::string(seg[idx + 1]);
        idx += 2;
    }
    if (idx < seg.size()) t.resource = std::string(seg[idx]);
    if (idx + 1 < seg.size()) t.name = std::string(seg[idx + 1]);
    if (idx + 2 < seg.size()) t.sub = std::string(seg[idx + 2]);
    const bool watch = query.find("watch=true") != std::string_view::npos;
    if (method == "GET") t.verb = watch ? "watch" : t.name.empty() ? "list" : "get";
    else if (method == "POST") t.verb = "create";
    else if (method == "PUT") t.verb = "update";
    else if (method == "PATCH") t.verb = "patch";
    else if (method == "DELETE") t.verb = "delete";
    t.write = method != "GET";
    return t;
}

json::object read_yaml_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    auto doc = parse_yaml(ss.str());
    if (!doc || !doc->is_object()) throw std::runtime_error("cannot read " + path);
    return doc->as_object();
}

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

} // namespace

class world {
public:
    explicit world(const sim_options& o);
    ~world();
    sim_result run();

private:
    struct peer {
        std::string name;
        bool op = false;  // an operator replica's client
        std::unique_ptr<client::client> c;
        client::memory_transport* t = nullptr;
        std::uint64_t writes = 0;        // writes sent but the lease's and Events
        std::uint64_t event_writes = 0;  // Events (created, series patched)
        steady_time partitioned_until{};  // its requests fail until then
        // The instance as this peer last read it (name -> object; null: 404).
        std::map<std::string, std::shared_ptr<const json::object>> seen;
    };
    struct replica {
        std::string identity;
        peer* p = nullptr;
        std::unique_ptr<server::manager> mgr;
        std::optional<int> exit;
        asio::cancellation_signal crash;
        bool crashed = false;
    };
    struct trace_sink final : log_sink {
        world* w;
        explicit trace_sink(world* wp) : w(wp) {}
        void write(std::string_view line) override {
            if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
            if (line.find("Write refused: the leader lease") != std::string_view::npos) ++w->guard_refusals_;
            w->tr_.line(w->clk_.now(), "log", line);
        }
    };

    peer& add_peer(std::string name, bool op);
    void start_replica();
    asio::awaitable<void> crash_and_restart(replica* r);
    asio::awaitable<void> restart_later(replica* r);
    asio::awaitable<io::http_reply> intercept(peer* p, io::http_request req);
    io::http_stream wrap_stream(peer* p, std::uint64_t id, io::http_stream s);
    void check_request(peer& p, const target_info& t);
    void note_seen(peer& p, const target_info& t, const io::http_response& r);
    void check_state();
    bool converged(std::string* why);
    void violation(std::string what);
    asio::awaitable<void> user_loop();
    asio::awaitable<void> user_step();
    asio::awaitable<void> fault_loop();
    template <class T>
    T run_now(asio::awaitable<T> a);
    std::size_t running_replicas() const;

    sim_options o_;
    prng rng_;
    trace tr_;
    asio::io_context io_;
    io::manual_clock clk_;
    apiserver::server srv_;
    std::shared_ptr<trace_sink> sink_;
    std::vector<std::unique_ptr<peer>> peers_;
    std::vector<std::unique_ptr<replica>> replicas_;
    peer* admin_ = nullptr;
    peer* user_ = nullptr;
    bool faults_on_ = false;
    bool user_on_ = false;
    bool stopping_ = false;  // teardown: no restarts
    int actors_ = 0;
    int generation_ = 0;
    std::vector<std::string> violations_;
    std::set<std::string> reported_;
    std::uint64_t req_seq_ = 0;
    std::uint64_t faults_ = 0;
    std::uint64_t guard_refusals_ = 0;
    apiserver::revision_t checked_rev_ = 0;
    std::set<std::string> known_uids_;  // instances that existed
    std::set<std::string> foreign_;     // Deployments the user made by hand
};

namespace {
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

world::world(const sim_options& o)
    : o_(o), rng_(o.seed), tr_(o.print_trace), srv_(io_.get_executor(), clk_, server_options(o.seed)),
      sink_(std::make_shared<trace_sink>(this)) {
    if (!srv_.start()) throw std::runtime_error("kcoro-apiserver did not start");
    srv_.handler().set_close_streams([this] {
        for (auto& p : peers_) {
            if (p->t) p->t->close_streams(client::stream_end::clean);
        }
    });
    admin_ = &add_peer("admin", false);
    user_ = &add_peer("user", false);
}

world::~world() {
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
    mo.user_agent = (op ? "gateway-operator/" : "sim-") + p->name;
    mo.remote_address = p->name + ":0";
    peer* raw = p.get();
    auto t = std::make_unique<client::memory_transport>(
        clk_, [this, raw](io::http_request r) { return intercept(raw, std::move(r)); }, mo);
    p->t = t.get();
    client::client_config cfg;
    cfg.server = srv_.url();
    cfg.ns = "default";
    p->c = client::client::create(cfg, clk_, std::move(t));
    peers_.push_back(std::move(p));
    return *peers_.back();
}

template <class T>
T world::run_now(asio::awaitable<T> a) {
    std::optional<T> out;
    asio::co_spawn(io_, std::move(a), [&out](std::exception_ptr e, T v) {
        if (e) std::rethrow_exception(e);
        out.emplace(std::move(v));
    });
    io::run_virtual(io_, clk_, [&] { return out.has_value(); }, clk_.now() + 1h);
    if (!out) throw std::runtime_error("sim: an admin request did not complete");
    return std::move(*out);
}

// --- operator replicas ------------------------------------------------------

void world::start_replica() {
    auto r = std::make_unique<replica>();
    r->identity = "op-" + std::to_string(++generation_);
    r->p = &add_peer(r->identity, true);

    server::manager_options mo;
    mo.metrics_bind_address = "0";
    mo.health_probe_bind_address = "0";
    mo.leader_elect = true;
    mo.leader_election_namespace = std::string(registry_ns);
    mo.leader_election_id = std::string(lease_name);
    mo.log_level = "info";
    server::manager_setup s;
    s.name = "gateway-operator";
    s.io_context = &io_;
    s.clock = &clk_;
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
    gateway::reconciler_options ro;
    ro.registry_namespace = std::string(registry_ns);
    ro.defects = o_.defects;
    gateway::setup(*r->mgr, ro);
    tr_.line(clk_.now(), "replica", "start " + r->identity);
    auto* rp = r.get();
    asio::co_spawn(io_, r->mgr->run_async(),
                   asio::bind_cancellation_slot(rp->crash.slot(), [this, rp](std::exception_ptr e, int code) {
                       rp->exit = e ? -1 : code;
                       tr_.line(clk_.now(), "replica", rp->identity + " exited " + std::to_string(*rp->exit));
                       // Exited by itself (leadership lost): restarted, as
                       // its Deployment's kubelet would.
                       if (!rp->crashed && !stopping_) asio::co_spawn(io_, restart_later(rp), asio::detached);
                   }));
    replicas_.push_back(std::move(r));
}

// A kill -9 of one replica at a random moment, and a fresh one on the same store.
asio::awaitable<void> world::crash_and_restart(replica* r) {
    ++actors_;
    tr_.line(clk_.now(), "fault", "crash " + r->identity);
    r->crashed = true;
    r->crash.emit(asio::cancellation_type::terminal);
    while (!r->exit) {
        if (co_await clk_.sleep_for(100ms)) break;
    }
    r->mgr.reset();
    r->p->c.reset();
    r->p->t = nullptr;
    auto restart_after = rng_.millis(1s, 20s);
    co_await clk_.sleep_for(restart_after);
    if (!stopping_) start_replica();
    --actors_;
}

asio::awaitable<void> world::restart_later(replica* r) {
    ++actors_;
    r->crashed = true;  // handled
    auto backoff = rng_.millis(5s, 15s);
    co_await clk_.sleep_for(backoff);
    r->mgr.reset();
    r->p->c.reset();
    r->p->t = nullptr;
    if (!stopping_) start_replica();
    --actors_;
}

// --- the interposer: latency, faults, request-level invariants --------------

void world::note_seen(peer& p, const target_info& t, const io::http_response& r) {
    if (!p.op || t.resource != "gatewayinstances" || t.name.empty()) return;
    if (r.status == 404 && (t.verb == "get" || t.verb == "update" || t.verb == "patch")) {
        p.seen[t.name] = nullptr;
        return;
    }
    if (r.status >= 200 && r.status < 300 && t.verb != "delete") {
        auto obj = client::decode_object_body(r.body);
        if (obj && kind_of(**obj) == "GatewayInstance") p.seen[t.name] = *obj;
    }
}

void world::check_request(peer& p, const target_info& t) {
    if (!p.op || !t.write) return;
    const auto now = clk_.wall_now();
    // Leader safety: every write but the lease's own goes out while this
    // replica holds a lease that nobody else could have taken yet. Events
    // are not leader-gated (the recorder flushes what a reconcile recorded,
    // also after the leadership ended, as controller-runtime's broadcaster
    // does): not checked.
    if (t.resource != "leases" && t.resource != "events") {
        auto lease = srv_.store().get(resources::leases(), registry_ns, lease_name);
        bool ok = false;
        if (lease) {
            auto rec = runtime::record_of(*lease);
            auto renewed = parse_rfc3339(rec.renew_time);
            ok = rec.holder_identity == p.name && renewed &&
                 now <= *renewed + std::chrono::seconds(rec.lease_duration_seconds);
        }
        if (!ok) violation("leader safety: " + p.name + " sent " + t.verb + " " + t.resource + " " + t.name +
                           " without a valid lease");
    }
    if ((t.resource == "deployments" || t.resource == "services") && t.ns == ns && !t.name.empty()) {
        // No child written by a pass that saw its instance deleting or gone.
        auto it = p.seen.find(t.name);
        if (it != p.seen.end() && (!it->second || is_being_deleted(*it->second))) {
            violation("child written for a deleting instance: " + p.name + " " + t.verb + " " + t.resource + " " +
                      t.name + " (it last read the instance " +
                      (it->second ? "at resourceVersion " + std::string(resource_version_of(*it->second)) +
                                        ", deletionTimestamp " + std::string(deletion_timestamp_of(*it->second))
                                  : std::string("gone")) +
                      ")");
        }
        // A foreign object is never modified.
        if (t.verb != "create") {
            auto child = srv_.store().get(t.resource == "deployments" ? resources::deployments() : resources::services(),
                                          ns, t.name);
            if (child) {
                auto ctl = controller_of(*child);
                if (!ctl || ctl->kind != "GatewayInstance") {
                    violation("foreign object modified: " + p.name + " " + t.verb + " " + t.resource + " " + t.name);
                }
            }
        }
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
    tr_.line(clk_.now(), "req", "#" + std::to_string(id) + " " + p->name + " " + req.method + " " + req.target);
    if (clk_.now() < p->partitioned_until) {
        // Partitioned away: nothing reaches the server.
        tr_.line(clk_.now(), "fault", "#" + std::to_string(id) + " partitioned");
        co_return io::http_drop{};
    }
    // Request latency: a few milliseconds, sometimes a spike.
    auto latency = rng_.chance(0.02) ? rng_.millis(200ms, 3s) : rng_.millis(1ms, 8ms);
    co_await clk_.sleep_for(latency);
    if (p->op && t.write && t.resource == "events") ++p->event_writes;
    if (p->op && t.write && t.resource != "leases" && t.resource != "events") ++p->writes;
    check_request(*p, t);

    enum class fault { none, e500, e503, e429, lost_ack, read_timeout, expired };
    fault f = fault::none;
    if (faults_on_ && p->op) {
        const double x = rng_.real();
        if (t.verb == "watch") {
            if (x < 0.05) f = fault::expired;
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
        // The answer comes after the client's 60 s deadline (reads only: a
        // write that commits after its client gave up is not simulated, see
        // docs/testing.md).
        ++faults_;
        tr_.line(clk_.now(), "fault", tag + (t.write ? "late write" : "read timeout"));
        co_await clk_.sleep_for(61s);
        break;
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
        co_return s;
    }
    }

    auto op = srv_.handler()(std::move(req));
    auto reply = co_await std::move(op);
    if (auto* r = std::get_if<io::http_response>(&reply)) {
        tr_.mix(r->body);
        tr_.line(clk_.now(), "resp", tag + std::to_string(r->status) + " bytes=" + std::to_string(r->body.size()));
        // What the client received: not an answer it gave up waiting for
        // (read timeout) or one that never arrives (lost acknowledgement).
        if (f != fault::read_timeout && f != fault::lost_ack) note_seen(*p, t, *r);
        if (f == fault::lost_ack && r->status < 300) {
            ++faults_;
            tr_.line(clk_.now(), "fault", tag + "lost acknowledgement (committed)");
            co_return io::http_drop{};
        }
        // Response latency.
        co_await clk_.sleep_for(rng_.millis(1ms, 4ms));
        co_return reply;
    }
    if (auto* s = std::get_if<io::http_stream>(&reply)) {
        tr_.line(clk_.now(), "resp", tag + std::to_string(s->status) + " stream");
        co_return wrap_stream(p, id, std::move(*s));
    }
    tr_.line(clk_.now(), "resp", tag + "dropped");
    co_return reply;
}

// --- state invariants ---------------------------------------------------------

void world::check_state() {
    std::size_t leaders = 0;
    std::string who;
    for (const auto& r : replicas_) {
        if (r->mgr && !r->exit && r->mgr->is_leader()) {
            ++leaders;
            who += " " + r->identity;
        }
    }
    if (leaders > 1) violation("leader safety: two replicas lead at once:" + who);

    if (srv_.store().current_revision() == checked_rev_) return;
    checked_rev_ = srv_.store().current_revision();
    auto instances = srv_.store().list(gateway::gateway_instances(), ns, {});
    std::map<std::string, const json::object*> by_uid;
    if (instances) {
        for (const auto& v : instances->at("items").as_array()) {
            const auto& gi = v.as_object();
            by_uid[std::string(uid_of(gi))] = &gi;
            known_uids_.insert(std::string(uid_of(gi)));
        }
    }
    apiserver::list_options lo;
    lo.label_selector = std::string(gateway::uid_label);
    auto regs = srv_.store().list(resources::configmaps(), registry_ns, lo);
    std::map<std::string, int> per_uid;
    if (regs) {
        for (const auto& v : regs->at("items").as_array()) {
            const auto& cm = v.as_object();
            auto uid = std::string(label_of(cm, gateway::uid_label).value_or(""));
            if (++per_uid[uid] > 1) violation("two registrations for instance uid " + uid);
            if (!by_uid.count(uid) && known_uids_.count(uid)) {
                violation("registration " + std::string(name_of(cm)) + " left after its instance's deletion completed");
            }
        }
    }
}

bool world::converged(std::string* why) {
    auto fail = [&](std::string s) {
        if (why) *why = std::move(s);
        return false;
    };
    auto instances = srv_.store().list(gateway::gateway_instances(), ns, {});
    if (!instances) return fail("cannot list instances");
    std::set<std::string> live;
    for (const auto& v : instances->at("items").as_array()) {
        const auto& gi = v.as_object();
        const std::string name(name_of(gi));
        const std::string uid(uid_of(gi));
        live.insert(uid);
        if (is_being_deleted(gi)) return fail(name + ": still deleting");
        const auto* og = find_path(gi, {"status", "observedGeneration"});
        if (!og || !og->is_int64() || og->get_int64() != generation_of(gi)) return fail(name + ": observedGeneration");
        auto dep = srv_.store().get(resources::deployments(), ns, name);
        if (!dep || !is_controlled_by(*dep, uid)) return fail(name + ": no Deployment of ours");
        const auto* want = find_path(gi, {"spec", "replicas"});
        const auto* have = find_path(*dep, {"spec", "replicas"});
        if (!want || !have || *want != *have) return fail(name + ": Deployment replicas differ from spec");
        auto svc = srv_.store().get(resources::services(), ns, name);
        if (!svc || !is_controlled_by(*svc, uid)) return fail(name + ": no Service of ours");
        auto reg = srv_.store().get(resources::configmaps(), registry_ns, gateway::registration_name(uid));
        if (!reg || !gateway::registration_belongs_to(*reg, uid)) return fail(name + ": no registration");
        const auto* cs = runtime::conditions_of(gi);
        const bool ready = cs && runtime::is_condition_true(*cs, "Ready");
        if (ready != gateway::deployment_available(*dep)) return fail(name + ": Ready does not match the Deployment");
        if (!ready) return fail(name + ": not Ready");
    }
    apiserver::list_options lo;
    lo.label_selector = std::string(gateway::uid_label);
    auto regs = srv_.store().list(resources::configmaps(), registry_ns, lo);
    if (regs) {
        for (const auto& v : regs->at("items").as_array()) {
            auto uid = std::string(label_of(v.as_object(), gateway::uid_label).value_or(""));
            if (!live.count(uid)) return fail("registration of a deleted instance " + uid);
        }
    }
    return true;
}

// --- the user -------------------------------------------------------------

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

asio::awaitable<void> world::user_step() {
    auto& c = *user_->c;
    const std::string name = "gi-" + std::to_string(rng_.below(instance_names));
    const object_key key{std::string(ns), name};
    auto existing = srv_.store().get(gateway::gateway_instances(), ns, name);
    auto report = [&](std::string what, const auto& r) {
        tr_.line(clk_.now(), "user", what + " " + name + " -> " + (r ? std::string("ok") : r.error().message()));
    };
    patch_options merge;
    merge.type = patch_type::merge;
    if (!existing) {
        auto dep = srv_.store().get(resources::deployments(), ns, name);
        if (!dep && rng_.chance(0.15)) {
            // Someone else's Deployment under an instance's name: never to be touched.
            json::object labels{{"app", "foreign"}};
            json::object container{{"name", "x"}, {"image", "x:1"}};
            json::object pod_spec{{"containers", json::array{container}}};
            json::object tmpl{{"metadata", json::object{{"labels", labels}}}, {"spec", pod_spec}};
            json::object spec{{"replicas", 1}, {"selector", json::object{{"matchLabels", labels}}}, {"template", tmpl}};
            json::object d{{"apiVersion", "apps/v1"}, {"kind", "Deployment"},
                           {"metadata", json::object{{"name", name}, {"namespace", ns}}}, {"spec", spec}};
            auto r = co_await c.create(resources::deployments(), std::string(ns), std::move(d));
            if (r) foreign_.insert(name);
            report("create foreign Deployment", r);
            co_return;
        }
        json::object gi{{"apiVersion", "gateway.kcoro.dev/v1alpha1"},
                        {"kind", "GatewayInstance"},
                        {"metadata", {{"name", name}, {"namespace", ns}}},
                        {"spec", {{"image", "nginx:1.27"}, {"replicas", rng_.between(1, 3)}, {"port", 8080}}}};
        auto r = co_await c.create(gateway::gateway_instances(), std::string(ns), std::move(gi));
        report("create", r);
        if (r && rng_.chance(0.2)) {
            // Changed their mind: deleted while the operator's first pass may still run.
            auto pause = rng_.millis(0ms, 1500ms);
            co_await clk_.sleep_for(pause);
            auto d = co_await c.remove(gateway::gateway_instances(), key);
            report("delete at once", d);
        }
        co_return;
    }
    if (is_being_deleted(*existing)) co_return;
    const auto x = rng_.below(100);
    if (x < 25) {
        auto body = "{\"spec\":{\"replicas\":" + std::to_string(rng_.between(1, 4)) + "}}";
        auto r = co_await c.patch(gateway::gateway_instances(), key, std::move(body), merge);
        report("edit replicas", r);
    } else if (x < 35) {
        auto body = std::string("{\"spec\":{\"image\":\"nginx:1.") + std::to_string(rng_.between(20, 29)) + "\"}}";
        auto r = co_await c.patch(gateway::gateway_instances(), key, std::move(body), merge);
        report("edit image", r);
    } else if (x < 50) {
        // Another writer: a PUT from what it read a moment ago (conflicts for
        // the operator's status writes, and for itself when stale).
        json::object obj = *existing;
        set_label(obj, "sim/touched", std::to_string(rng_.below(1000)));
        auto pause = rng_.millis(0ms, 300ms);
        co_await clk_.sleep_for(pause);
        auto r = co_await c.update(gateway::gateway_instances(), std::move(obj));
        report("relabel (PUT)", r);
    } else if (x < 65) {
        auto r = co_await c.remove(gateway::gateway_instances(), key);
        report("delete", r);
    } else if (x < 75) {
        auto r = co_await c.patch(resources::deployments(), key, "{\"spec\":{\"replicas\":7}}", merge);
        report("edit Deployment replicas", r);
    } else if (x < 85) {
        auto r = co_await c.remove(resources::services(), key);
        report("delete Service", r);
    } else if (x < 95) {
        const object_key reg{std::string(registry_ns), gateway::registration_name(uid_of(*existing))};
        auto r = co_await c.remove(resources::configmaps(), reg);
        report("delete registration", r);
    } else {
        auto r = co_await c.remove(resources::deployments(), key);
        report("delete Deployment", r);
    }
}

// --- the fault injector (beyond the per-request faults) ---------------------

asio::awaitable<void> world::fault_loop() {
    ++actors_;
    while (faults_on_) {
        auto pause = rng_.millis(5s, 90s);
        if (co_await clk_.sleep_for(pause)) break;
        if (!faults_on_) break;
        const double x = rng_.real();
        ++faults_;
        if (x < 0.25) {
            tr_.line(clk_.now(), "fault", "close every watch");
            srv_.close_watches();
        } else if (x < 0.45) {
            auto& p = *peers_[rng_.below(peers_.size())];
            tr_.line(clk_.now(), "fault", "cut the streams of " + p.name);
            if (p.t) p.t->close_streams(client::stream_end::cut);
        } else if (x < 0.65) {
            // One replica partitioned away (its requests fail) while the other may take over.
            std::vector<peer*> ops;
            for (auto& r : replicas_) {
                if (!r->exit && r->p->t) ops.push_back(r->p);
            }
            if (!ops.empty()) {
                auto* p = ops[rng_.below(ops.size())];
                const auto d = rng_.millis(5s, 40s);
                p->partitioned_until = clk_.now() + d;
                tr_.line(clk_.now(), "fault", "partition " + p->name + " for " + std::to_string(d.count()) + "ms");
            }
        } else if (x < 0.8) {
            tr_.line(clk_.now(), "fault", "compact at revision " + std::to_string(srv_.store().current_revision()));
            srv_.store().compact();
            if (rng_.chance(0.5)) srv_.close_watches();
        } else {
            std::vector<replica*> alive;
            for (auto& r : replicas_) {
                if (!r->exit && !r->crashed) alive.push_back(r.get());
            }
            if (!alive.empty()) {
                auto* r = alive[rng_.below(alive.size())];
                asio::co_spawn(io_, crash_and_restart(r), asio::detached);
            }
        }
    }
    --actors_;
}

// --- the run ----------------------------------------------------------------

sim_result world::run() {
    sim_result out;
    io::virtual_run_stats stats;
    tr_.line(clk_.now(), "sim", "seed " + std::to_string(o_.seed));
    // The CRD, as deployed.
    {
        auto crd = read_yaml_file(o_.source_dir + "/deploy/crd/gateway.kcoro.dev_gatewayinstances.yaml");
        auto r = run_now(admin_->c->create(resources::customresourcedefinitions(), "", std::move(crd)));
        if (!r) throw std::runtime_error("CRD: " + r.error().message());
    }
    for (int i = 0; i < o_.replicas; ++i) start_replica();

    auto settle_check = [&] {
        check_state();
        return false;
    };
    // Chaos.
    faults_on_ = user_on_ = true;
    asio::co_spawn(io_, user_loop(), asio::detached);
    asio::co_spawn(io_, fault_loop(), asio::detached);
    io::run_virtual(io_, clk_, settle_check, clk_.now() + o_.chaos, &stats);

    // Faults and user stop; the hand-made Deployments go (so every instance can converge).
    faults_on_ = user_on_ = false;
    tr_.line(clk_.now(), "sim", "chaos over");
    io::run_virtual(io_, clk_, [&] { check_state(); return actors_ == 0; }, clk_.now() + 10min, &stats);
    for (const auto& name : foreign_) {
        auto r = run_now(admin_->c->remove(resources::deployments(), object_key{std::string(ns), name}));
        tr_.line(clk_.now(), "sim", "removed foreign Deployment " + name + (r ? "" : ": " + r.error().message()));
    }
    if (running_replicas() == 0) start_replica();

    // Liveness.
    const auto converge_start = clk_.now();
    const bool ok = io::run_virtual(
        io_, clk_, [&] { check_state(); return converged(nullptr); }, clk_.now() + o_.converge_bound, &stats);
    if (!ok) {
        std::string why;
        converged(&why);
        violation("liveness: not converged " + fmt_time(steady_time{} + o_.converge_bound) + " after the faults stopped: " +
                  why);
    } else {
        tr_.line(clk_.now(), "sim",
                 "converged after " + fmt_time(steady_time{} + (clk_.now() - converge_start)));
    }

    // Efficiency: quiet and converged, nobody writes (lease renewals aside).
    // Event series recorded before end within 6 min + a tick, with their
    // final count (event_aggregator, client-go's rules): Events are counted
    // from 8 minutes in.
    auto writes = [&] {
        std::uint64_t n = 0;
        for (const auto& p : peers_) n += p->writes;
        return n;
    };
    auto event_writes = [&] {
        std::uint64_t n = 0;
        for (const auto& p : peers_) n += p->event_writes;
        return n;
    };
    const auto quiet_end = clk_.now() + o_.quiet;
    const std::uint64_t before = writes();
    io::run_virtual(io_, clk_, settle_check, clk_.now() + std::min<std::chrono::nanoseconds>(8min, o_.quiet), &stats);
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

    out.violations = violations_;
    out.trace_hash = tr_.hash();
    out.trace_lines = tr_.lines();
    out.requests = req_seq_;
    out.faults = faults_;
    out.guard_refusals = guard_refusals_;
    out.handlers = stats.handlers;
    out.virtual_time = clk_.now().time_since_epoch();
    return out;
}

sim_result run_seed(const sim_options& opts) {
    world w(opts);
    return w.run();
}

} // namespace kcoro::sim
