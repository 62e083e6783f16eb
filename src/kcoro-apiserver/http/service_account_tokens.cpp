// JWT with OpenSSL's EVP (RS256: RSASSA-PKCS1-v1_5 over SHA-256) and
// Boost.JSON; base64url without padding as RFC 7515 has it.
#include "http/service_account_tokens.hpp"

#include "server_side_apply.hpp"
#include "store/status_errors.hpp"

#include <kcoro/core/base64.hpp>
#include <kcoro/core/object.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <chrono>
#include <cstdio>

namespace kcoro::apiserver::http {
namespace json = boost::json;

namespace {

std::string base64url(std::string_view bytes) {
    std::string s = base64_encode(bytes);
    while (!s.empty() && s.back() == '=') s.pop_back();
    for (auto& c : s) {
        if (c == '+') c = '-';
        else if (c == '/') c = '_';
    }
    return s;
}

std::optional<std::string> from_base64url(std::string_view text) {
    std::string s(text);
    for (auto& c : s) {
        if (c == '-') c = '+';
        else if (c == '_') c = '/';
        else if (c == '+' || c == '/' || c == '=') return std::nullopt;
    }
    while (s.size() % 4 != 0) s.push_back('=');
    return base64_decode(s);
}

struct free_pkey { void operator()(EVP_PKEY* p) const noexcept { EVP_PKEY_free(p); } };
struct free_md_ctx { void operator()(EVP_MD_CTX* p) const noexcept { EVP_MD_CTX_free(p); } };
struct free_pkey_ctx { void operator()(EVP_PKEY_CTX* p) const noexcept { EVP_PKEY_CTX_free(p); } };

std::int64_t unix_seconds(wall_time t) {
    return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

} // namespace

struct token_issuer::key {
    std::unique_ptr<EVP_PKEY, free_pkey> pkey;
    std::string kid;
};

token_issuer::token_issuer() = default;
token_issuer::~token_issuer() = default;
token_issuer::token_issuer(token_issuer&&) noexcept = default;
token_issuer& token_issuer::operator=(token_issuer&&) noexcept = default;

result<std::string> token_issuer::issue(const token_claims& c, wall_time now, std::int64_t expiration_seconds) {
    if (!key_) {
        // The signing key, made now: RSA 2048 as kubeadm's sa.key.
        std::unique_ptr<EVP_PKEY_CTX, free_pkey_ctx> kctx(EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nullptr));
        EVP_PKEY* raw = nullptr;
        if (!kctx || EVP_PKEY_keygen_init(kctx.get()) != 1 || EVP_PKEY_CTX_set_rsa_keygen_bits(kctx.get(), 2048) != 1 ||
            EVP_PKEY_keygen(kctx.get(), &raw) != 1) {
            return error(kcoro_errc::invalid_config, "kcoro-apiserver: cannot make the service-account signing key");
        }
        auto k = std::make_unique<key>();
        k->pkey.reset(raw);
        // KeyIDFromPublicKey (jwt.go): base64url of SHA-256 of the PKIX public key.
        unsigned char* der = nullptr;
        int len = i2d_PUBKEY(raw, &der);
        if (len <= 0) return error(kcoro_errc::invalid_config, "kcoro-apiserver: cannot encode the service-account key");
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned int md_len = 0;
        EVP_Digest(der, static_cast<std::size_t>(len), md, &md_len, EVP_sha256(), nullptr);
        OPENSSL_free(der);
        k->kid = base64url(std::string_view(reinterpret_cast<const char*>(md), md_len));
        key_ = std::move(k);
    }
    const json::object header{{"alg", "RS256"}, {"kid", key_->kid}};
    json::array aud;
    for (const auto& a : c.audiences) aud.push_back(json::string(a));
    const auto iat = unix_seconds(now);
    // claims.go's private claims; Go's json.Marshal sorts nothing, but the
    // struct's field order is this one.
    const json::object claims{
        {"aud", std::move(aud)},
        {"exp", iat + expiration_seconds},
        {"iat", iat},
        {"iss", default_token_issuer},
        {"jti", c.jti},
        {"kubernetes.io", json::object{{"namespace", c.ns},
                                       {"serviceaccount", json::object{{"name", c.name}, {"uid", c.uid}}}}},
        {"nbf", iat},
        {"sub", "system:serviceaccount:" + c.ns + ":" + c.name}};
    const std::string signing_input = base64url(json::serialize(header)) + "." + base64url(json::serialize(claims));
    std::unique_ptr<EVP_MD_CTX, free_md_ctx> ctx(EVP_MD_CTX_new());
    std::size_t sig_len = 0;
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key_->pkey.get()) != 1 ||
        EVP_DigestSign(ctx.get(), nullptr, &sig_len, reinterpret_cast<const unsigned char*>(signing_input.data()),
                       signing_input.size()) != 1) {
        return error(kcoro_errc::invalid_config, "kcoro-apiserver: signing a token failed");
    }
    std::string sig(sig_len, '\0');
    if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &sig_len,
                       reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size()) != 1) {
        return error(kcoro_errc::invalid_config, "kcoro-apiserver: signing a token failed");
    }
    sig.resize(sig_len);
    return signing_input + "." + base64url(sig);
}

