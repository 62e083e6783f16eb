// kcoro::testing::test_server: kcoro-apiserver in process, for a
// controller's tests (what envtest gives Go operators, without binaries).
// It serves the Kubernetes API on a loopback port, on the test's io_context
// (no thread) or on a private thread, and gives the test a ready client, a
// kubeconfig file, fault injection, the request log and a manual clock.
//
//   boost::asio::io_context ioc;
//   kcoro::testing::test_server_options o;
//   o.crd_files = {"deploy/crd/example.com_widgets.yaml"};
//   auto srv = kcoro::testing::test_server::start(ioc, o).value();
//   auto mgr = kcoro::server::manager::create(srv->manager_options(), srv->manager_setup("my-operator")).value();
//   my_operator::add_controllers(*mgr);
//   kcoro::testing::running_manager run(*srv, *mgr);      // run_async() on ioc
//   ... create objects with srv->client(), srv->run_until([&] { ... });
//   CHECK(srv->requests().writes("widgets", 409) == 0);
//   CHECK(run.stop() == 0);
//
// Time. With clock_mode::manual (the default) the server, the clients and
// the managers made here share one io::manual_clock: nothing that sleeps
// (requeue-after, rate-limiter backoff, the client's retry after a 5xx,
// delay faults, the server's garbage collector, Deployment simulation) goes
// on until the test calls advance(). Sockets still carry every request in
// real time. clock_mode::system uses real time everywhere.
//
// Threads. threading::caller (the default) runs the server on the test's
// io_context: one thread, and the test reads the store's effects at once.
// threading::private_thread runs it on its own io_context and thread with
// the real clock (advance() then moves only the test side's clock); the
// accessors below hand their work to that thread and wait for it.
//
// Authentication is by bearer token: client() is user "admin" (group
// system:masters), client_for(user) mints another user, whose requests the
// log names; no policy is loaded, so every user may do everything until
// set_policy().
//
// Lifetime: destroy the test_server before the io_context, and every
// manager and client made from it (clients, manager_setup, running_manager)
// before the test_server. Thread safety: use it from the test's thread.
#pragma once

#include <kcoro/client/client.hpp>
#include <kcoro/core/error.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/server/manager.hpp>
#include <kcoro/testing/fault.hpp>
#include <kcoro/testing/request_log.hpp>
#include <kcoro/testing/run.hpp>
#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/k8s/event.hpp>
#include <kcoro/typed/resource_traits.hpp>
#include <kcoro/typed/field_error.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::testing {

enum class clock_mode { manual, system };
enum class threading { caller, private_thread };

struct test_server_options {
    clock_mode clock = clock_mode::manual;
    threading thread = threading::caller;
    /// Serve HTTPS with a fresh CA (the clients and the kubeconfig trust it).
    bool tls = false;
    /// Manifests (YAML or JSON, several documents each) created before the
    /// server listens, in order: CRDs first, then objects of their kinds.
    std::vector<std::string> crd_files;
    /// Deployments get a ready status after simulate_delay (on the clock).
    bool simulate_workloads = false;
    /// With simulate_workloads: each Deployment gets a ReplicaSet and Pods
    /// (owned, labelled as a real cluster's), Running and Ready after
    /// simulate_delay, for operators that read Pods.
    bool simulate_pods = false;
    std::chrono::milliseconds simulate_delay{1000};
    /// Seeds uids, generated names and tokens: runs are reproducible.
    std::uint64_t seed = 1;
    /// ConfigMap kube-root-ca.crt (data ca.crt: the server's CA) in every
    /// namespace, as kube-controller-manager's root-CA publisher keeps it on
    /// a real cluster: a test that lists ConfigMaps sees it, as it would
    /// there. False for a test that needs empty namespaces.
    bool root_ca_publisher = true;
    /// ServiceAccount `default` in every namespace, as kube-controller-manager's
    /// serviceaccounts controller keeps it: a pod that names no account runs
    /// as it (the ServiceAccount admission plugin refuses a pod whose account
    /// is missing). False for a test that needs empty namespaces.
    bool service_account_controller = true;
    /// kube-apiserver's --authorization-mode=RBAC: the stored Roles,
    /// ClusterRoles and bindings (and the bootstrap ones) decide, so a test
    /// can prove that the RBAC its operator ships is enough (apply the
    /// manifests, then act through `client_for(user, groups)`). Off: every
    /// authenticated user may do everything.
    bool rbac = false;
    /// kube-apiserver's alpha feature gate ShardedListAndWatch (KEP-5866):
    /// list and watch honour `shardSelector` and lists echo
    /// metadata.shardInfo (kcoro-apiserver --feature-gates=ShardedListAndWatch=true).
    /// Off, as on a default 1.36 cluster: the parameter is ignored.
    bool sharded_list_and_watch = false;
};

