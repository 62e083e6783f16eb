// Scalar resolution of the YAML reader, following sigs.k8s.io/yaml (what
// kubectl and kube-apiserver read YAML with): goyaml.v2/resolve.go for values,
// yaml.go's convertToJSONableObject for mapping keys.
#include "yaml_scalar.hpp"

#include <boost/json/string.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

namespace kcoro::detail::yaml {
namespace json = boost::json;
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

int digit_value(char c) {
    if (is_digit(c)) return c - '0';
    if (c >= 'a' && c <= 'z') return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
    return 99;
}

// Go's strconv.ParseUint(s, 0, 64) on text without '_' and without a sign:
// the base from the prefix (0x, 0o, 0b; a lone leading 0 means octal).
struct go_uint {
    bool syntax_ok = false;
    bool overflow = false;
    std::uint64_t value = 0;
    double approx = 0;  // the value when it overflowed (big.Int, then JSON: a double)
};

go_uint parse_go_uint(std::string_view s) {
    go_uint r;
    if (s.empty()) return r;
    int base = 10;
    if (s[0] == '0') {
        char p = s.size() >= 3 ? static_cast<char>(s[1] | 0x20) : '\0';
        if (p == 'b') {
            base = 2;
            s.remove_prefix(2);
        } else if (p == 'o') {
            base = 8;
            s.remove_prefix(2);
        } else if (p == 'x') {
            base = 16;
            s.remove_prefix(2);
        } else {
            base = 8;
            s.remove_prefix(1);
        }
    }
    for (char c : s) {
        int d = digit_value(c);
        if (d >= base) return r;
        r.approx = r.approx * base + d;
        if (!r.overflow) {
            auto ub = static_cast<std::uint64_t>(base);
            auto ud = static_cast<std::uint64_t>(d);
            if (r.value > (std::numeric_limits<std::uint64_t>::max() - ud) / ub) {
                r.overflow = true;
            } else {
                r.value = r.value * ub + ud;
            }
        }
    }
    r.syntax_ok = true;
    return r;
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?  (yamlStyleFloat)
bool is_yaml_style_float(std::string_view s) {
    std::size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t int_digits = 0, frac_digits = 0;
    while (i < s.size() && is_digit(s[i])) ++i, ++int_digits;
    if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && is_digit(s[i])) ++i, ++frac_digits;
        if (int_digits == 0 && frac_digits == 0) return false;
    } else if (int_digits == 0) {
        return false;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        std::size_t exp_digits = 0;
        while (i < s.size() && is_digit(s[i])) ++i, ++exp_digits;
        if (exp_digits == 0) return false;
    }
    return i == s.size();
}

// strconv.ParseFloat on text is_yaml_style_float accepted: nullopt on
// overflow (Go's ErrRange; resolve then keeps looking), 0 on underflow.
std::optional<double> parse_float(std::string_view s) {
    bool neg = !s.empty() && s[0] == '-';
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
    double d = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec == std::errc::result_out_of_range) {
        auto e = s.find_first_of("eE");
        bool tiny = e != std::string_view::npos && e + 1 < s.size() && s[e + 1] == '-';
        if (!tiny) return std::nullopt;
        d = 0;
    } else if (ec != std::errc{} || ptr != s.data() + s.size()) {
        return std::nullopt;
    }
    return neg ? -d : d;
}