std::optional<token_claims> token_issuer::verify(std::string_view jwt, wall_time now) const {
    if (!key_) return std::nullopt;  // no token was ever issued
    const auto d1 = jwt.find('.');
    const auto d2 = d1 == std::string_view::npos ? d1 : jwt.find('.', d1 + 1);
    if (d2 == std::string_view::npos || jwt.find('.', d2 + 1) != std::string_view::npos) return std::nullopt;
    const auto signing_input = jwt.substr(0, d2);
    auto sig = from_base64url(jwt.substr(d2 + 1));
    auto header_text = from_base64url(jwt.substr(0, d1));
    auto claims_text = from_base64url(jwt.substr(d1 + 1, d2 - d1 - 1));
    if (!sig || !header_text || !claims_text) return std::nullopt;
    std::unique_ptr<EVP_MD_CTX, free_md_ctx> ctx(EVP_MD_CTX_new());
    if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key_->pkey.get()) != 1 ||
        EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig->data()), sig->size(),
                         reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size()) != 1) {
        return std::nullopt;
    }
    boost::system::error_code ec;
    auto header = json::parse(*header_text, ec);
    if (ec || !header.is_object() || header.as_object().if_contains("alg") == nullptr ||
        header.as_object().at("alg") != "RS256") {
        return std::nullopt;
    }
    auto claims = json::parse(*claims_text, ec);
    if (ec || !claims.is_object()) return std::nullopt;
    const auto& o = claims.as_object();
    auto str = [](const json::object& obj, std::string_view k) {
        const auto* v = obj.if_contains(k);
        return v && v->is_string() ? std::string(v->get_string()) : std::string{};
    };
    auto num = [](const json::object& obj, std::string_view k) -> std::optional<std::int64_t> {
        const auto* v = obj.if_contains(k);
        if (!v || !v->is_number()) return std::nullopt;
        return v->to_number<std::int64_t>();
    };
    if (str(o, "iss") != default_token_issuer) return std::nullopt;
    constexpr std::int64_t leeway = 60;
    const auto t = unix_seconds(now);
    auto exp = num(o, "exp");
    if (!exp || t > *exp + leeway) return std::nullopt;
    if (auto nbf = num(o, "nbf"); nbf && t + leeway < *nbf) return std::nullopt;
    const auto* k8s = o.if_contains("kubernetes.io");
    if (!k8s || !k8s->is_object()) return std::nullopt;
    const auto* sa = k8s->as_object().if_contains("serviceaccount");
    if (!sa || !sa->is_object()) return std::nullopt;
    token_claims c;
    c.ns = str(k8s->as_object(), "namespace");
    c.name = str(sa->as_object(), "name");
    c.uid = str(sa->as_object(), "uid");
    c.jti = str(o, "jti");
    if (const auto* aud = o.if_contains("aud"); aud && aud->is_array()) {
        for (const auto& a : aud->as_array()) {
            if (a.is_string()) c.audiences.emplace_back(a.get_string());
        }
    }
    if (c.ns.empty() || c.name.empty()) return std::nullopt;
    return c;
}

std::string token_issuer::next_jti() {
    // splitmix64, twice: 128 bits shaped as a version-4 UUID.
    auto next = [this] {
        std::uint64_t z = (jti_state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    };
    const std::uint64_t a = next(), b = next();
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                  static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0x0fff),
                  static_cast<unsigned>(((b >> 48) & 0x3fff) | 0x8000),
                  static_cast<unsigned long long>(b & 0xffffffffffffULL));
    return buf;
}

