// Authentication and authorization of kcoro-apiserver, pure.
//
// Authentication: a static bearer-token table (kube-apiserver's
// --token-auth-file CSV: `token,user,uid,"group1,group2"`) and verified TLS
// client certificates (CN = user, O = groups). When neither tokens nor client
// certificates are configured, authentication is off and every request runs
// as an anonymous user with every permission. When it is on, a request with
// neither runs as system:anonymous (kube-apiserver's --anonymous-auth, on by
// default): it may read the public-info paths (/healthz, /livez, /readyz,
// /version, as the bootstrap ClusterRole system:public-info-viewer allows) and
// whatever a loaded policy grants it; everything else is 403.
// Impersonate-User / Impersonate-Group follow the real filter
// (apiserver/pkg/endpoints/filters/impersonation.go).
//
// Authorization: a small policy (JSON or YAML):
//   rules:
//   - users: [alice]            # or groups: [devs]; "*" matches anyone
//     verbs: [get, list, watch] # "*" = all
//     resources: [configmaps]   # resource names; "*" = all; "kcoro/faults" for the fault endpoint
//     namespaces: [default]     # omitted or "*" = all, "" = cluster-scoped only
// No policy loaded: every authenticated user may do everything (anonymous: nothing). Denials
// produce the Status kube-apiserver's RBAC answers (403 with its message).
//
// Values; thread safety: none (the server's one thread).
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/resource.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::apiserver::http {

struct user_info {
    std::string name;
    std::vector<std::string> groups;
    std::string uid;  // service account tokens, the token file's uid column
    /// user.Info's extra (a service account token: the credential id, "JTI=<jti>").
    std::map<std::string, std::vector<std::string>> extra;
    friend bool operator==(const user_info&, const user_info&) = default;
};

class token_table {
public:
    /// Parses the CSV (blank lines and '#' comments ignored); 400-free: errors
    /// name the line.
    static result<token_table> parse_csv(std::string_view text);
    void add(std::string token, user_info user) { tokens_[std::move(token)] = std::move(user); }
    const user_info* find(std::string_view token) const;
    bool empty() const noexcept { return tokens_.empty(); }

private:
    std::map<std::string, user_info, std::less<>> tokens_;
};

struct policy_rule {
    std::vector<std::string> users;
    std::vector<std::string> groups;
    std::vector<std::string> verbs;
    std::vector<std::string> resources;
    std::optional<std::vector<std::string>> namespaces;  // nullopt = all
};

class policy {
public:
    /// JSON or YAML text as in the file comment.
    static result<policy> parse(std::string_view text);
    void add(policy_rule r) { rules_.push_back(std::move(r)); }
    bool allows(const user_info& user, std::string_view verb, std::string_view resource,
                std::string_view ns) const;
    const std::vector<policy_rule>& rules() const noexcept { return rules_; }

private:
    std::vector<policy_rule> rules_;
};

/// What the authorizer is asked.
struct access_request {
    std::string verb;
    group_version_resource gvr;
    std::string subresource;
    std::string ns;
    std::string name;
};

/// What an authorizer is asked (authorizer.Attributes).
struct authz_attributes {
    user_info user;
    std::string verb;
    bool resource_request = true;
    std::string group, resource, subresource, ns, name;  // resource requests
    std::string path;                                     // the others
};

/// An authorizer's answer; `reason` as an access review reports it
/// ("RBAC: allowed by ...", "" for the privileged group and AlwaysAllow).
struct authz_decision {
    bool allowed = false;
    std::string reason;
};

/// kube-apiserver's anonymous user and its group (user.Anonymous, user.AllUnauthenticated).
inline constexpr std::string_view anonymous_user = "system:anonymous";
inline constexpr std::string_view unauthenticated_group = "system:unauthenticated";
inline constexpr std::string_view authenticated_group = "system:authenticated";

/// 401 Unauthorized, as kube-apiserver answers it.
error unauthorized();
/// 403 Forbidden with RBAC's message:
/// `configmaps "x" is forbidden: User "u" cannot get resource "configmaps" in
/// API group "" in the namespace "default"`.
error forbidden(const user_info& user, const access_request& req);
/// 403 for a non-resource path (responsewriters/errors.go forbiddenMessage):
/// `forbidden: User "system:anonymous" cannot get path "/api"`.
error forbidden_path(const user_info& user, std::string_view verb, std::string_view path);

/// Authentication and authorization together.
class access_control {
public:
    void set_tokens(token_table t) { tokens_ = std::move(t); }
    /// Client certificates count as credentials (the server verifies them).
    void enable_client_certs(bool on) { client_certs_ = on; }
    void set_policy(std::optional<policy> p) { policy_ = std::move(p); }
    /// --authorization-mode=RBAC: requests the policy file does not decide
    /// are asked of `rbac` (http/rbac.hpp over the store), after the
    /// system:masters group, which may do anything (the privileged-groups
    /// authorizer). Empty: every authenticated user may do everything.
    void set_rbac(std::function<authz_decision(const authz_attributes&)> rbac) { rbac_ = std::move(rbac); }
    bool rbac_enabled() const noexcept { return static_cast<bool>(rbac_); }
    /// Bearer tokens the static table does not know (service account JWTs,
    /// http/service_account_tokens.hpp): the user, or nullopt.
    void set_bearer_authenticator(std::function<std::optional<user_info>(std::string_view)> f) {
        bearer_ = std::move(f);
    }
    /// The user a bearer token names (the table, then the authenticator),
    /// with system:authenticated added; nullopt when none does. TokenReview
    /// asks it too.
    std::optional<user_info> authenticate_bearer(std::string_view token) const;
    /// The authorizer chain's decision (what authorize() enforces and the
    /// access reviews report).
    authz_decision decide(const authz_attributes& a) const;
    const std::optional<policy>& current_policy() const noexcept { return policy_; }
    bool enabled() const noexcept { return !tokens_.empty() || client_certs_; }

    /// The user for an Authorization header value and a verified certificate
    /// identity; 401 when authentication is on and neither names a user.
    result<user_info> authenticate(std::string_view authorization,
                                   const std::optional<user_info>& cert_user) const;
    /// 403 when the policy does not allow it.
    result<void> authorize(const user_info& user, const access_request& req) const;
    /// A non-resource path (`verb` is the lowercase method): the public-info
    /// paths are open to all; anonymous gets 403 for the rest.
    result<void> authorize_path(const user_info& user, std::string_view verb, std::string_view path) const;
    /// The user the Impersonate-User / Impersonate-Group headers ask for, after
    /// checking `impersonate` on users (or serviceaccounts) and groups for the
    /// requestor, as impersonation.go does. `groups_given` = any
    /// Impersonate-Group header was sent (then they replace the defaults).
    result<user_info> impersonate(const user_info& requestor, std::string_view user,
                                  const std::vector<std::string>& groups) const;

private:
    token_table tokens_;
    bool client_certs_ = false;
    std::optional<policy> policy_;
    std::function<authz_decision(const authz_attributes&)> rbac_;
    std::function<std::optional<user_info>(std::string_view)> bearer_;
};

} // namespace kcoro::apiserver::http
