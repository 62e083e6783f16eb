#include <kcoro/io/certs.hpp>

#include <doctest/doctest.h>

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <memory>

namespace {

std::unique_ptr<X509, decltype(&X509_free)> parse(const std::string& pem) {
    BIO* b = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    X509* c = PEM_read_bio_X509(b, nullptr, nullptr, nullptr);
    BIO_free(b);
    return {c, &X509_free};
}

// Chain verification of `leaf` against `ca` alone, as a TLS peer would do it.
int verify(const std::string& ca_pem, const std::string& leaf_pem, const char* host, const char* ip) {
    auto ca = parse(ca_pem);
    auto leaf = parse(leaf_pem);
    REQUIRE(ca != nullptr);
    REQUIRE(leaf != nullptr);
    X509_STORE* store = X509_STORE_new();
    X509_STORE_add_cert(store, ca.get());
    X509_STORE_CTX* ctx = X509_STORE_CTX_new();
    X509_STORE_CTX_init(ctx, store, leaf.get(), nullptr);
    X509_VERIFY_PARAM* p = X509_STORE_CTX_get0_param(ctx);
    if (host) X509_VERIFY_PARAM_set1_host(p, host, 0);
    if (ip) X509_VERIFY_PARAM_set1_ip_asc(p, ip);
    int ok = X509_verify_cert(ctx);
    int err = ok == 1 ? X509_V_OK : X509_STORE_CTX_get_error(ctx);
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    return err;
}

std::string subject(const std::string& pem) {
    auto c = parse(pem);
    char buf[512];
    X509_NAME_oneline(X509_get_subject_name(c.get()), buf, sizeof buf);
    return buf;
}

} // namespace

TEST_CASE("a server certificate verifies against its CA for its DNS names and IPs only") {
    auto ca = kcoro::io::certificate_authority::create("test-ca");
    REQUIRE(ca.has_value());
    auto srv = ca->issue_server({"localhost", "api.example"}, {"127.0.0.1", "::1"});
    REQUIRE(srv.has_value());
    CHECK(srv->key_pem.find("PRIVATE KEY") != std::string::npos);
    CHECK(verify(ca->cert_pem(), srv->cert_pem, "localhost", nullptr) == X509_V_OK);
    CHECK(verify(ca->cert_pem(), srv->cert_pem, "api.example", nullptr) == X509_V_OK);
    CHECK(verify(ca->cert_pem(), srv->cert_pem, nullptr, "127.0.0.1") == X509_V_OK);
    CHECK(verify(ca->cert_pem(), srv->cert_pem, nullptr, "::1") == X509_V_OK);
    CHECK(verify(ca->cert_pem(), srv->cert_pem, "other.example", nullptr) == X509_V_ERR_HOSTNAME_MISMATCH);
    CHECK(verify(ca->cert_pem(), srv->cert_pem, nullptr, "10.0.0.1") == X509_V_ERR_IP_ADDRESS_MISMATCH);
}

TEST_CASE("a certificate does not verify against another CA") {
    auto ca = kcoro::io::certificate_authority::create("ca-1");
    auto other = kcoro::io::certificate_authority::create("ca-2");
    REQUIRE(ca.has_value());
    REQUIRE(other.has_value());
    auto srv = ca->issue_server({"localhost"});
    REQUIRE(srv.has_value());
    CHECK(verify(other->cert_pem(), srv->cert_pem, "localhost", nullptr) != X509_V_OK);
}

TEST_CASE("client certificates carry the user as CN and groups as O") {
    auto ca = kcoro::io::certificate_authority::create("ca");
    REQUIRE(ca.has_value());
    auto cl = ca->issue_client("alice", {"system:masters", "dev"});
    REQUIRE(cl.has_value());
    auto s = subject(cl->cert_pem);
    CHECK(s.find("CN=alice") != std::string::npos);
    CHECK(s.find("O=system:masters") != std::string::npos);
    CHECK(s.find("O=dev") != std::string::npos);
    CHECK(verify(ca->cert_pem(), cl->cert_pem, nullptr, nullptr) == X509_V_OK);
}

TEST_CASE("a CA round-trips through PEM and rejects garbage or a mismatched key") {
    auto ca = kcoro::io::certificate_authority::create("ca");
    auto other = kcoro::io::certificate_authority::create("other");
    REQUIRE(ca.has_value());
    REQUIRE(other.has_value());
    auto again = kcoro::io::certificate_authority::from_pem(ca->cert_pem(), ca->key_pem());
    REQUIRE(again.has_value());
    auto srv = again->issue_server({"x.example"});
    REQUIRE(srv.has_value());
    CHECK(verify(ca->cert_pem(), srv->cert_pem, "x.example", nullptr) == X509_V_OK);

    auto bad = kcoro::io::certificate_authority::from_pem("not a pem", ca->key_pem());
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().code() == kcoro::kcoro_errc::invalid_config);
    auto mismatch = kcoro::io::certificate_authority::from_pem(ca->cert_pem(), other->key_pem());
    REQUIRE_FALSE(mismatch.has_value());
    CHECK(mismatch.error().message().find("does not match") != std::string::npos);
}

TEST_CASE("an invalid IP SAN is reported, not thrown") {
    auto ca = kcoro::io::certificate_authority::create("ca");
    REQUIRE(ca.has_value());
    auto r = ca->issue_server({}, {"not-an-ip"});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message().find("subjectAltName") != std::string::npos);
}