result<json::object> answer_token_request(token_issuer& issuer, const object_store& store, std::string_view ns,
                                          std::string_view name, json::object body, wall_time now,
                                          std::string_view field_manager) {
    auto account = store.get(resources::serviceaccounts(), ns, name);
    if (!account) return account.error();  // serviceaccounts "x" not found
    auto& spec_value = body["spec"];
    if (!spec_value.is_object()) spec_value = json::object{};
    auto& spec = spec_value.as_object();
    // ValidateTokenRequest (pkg/apis/authentication/validation).
    std::int64_t expiration = 3600;  // SetDefaults_TokenRequestSpec
    if (const auto* e = spec.if_contains("expirationSeconds"); e && e->is_number()) expiration = e->to_number<std::int64_t>();
    if (expiration < 600) {
        return errors::invalid("authentication.k8s.io", "TokenRequest", "",
                               {errors::field_invalid("spec.expirationSeconds", std::to_string(expiration),
                                                      "may not specify a duration less than 10 minutes")});
    }
    if (expiration > (std::int64_t{1} << 32)) {
        return errors::invalid("authentication.k8s.io", "TokenRequest", "",
                               {errors::field_invalid("spec.expirationSeconds", std::to_string(expiration),
                                                      "may not specify a duration larger than 2^32 seconds")});
    }
    token_claims claims;
    claims.ns = std::string(ns);
    claims.name = std::string(name);
    claims.uid = std::string(uid_of(*account));
    claims.jti = issuer.next_jti();
    if (const auto* a = spec.if_contains("audiences"); a && a->is_array()) {
        for (const auto& x : a->as_array()) {
            if (x.is_string()) claims.audiences.emplace_back(x.get_string());
        }
    }
    if (claims.audiences.empty()) claims.audiences.emplace_back(default_token_issuer);
    auto token = issuer.issue(claims, now, expiration);
    if (!token) return token.error();
    // The create handler's field manager saw the request (subresource token).
    if (!field_manager.empty()) {
        update_options o;
        o.manager = std::string(field_manager);
        o.now = now;
        body = update_managed_fields(json::object{}, std::move(body), o);
        auto* md = body.if_contains("metadata");
        auto* mf = md && md->is_object() ? md->as_object().if_contains("managedFields") : nullptr;
        if (mf && mf->is_array()) {
            for (auto& e : mf->as_array()) {
                if (e.is_object()) e.as_object()["subresource"] = "token";
            }
        }
    }
    json::object meta{{"name", name}, {"namespace", ns}, {"creationTimestamp", format_rfc3339(now)}};
    if (const auto* mf = find_path(body, {"metadata", "managedFields"})) meta["managedFields"] = *mf;
    json::array aud;
    for (const auto& a : claims.audiences) aud.push_back(json::string(a));
    const auto* bound = spec.if_contains("boundObjectRef");
    return json::object{
        {"kind", "TokenRequest"},
        {"apiVersion", "authentication.k8s.io/v1"},
        {"metadata", std::move(meta)},
        {"spec", json::object{{"audiences", std::move(aud)},
                              {"expirationSeconds", expiration},
                              {"boundObjectRef", bound ? *bound : json::value(nullptr)}}},
        {"status", json::object{{"token", *token},
                                {"expirationTimestamp", format_rfc3339(now + std::chrono::seconds(expiration))}}}};
}

std::optional<user_info> service_account_user(const token_issuer& issuer, const object_store& store,
                                              std::string_view token, wall_time now) {
    auto claims = issuer.verify(token, now);
    if (!claims) return std::nullopt;
    // The validator (pkg/serviceaccount/claims.go Validate): the account
    // still exists, is not being deleted, and is the one the token names.
    auto account = store.get(resources::serviceaccounts(), claims->ns, claims->name);
    if (!account || uid_of(*account) != claims->uid || is_being_deleted(*account)) return std::nullopt;
    user_info u;
    u.name = "system:serviceaccount:" + claims->ns + ":" + claims->name;
    u.uid = claims->uid;
    u.groups = {"system:serviceaccounts", "system:serviceaccounts:" + claims->ns};
    u.extra["authentication.kubernetes.io/credential-id"] = {"JTI=" + claims->jti};
    return u;
}

} // namespace kcoro::apiserver::http
