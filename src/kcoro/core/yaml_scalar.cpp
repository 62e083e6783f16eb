// Scalars (quoted, block, core-schema resolution) and flow collections of the
// YAML reader. The block structure is in yaml.cpp.
#include "yaml_parser.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>

namespace kcoro::detail::yaml {
namespace {

void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

bool all_of(std::string_view s, bool (*pred)(char)) {
    return !s.empty() && std::all_of(s.begin(), s.end(), pred);
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_octal(char c) { return c >= '0' && c <= '7'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

json::value unsigned_value(std::string_view digits, int base) {
    std::uint64_t u = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), u, base);
    if (ec != std::errc{} || ptr != digits.data() + digits.size()) {
        return json::string(digits); // too large for 64 bits: keep the text
    }
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return static_cast<std::int64_t>(u);
    }
    return u;
}

// [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?  (sign removed)
bool is_core_float(std::string_view s) {
    std::size_t i = 0;
    std::size_t int_digits = 0, frac_digits = 0;
    while (i < s.size() && is_digit(s[i])) {
        ++i;
        ++int_digits;
    }
    if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && is_digit(s[i])) {
            ++i;
            ++frac_digits;
        }
    }
    if (int_digits == 0 && frac_digits == 0) {
        return false;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
            ++i;
        }
        std::size_t exp_digits = 0;
        while (i < s.size() && is_digit(s[i])) {
            ++i;
            ++exp_digits;
        }
        if (exp_digits == 0) {
            return false;
        }
    }
    return i == s.size();
}

} // namespace

json::value resolve_yaml_scalar(std::string_view t) {
    if (t.empty() || t == "~" || t == "null" || t == "Null" || t == "NULL") {
        return nullptr;
    }
    if (t == "true" || t == "True" || t == "TRUE") {
        return true;
    }
    if (t == "false" || t == "False" || t == "FALSE") {
        return false;
    }
    if (t.size() > 2 && t[0] == '0' && t[1] == 'o' && all_of(t.substr(2), is_octal)) {
        return unsigned_value(t.substr(2), 8);
    }
    if (t.size() > 2 && t[0] == '0' && t[1] == 'x' && all_of(t.substr(2), is_hex)) {
        return unsigned_value(t.substr(2), 16);
    }
    bool neg = t[0] == '-';
    std::string_view body = (t[0] == '-' || t[0] == '+') ? t.substr(1) : t;
    if (all_of(body, is_digit)) {
        std::string_view signed_text = t[0] == '+' ? body : t;
        std::int64_t i = 0;
        auto [ptr, ec] = std::from_chars(signed_text.data(), signed_text.data() + signed_text.size(), i);
        if (ec == std::errc{} && ptr == signed_text.data() + signed_text.size()) {
            return i;
        }
        if (!neg) {
            json::value u = unsigned_value(body, 10);
            if (!u.is_string()) {
                return u;
            }
        }
        // Out of every integer range: a double, as YAML libraries do.
    }
    if (body == ".inf" || body == ".Inf" || body == ".INF") {
        return neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    }
    if (t == ".nan" || t == ".NaN" || t == ".NAN") {
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (is_core_float(body)) {
        double d = 0;
        auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), d);
        if (ec == std::errc::result_out_of_range) {
            d = std::numeric_limits<double>::infinity();
        } else if (ec != std::errc{} || ptr != body.data() + body.size()) {
            return json::string(t);
        }
        return neg ? -d : d;
    }
    return json::string(t);
}

json::value parser::resolve(std::string_view text) const {
    if (options_.plain_scalars_as_strings) {
        if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
            return nullptr;
        }
        return json::string(text);
    }
    return resolve_yaml_scalar(text);
}

