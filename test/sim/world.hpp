// What every simulated world shares (sim.hpp): the server, the peers (each
// client with its memory transport and the interposer that adds latency,
// injects faults, traces, and checks leader safety on every request), the
// manager replicas (started, crashed, restarted), the user's and the fault
// injector's loops, and the run's phases (chaos, convergence, quiet).
//
// A world (operator_world.cpp, mirror_world.cpp) supplies the rest through
// the hooks below: what the store starts with, which controllers a replica
// runs, the user's actions, its own request- and store-level invariants and
// its convergence predicate.
//
// Lifetime: a derived world must call shut_down() in its destructor (the
// teardown runs the replicas' last handlers, which call the hooks).
#pragma once

#include "sim.hpp"

#include "prng.hpp"
#include "stall_clock.hpp"
#include "trace.hpp"

#include "server.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/client/memory_transport.hpp>
#include <kcoro/core/log.hpp>
#include <kcoro/core/time.hpp>
#include <kcoro/io/virtual_time.hpp>
#include <kcoro/runtime/shard_member.hpp>
#include <kcoro/runtime/shard_ring.hpp>
#include <kcoro/server/manager.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/object.hpp>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::sim {

/// The namespace the user's objects live in.
inline constexpr std::string_view user_ns = "default";

/// "12.345s"
std::string fmt_time(steady_time t);

/// What a request is about, from its method and target.
struct target_info {
    std::string verb;  // get list watch create update patch delete
    std::string resource;
    std::string ns;
    std::string name;
    std::string sub;
    std::uint64_t resource_version = 0;  // the query's resourceVersion (0: absent, or not a number)
    bool write = false;
};
target_info parse_target(std::string_view method, std::string_view target);
/// The name a write is about: the target's, or a create's body's.
std::string written_name(const target_info& t, const io::http_request& req);
/// The controller owner reference's uid of a child's write: the request's
/// body's (`body`, may be null), else the object's as stored (`live`, may be
/// null); "" when neither has one.
std::string controller_uid(const boost::json::object* body, const boost::json::object* live);

/// The manager a world's replicas run.
struct replica_config {
    std::string name;  // manager name, user-agent product
    bool leader_elect = true;
    std::string lease_namespace = "kcoro-system";
    std::string lease_name;
    std::size_t max_concurrent_reconciles = 0;  // 0: the manager's default
    /// Also delay a replica's watch chunks now and then (0.05-2 s, order
    /// kept): its caches lag its own writes, so a retry can race ahead of
    /// the event of what it wrote (the AlreadyExists read-back path).
    bool lagging_watches = false;
    /// --sharding-ring (sim_options::sharded): "" off.
    std::string sharding_ring;
};

class world {
public:
    world(const sim_options& o, replica_config rc);
    virtual ~world();
    world(const world&) = delete;
    world& operator=(const world&) = delete;

    sim_result run();

protected:
    struct peer {
        std::string name;
        bool op = false;  // a replica's client
        /// Its process's clock (a replica's stalls; stall_clock.hpp).
        std::unique_ptr<stall_clock> clock;
        std::unique_ptr<client::client> c;
        client::memory_transport* t = nullptr;
        std::uint64_t writes = 0;        // writes sent but the lease's and Events
        std::uint64_t event_writes = 0;  // Events (created, series patched)
        steady_time partitioned_until{};  // its requests fail until then
    };
    struct replica {
        std::string identity;
        peer* p = nullptr;
        /// What the world's controllers need alive while mgr runs (declared
        /// first: destroyed after it).
        std::shared_ptr<void> keep;
        std::unique_ptr<server::manager> mgr;
        std::optional<int> exit;
        boost::asio::cancellation_signal crash;
        bool crashed = false;
        bool removed = false;  // sharded: left the ring cleanly (SIGTERM), not restarted
        int failed_probes = 0;  // sharded: /healthz failing (its shard membership ended)
    };

    // --- the hooks --------------------------------------------------------
    /// Before the replicas start (a CRD, say); may use run_now.
    virtual void set_up() {}
    /// Wires the world's controllers onto r.mgr.
    virtual void install(replica& r) = 0;
    /// A replica's write, as it reaches the server (leader safety is the base's).
    virtual void check_write(peer& p, const target_info& t, const io::http_request& req) = 0;
    /// Whether a replica's write counts for the quiet period's zero-writes
    /// check (a documented retry, say a name conflict's, does not).
    virtual bool counts_as_write(const target_info&, const io::http_request&) { return true; }
    /// A response a replica received (not one it gave up on or never got).
    virtual void note_response(peer&, const target_info&, const io::http_response&) {}
    /// A replica's write that will commit after its client gave up (a late write).
    virtual void note_late_write(peer&, const target_info&, const io::http_request&) {}
    /// Store-level invariants; called at settled points when the revision moved.
    virtual void check_store() = 0;
    /// Every object as it should be, or false with the first difference in `why`.
    virtual bool converged(std::string* why) = 0;
    /// One action of the user.
    virtual boost::asio::awaitable<void> user_step() = 0;
    /// After the chaos, before convergence is awaited.
    virtual void before_converge() {}
    /// Once converged, before the quiet period: may change the world (what
    /// was kept for the convergence check goes); true when it did, and
    /// convergence is then awaited again.
    virtual bool after_converge() { return false; }
    /// At the start of the quiet period: events that must cause no write.
    virtual void nudge() {}
    /// Sharded: the uid of the primary object (the sharding key, KEP-5866)
    /// a replica's write is about; "" when the world cannot tell.
    virtual std::string primary_uid_of_write(const target_info&, const io::http_request&) { return {}; }

