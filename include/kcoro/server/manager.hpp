// The manager: what turns the runtime into a service (controller-runtime's
// manager). It owns the io_context (one thread), the clock, the client, the
// shared informer cache, the metrics registry, the event recorders, the
// logger, the metrics and probe servers, leader election and the signals,
// and runs every `runtime::runnable` in one start order. This is the one
// written copy of the start and stop orders; manager.cpp follows it step by
// step (controller-runtime's pkg/manager/internal.go, Start):
//
// THE START ORDER
//  1. metrics server (/metrics on --metrics-bind-address, "0" disables;
//     --metrics-secure: HTTPS + TokenReview/SubjectAccessReview), probe
//     server (/healthz, /readyz on --health-probe-bind-address), liveness
//     watchdog (a tick on the clock; /healthz "watchdog" check): up first, so
//     a slow cache sync is visible (readyz fails with "informers" until
//     synced, healthz passes) and scrapes work from the start;
//  2. every runnable that does not need leader election: the informer
//     factory (watches start), the event recorders, caches and webhooks;
//  3. wait until every informer synced (bounded by cache_sync_timeout); the
//     readiness check "informers" then passes. A standby replica is ready:
//     readiness never depends on leadership;
//  4. leader election, when --leader-elect; otherwise this replica leads;
//  5. the leader-gated runnables (controllers), once leading.
// With --sharding-ring=NAME (docs/sharding.md) the manager also runs a
// runtime::shard_member (background, from step 2: identity and timings as
// leader election's, its Lease in the leader-election namespace) and
// controllers built with controller() are sharded: they run on every
// replica (not leader-gated), each reconciling only the keys whose hash the
// ring gives this replica; a controller built with singleton() stays
// leader-gated. The write guard then also refuses writes once this
// replica's shard Lease validity passed (its own Lease writes exempt), and
// /healthz fails ("sharding") once the member stopped while the manager runs.
// Then wait for a stop request (SIGTERM/SIGINT, request_stop()) or the loss
// of leadership. A second signal exits the process at once with code 1.
//
// THE STOP ORDER
//  a. leader-gated runnables: stop() (no new work) and, on leadership loss,
//     cancelled at once (never two active writers);
//  b. wait for their in-flight work (deadline: --graceful-shutdown-timeout);
//  c. leader election: stop(), releasing the lease when configured (only
//     now, so no write can follow the release);
//  d. the other runnables (event recorders flush, informers stop);
//  e. past the deadline: everything left is cancelled, exit code 1;
//  f. the servers and the watchdog stop.
// run() returns 0 after a requested stop, 1 when the deadline passed or
// leadership was lost.
//
//   int main(int argc, char** argv) {
//       std::string registry_ns;
//       auto start = kcoro::server::manager::from_flags(argc, argv, {.name = "gateway-operator"},
//           [&](kcoro::server::flag_set& f) { f.add_string("registry-namespace", &registry_ns, "..."); });
//       if (!start.mgr) return start.exit_code;
//       auto& mgr = *start.mgr;
//       mgr.controller("my-controller").for_(kcoro::resources::configmaps()).complete(reconcile);
//       return mgr.run();
//   }
//
// Cancelling run_async() (terminal cancellation through the completion
// token's slot) is a crash as far as the outside world can tell: every
// runnable is cancelled at once (no stop(), no graceful timeout, no lease
// release even with release-on-cancel), is_leader() turns false, and no
// API request is sent once run_async() completed. The standby takes over
// only when the lease expires. run_async() then completes by throwing
// boost::system::system_error(asio::error::operation_aborted) (asio's usual
// result of a cancelled operation; distinct from exit_failure), after every
// coroutine the manager spawned finished, so the manager may be destroyed
// right away while the io_context keeps running.
//
// Lifetime: the manager owns what it creates; borrowed objects (an injected
// io_context, clock or client; runnables added by reference) must outlive it.
// run()/run_async() must have completed (returned, thrown, or never been
// started) before the manager is destroyed; destroy it before an injected
// io_context. Thread safety: none;
// everything runs on the io_context's one thread (request_stop() may be called
// from a handler on it; signals arrive through asio::signal_set).
#pragma once

#include <kcoro/client/config.hpp>
#include <kcoro/client/environment.hpp>
#include <kcoro/client/write_origin.hpp>
#include <kcoro/core/error.hpp>
#include <kcoro/core/log.hpp>
#include <kcoro/core/resource_table.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/event_recorder.hpp>
#include <kcoro/runtime/informer_factory.hpp>
#include <kcoro/runtime/leader_elector.hpp>
#include <kcoro/runtime/runnable.hpp>
#include <kcoro/runtime/shard_member.hpp>
#include <kcoro/server/controller_builder.hpp>
#include <kcoro/server/flags.hpp>
#include <kcoro/server/health.hpp>
#include <kcoro/server/metrics.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace kcoro::client {
class client;
}