std::string parser::parse_double_quoted() {
    std::size_t start = p_;
    ++p_;
    std::string out;
    std::size_t keep = 0; // out[0, keep) came from escapes and is never trimmed
    auto hex = [&](int n) {
        std::uint32_t v = 0;
        for (int k = 0; k < n; ++k, ++p_) {
            char c = cur();
            if (!is_hex(c)) {
                fail("invalid hexadecimal digit in an escape");
            }
            v = v * 16 + static_cast<std::uint32_t>(is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
        }
        return v;
    };
    for (;;) {
        if (eof()) {
            fail_at(start, "unterminated double-quoted scalar");
        }
        char c = cur();
        if (c == '"') {
            ++p_;
            return out;
        }
        if (c == '\\') {
            std::size_t esc = p_;
            ++p_;
            if (eof()) {
                fail_at(start, "unterminated double-quoted scalar");
            }
            char e = cur();
            if (e == '\n') { // escaped line break: join without a space
                advance();
                skip_inline_ws();
                keep = out.size();
                continue;
            }
            ++p_;
            switch (e) {
            case '0': out.push_back('\0'); break;
            case 'a': out.push_back('\a'); break;
            case 'b': out.push_back('\b'); break;
            case 't':
            case '\t': out.push_back('\t'); break;
            case 'n': out.push_back('\n'); break;
            case 'v': out.push_back('\v'); break;
            case 'f': out.push_back('\f'); break;
            case 'r': out.push_back('\r'); break;
            case 'e': out.push_back('\x1b'); break;
            case ' ': out.push_back(' '); break;
            case '"': out.push_back('"'); break;
            case '/': out.push_back('/'); break;
            case '\\': out.push_back('\\'); break;
            case 'N': append_utf8(out, 0x85); break;
            case '_': append_utf8(out, 0xA0); break;
            case 'L': append_utf8(out, 0x2028); break;
            case 'P': append_utf8(out, 0x2029); break;
            case 'x': append_utf8(out, hex(2)); break;
            case 'u':
            case 'U': {
                std::uint32_t cp = hex(e == 'u' ? 4 : 8);
                if (cp >= 0xD800 && cp <= 0xDBFF && cur() == '\\' && at(p_ + 1) == 'u') {
                    p_ += 2; // a JSON-style surrogate pair
                    std::uint32_t lo = hex(4);
                    if (lo < 0xDC00 || lo > 0xDFFF) {
                        fail_at(esc, "invalid Unicode escape (unpaired surrogate)");
                    }
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                }
                if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
                    fail_at(esc, "invalid Unicode escape");
                }
                append_utf8(out, cp);
                break;
            }
            default: fail_at(esc, std::string("invalid escape sequence \\") + e);
            }
            keep = out.size();
            continue;
        }
        if (c == '\n') {
            fold_line_break(out, keep);
            continue;
        }
        out.push_back(c);
        ++p_;
    }
}

// Line folding inside a quoted scalar: trailing blanks of the line are
// dropped (but not escaped ones before `keep`), one line break becomes a
// space, n+1 breaks become n newlines.
void parser::fold_line_break(std::string& out, std::size_t keep) {
    while (out.size() > keep && is_ws(out.back())) {
        out.pop_back();
    }
    advance();
    std::size_t breaks = 0;
    for (;;) {
        skip_inline_ws();
        if (cur() != '\n') {
            break;
        }
        ++breaks;
        advance();
    }
    if (breaks == 0) {
        out.push_back(' ');
    } else {
        out.append(breaks, '\n');
    }
}

std::string parser::parse_single_quoted() {
    std::size_t start = p_;
    ++p_;
    std::string out;
    std::size_t keep = 0;
    for (;;) {
        if (eof()) {
            fail_at(start, "unterminated single-quoted scalar");
        }
        char c = cur();
        if (c == '\'') {
            if (at(p_ + 1) == '\'') {
                out.push_back('\'');
                p_ += 2;
                keep = out.size();
                continue;
            }
            ++p_;
            return out;
        }
        if (c == '\n') {
            fold_line_break(out, keep);
            continue;
        }
        out.push_back(c);
        ++p_;
    }
}

// `|` or `>` with optional chomping and indentation indicators. Content lines
// are those indented at least as much as the first non-empty one (or the
// explicit indent), which must be deeper than parent_indent.
std::string parser::parse_block_scalar(int parent_indent) {
    char style = cur();
    ++p_;
    enum class chomping { clip, strip, keep } chomp = chomping::clip;
    int explicit_indent = 0;
    for (int k = 0; k < 2; ++k) {
        char c = cur();
        if ((c == '-' || c == '+') && chomp == chomping::clip) {
            chomp = c == '-' ? chomping::strip : chomping::keep;
            ++p_;
        } else if (c >= '1' && c <= '9' && explicit_indent == 0) {
            explicit_indent = c - '0';
            ++p_;
        } else {
            break;
        }
    }
    if (!eof() && !is_ws(cur()) && cur() != '\n') {
        fail("invalid block scalar header");
    }
    finish_line();

    std::size_t indent = 0;
    std::size_t min_indent = static_cast<std::size_t>(parent_indent + 1);
    if (explicit_indent > 0) {
        indent = static_cast<std::size_t>((parent_indent >= 0 ? parent_indent : 0) + explicit_indent);
    } else {
        for (std::size_t i = p_; i < s_.size();) { // the first non-empty line sets it
            std::size_t sp = 0;
            while (i + sp < s_.size() && s_[i + sp] == ' ') {
                ++sp;
            }
            if (i + sp < s_.size() && s_[i + sp] == '\n') {
                i += sp + 1;
                continue;
            }
            indent = sp;
            break;
        }
        indent = std::max(indent, min_indent);
    }

    std::string out;
    std::size_t empties = 0;
    bool any = false, prev_more = false, last_break = false;
    while (!eof()) {
        if (indent == 0 && at_doc_marker()) {
            break;
        }
        std::size_t sp = 0;
        while (p_ + sp < s_.size() && s_[p_ + sp] == ' ' && sp < indent) {
            ++sp;
        }
        std::size_t after = p_ + sp;
        if (after >= s_.size() || s_[after] == '\n') { // an empty line
            ++empties;
            p_ = after;
            if (eof()) {
                break;
            }
            advance();
            continue;
        }
        if (sp < indent) {
            break; // less indented: the scalar ended, the line is the parent's
        }
        std::size_t e = after;
        while (e < s_.size() && s_[e] != '\n') {
            ++e;
        }
        std::string_view line(s_.data() + after, e - after);
        bool more = line[0] == ' ' || line[0] == '\t';
        if (!any) {
            out.append(empties, '\n');
        } else if (style == '|' || more || prev_more) {
            out.append(empties + 1, '\n');
        } else if (empties == 0) {
            out.push_back(' ');
        } else {
            out.append(empties, '\n');
        }
        out += line;
        any = true;
        prev_more = more;
        empties = 0;
        p_ = e;
        last_break = !eof();
        if (!eof()) {
            advance();
        }
    }
    if (!any) {
        out.assign(chomp == chomping::keep ? empties : 0, '\n');
    } else if (chomp == chomping::clip && last_break) {
        out.push_back('\n');
    } else if (chomp == chomping::keep) {
        out.append((last_break ? 1 : 0) + empties, '\n');
    }
    skip_blank_lines();
    return out;
}

