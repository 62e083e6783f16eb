#include <kcoro/core/yaml_writer.hpp>

#include <boost/json/serialize.hpp>

#include <cmath>
#include <cstdio>

namespace kcoro {
namespace json = boost::json;

namespace {

bool is_alnum(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Plain scalars that YAML 1.1 or 1.2 readers resolve to something else than
// a string (sigs.k8s.io/yaml reads with YAML 1.1's bool words).
bool is_reserved_word(std::string_view s) noexcept {
    std::string lower;
    for (char c : s)
        lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    for (std::string_view w : {"null", "true", "false", "yes", "no", "on", "off", "y", "n"}) {
        if (lower == w)
            return true;
    }
    return false;
}

// Conservative: letters, digits and a few punctuation characters that mean
// nothing in block context; never first a digit or a sign (numbers), never
// ": " or " #" (a key or a comment), no leading or trailing space.
bool plain_ok(std::string_view s) noexcept {
    if (s.empty() || is_reserved_word(s))
        return false;
    char first = s.front();
    if (!(is_alnum(first) || first == '_' || first == '/') || (first >= '0' && first <= '9'))
        return false;
    if (s.back() == ' ')
        return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        bool ok = is_alnum(c) || c == '_' || c == '-' || c == '.' || c == '/' || c == ' ' || c == '(' ||
                  c == ')' || c == '=' || c == '+' || c == ',' || c == ';';
        if (!ok)
            return false;
        if (c == ' ' && i + 1 < s.size() && s[i + 1] == ' ')
            return false; // folding would keep them, but quoting is plainer
    }
    return true;
}

std::string quoted(std::string_view s) {
    std::string out = "\"";
    for (char ch : s) {
        auto c = static_cast<unsigned char>(ch);
        switch (ch) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\r':
            out += "\\r";
            break;
        default:
            if (c < 0x20 || c == 0x7f) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\x%02x", c);
                out += buf;
            } else {
                out += ch; // UTF-8 passes through: printable in double quotes
            }
        }
    }
    out += '"';
    return out;
}

std::string scalar(const json::value& v) {
    switch (v.kind()) {
    case json::kind::null:
        return "null";
    case json::kind::bool_:
        return v.get_bool() ? "true" : "false";
    case json::kind::int64:
        return std::to_string(v.get_int64());
    case json::kind::uint64:
        return std::to_string(v.get_uint64());
    case json::kind::double_: {
        double d = v.get_double();
        if (std::isnan(d))
            return ".nan";
        if (std::isinf(d))
            return d > 0 ? ".inf" : "-.inf";
        return json::serialize(v); // 1.5E0: a YAML float
    }
    case json::kind::string:
        return yaml_scalar(v.get_string());
    case json::kind::object:
        return "{}"; // only reached when empty
    case json::kind::array:
        return "[]";
    }
    return "null";
}

bool is_block(const json::value& v) noexcept {
    return (v.is_object() && !v.get_object().empty()) || (v.is_array() && !v.get_array().empty());
}

void indent_to(std::string& out, int n) {
    out.append(static_cast<std::size_t>(n), ' ');
}

// A non-empty object or array at column `indent`. With `inline_first`, the
// first line continues a "- " already written.
void write_block(std::string& out, const json::value& v, int indent, bool inline_first) {
    bool first = true;
    auto start_line = [&] {
        if (!(first && inline_first))
            indent_to(out, indent);
        first = false;
    };
    if (v.is_object()) {
        for (const auto& kv : v.get_object()) {
            start_line();
            out += yaml_scalar(kv.key());
            out += ':';
            if (is_block(kv.value())) {
                out += '\n';
                write_block(out, kv.value(), indent + 2, false);
            } else {
                out += ' ';
                out += scalar(kv.value());
                out += '\n';
            }
        }
        return;
    }
    for (const auto& item : v.get_array()) {
        start_line();
        out += '-';
        if (is_block(item)) {
            out += ' ';
            write_block(out, item, indent + 2, true);
        } else {
            out += ' ';
            out += scalar(item);
            out += '\n';
        }
    }
}

} // namespace

std::string yaml_scalar(std::string_view s) {
    return plain_ok(s) ? std::string(s) : quoted(s);
}

std::string to_yaml(const json::value& v) {
    std::string out;
    if (is_block(v)) {
        write_block(out, v, 0, false);
    } else {
        out = scalar(v) + "\n";
    }
    return out;
}

} // namespace kcoro