class test_server {
public:
    /// Starts the server (loads crd_files, listens on 127.0.0.1, a free
    /// port), makes the admin client and writes the kubeconfig file.
    static result<std::unique_ptr<test_server>> start(boost::asio::io_context& ioc, test_server_options opts);
    static result<std::unique_ptr<test_server>> start(boost::asio::io_context& ioc);
    ~test_server();
    test_server(const test_server&) = delete;
    test_server& operator=(const test_server&) = delete;

    // --- talking to it ------------------------------------------------------
    /// The admin client (on the test's io_context and clock).
    client::client& client() noexcept;
    /// A client for another user (a fresh token), to tell writers apart in
    /// the request log or to test a policy.
    result<std::unique_ptr<client::client>> client_for(std::string_view user, std::vector<std::string> groups);
    /// The configuration client() was made from.
    client::client_config config() const;
    std::string url() const;
    /// A kubeconfig file for the admin user (removed with the server), for
    /// code that wants a path (--kubeconfig, KUBECONFIG).
    const std::string& kubeconfig_path() const noexcept;
    std::string kubeconfig_yaml() const;

    // --- a manager in the same process --------------------------------------
    /// Metrics and probe servers off ("0"), everything else the defaults.
    server::manager_options manager_options() const;
    /// The test's io_context and clock, a client for user `name` (owned by
    /// the test_server), no signal handling.
    server::manager_setup manager_setup(std::string name);

    // --- objects ------------------------------------------------------------
    /// Creates every object of a manifest file (YAML or JSON) in the store;
    /// a CRD is served as soon as this returns.
    result<void> load_file(const std::string& path);
    result<void> load_yaml(std::string_view text);
    /// One object (e.g. kcoro::typed::crd<my_type>()).
    result<void> load(const boost::json::object& obj);
    /// The object as the store holds it now, read without a request (so it
    /// is not in the request log); null when there is none. A resource the
    /// server does not serve is a test's mistake: std::invalid_argument.
    /// The pointer owns a copy: hold it while you use what is inside.
    /// `auto cm = srv->get(...); auto* v = find_path(*cm, ...);` is right;
    /// `find_path(*srv->get(...), ...)` points into a copy destroyed at the
    /// end of that statement. The typed get<T>() returns a value instead.
    object_ptr get(const group_version_resource& gvr, const object_key& key) const;
    /// Typed: a decoded copy (nothing in it can dangle); nullopt when there
    /// is none. An object that does not decode into T: std::runtime_error
    /// naming every field path (a test's mistake, or the bug it found).
    template <typed::resource_type T> std::optional<T> get(const object_key& key) const {
        auto obj = get(typed::resource_traits<T>::gvr(), key);
        if (!obj) return std::nullopt;
        return decode_or_throw<T>(*obj);
    }
    /// Every object of `gvr` in namespace `ns` ("": every namespace) as the
    /// store holds it now, in the order a list answers; no request.
    std::vector<object_ptr> list(const group_version_resource& gvr, std::string_view ns) const;
    template <typed::resource_type T> std::vector<T> list(std::string_view ns) const {
        std::vector<T> out;
        for (const auto& obj : list(typed::resource_traits<T>::gvr(), ns)) out.push_back(decode_or_throw<T>(*obj));
        return out;
    }
    /// The Events the store holds about the object of `kind` at `regarding`
    /// (core/v1 and events.k8s.io/v1 Events alike: the server stores one
    /// kind and answers both), oldest first; no request.
    std::vector<k8s::event> events_about(std::string_view kind, const object_key& regarding) const;
    /// Every Event in namespace `ns` ("": every namespace), oldest first.
    std::vector<k8s::event> events(std::string_view ns) const;

