// Service account tokens as kube-apiserver issues and checks them
// (pkg/serviceaccount/jwt.go and claims.go, pkg/registry/core/serviceaccount/
// storage/token.go, v1.32): TokenRequest (`kubectl create token`) signs an
// RS256 JWT with the server's service-account key, and the authenticator
// turns such a bearer token back into the user
// system:serviceaccount:<ns>:<name> while the account still exists with the
// same uid.
//
// The RSA key is made on first use (one per server; tests that never ask for
// a token pay nothing). Thread safety: the server's one thread.
#pragma once

#include "http/auth.hpp"
#include "store/object_store.hpp"

#include <kcoro/core/time.hpp>

#include <boost/json/object.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kcoro::apiserver::http {

/// The issuer and default audience (kube-apiserver's --service-account-issuer
/// as kubeadm sets it; --api-audiences defaults to it).
inline constexpr std::string_view default_token_issuer = "https://kubernetes.default.svc.cluster.local";

struct token_claims {
    std::string ns, name, uid;  // the service account
    std::string jti;
    std::vector<std::string> audiences;
};

class token_issuer {
public:
    token_issuer();
    ~token_issuer();
    token_issuer(token_issuer&&) noexcept;
    token_issuer& operator=(token_issuer&&) noexcept;

    /// A signed JWT: header {alg RS256, kid}, claims aud, exp, iat, iss, jti,
    /// kubernetes.io {namespace, serviceaccount {name, uid}}, nbf, sub.
    result<std::string> issue(const token_claims& claims, wall_time now, std::int64_t expiration_seconds);
    /// The claims of a token this issuer signed, with `iss` its own, not yet
    /// expired and already valid at `now` (go-jose's one-minute leeway);
    /// nullopt for anything else.
    std::optional<token_claims> verify(std::string_view jwt, wall_time now) const;

    /// A fresh token id (a UUID from a seeded generator: runs repeat).
    std::string next_jti();

private:
    struct key;
    std::unique_ptr<key> key_;
    std::uint64_t jti_state_ = 0x6b636f726f;  // "kcoro"
};

/// POST serviceaccounts/<name>/token (pkg/registry/core/serviceaccount/
/// storage/token.go Create): the account must exist (404), expirationSeconds
/// defaults to 3600 and may not be below 600 or above 2^32 (422), audiences
/// default to the issuer; the TokenRequest answered with its token and
/// expirationTimestamp, and the managedFields of the create (subresource token).
result<boost::json::object> answer_token_request(token_issuer& issuer, const object_store& store, std::string_view ns,
                                                 std::string_view name, boost::json::object body, wall_time now,
                                                 std::string_view field_manager);

/// The service-account token authenticator: the user of a token `issuer`
/// signed, while its account exists with the claimed uid and is not being
/// deleted (groups system:serviceaccounts and system:serviceaccounts:<ns>,
/// extra authentication.kubernetes.io/credential-id "JTI=<jti>").
std::optional<user_info> service_account_user(const token_issuer& issuer, const object_store& store,
                                              std::string_view token, wall_time now);

} // namespace kcoro::apiserver::http
