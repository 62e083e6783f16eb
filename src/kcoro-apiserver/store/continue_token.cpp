#include "store/continue_token.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

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

bool decode64(std::string_view in, std::string& out) {
    std::uint32_t acc = 0;
    int bits = 0;
    for (char c : in) {
        auto pos = alphabet.find(c);
        if (pos == std::string_view::npos) return false;
        acc = (acc << 6) | static_cast<std::uint32_t>(pos);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((acc >> bits) & 0xff);
        }
    }
    return true;
}

error bad(std::string what) { return error(kcoro_errc::decode_error, std::move(what)); }

} // namespace

std::string encode_continue_token(const continue_token& t) {
    boost::json::object o{{"v", "meta.k8s.io/v1"}, {"rv", t.revision}, {"start", t.last_key + '\0'}};
    return encode64(boost::json::serialize(o));
}

result<continue_token> decode_continue_token(std::string_view text) {
    std::string raw;
    if (!decode64(text, raw)) return bad("not base64");
    boost::system::error_code ec;
    auto v = boost::json::parse(raw, ec);
    if (ec || !v.is_object()) return bad("not a JSON object");
    const auto& o = v.as_object();
    const auto* ver = o.if_contains("v");
    if (!ver || !ver->is_string() || ver->get_string() != "meta.k8s.io/v1") return bad("unknown version");
    const auto* rv = o.if_contains("rv");
    const auto* start = o.if_contains("start");
    if (!rv || !(rv->is_uint64() || rv->is_int64()) || !start || !start->is_string()) return bad("missing fields");
    continue_token t;
    if (rv->is_int64()) {
        if (rv->get_int64() < 0) return bad("negative revision");
        t.revision = static_cast<std::uint64_t>(rv->get_int64());
    } else {
        t.revision = rv->get_uint64();
    }
    std::string key(start->get_string());
    if (key.empty() || key.back() != '\0') return bad("bad start key");
    key.pop_back();
    t.last_key = std::move(key);
    return t;
}

} // namespace kcoro::apiserver