namespace kcoro::server {

/// Exit codes of manager::run().
inline constexpr int exit_ok = 0;
/// Start-up failed, informers did not sync, leadership lost, the graceful
/// shutdown deadline passed, or a second signal.
inline constexpr int exit_failure = 1;
/// Bad command line (Go's flag package exits 2).
inline constexpr int exit_usage = 2;

/// What the manager is built from besides the flags: injection points for
/// tests and embedding. Every pointer is borrowed and may be null (the
/// manager then makes its own).
struct manager_setup {
    /// Component name: the logger's root name and the default event
    /// reportingController.
    std::string name = "manager";
    /// Null: the manager owns an io_context.
    boost::asio::io_context* io_context = nullptr;
    /// Null: a system_clock owned by the manager.
    io::clock* clock = nullptr;
    /// Null: a client built from `client_config`, else loaded from
    /// --kubeconfig in controller-runtime's order (client::load_config).
    client::client* client = nullptr;
    std::optional<client::client_config> client_config;
    /// What config loading reads; unset: the process.
    std::optional<client::environment> env;
    /// Where log lines go; null: std::cerr.
    std::shared_ptr<kcoro::log_sink> sink;
    /// Handle SIGTERM/SIGINT (off for several managers in one test process).
    bool handle_signals = true;
    /// from_flags: the default of --max-concurrent-reconciles for this binary
    /// (controller-runtime's is 1; a reconcile in flight here is a coroutine
    /// frame and, while it waits on the API, one pooled connection:
    /// docs/operations.md).
    std::int64_t default_max_concurrent_reconciles = 1;

    // Leader election (the flags give namespace/id; tests scale the times).
    /// Empty: default_leader_identity() ("<hostname>_<uuid>").
    std::string identity;
    std::chrono::nanoseconds lease_duration = std::chrono::seconds(15);
    std::chrono::nanoseconds renew_deadline = std::chrono::seconds(10);
    std::chrono::nanoseconds retry_period = std::chrono::seconds(2);
    /// Release the lease on a clean stop (--leader-elect-release-on-cancel).
    bool leader_election_release_on_cancel = false;

    /// Liveness: tick period and the stall after which /healthz fails.
    std::chrono::nanoseconds watchdog_interval = std::chrono::seconds(1);
    std::chrono::nanoseconds watchdog_max_stall = std::chrono::seconds(10);
    /// How long informers may take to sync before run() fails.
    std::chrono::nanoseconds cache_sync_timeout = std::chrono::minutes(2);
    /// Random source of the informers (watch timeouts, jitter); empty: real.
    std::function<double()> random;
};

/// What from_flags decided: a manager to run, or an exit code (after --help:
/// 0, usage printed to stdout; bad flags or configuration: 2 or 1, the
/// error printed to stderr).
struct manager_start;

class manager {
public:
    /// Builds a manager; fails for a bad configuration (validate(), log
    /// level/format, client config loading).
    static result<std::unique_ptr<manager>> create(manager_options opts, manager_setup setup = {});

    /// Parses the manager's flags (add_manager_flags, plus
    /// --leader-elect-release-on-cancel) and the caller's (`add_flags`), then
    /// create(). --help prints the usage. With handle_signals, SIGINT and
    /// SIGTERM are blocked in the calling thread from here until run()
    /// handles them, so a stop asked during the set-up is a clean stop. A
    /// thread the program started before from_flags must block them itself
    /// (create it with them blocked), or it takes the signal and dies by it.
    static manager_start from_flags(int argc, const char* const* argv, manager_setup setup = {},
                                    const std::function<void(flag_set&)>& add_flags = {});

    ~manager();
    manager(const manager&) = delete;
    manager& operator=(const manager&) = delete;

    // --- what components are built from -------------------------------------
    boost::asio::io_context& ctx() noexcept;
    boost::asio::any_io_executor executor() noexcept;
    io::clock& clock() noexcept;
    client::client& client() noexcept;
    /// The shared informer cache (scoped by --namespace, resync --sync-period).
    runtime::informer_factory& cache() noexcept;
    metrics_registry& metrics() noexcept;
    const logger& log() const noexcept;
    const manager_options& options() const noexcept;
    const std::string& name() const noexcept;
    /// manager_setup::random (empty: real randomness). Controllers built with
    /// controller() draw their reconcile IDs from it, so a seeded run is
    /// seeded throughout.
    const std::function<double()>& random_source() const noexcept;
    /// This replica's leader-election identity ("<hostname>_<uuid>").
    const std::string& identity() const noexcept;