    // --- for the worlds ---------------------------------------------------
    void violation(std::string what);
    template <class T>
    T run_now(boost::asio::awaitable<T> a);
    /// Teardown: every replica cancelled, every stream closed, the server stopped.
    void shut_down();

    sim_options o_;
    prng rng_;
    trace tr_;
    boost::asio::io_context io_;
    io::manual_clock clk_;
    apiserver::server srv_;
    peer* admin_ = nullptr;
    peer* user_ = nullptr;
    bool faults_on_ = false;
    std::vector<std::unique_ptr<replica>> replicas_;

private:
    struct trace_sink final : log_sink {
        world* w;
        explicit trace_sink(world* wp) : w(wp) {}
        void write(std::string_view line) override;
    };

    peer& add_peer(std::string name, bool op);
    void start_replica();
    boost::asio::awaitable<void> crash_and_restart(replica* r);
    boost::asio::awaitable<void> restart_later(replica* r);
    /// Holds what reaches a stalled replica until the stall ends.
    boost::asio::awaitable<void> hold_while_stalled(peer* p);
    boost::asio::awaitable<io::http_reply> intercept(peer* p, io::http_request req);
    io::http_stream wrap_stream(peer* p, std::uint64_t id, io::http_stream s);
    void check_leader_safety(peer& p, const target_info& t);
    // --- sharded (sim_options::sharded) ---
    /// What a replica holds (active and draining) while its shard Lease's
    /// validity lasts; nothing once it ended or the member stopped.
    runtime::hash_ranges held(replica& r) const;
    /// Its shard member while running and within its validity; else null.
    runtime::shard_member* valid_member(replica& r) const;
    replica* replica_of(const peer& p);
    /// When a replica sends a write: the primary it is about is in what it holds, and nobody else's.
    void check_shard_safety(peer& p, const target_info& t, const io::http_request& req);
    /// When the write reaches the server: the writer's shard Lease is its own and unexpired.
    void check_shard_lease(peer& p, const target_info& t);
    void check_shard_state();
    /// Every hash actively held by exactly one running replica.
    bool ring_covered(std::string* why);
    /// The handover-without-release defect: a list of the ring's Leases as
    /// `self` reads it, every other member claiming nothing and acking it.
    std::string forge_releases(std::string_view body, const std::string& self) const;
    /// The kubelet's liveness probe: a replica whose membership ended
    /// (/healthz fails) is killed and replaced.
    boost::asio::awaitable<void> kubelet_loop();
    /// Replicas whose process runs (not exited, not killed); `staying`:
    /// also not leaving (a clean removal under way).
    std::vector<replica*> running(bool staying) const;
    /// Members now and to come: running and staying, plus restarts pending.
    std::size_t members() const;
    void check_state();
    boost::asio::awaitable<void> user_loop();
    boost::asio::awaitable<void> fault_loop();
    /// A running replica's peer, drawn from the seed; null when none runs.
    peer* running_replica_peer();
    std::size_t running_replicas() const;
    bool converged_now();
    std::uint64_t writes() const;
    std::uint64_t event_writes() const;

    replica_config rc_;
    std::shared_ptr<trace_sink> sink_;
    std::vector<std::unique_ptr<peer>> peers_;
    bool user_on_ = false;
    bool stopping_ = false;  // teardown: no restarts
    bool shut_down_ = false;
    int actors_ = 0;
    int generation_ = 0;
    std::vector<std::string> violations_;
    std::set<std::string> reported_;
    std::uint64_t req_seq_ = 0;
    std::uint64_t faults_ = 0;
    int late_pending_ = 0;  // requests held by a read timeout or late write fault
    int ops_in_flight_ = 0;  // replicas' requests in flight but watches, leases, Events
    std::uint64_t guard_refusals_ = 0;
    int pending_starts_ = 0;  // replicas crashed, to be started again
    apiserver::revision_t checked_rev_ = 0;
};

template <class T>
T world::run_now(boost::asio::awaitable<T> a) {
    std::optional<T> out;
    boost::asio::co_spawn(io_, std::move(a), [&out](std::exception_ptr e, T v) {
        if (e) std::rethrow_exception(e);
        out.emplace(std::move(v));
    });
    io::run_virtual(io_, clk_, [&] { return out.has_value(); }, clk_.now() + std::chrono::hours(1));
    if (!out) throw std::runtime_error("sim: an admin request did not complete");
    return std::move(*out);
}

/// The worlds (operator_world.cpp, mirror_world.cpp).
std::unique_ptr<world> make_operator_world(const sim_options& o);
std::unique_ptr<world> make_mirror_world(const sim_options& o);

} // namespace kcoro::sim
