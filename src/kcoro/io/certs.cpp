#include <kcoro/io/certs.hpp>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace kcoro::io {
namespace {

struct free_bio { void operator()(BIO* p) const noexcept { BIO_free(p); } };
struct free_pkey { void operator()(EVP_PKEY* p) const noexcept { EVP_PKEY_free(p); } };
struct free_x509 { void operator()(X509* p) const noexcept { X509_free(p); } };
struct free_ext { void operator()(X509_EXTENSION* p) const noexcept { X509_EXTENSION_free(p); } };
using bio_ptr = std::unique_ptr<BIO, free_bio>;
using pkey_ptr = std::unique_ptr<EVP_PKEY, free_pkey>;
using x509_ptr = std::unique_ptr<X509, free_x509>;
using ext_ptr = std::unique_ptr<X509_EXTENSION, free_ext>;

// The OpenSSL error queue as text (and cleared, so it does not leak into
// the next TLS operation on this thread).
error ssl_failure(std::string_view what) {
    std::string msg(what);
    while (unsigned long e = ERR_get_error()) {
        char buf[256];
        ERR_error_string_n(e, buf, sizeof buf);
        msg += ": ";
        msg += buf;
    }
    return error(kcoro_errc::invalid_config, std::move(msg));
}

result<std::string> bio_string(BIO* b) {
    char* data = nullptr;
    long n = BIO_get_mem_data(b, &data);
    if (n < 0) {
        return ssl_failure("reading PEM buffer");
    }
    return std::string(data, static_cast<std::size_t>(n));
}

result<std::string> key_to_pem(EVP_PKEY* key) {
    bio_ptr b(BIO_new(BIO_s_mem()));
    if (!b || PEM_write_bio_PrivateKey(b.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
        return ssl_failure("encoding private key");
    }
    return bio_string(b.get());
}

result<std::string> cert_to_pem(X509* cert) {
    bio_ptr b(BIO_new(BIO_s_mem()));
    if (!b || PEM_write_bio_X509(b.get(), cert) != 1) {
        return ssl_failure("encoding certificate");
    }
    return bio_string(b.get());
}

result<x509_ptr> cert_from_pem(const std::string& pem) {
    bio_ptr b(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    x509_ptr c(b ? PEM_read_bio_X509(b.get(), nullptr, nullptr, nullptr) : nullptr);
    if (!c) {
        return ssl_failure("parsing CA certificate PEM");
    }
    return c;
}

result<pkey_ptr> key_from_pem(const std::string& pem) {
    bio_ptr b(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    pkey_ptr k(b ? PEM_read_bio_PrivateKey(b.get(), nullptr, nullptr, nullptr) : nullptr);
    if (!k) {
        return ssl_failure("parsing CA private key PEM");
    }
    return k;
}

result<void> add_ext(X509* cert, X509* issuer, int nid, const std::string& value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    ext_ptr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
    if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) {
        return ssl_failure("adding extension " + std::string(OBJ_nid2sn(nid)) + "=" + value);
    }
    return {};
}

// A new certificate for `key`, not yet signed. `issuer` null means self-signed.
result<x509_ptr> build_cert(const cert_request& req, EVP_PKEY* key, X509* issuer, bool is_ca) {
    x509_ptr cert(X509_new());
    if (!cert || X509_set_version(cert.get(), 2) != 1) {
        return ssl_failure("allocating certificate");
    }
    // 63 random bits: positive and unique enough that browsers/OpenSSL never
    // see two certificates with one issuer and serial.
    unsigned char rnd[8];
    if (RAND_bytes(rnd, sizeof rnd) != 1) {
        return ssl_failure("random serial");
    }
    rnd[0] &= 0x7f;
    std::uint64_t serial = 0;
    for (unsigned char c : rnd) {
        serial = (serial << 8) | c;
    }
    ASN1_INTEGER_set_uint64(X509_get_serialNumber(cert.get()), serial);
    // Back-date by an hour so clock skew between test processes never matters.
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(req.validity.count()) * 3600);
    if (X509_set_pubkey(cert.get(), key) != 1) {
        return ssl_failure("setting public key");
    }
    X509_NAME* name = X509_get_subject_name(cert.get());
    auto add_name = [&](const char* field, const std::string& v) {
        return X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8,
                                          reinterpret_cast<const unsigned char*>(v.data()),
                                          static_cast<int>(v.size()), -1, 0) == 1;
    };
    for (const auto& o : req.organizations) {
        if (!add_name("O", o)) {
            return ssl_failure("subject O=" + o);
        }
    }
    if (!req.common_name.empty() && !add_name("CN", req.common_name)) {
        return ssl_failure("subject CN=" + req.common_name);
    }
    X509* signer = issuer ? issuer : cert.get();
    if (X509_set_issuer_name(cert.get(), X509_get_subject_name(signer)) != 1) {
        return ssl_failure("setting issuer");
    }
    auto r = add_ext(cert.get(), signer, NID_basic_constraints, is_ca ? "critical,CA:TRUE" : "critical,CA:FALSE");
    if (r) r = add_ext(cert.get(), signer, NID_subject_key_identifier, "hash");
    if (r) r = add_ext(cert.get(), signer, NID_authority_key_identifier, "keyid:always");
    if (is_ca) {
        if (r) r = add_ext(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature");
    } else {
        if (r) r = add_ext(cert.get(), signer, NID_key_usage, "critical,digitalSignature,keyEncipherment");
        const char* eku = req.usage == cert_usage::server   ? "serverAuth"
                          : req.usage == cert_usage::client ? "clientAuth"
                                                            : "serverAuth,clientAuth";
        if (r) r = add_ext(cert.get(), signer, NID_ext_key_usage, eku);
        std::string san;
        for (const auto& d : req.dns_names) {
            san += (san.empty() ? "DNS:" : ",DNS:") + d;
        }
        for (const auto& ip : req.ip_addresses) {
            san += (san.empty() ? "IP:" : ",IP:") + ip;
        }
        if (r && !san.empty()) r = add_ext(cert.get(), signer, NID_subject_alt_name, san);
    }
    if (!r) {
        return r.error();
    }
    return cert;
}

} // namespace

result<certificate_authority> certificate_authority::create(std::string_view common_name,
                                                            std::chrono::hours validity) {
    pkey_ptr key(EVP_EC_gen("P-256"));
    if (!key) {
        return ssl_failure("generating CA key");
    }
    cert_request req;
    req.common_name = std::string(common_name);
    req.validity = validity;
    auto cert = build_cert(req, key.get(), nullptr, true);
    if (!cert) {
        return cert.error();
    }
    if (X509_sign(cert->get(), key.get(), EVP_sha256()) == 0) {
        return ssl_failure("self-signing CA");
    }
    auto cert_pem = cert_to_pem(cert->get());
    auto key_pem = key_to_pem(key.get());
    if (!cert_pem) return cert_pem.error();
    if (!key_pem) return key_pem.error();
    return certificate_authority(pem_pair{std::move(*cert_pem), std::move(*key_pem)});
}

result<certificate_authority> certificate_authority::from_pem(std::string cert_pem, std::string key_pem) {
    auto cert = cert_from_pem(cert_pem);
    if (!cert) return cert.error();
    auto key = key_from_pem(key_pem);
    if (!key) return key.error();
    if (X509_check_private_key(cert->get(), key->get()) != 1) {
        return ssl_failure("CA key does not match CA certificate");
    }
    return certificate_authority(pem_pair{std::move(cert_pem), std::move(key_pem)});
}

result<pem_pair> certificate_authority::issue(const cert_request& req) const {
    auto ca_cert = cert_from_pem(ca_.cert_pem);
    if (!ca_cert) return ca_cert.error();
    auto ca_key = key_from_pem(ca_.key_pem);
    if (!ca_key) return ca_key.error();
    pkey_ptr key(EVP_EC_gen("P-256"));
    if (!key) {
        return ssl_failure("generating key");
    }
    auto cert = build_cert(req, key.get(), ca_cert->get(), false);
    if (!cert) return cert.error();
    if (X509_sign(cert->get(), ca_key->get(), EVP_sha256()) == 0) {
        return ssl_failure("signing certificate");
    }
    auto cert_pem = cert_to_pem(cert->get());
    auto key_pem = key_to_pem(key.get());
    if (!cert_pem) return cert_pem.error();
    if (!key_pem) return key_pem.error();
    return pem_pair{std::move(*cert_pem), std::move(*key_pem)};
}

result<pem_pair> certificate_authority::issue_server(std::vector<std::string> dns_names,
                                                     std::vector<std::string> ip_addresses) const {
    cert_request req;
    req.common_name = !dns_names.empty() ? dns_names.front()
                      : !ip_addresses.empty() ? ip_addresses.front() : std::string("kcoro-server");
    req.dns_names = std::move(dns_names);
    req.ip_addresses = std::move(ip_addresses);
    req.usage = cert_usage::server;
    return issue(req);
}

result<pem_pair> certificate_authority::issue_client(std::string_view user, std::vector<std::string> groups) const {
    cert_request req;
    req.common_name = std::string(user);
    req.organizations = std::move(groups);
    req.usage = cert_usage::client;
    return issue(req);
}

} // namespace kcoro::io
