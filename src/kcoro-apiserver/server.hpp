// kcoro-apiserver in process: the object store behind the HTTP server on the
// caller's io_context, with its background loops (garbage collection,
// namespace/CRD finalization, workload simulation) on the injectable clock.
//
//   asio::io_context io;
//   io::manual_clock clk;
//   kcoro::apiserver::server srv(io.get_executor(), clk, {.tls = true});
//   srv.start();                       // 127.0.0.1, a free port
//   auto creds = srv.credentials_for("alice", {"devs"});
//   srv.faults().add({...});           // fault injection
//   srv.access().set_policy(...);      // policy reload
//
// Lifetime: the clock must outlive the server; destroy the server before the
// io_context (sessions are closed by the destructor). Thread safety: none;
// everything runs on the executor given at construction.
#pragma once

#include "http/api_handler.hpp"
#include "http/auth.hpp"
#include "http/faults.hpp"
#include "http/watch_hub.hpp"
#include "store/object_store.hpp"

#include <kcoro/io/certs.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/io/http_server.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kcoro::apiserver {

struct server_options {
    /// False: no socket at all; requests reach handler() directly
    /// (kcoro/client/memory_transport.hpp). start() then only starts the
    /// loops, url() is "http://kcoro-apiserver.memory", and close_watches()
    /// calls what handler().set_close_streams() was given.
    bool listen = true;
    std::string address = "127.0.0.1";
    std::uint16_t port = 0;  // 0 = a free port
    bool tls = false;
    /// Serving certificate and key (PEM); generated from the CA when empty.
    std::string cert_pem;
    std::string key_pem;
    /// The CA (PEM) that signs generated certificates and client
    /// certificates; a fresh one is made when empty.
    std::string ca_cert_pem;
    std::string ca_key_pem;
    /// With TLS: accept client certificates signed by the CA as identities.
    bool client_cert_auth = true;
    /// Bearer tokens; with neither tokens nor TLS client-cert auth,
    /// authentication is off (everything allowed).
    std::optional<http::token_table> tokens;
    std::optional<http::policy> policy;
    store_config store;
    http::handler_options handler;
    io::http_server_options http;
    /// kube-controller-manager's root-CA publisher (object_store::set_root_ca):
    /// ConfigMap kube-root-ca.crt in every namespace, with the serving CA
    /// (the kubeconfig's certificate-authority-data) under TLS, else a CA
    /// generated for it. Off here; the kcoro-apiserver binary and
    /// kcoro::testing turn it on, as a real cluster has it.
    bool root_ca_publisher = false;
    /// kube-controller-manager's serviceaccounts controller
    /// (object_store::set_service_account_controller): ServiceAccount
    /// `default` in every namespace, which the ServiceAccount admission plugin
    /// needs for a pod that names no account. Off here; the binary and
    /// kcoro::testing turn it on.
    bool service_account_controller = false;
    /// --authorization-mode=RBAC: requests are authorized by the stored
    /// Roles, ClusterRoles and bindings (plus the bootstrap ones the server
    /// creates: cluster-admin for system:masters, system:discovery,
    /// system:basic-user, system:public-info-viewer), as on a real cluster.
    /// Off (the default here, in the binary and in kcoro::testing): every
    /// authenticated user may do everything (AlwaysAllow), anonymous only
    /// the public-info paths. A `policy` file, when given, decides instead.
    bool rbac = false;
    std::chrono::milliseconds gc_interval{100};
    std::chrono::milliseconds simulate_interval{100};
    http::log_sink log;
};

/// What a client needs to talk to the server as one user.
struct client_credentials {
    std::string server;  // URL
    std::string ca_pem;  // empty for plain HTTP
    std::string token;
    std::string client_cert_pem;
    std::string client_key_pem;
    std::string user;
};

class server {
public:
    server(boost::asio::any_io_executor ex, io::clock& clk, server_options options = {});
    ~server();
    server(const server&) = delete;
    server& operator=(const server&) = delete;

    /// Generates certificates when needed, listens (unless options.listen is
    /// false), starts the loops.
    result<void> start();
    /// Graceful shutdown of the HTTP side and the loops (see http_server::stop).
    void stop(std::chrono::milliseconds grace = std::chrono::seconds(2));

    std::string url() const;
    std::uint16_t port() const;
    /// The CA certificate clients must trust (empty for plain HTTP).
    const std::string& ca_pem() const noexcept { return ca_pem_; }

    /// Credentials for `user`: a client certificate with TLS client-cert auth,
    /// else a fresh bearer token added to the token table (which turns
    /// authentication on), else nothing (auth off).
    result<client_credentials> credentials_for(std::string_view user, std::vector<std::string> groups = {});
    /// A kubeconfig (YAML) for those credentials.
    static std::string kubeconfig_yaml(const client_credentials& c);

    object_store& store() noexcept { return store_; }
    http::fault_table& faults() noexcept { return faults_; }
    http::access_control& access() noexcept { return access_; }
    http::api_handler& handler() noexcept { return *handler_; }
    /// The listening HTTP server; null with `server_options::listen = false`.
    io::http_server* http_server() noexcept { return http_.get(); }

    /// Fault shortcuts (each logged in faults()).
    void close_watches();
    void compact();
    void stall_watches(bool on);

private:
    boost::asio::awaitable<void> background_loop();
    /// With options.root_ca_publisher: hands the CA to the store's publisher.
    result<void> publish_root_ca();

    boost::asio::any_io_executor ex_;
    io::clock& clk_;
    server_options options_;
    object_store store_;
    http::fault_table faults_;
    http::access_control access_;
    http::watch_hub hub_;
    http::token_table tokens_;
    std::optional<io::certificate_authority> ca_;
    std::string ca_pem_;
    std::unique_ptr<http::api_handler> handler_;
    std::unique_ptr<io::http_server> http_;
    boost::asio::cancellation_signal loop_cancel_;
    bool loop_running_ = false;
    std::uint64_t token_seq_ = 0;
};

} // namespace kcoro::apiserver
