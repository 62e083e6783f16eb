#include <kcoro/io/tls.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace kcoro::io {
namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;

namespace {

error tls_config_error(std::string_view what, const boost::system::error_code& ec) {
    return error(kcoro_errc::invalid_config, std::string(what) + ": " + ec.message());
}

std::string_view strip_brackets(std::string_view host) {
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
        return host.substr(1, host.size() - 2);
    }
    return host;
}

// Refuse protocols the API server refuses too.
void harden(ssl::context& ctx) {
    ctx.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                    ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
}

} // namespace

bool is_ip_address(std::string_view host) noexcept {
    boost::system::error_code ec;
    asio::ip::make_address(std::string(strip_brackets(host)), ec);
    return !ec;
}

result<std::shared_ptr<ssl::context>> make_client_tls_context(const tls_client_options& opts) {
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
    harden(*ctx);
    boost::system::error_code ec;
    if (opts.insecure_skip_verify) {
        ctx->set_verify_mode(ssl::verify_none, ec);
        if (ec) return tls_config_error("TLS verify mode", ec);
    } else {
        if (opts.ca_pem.empty()) {
            ctx->set_default_verify_paths(ec);
            if (ec) return tls_config_error("loading the system trust store", ec);
        } else {
            ctx->add_certificate_authority(asio::buffer(opts.ca_pem), ec);
            if (ec) return tls_config_error("certificate-authority data", ec);
        }
        ctx->set_verify_mode(ssl::verify_peer, ec);
        if (ec) return tls_config_error("TLS verify mode", ec);
        if (opts.server_name.empty()) {
            return error(kcoro_errc::invalid_config, "TLS: no server name to verify");
        }
        // Checks a DNS SAN for names and an IP SAN for addresses.
        ctx->set_verify_callback(ssl::host_name_verification(std::string(strip_brackets(opts.server_name))), ec);
        if (ec) return tls_config_error("TLS host verification", ec);
    }
    if (!opts.client_cert_pem.empty() || !opts.client_key_pem.empty()) {
        if (opts.client_cert_pem.empty() || opts.client_key_pem.empty()) {
            return error(kcoro_errc::invalid_config, "TLS: a client certificate needs both certificate and key");
        }
        ctx->use_certificate_chain(asio::buffer(opts.client_cert_pem), ec);
        if (ec) return tls_config_error("client-certificate data", ec);
        ctx->use_private_key(asio::buffer(opts.client_key_pem), ssl::context::pem, ec);
        if (ec) return tls_config_error("client-key data", ec);
        if (SSL_CTX_check_private_key(ctx->native_handle()) != 1) {
            ERR_clear_error();
            return error(kcoro_errc::invalid_config, "TLS: client key does not match client certificate");
        }
    }
    return ctx;
}

result<void> set_client_sni(SSL* ssl, std::string_view server_name) {
    if (server_name.empty() || is_ip_address(server_name)) {
        return {};
    }
    std::string name(server_name);
    if (SSL_set_tlsext_host_name(ssl, name.c_str()) != 1) {
        ERR_clear_error();
        return error(kcoro_errc::invalid_config, "TLS: cannot set SNI " + name);
    }
    return {};
}

result<std::shared_ptr<ssl::context>> make_server_tls_context(const tls_server_options& opts) {
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
    harden(*ctx);
    boost::system::error_code ec;
    ctx->use_certificate_chain(asio::buffer(opts.cert_chain_pem), ec);
    if (ec) return tls_config_error("server certificate chain", ec);
    ctx->use_private_key(asio::buffer(opts.key_pem), ssl::context::pem, ec);
    if (ec) return tls_config_error("server private key", ec);
    if (SSL_CTX_check_private_key(ctx->native_handle()) != 1) {
        ERR_clear_error();
        return error(kcoro_errc::invalid_config, "TLS: server key does not match its certificate");
    }
    if (opts.mode != client_cert_mode::none) {
        if (opts.client_ca_pem.empty()) {
            return error(kcoro_errc::invalid_config, "TLS: client certificate verification needs a client CA");
        }
        ctx->add_certificate_authority(asio::buffer(opts.client_ca_pem), ec);
        if (ec) return tls_config_error("client CA", ec);
        ssl::verify_mode mode = ssl::verify_peer;
        if (opts.mode == client_cert_mode::require) {
            mode |= ssl::verify_fail_if_no_peer_cert;
        }
        ctx->set_verify_mode(mode, ec);
        if (ec) return tls_config_error("TLS verify mode", ec);
    }
    return ctx;
}

std::optional<peer_identity> verified_peer_identity(SSL* ssl) {
    if (SSL_get_verify_result(ssl) != X509_V_OK) {
        return std::nullopt;
    }
    X509* cert = SSL_get0_peer_certificate(ssl);
    if (!cert) {
        return std::nullopt;
    }
    peer_identity id;
    X509_NAME* name = X509_get_subject_name(cert);
    for (int i = 0; i < X509_NAME_entry_count(name); ++i) {
        X509_NAME_ENTRY* e = X509_NAME_get_entry(name, i);
        int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(e));
        unsigned char* utf8 = nullptr;
        int n = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(e));
        if (n < 0) {
            continue;
        }
        std::string v(reinterpret_cast<char*>(utf8), static_cast<std::size_t>(n));
        OPENSSL_free(utf8);
        if (nid == NID_commonName) {
            id.user = std::move(v);
        } else if (nid == NID_organizationName) {
            id.groups.push_back(std::move(v));
        }
    }
    return id;
}

} // namespace kcoro::io
