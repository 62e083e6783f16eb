// TLS contexts for kcoro's clients and servers (OpenSSL through asio::ssl).
//
// Client: trust `ca_pem` (or the system store when empty), present a client
// certificate when given, and verify the peer's chain and its host name or IP
// SAN (asio::ssl::host_name_verification) unless verification is explicitly
// switched off. Server: a certificate chain and key, and optionally verify
// client certificates against a CA (kcoro-apiserver's client-cert auth).
//
// The heavy asio::ssl templates stay in tls.cpp; this header only forward
// declares the context type.
//
// Lifetime and thread safety: a context is shared (shared_ptr) by all the
// connections made with it and must outlive them; it is immutable after
// construction, so connections on several threads may share it.
#pragma once

#include <kcoro/core/error.hpp>

#include <openssl/types.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace boost::asio::ssl {
class context;
}

namespace kcoro::io {

struct tls_client_options {
    /// Trusted CA certificates (PEM, one or more); empty means the system store.
    std::string ca_pem;
    /// The name the certificate must carry: a DNS name or an IP address (then
    /// an IP SAN is required). Also sent as SNI when it is a DNS name.
    std::string server_name;
    std::string client_cert_pem;
    std::string client_key_pem;
    /// Skip chain and host verification (kubeconfig insecure-skip-tls-verify).
    bool insecure_skip_verify = false;
};

result<std::shared_ptr<boost::asio::ssl::context>> make_client_tls_context(const tls_client_options& opts);

/// Per connection, before the handshake: SNI for `server_name` (not for IP
/// addresses, which RFC 6066 forbids in SNI).
result<void> set_client_sni(SSL* ssl, std::string_view server_name);

enum class client_cert_mode {
    none,     // never ask
    request,  // ask; verify when presented (Kubernetes: tokens are the alternative)
    require,  // handshake fails without a valid client certificate
};

struct tls_server_options {
    std::string cert_chain_pem;
    std::string key_pem;
    /// CA that signs accepted client certificates (needed unless mode is none).
    std::string client_ca_pem;
    client_cert_mode mode = client_cert_mode::none;
};

result<std::shared_ptr<boost::asio::ssl::context>> make_server_tls_context(const tls_server_options& opts);

/// Who the verified client certificate names, as Kubernetes maps it:
/// CN = user, O = groups.
struct peer_identity {
    std::string user;
    std::vector<std::string> groups;
};

/// The identity of a verified peer certificate; nullopt when the peer sent
/// none or verification failed.
std::optional<peer_identity> verified_peer_identity(SSL* ssl);

/// True for a literal IPv4/IPv6 address ("10.0.0.1", "::1", "[::1]").
bool is_ip_address(std::string_view host) noexcept;

} // namespace kcoro::io
