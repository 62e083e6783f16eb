// Test and bootstrap PKI: a self-signed CA and certificates it signs, as PEM.
//
// kcoro-apiserver and the integration tests use it to serve TLS with a CA the
// test controls. Client certificates follow Kubernetes' mapping: CN = user
// name, O = groups. Keys are ECDSA P-256 (fast to generate).
//
// Lifetime and thread safety: plain values; every call builds its own OpenSSL
// objects and frees them before returning, so distinct calls may run on
// distinct threads. Validity is measured from the system's wall time, because
// OpenSSL checks certificates against it.
#pragma once

#include <kcoro/core/error.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::io {

/// A certificate and its private key, both PEM.
struct pem_pair {
    std::string cert_pem;
    std::string key_pem;
};

enum class cert_usage { server, client, server_and_client };

struct cert_request {
    std::string common_name;
    std::vector<std::string> organizations;  // O= entries (Kubernetes groups)
    std::vector<std::string> dns_names;      // subjectAltName DNS:
    std::vector<std::string> ip_addresses;   // subjectAltName IP: (v4 or v6 text)
    cert_usage usage = cert_usage::server;
    std::chrono::hours validity{24 * 365};
};

class certificate_authority {
public:
    /// A fresh self-signed CA.
    static result<certificate_authority> create(std::string_view common_name,
                                                std::chrono::hours validity = std::chrono::hours(24 * 3650));
    /// An existing CA (both PEM); checked to parse and to match.
    static result<certificate_authority> from_pem(std::string cert_pem, std::string key_pem);

    const std::string& cert_pem() const noexcept { return ca_.cert_pem; }
    const std::string& key_pem() const noexcept { return ca_.key_pem; }

    /// A certificate signed by this CA.
    result<pem_pair> issue(const cert_request& req) const;
    /// A server certificate for the given DNS names and IP addresses.
    result<pem_pair> issue_server(std::vector<std::string> dns_names,
                                  std::vector<std::string> ip_addresses = {}) const;
    /// A client certificate: CN = user, one O per group.
    result<pem_pair> issue_client(std::string_view user, std::vector<std::string> groups = {}) const;

private:
    explicit certificate_authority(pem_pair ca) : ca_(std::move(ca)) {}
    pem_pair ca_;
};

} // namespace kcoro::io