std::optional<json::value> in_resolve_map(std::string_view t) {
    static constexpr std::string_view trues[] = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
    static constexpr std::string_view falses[] = {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
    for (auto w : trues) {
        if (t == w) return json::value(true);
    }
    for (auto w : falses) {
        if (t == w) return json::value(false);
    }
    if (t.empty() || t == "~" || t == "null" || t == "Null" || t == "NULL") return json::value(nullptr);
    if (t == ".nan" || t == ".NaN" || t == ".NAN") return json::value(std::numeric_limits<double>::quiet_NaN());
    for (std::string_view inf : {".inf", ".Inf", ".INF"}) {
        if (t == inf || (t.size() == 5 && t[0] == '+' && t.substr(1) == inf))
            return json::value(std::numeric_limits<double>::infinity());
        if (t.size() == 5 && t[0] == '-' && t.substr(1) == inf)
            return json::value(-std::numeric_limits<double>::infinity());
    }
    return std::nullopt;
}

std::string short_tag(std::string_view tag) {
    constexpr std::string_view long_prefix = "tag:yaml.org,2002:";
    if (tag.starts_with(long_prefix)) return "!!" + std::string(tag.substr(long_prefix.size()));
    return std::string(tag);
}

const char* kind_tag(const json::value& v) {
    switch (v.kind()) {
    case json::kind::null: return "!!null";
    case json::kind::bool_: return "!!bool";
    case json::kind::int64:
    case json::kind::uint64: return "!!int";
    case json::kind::double_: return "!!float";
    default: return "!!str";
    }
}

// strconv.FormatFloat(f, 'g', -1, 32): the shortest digits that read back as
// the same float32, in %e form when the exponent is < -4 or >= 6.
std::string go_format_float32(double d) {
    auto f = static_cast<float>(d);
    if (std::isnan(f)) return ".nan";
    if (std::isinf(f)) return f > 0 ? ".inf" : "-.inf";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific);
    std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));  // "-1.2345e+06"
    bool neg = !sci.empty() && sci[0] == '-';
    if (neg) sci.remove_prefix(1);
    auto e = sci.find('e');
    std::string digits;
    for (char c : sci.substr(0, e)) {
        if (c != '.') digits += c;
    }
    int exp = 0;
    std::string_view et = sci.substr(e + 1);
    bool eneg = !et.empty() && et[0] == '-';
    if (!et.empty() && (et[0] == '-' || et[0] == '+')) et.remove_prefix(1);
    std::from_chars(et.data(), et.data() + et.size(), exp);
    if (eneg) exp = -exp;
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    if (digits == "0") exp = 0;
    std::string out = neg ? "-" : "";
    if (exp < -4 || exp >= 6) {
        out += digits[0];
        if (digits.size() > 1) out += "." + digits.substr(1);
        out += exp < 0 ? "e-" : "e+";
        std::string ed = std::to_string(exp < 0 ? -exp : exp);
        if (ed.size() < 2) ed.insert(0, "0");
        return out + ed;
    }
    int dp = exp + 1;  // digits before the point
    if (dp <= 0) {
        out += "0." + std::string(static_cast<std::size_t>(-dp), '0') + digits;
    } else if (static_cast<std::size_t>(dp) >= digits.size()) {
        out += digits + std::string(static_cast<std::size_t>(dp) - digits.size(), '0');
    } else {
        out += digits.substr(0, static_cast<std::size_t>(dp)) + "." + digits.substr(static_cast<std::size_t>(dp));
    }
    return out;
}

} // namespace

json::value resolve_plain(std::string_view in) {
    if (auto v = in_resolve_map(in)) return std::move(*v);
    if (in.empty()) return json::string(in);
    char first = in[0];
    if (first == '.') {
        // Not in the map, so maybe a plain float (ParseFloat on the text).
        if (in.size() > 1 && is_yaml_style_float(in)) {
            if (auto d = parse_float(in)) return *d;
        }
        return json::string(in);
    }
    if (!(is_digit(first) || first == '+' || first == '-')) return json::string(in);
    std::string plain;
    plain.reserve(in.size());
    for (char c : in) {
        if (c != '_') plain += c;
    }
    // strconv.ParseInt(plain, 0, 64): a sign, then ParseUint's syntax.
    {
        std::string_view body = plain;
        bool neg = false;
        if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
            neg = body[0] == '-';
            body.remove_prefix(1);
        }
        auto u = parse_go_uint(body);
        if (u.syntax_ok && !u.overflow) {
            constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
            if (!neg && u.value <= max) return static_cast<std::int64_t>(u.value);
            if (neg && u.value <= max + 1) return u.value == max + 1 ? std::numeric_limits<std::int64_t>::min()
                                                                       : -static_cast<std::int64_t>(u.value);
        }
    }
    // strconv.ParseUint(plain, 0, 64): no sign allowed.
    go_uint u = parse_go_uint(plain);
    if (u.syntax_ok && !u.overflow) return u.value;
    if (is_yaml_style_float(plain)) {
        if (auto d = parse_float(plain)) return *d;
    }
    // An integer beyond 64 bits (a big.Int, a JSON number after conversion).
    if (u.syntax_ok && u.overflow) return u.approx;
    return json::string(in);
}

std::optional<json::value> resolve_tagged(std::string_view tag, std::string_view text, std::string& why) {
    std::string t = short_tag(tag);
    if (t == "!!int" || t == "!!float" || t == "!!bool" || t == "!!null") {
        json::value v = resolve_plain(text);
        if (t == kind_tag(v)) return v;
        if (t == "!!float" && v.is_int64()) return static_cast<double>(v.get_int64());
        if (t == "!!float" && v.is_uint64()) return static_cast<double>(v.get_uint64());
        why = "cannot decode " + std::string(kind_tag(v)) + " `" + std::string(text) + "` as a " + t;
        return std::nullopt;
    }
    if (t == "!!binary") {
        // Base64 text; Go decodes it and JSON re-encodes it without line breaks.
        std::string out;
        for (char c : text) {
            if (c != '\n' && c != ' ' && c != '\r' && c != '\t') out += c;
        }
        return json::value(json::string(out));
    }
    // !!str, !!timestamp (a string for an untyped target), and tags
    // goyaml.v2 cannot resolve: the text as it is.
    return json::value(json::string(text));
}

std::optional<std::string> key_text(const json::value& key) {
    switch (key.kind()) {
    case json::kind::string: return std::string(key.get_string());
    case json::kind::int64: return std::to_string(key.get_int64());
    case json::kind::uint64: return std::to_string(key.get_uint64());
    case json::kind::bool_: return std::string(key.get_bool() ? "true" : "false");
    case json::kind::double_: return go_format_float32(key.get_double());
    default: return std::nullopt;
    }
}

} // namespace kcoro::detail::yaml
