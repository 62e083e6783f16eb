#include "store/shard_selector.hpp"
#include "store/cel_expr.hpp"
#include "store/status_errors.hpp"

#include <kcoro/core/object.hpp>

#include <optional>
#include <utility>

namespace kcoro::apiserver {

std::uint64_t fnv1a64(std::string_view s) noexcept {
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

namespace {

using reqs = std::vector<shard_range_requirement>;
// Either the requirements or the error text (parser.go's fmt.Errorf values).
using walked = std::variant<reqs, std::string>;

std::string kind_number(cel::expr_kind k) { return std::to_string(static_cast<int>(k)); }

// extractFieldPath: a select chain (object.metadata.uid), dot-joined.
std::variant<std::string, std::string> field_path(const cel::expr& e) {
    using out = std::variant<std::string, std::string>;
    if (e.kind == cel::expr_kind::ident) return out(std::in_place_index<0>, e.name);
    if (e.kind == cel::expr_kind::select) {
        auto operand = field_path(*e.target);
        if (operand.index() == 1) return operand;
        return out(std::in_place_index<0>, std::get<0>(operand) + "." + e.name);
    }
    return out(std::in_place_index<1>,
               "expected field path (e.g. object.metadata.uid), got expression kind " + kind_number(e.kind));
}

// One UTF-8 sequence starting at s[i] (Go's `for _, c := range` yields runes).
std::string_view rune_at(std::string_view s, std::size_t i) {
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 1;
    return s.substr(i, n);
}

// extractHexLiteral: the bound as written, or the error.
std::variant<std::string, std::string> hex_literal(const cel::expr& e, std::string_view name) {
    using out = std::variant<std::string, std::string>;
    auto err = [](std::string m) { return out(std::in_place_index<1>, std::move(m)); };
    const std::string n(name);
    if (e.kind != cel::expr_kind::literal) {
        return err(n + " must be a string literal (e.g. '0xff'), got expression kind " + kind_number(e.kind));
    }
    if (e.literal != cel::literal_type::string) {
        return err(n + " must be a string literal, got " + std::string(cel::go_type_name(e.literal)));
    }
    const std::string& s = e.text;
    if (!s.starts_with("0x")) return err(n + " must have '0x' prefix, got " + errors::go_quote(s));
    const std::string_view hex = std::string_view(s).substr(2);
    if (hex.empty()) return err(n + ": hex value is required after '0x'");
    if (hex.size() > 17) {
        return err(n + ": hex value too long (" + std::to_string(hex.size()) + " chars, max 17): " +
                   errors::go_quote(hex));
    }
    for (std::size_t i = 0; i < hex.size();) {
        auto r = rune_at(hex, i);
        const char c = hex[i];
        if (r.size() != 1 || !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return err(n + ": invalid hex character " + errors::go_quote(r) + " in " + errors::go_quote(s));
        }
        i += r.size();
    }
    if (hex.size() == 17) {
        if (s != "0x10000000000000000") {
            return err(n + ": 17-digit hex value must be '0x10000000000000000' (2^64), got " + errors::go_quote(s));
        }
    } else if (hex.size() != 16) {
        const std::string padded = "0x" + std::string(16 - hex.size(), '0') + std::string(hex);
        return err(n + " must be a 0x-prefixed 16-digit hex value, got " + errors::go_quote(s) + " (did you mean " +
                   errors::go_quote(padded) + "?)");
    }
    return out(std::in_place_index<0>, s);
}

// sharding.HexLess: by length, then by text (normalized lowercase hex).
bool hex_less(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return a.size() < b.size();
    return a < b;
}

std::uint64_t hex_value(std::string_view s) {
    std::uint64_t v = 0;
    for (char c : s.substr(2)) v = v * 16 + static_cast<std::uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
    return v;
}

// parseShardRangeCall.
std::variant<shard_range_requirement, std::string> shard_range_call(const cel::expr& call) {
    using out = std::variant<shard_range_requirement, std::string>;
    auto err = [](std::string m) { return out(std::in_place_index<1>, std::move(m)); };
    if (call.args.size() != 3) {
        return err("shardRange() requires exactly 3 arguments, got " + std::to_string(call.args.size()));
    }
    auto path = field_path(call.args[0]);
    if (path.index() == 1) return err("shardRange() first argument: " + std::get<1>(path));
    const std::string& key = std::get<0>(path);
    if (key != "object.metadata.uid" && key != "object.metadata.namespace") {
        return err("unsupported field path " + errors::go_quote(key) +
                   "; supported: object.metadata.uid, object.metadata.namespace");
    }
    auto start = hex_literal(call.args[1], "hexStart");
    if (start.index() == 1) return err(std::get<1>(std::move(start)));
    auto end = hex_literal(call.args[2], "hexEnd");
    if (end.index() == 1) return err(std::get<1>(std::move(end)));
    const std::string& s = std::get<0>(start);
    const std::string& e = std::get<0>(end);
    if (!hex_less(s, e)) return err("shard range start " + s + " must be less than end " + e);
    shard_range_requirement r;
    r.key = key;
    r.start = s;
    r.end = e;
    // Both are 16 digits, except an end of 2^64 (a start of 2^64 cannot be
    // less than any end).
    r.first = hex_value(s);
    r.last = e.size() == 19 ? ~std::uint64_t{0} : hex_value(e) - 1;
    return out(std::in_place_index<0>, std::move(r));
}

// walkExpr.
walked walk(const cel::expr& e) {
    if (e.kind == cel::expr_kind::call) {
        if (e.name == "_||_") {
            if (e.args.size() != 2) return walked(std::in_place_index<1>, "|| operator requires exactly 2 arguments");
            auto left = walk(e.args[0]);
            if (left.index() == 1) return left;
            auto right = walk(e.args[1]);
            if (right.index() == 1) return right;
            auto& l = std::get<0>(left);
            for (auto& r : std::get<0>(right)) l.push_back(std::move(r));
            return left;
        }
        if (e.name == "shardRange") {
            auto r = shard_range_call(e);
            if (r.index() == 1) return walked(std::in_place_index<1>, std::get<1>(std::move(r)));
            return walked(std::in_place_index<0>, reqs{std::get<0>(std::move(r))});
        }
        return walked(std::in_place_index<1>, "unsupported function " + errors::go_quote(e.name) +
                                                  "; only shardRange() and || are allowed");
    }
    return walked(std::in_place_index<1>, "unexpected expression kind " + kind_number(e.kind) +
                                              "; expected shardRange() call or || operator");
}

std::string_view trim_space(std::string_view s) {
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
    while (!s.empty() && space(s.front())) s.remove_prefix(1);
    while (!s.empty() && space(s.back())) s.remove_suffix(1);
    return s;
}

} // namespace

std::variant<shard_selector, std::string> shard_selector::parse(std::string_view text) {
    using out = std::variant<shard_selector, std::string>;
    auto err = [](std::string m) { return out(std::in_place_index<1>, std::move(m)); };
    text = trim_space(text);
    if (text.empty()) return err("empty shard selector is not allowed; omit the parameter for unfiltered lists");
    auto parsed = cel::parse(text);
    if (!parsed.value) return err("CEL parse error: " + parsed.error);
    auto w = walk(*parsed.value);
    if (w.index() == 1) return err(std::get<1>(std::move(w)));
    auto& rs = std::get<0>(w);
    for (std::size_t i = 1; i < rs.size(); ++i) {
        if (rs[i].key != rs[0].key) {
            return err("all shard ranges must use the same field, got " + errors::go_quote(rs[0].key) + " and " +
                       errors::go_quote(rs[i].key));
        }
    }
    shard_selector sel;
    sel.requirements_ = std::move(rs);
    return out(std::in_place_index<0>, std::move(sel));
}

bool shard_selector::matches(const boost::json::object& obj) const noexcept {
    if (requirements_.empty()) return true;
    const std::string_view value =
        requirements_.front().key == "object.metadata.uid" ? uid_of(obj) : namespace_of(obj);
    const std::uint64_t h = fnv1a64(value);
    for (const auto& r : requirements_) {
        if (r.contains(h)) return true;
    }
    return false;
}

std::string shard_selector::str() const {
    std::string s;
    for (const auto& r : requirements_) {
        if (!s.empty()) s += " || ";
        s += "shardRange(" + r.key + ", '" + r.start + "', '" + r.end + "')";
    }
    return s;
}

} // namespace kcoro::apiserver
