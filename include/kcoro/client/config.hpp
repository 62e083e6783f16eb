// The resolved client configuration and where it comes from.
//
// load_config implements controller-runtime's GetConfig order
// (pkg/client/config/config.go, loadConfig):
//   1. --kubeconfig (load_options::kubeconfig): that file only; it must exist.
//   2. if KUBECONFIG is unset or empty: in-cluster, when it works
//      (KUBERNETES_SERVICE_HOST/_PORT set and the token readable).
//   3. KUBECONFIG: a ':'-separated list, merged first-wins; files that do not
//      exist are skipped (client-go), at least one must exist.
//   4. ~/.kube/config.
// When in-cluster was tried and failed and no kubeconfig exists either, the
// in-cluster error is returned. load_options::context overrides
// current-context in the kubeconfig cases (it does not apply in-cluster).
// File paths in the kubeconfig are read here (CA, client certificate/key);
// the token file is checked now and re-read later by `credentials`.
//
// Errors: kcoro_errc::invalid_config naming the file, entry and field, e.g.
//   kubeconfig /home/u/.kube/config: clusters[0] "kind": certificate-authority: cannot read /x/ca.crt: No such file or directory
//
// Thread safety: values and pure-ish functions (they only read through the
// given environment).
#pragma once

#include <kcoro/client/environment.hpp>
#include <kcoro/core/error.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kcoro::client {

/// An exec credential plugin (client.authentication.k8s.io ExecConfig).
struct exec_config {
    std::string api_version;
    std::string command;
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> env;
    std::string install_hint;
    bool provide_cluster_info = false;
};

struct client_config {
    std::string server;                 // "https://host:port" (or http:// for tests)
    std::string ca_pem;                 // PEM bundle to trust; empty = system default store
    std::string tls_server_name;        // SNI / verification name override
    bool insecure_skip_tls_verify = false;
    std::string token;                  // static bearer token
    std::string token_file;             // re-read every 60 s and after a 401
    std::string client_cert_pem, client_key_pem;
    std::optional<exec_config> exec;
    std::string ns = "default";         // namespace from the context / in-cluster namespace file
    std::string source;                 // human description: "kubeconfig /p (context kind-x)" or "in-cluster"
};

struct load_options {
    std::string kubeconfig; // --kubeconfig
    std::string context;    // --context
};

/// The configuration in controller-runtime's order (see the file comment).
result<client_config> load_config(const load_options&, const environment&);

/// In-cluster: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT
/// (IPv6 bracketed), token_file <sa>/token (must be readable), ca_pem from
/// <sa>/ca.crt (system store when missing, as client-go), ns from
/// <sa>/namespace ("default" when missing).
result<client_config> in_cluster_config(const environment&);

/// The client_config for a kubeconfig list (already in precedence order)
/// and a context override: reads the files through `env`, merges, resolves.
result<client_config> kubeconfig_config(const std::vector<std::string>& files, const std::string& context,
                                        const environment& env);

} // namespace kcoro::client