void parser::skip_flow_ws() {
    for (;;) {
        while (!eof() && (is_ws(cur()) || cur() == '\n')) {
            advance();
        }
        if (cur() != '#') {
            return;
        }
        while (!eof() && cur() != '\n') {
            ++p_;
        }
    }
}

json::value parser::parse_flow_node() {
    depth_guard g(*this);
    skip_flow_ws();
    reject_anchor_alias();
    bool as_string = false;
    if (cur() == '!') {
        as_string = skip_tag();
        skip_flow_ws();
        reject_anchor_alias();
    }
    if (eof()) {
        fail("unexpected end of input in a flow collection");
    }
    std::size_t start = p_;
    char c = cur();
    if (c == '[') {
        ++p_;
        json::array arr;
        for (;;) {
            skip_flow_ws();
            if (eof()) {
                fail_at(start, "unterminated flow sequence");
            }
            if (cur() == ']') {
                ++p_;
                return arr;
            }
            json::value item = parse_flow_node();
            skip_flow_ws();
            if (cur() == ':') { // [key: value], a single-pair mapping
                if (!item.is_string()) {
                    fail("a flow mapping key must be a string");
                }
                ++p_;
                skip_flow_ws();
                json::object pair;
                pair[item.as_string()] = (cur() == ',' || cur() == ']') ? json::value() : parse_flow_node();
                item = std::move(pair);
                skip_flow_ws();
            }
            arr.push_back(std::move(item));
            if (cur() == ',') {
                ++p_;
                continue;
            }
            if (cur() == ']') {
                ++p_;
                return arr;
            }
            if (eof()) {
                fail_at(start, "unterminated flow sequence");
            }
            fail("expected ',' or ']' in a flow sequence");
        }
    }
    if (c == '{') {
        ++p_;
        json::object obj;
        for (;;) {
            skip_flow_ws();
            if (eof()) {
                fail_at(start, "unterminated flow mapping");
            }
            if (cur() == '}') {
                ++p_;
                return obj;
            }
            std::size_t key_pos = p_;
            reject_anchor_alias();
            std::string key;
            if (cur() == '"') {
                key = parse_double_quoted();
            } else if (cur() == '\'') {
                key = parse_single_quoted();
            } else if (cur() == '[' || cur() == '{') {
                fail("flow collections as mapping keys are not supported");
            } else if (cur() == ',') {
                fail("empty entry in a flow mapping");
            } else {
                key = read_plain_run(true);
            }
            skip_flow_ws();
            json::value v;
            if (cur() == ':') {
                ++p_;
                skip_flow_ws();
                if (cur() != ',' && cur() != '}') {
                    v = parse_flow_node();
                }
            }
            if (obj.contains(key)) {
                fail_at(key_pos, "duplicate mapping key \"" + key + "\"");
            }
            obj.emplace(key, std::move(v));
            skip_flow_ws();
            if (cur() == ',') {
                ++p_;
                continue;
            }
            if (cur() == '}') {
                ++p_;
                return obj;
            }
            if (eof()) {
                fail_at(start, "unterminated flow mapping");
            }
            fail("expected ',' or '}' in a flow mapping");
        }
    }
    if (c == '"') {
        return json::string(parse_double_quoted());
    }
    if (c == '\'') {
        return json::string(parse_single_quoted());
    }
    if (c == ']' || c == '}' || c == ',') {
        fail(std::string("unexpected '") + c + "' in a flow collection");
    }
    std::string text = parse_plain(-1, true);
    return as_string ? json::value(json::string(text)) : resolve(text);
}

} // namespace kcoro::detail::yaml