    // --- faults -------------------------------------------------------------
    /// Adds a rule; returns its id.
    std::uint64_t inject(const fault& f);
    void clear_faults();
    /// Ends every open watch stream (informers must rewatch).
    void close_watches();
    /// Forgets the history: a watch or list at an older resourceVersion gets 410.
    void compact();
    /// While stalled, watches deliver nothing (events are kept, not lost).
    void stall_watches(bool on);
    /// Every rule added and fired and every switch thrown, in order.
    std::vector<std::string> fault_log() const;
    /// How many times a rule fired so far.
    std::size_t faults_fired() const;
    /// Loads an authorization policy (docs/apiserver.md, JSON or YAML);
    /// requests it does not allow get 403.
    result<void> set_policy(std::string_view text);
    void clear_policy();

    // --- what it saw --------------------------------------------------------
    /// The requests answered so far (a copy).
    request_log requests() const;
    void clear_requests();
    /// The store's current resourceVersion.
    std::uint64_t current_revision() const;

    // --- time ---------------------------------------------------------------
    /// The test side's clock (the server's too with threading::caller).
    io::clock& clock() noexcept;
    /// Moves the manual clock forward and runs the handlers that became
    /// ready. std::logic_error with clock_mode::system.
    void advance(std::chrono::nanoseconds d);
    /// Runs the io_context until done(), advancing the manual clock by
    /// `step` whenever nothing ran for a millisecond (time moves while the
    /// process is idle): for waits that need both I/O and time, such as a
    /// retry after a backoff. False when `bound` (real time) passed first.
    bool advance_until(const std::function<bool()>& done, std::chrono::nanoseconds step,
                       std::chrono::milliseconds bound = std::chrono::seconds(20));

    // --- driving the io_context ---------------------------------------------
    boost::asio::io_context& io_context() noexcept;
    template <class Pred>
    bool run_until(Pred&& done, std::chrono::milliseconds bound = std::chrono::seconds(20)) {
        return testing::run_until(io_context(), std::forward<Pred>(done), bound);
    }
    /// Runs a coroutine to completion (nullopt when the bound passed).
    template <class T>
    std::optional<T> run(boost::asio::awaitable<T> a, std::chrono::milliseconds bound = std::chrono::seconds(20)) {
        return testing::run(io_context(), std::move(a), bound);
    }
    /// A coroutine with no value: true once it completed.
    bool run(boost::asio::awaitable<void> a, std::chrono::milliseconds bound = std::chrono::seconds(20)) {
        return testing::run(io_context(), std::move(a), bound);
    }

    struct impl;

private:
    template <class T> static T decode_or_throw(const boost::json::object& obj) {
        T out;
        auto errors = typed::decode(obj, out);
        if (!errors.empty()) {
            throw std::runtime_error("kcoro::testing: " + std::string(typed::resource_traits<T>::kind) + " " +
                                     key_of(obj).str() + " does not decode: " + typed::describe(errors));
        }
        return out;
    }
    explicit test_server(std::unique_ptr<impl> p);
    std::unique_ptr<impl> impl_;
};

/// A manager's run_async() on the test server's io_context, stopped (as
/// SIGTERM would) by stop() or the destructor.
class running_manager {
public:
    running_manager(test_server& srv, server::manager& mgr);
    ~running_manager();
    running_manager(const running_manager&) = delete;
    running_manager& operator=(const running_manager&) = delete;

    /// Runs until every informer synced (false when the bound passed or
    /// the manager ended).
    bool wait_synced(std::chrono::milliseconds bound = std::chrono::seconds(20));
    /// Runs until the manager has nothing left to do (manager::idle: caches
    /// synced, every controller's queue empty and no reconcile in flight,
    /// every Event sent) and no handler is ready on the io_context, so what
    /// the last reconcile wrote has come back through the watches and been
    /// reconciled too. A RequeueAfter or a backoff waiting on the manual
    /// clock does not count: advance() the clock, then wait_idle() again.
    /// False when the bound (real time) passed first or the manager ended.
    bool wait_idle(std::chrono::milliseconds bound = std::chrono::seconds(20));
    /// True once run_async() completed.
    bool done() const noexcept { return run_.done(); }
    /// request_stop(), then runs until run_async() completes: its exit code
    /// (0 after a clean stop), or -1 when the bound passed first. A
    /// manager that threw rethrows here.
    int stop(std::chrono::milliseconds bound = std::chrono::seconds(20));

private:
    test_server& srv_;
    server::manager& mgr_;
    spawned<int> run_;
};

} // namespace kcoro::testing