    /// The event recorder reporting as `reporting_controller` (created on
    /// first use, run by the manager, started at once if already running).
    runtime::event_recorder& events(std::string_view reporting_controller);
    /// events(name()).
    runtime::event_recorder& recorder();
    /// Which kind each resource serves (built-in resources; add custom
    /// resources here once), for controller(...).for_(gvr).
    resource_table& resources() noexcept;

    // --- controllers, the short way ------------------------------------------
    /// A builder whose complete() wires metrics, logger, flags, events, the
    /// field manager and the hot-loop alarm, and adds the controller here
    /// (controller_builder.hpp).
    controller_builder controller(std::string name);

    // --- what the manager runs ---------------------------------------------
    /// Adds a runnable (borrowed; must outlive the manager). Runnables added
    /// while running are started at once if their phase has begun.
    void add(runtime::runnable& r);
    /// Adds an owned runnable; returns it.
    runtime::runnable& add(std::unique_ptr<runtime::runnable> r);

    /// Extra checks (controller-runtime's AddHealthzCheck/AddReadyzCheck).
    /// The manager adds "informers" (readyz) and "watchdog" (healthz).
    void add_healthz_check(std::string name, health_check check);
    void add_readyz_check(std::string name, health_check check);
    /// The probe handler (the checks above), for tests.
    const health_handler& probes() const noexcept;

    /// Runs the start order on the io_context's thread until stopped; returns
    /// the exit code (exit_ok, exit_failure). Runs ctx() itself.
    int run();
    /// The same as a coroutine on ctx(), for in-process tests (several
    /// managers on one io_context). Cancelling it is a crash (see the file
    /// comment): it then throws system_error(operation_aborted).
    boost::asio::awaitable<int> run_async();
    /// Starts the graceful stop (as SIGTERM does). Idempotent.
    void request_stop();

    // --- state, for probes and tests ----------------------------------------
    bool is_leader() const noexcept;
    /// True once every informer synced.
    bool cache_synced() const noexcept;
    /// Nothing to do now: every informer synced, every controller idle
    /// (runtime::controller::idle: RequeueAfter timers may be pending) and
    /// every event recorder's queue sent. What kcoro::testing's
    /// running_manager::wait_idle() waits for.
    bool idle() const noexcept;
    /// Bound endpoints (port 0 in the flags picks a free port); nullopt when
    /// disabled or not listening yet.
    std::optional<boost::asio::ip::tcp::endpoint> metrics_endpoint() const;
    std::optional<boost::asio::ip::tcp::endpoint> probe_endpoint() const;
    /// The elector (null without --leader-elect or before run()).
    runtime::leader_elector* elector() noexcept;
    /// This replica's member of --sharding-ring (null when sharding is off).
    runtime::shard_member* shard() noexcept;
    /// For controller_builder: `c` (built with options().sharding set) is
    /// sharded; `primary` is its for_() informer. The manager drops the
    /// keys of ranges the ring takes away (drop_ranges, then the member's
    /// drained()) and queues the cached keys of ranges it gains. `primary`
    /// and `owned` (informer keys with shard set) cache only the share.
    void add_sharded(runtime::controller& c, runtime::informer& primary,
                     const std::vector<runtime::informer*>& owned = {});
    /// The informer key a controller's source uses: `k` with `by` set when
    /// sharding is on (and the controller is not a singleton), else `k`.
    /// Code that adds an index to a sharded controller's primary informer
    /// asks for this key (the same informer the controller reads).
    runtime::informer_key controller_key(runtime::informer_key k, runtime::shard_by by) const;
    /// For controller_builder: an origin, kept as long as the manager, that
    /// the controller's executor carries so that the write guard judges its
    /// writes by its own Lease (client/write_origin.hpp).
    const client::write_origin* write_origin(std::string controller, client::write_gate gate);

    struct impl;

private:
    explicit manager(std::unique_ptr<impl> p);
    std::unique_ptr<impl> impl_;
};

struct manager_start {
    std::unique_ptr<manager> mgr;  // null: exit with exit_code
    int exit_code = exit_ok;
};

/// "host:port" / ":port" of a bind flag to an endpoint (":8080" = every
/// address, IPv4 and IPv6 where available).
result<boost::asio::ip::tcp::endpoint> parse_bind_address(std::string_view address);

} // namespace kcoro::server
