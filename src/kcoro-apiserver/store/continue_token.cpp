#include "store/continue_token.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <optional>

namespace kcoro::apiserver {
namespace {

// Standard base64 (the real token uses base64.RawURLEncoding; clients treat
// it as opaque, so the alphabet only needs to survive a query string, which
// the client percent-encodes).
constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string encode64(std::string_view in) {
    std::string out;
    std::uint32_t acc = 0;
    int bits = 0;
    for (unsigned char c : in) {
        acc = (acc << 8) | c;
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out += alphabet[(acc >> bits) & 63];
        }
    }
    if (bits > 0) out += alphabet[(acc << (6 - bits)) & 63];
    return out;
}

/// base64.RawURLEncoding.DecodeString; on failure the index Go's
/// CorruptInputError names.
std::optional<std::size_t> decode64(std::string_view in, std::string& out) {
    std::uint32_t acc = 0;
    int bits = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        auto pos = alphabet.find(in[i]);
        if (pos == std::string_view::npos) return i;
        acc = (acc << 6) | static_cast<std::uint32_t>(pos);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((acc >> bits) & 0xff);
        }
    }
    if (in.size() % 4 == 1) return in.size() - 1;  // a lone trailing character
    return std::nullopt;
}

// The errors of storage.DecodeContinue (staging/src/k8s.io/apiserver/pkg/
// storage/continue.go); the store prefixes "invalid continue token: " (etcd3
// GetList's BadRequest).
constexpr std::string_view generic_invalid = "continue key is not valid";

error bad(std::string what) { return error(kcoro_errc::decode_error, std::move(what)); }
error invalid(std::string_view detail) { return bad(std::string(generic_invalid) + ": " + std::string(detail)); }

/// What encoding/json says about a document that is not JSON (the common cases).
std::string json_syntax_error(std::string_view raw) {
    std::size_t i = 0;
    while (i < raw.size() && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r')) ++i;
    if (i == raw.size()) return "unexpected end of JSON input";
    const char c = raw[i];
    if (c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
        return "unexpected end of JSON input";
    }
    std::string q = c == '\'' ? "'\\''" : "'" + std::string(1, c) + "'";
    return "invalid character " + q + " looking for beginning of value";
}

/// path.Clean("/" + key) == "/" + key.
bool is_clean(std::string_view key) {
    std::string k = key.starts_with("/") ? std::string(key) : "/" + std::string(key);
    if (k.size() > 1 && k.back() == '/') return false;
    return k.find("//") == std::string::npos && k.find("/./") == std::string::npos &&
           k.find("/../") == std::string::npos && !k.ends_with("/.") && !k.ends_with("/..");
}

} // namespace

std::string encode_continue_token(const continue_token& t) {
    boost::json::object o{{"v", "meta.k8s.io/v1"}, {"rv", t.revision}, {"start", t.last_key + '\0'}};
    if (t.remaining) o["rem"] = *t.remaining;
    return encode64(boost::json::serialize(o));
}

result<continue_token> decode_continue_token(std::string_view text) {
    std::string raw;
    if (auto at = decode64(text, raw)) return invalid("illegal base64 data at input byte " + std::to_string(*at));
    boost::system::error_code ec;
    auto v = boost::json::parse(raw, ec);
    if (ec) return invalid(json_syntax_error(raw));
    if (!v.is_object()) {
        return invalid("json: cannot unmarshal " + std::string(v.is_array() ? "array" : v.is_string() ? "string"
                                                              : v.is_bool() ? "bool" : "number") +
                       " into Go value of type storage.continueToken");
    }
    const auto& o = v.as_object();
    std::string version;
    if (const auto* ver = o.if_contains("v"); ver && !ver->is_null()) {
        if (!ver->is_string()) return invalid("json: cannot unmarshal number into Go struct field continueToken.v of type string");
        version = ver->get_string();
    }
    if (version != "meta.k8s.io/v1") {
        return invalid("server does not recognize this encoded version \"" + version + "\"");
    }
    std::int64_t rv = 0;
    if (const auto* r = o.if_contains("rv"); r && !r->is_null()) {
        if (r->is_int64()) {
            rv = r->get_int64();
        } else if (r->is_uint64()) {
            rv = static_cast<std::int64_t>(r->get_uint64());
        } else {
            return invalid("json: cannot unmarshal " + std::string(r->is_string() ? "string" : "value") +
                           " into Go struct field continueToken.rv of type int64");
        }
    }
    std::string key;
    if (const auto* st = o.if_contains("start"); st && !st->is_null()) {
        if (!st->is_string()) return invalid("json: cannot unmarshal number into Go struct field continueToken.start of type string");
        key = st->get_string();
    }
    if (rv <= 0) return bad(std::string(generic_invalid) + ": incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
    if (key.empty()) return bad(std::string(generic_invalid) + ": encoded start key empty (version meta.k8s.io/v1)");
    if (!is_clean(key)) return invalid(key);
    continue_token t;
    t.revision = static_cast<std::uint64_t>(rv);
    if (key.back() == '\0') key.pop_back();
    t.last_key = std::move(key);
    if (const auto* rem = o.if_contains("rem"); rem && rem->is_int64() && rem->get_int64() >= 0) {
        t.remaining = rem->get_int64();
    }
    return t;
}

} // namespace kcoro::apiserver
