// Kubeconfig documents and client-go's merge and resolution rules, as pure
// functions over (path, contents) pairs: nothing here reads a file.
//
//  - parse_kubeconfig: one file. `*-data` fields are base64-decoded here (a
//    bad one fails the whole file, as client-go's loader does); relative
//    paths (certificate-authority, client-certificate, client-key, tokenFile,
//    and an exec command containing a '/') are resolved against the file's
//    directory, as client-go's ResolveLocalPaths does.
//  - merge_kubeconfigs: a KUBECONFIG list, first file wins per cluster/user/
//    context name (the whole entry), current-context from the first file
//    that sets it.
//  - resolve_kubeconfig: the context to use (override, else current-context)
//    and its cluster and user, validated.
//
// Every error is kcoro_errc::invalid_config and names the file, the entry and
// the field, e.g.
//   kubeconfig /home/u/.kube/config: users[1] "admin": client-key-data: not valid base64
//
// Thread safety: values; the functions are pure and thread-safe.
#pragma once

#include <kcoro/core/error.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kcoro {

/// A kubeconfig file's path and contents (the caller reads the file).
struct kubeconfig_source {
    std::string path;
    std::string contents;
};

/// Where an entry came from, for error messages: `kubeconfig <file>: <kind>[<index>] "<name>"`.
struct kubeconfig_origin {
    std::string file;
    std::string list;  // "clusters", "users" or "contexts"
    std::size_t index = 0;
    std::string name;
    /// "kubeconfig /p: users[1] \"admin\": <field>: <what>"
    std::string describe(std::string_view field, std::string_view what) const;
};

struct kubeconfig_cluster {
    kubeconfig_origin origin;
    std::string server;
    std::string certificate_authority;      // absolute path, or empty
    std::string certificate_authority_data; // decoded bytes (PEM), or empty
    std::string tls_server_name;
    bool insecure_skip_tls_verify = false;  // true only when the file says `true`
    std::string proxy_url;                  // read; unsupported (resolve reports it)
};

struct kubeconfig_exec {
    std::string api_version;
    std::string command; // absolute when it was a relative path with a '/'
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> env;
    std::string install_hint;
    bool provide_cluster_info = false;
    std::string interactive_mode; // "Never", "IfAvailable", "Always" or empty
};

struct kubeconfig_user {
    kubeconfig_origin origin;
    std::string token;
    std::string token_file;              // absolute path, or empty
    std::string client_certificate;      // absolute path, or empty
    std::string client_certificate_data; // decoded PEM, or empty
    std::string client_key;              // absolute path, or empty
    std::string client_key_data;         // decoded PEM, or empty
    std::optional<kubeconfig_exec> exec;
    // Present in the file but not supported by kcoro (resolve reports them).
    bool has_auth_provider = false;
    bool has_basic_auth = false;     // username/password
    bool has_impersonation = false;  // as, as-groups, as-uid, as-user-extra
};

struct kubeconfig_context {
    kubeconfig_origin origin;
    std::string cluster;
    std::string user;
    std::string ns; // empty when the context sets none
};

/// One file, or several merged. Entries keep file order (first-wins on merge).
struct kubeconfig {
    std::vector<std::string> files; // the files it was read from, in order
    std::string current_context;
    std::string current_context_file; // the file that set current-context
    std::vector<kubeconfig_cluster> clusters;
    std::vector<kubeconfig_user> users;
    std::vector<kubeconfig_context> contexts;

    const kubeconfig_cluster* find_cluster(std::string_view name) const noexcept;
    const kubeconfig_user* find_user(std::string_view name) const noexcept;
    const kubeconfig_context* find_context(std::string_view name) const noexcept;
};

/// Parses one kubeconfig file. An empty (or comment-only) file is an empty
/// config, as in client-go. Unknown fields are ignored.
result<kubeconfig> parse_kubeconfig(std::string_view path, std::string_view contents);

/// Merges parsed files in KUBECONFIG order: the first file to define a name
/// wins, current-context comes from the first file that sets it.
kubeconfig merge_kubeconfigs(std::vector<kubeconfig> configs);

/// parse_kubeconfig on each source, then merge_kubeconfigs.
result<kubeconfig> load_kubeconfigs(const std::vector<kubeconfig_source>& sources);

/// The chosen context with its cluster and user (user empty when the context
/// names none: anonymous).
struct resolved_kubeconfig {
    std::string context_name;
    kubeconfig_context context;
    kubeconfig_cluster cluster;
    kubeconfig_user user;
};

/// Picks `context_override` if non-empty, else current-context, and checks
/// what client-go's ConfirmUsable checks: the context, its cluster (with a
/// server) and its user exist; insecure-skip-tls-verify is not combined with
/// a CA; no unsupported feature (proxy-url, auth-provider, basic auth,
/// impersonation) is in use.
result<resolved_kubeconfig> resolve_kubeconfig(const kubeconfig& config, std::string_view context_override);

} // namespace kcoro
