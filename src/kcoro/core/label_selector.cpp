#include <kcoro/core/label_selector.hpp>
#include <kcoro/core/name_validation.hpp>
#include <kcoro/core/object.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <ostream>

namespace kcoro {
namespace {

enum class tok { ident, eq, deq, neq, bang, lparen, rparen, comma, in, notin, end, gt, lt };

struct token {
    tok kind;
    std::string text;
};

bool special(char c) noexcept {
    return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '<' || c == '>';
}
bool space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

class lexer {
public:
    explicit lexer(std::string_view s) : s_(s) {}

    token next() {
        while (pos_ < s_.size() && space(s_[pos_])) {
            ++pos_;
        }
        if (pos_ >= s_.size()) {
            return {tok::end, {}};
        }
        char c = s_[pos_];
        auto two = s_.substr(pos_, 2);
        if (two == "==") { pos_ += 2; return {tok::deq, "=="}; }
        if (two == "!=") { pos_ += 2; return {tok::neq, "!="}; }
        ++pos_;
        switch (c) {
        case '=': return {tok::eq, "="};
        case '!': return {tok::bang, "!"};
        case '(': return {tok::lparen, "("};
        case ')': return {tok::rparen, ")"};
        case ',': return {tok::comma, ","};
        case '<': return {tok::lt, "<"};
        case '>': return {tok::gt, ">"};
        default: break;
        }
        std::size_t start = pos_ - 1;
        while (pos_ < s_.size() && !space(s_[pos_]) && !special(s_[pos_])) {
            ++pos_;
        }
        std::string word(s_.substr(start, pos_ - start));
        if (word == "in") return {tok::in, word};
        if (word == "notin") return {tok::notin, word};
        return {tok::ident, word};
    }

    token peek() {
        auto saved = pos_;
        auto t = next();
        pos_ = saved;
        return t;
    }

private:
    std::string_view s_;
    std::size_t pos_ = 0;
};

// The messages of apimachinery v0.32 labels/selector.go's Parser, word for
// word (checked against a real v1.32.13): errors inside a requirement are
// prefixed "unable to parse requirement: ", the top level's are not.
error selector_error(std::string message) {
    status s;
    s.outcome = "Failure";
    s.message = std::move(message);
    s.reason = "BadRequest";
    s.code = 400;
    return error::from_status(std::move(s));
}
error parse_error(std::string message) { return selector_error("unable to parse requirement: " + message); }

std::string join(const std::vector<std::string>& v, std::string_view sep = "; ") {
    std::string out;
    for (const auto& e : v) {
        if (!out.empty()) out += sep;
        out += e;
    }
    return out;
}

// strconv.ParseInt(s, 10, 64).
std::optional<std::int64_t> go_parse_int(std::string_view s) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    std::int64_t n = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (s.empty() || ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
    return n;
}

// In the Values context the lexer's keywords are identifiers.
bool ident_like(const token& t) noexcept { return t.kind == tok::ident || t.kind == tok::in || t.kind == tok::notin; }

// parseIdentifiersList: a (possibly empty) comma-separated list up to ')'.
result<std::vector<std::string>> identifiers_list(lexer& lx) {
    std::vector<std::string> s;
    auto insert = [&](std::string v) {
        if (std::find(s.begin(), s.end(), v) == s.end()) s.push_back(std::move(v));
    };
    for (;;) {
        auto t = lx.next();
        if (ident_like(t)) {
            insert(t.text);
            auto la = lx.peek();
            if (la.kind == tok::comma) continue;
            if (la.kind == tok::rparen) return s;
            return parse_error("found '" + la.text + "', expected: ',' or ')'");
        }
        if (t.kind == tok::comma) {
            if (s.empty()) insert("");
            auto la = lx.peek();
            if (la.kind == tok::rparen) {
                insert("");
                return s;
            }
            if (la.kind == tok::comma) {
                lx.next();
                insert("");
            }
            continue;
        }
        return parse_error("found '" + t.text + "', expected: ',', or identifier");
    }
}

// parseValues: "(" identifiers ")".
result<std::vector<std::string>> set_values(lexer& lx) {
    auto lp = lx.next();
    if (lp.kind != tok::lparen) return parse_error("found '" + lp.text + "' expected: '('");
    auto la = lx.peek();
    if (ident_like(la) || la.kind == tok::comma) {
        auto s = identifiers_list(lx);
        if (!s) return s.error();
        if (lx.next().kind != tok::rparen) return parse_error("found '" + la.text + "', expected: ')'");
        return s;
    }
    if (la.kind == tok::rparen) {
        lx.next();
        return std::vector<std::string>{""};
    }
    return parse_error("found '" + la.text + "', expected: ',', ')' or identifier");
}

result<label_requirement> parse_requirement(lexer& lx) {
    // parseKeyAndInferOperator
    label_requirement r;
    auto t = lx.next();
    bool dne = false;
    if (t.kind == tok::bang) {
        dne = true;
        t = lx.next();
    }
    if (!ident_like(t)) return parse_error("found '" + t.text + "', expected: identifier");
    // validateLabelKey with the parser's nil path.
    if (auto errs = validate_qualified_name(t.text); !errs.empty()) {
        return parse_error("<nil>: Invalid value: \"" + t.text + "\": " + join(errs));
    }
    r.key = t.text;
    auto la = lx.peek();
    if (dne || la.kind == tok::end || la.kind == tok::comma) {
        r.op = dne ? selector_op::does_not_exist : selector_op::exists;
        return r;
    }
    // parseOperator (KeyAndOperator context: in/notin are operators).
    auto op = lx.next();
    std::vector<std::string> values;
    switch (op.kind) {
    case tok::in:
    case tok::notin: {
        r.op = op.kind == tok::in ? selector_op::in : selector_op::not_in;
        auto v = set_values(lx);
        if (!v) return v.error();
        values = std::move(*v);
        break;
    }
    case tok::eq:
    case tok::deq:
    case tok::neq:
    case tok::gt:
    case tok::lt: {
        r.op = op.kind == tok::neq  ? selector_op::not_equals
               : op.kind == tok::gt ? selector_op::greater_than
               : op.kind == tok::lt ? selector_op::less_than
                                    : selector_op::equals;
        // parseExactValue
        auto v = lx.peek();
        if (v.kind == tok::end || v.kind == tok::comma) {
            values.emplace_back();
        } else {
            lx.next();
            if (!ident_like(v)) return parse_error("found '" + v.text + "', expected: identifier");
            values.push_back(v.text);
        }
        break;
    }
    default:
        return parse_error("found '" + op.text + "', expected: in, notin, =, ==, !=, gt, lt");
    }
    // NewRequirement: values.List() (sorted, unique), each validated at
    // values[i][key], the errors aggregated.
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    std::vector<std::string> errs;
    if (r.op == selector_op::greater_than || r.op == selector_op::less_than) {
        if (!go_parse_int(values.front())) {
            errs.push_back("values[0]: Invalid value: \"" + values.front() +
                           "\": for 'Gt', 'Lt' operators, the value must be an integer");
        }
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (auto e = validate_label_value(values[i]); !e.empty()) {
            errs.push_back("values[" + std::to_string(i) + "][" + r.key + "]: Invalid value: \"" + values[i] + "\": " +
                           join(e));
        }
    }
    if (errs.size() == 1) return parse_error(errs[0]);
    if (!errs.empty()) return parse_error("[" + join(errs, ", ") + "]");
    r.values = std::move(values);
    return r;
}

} // namespace

result<label_selector> label_selector::parse(std::string_view text) {
    // Parser.parse
    label_selector sel;
    lexer lx(text);
    for (;;) {
        auto la = lx.peek();
        if (la.kind == tok::end) return sel;
        if (!ident_like(la) && la.kind != tok::bang) {
            return selector_error("found '" + la.text + "', expected: !, identifier, or 'end of string'");
        }
        auto r = parse_requirement(lx);
        if (!r) return r.error();
        sel.requirements_.push_back(std::move(*r));
        auto t = lx.next();
        if (t.kind == tok::end) return sel;
        if (t.kind != tok::comma) return selector_error("found '" + t.text + "', expected: ',' or 'end of string'");
        auto next = lx.peek();
        if (!ident_like(next) && next.kind != tok::bang) {
            return selector_error("found '" + next.text + "', expected: identifier after ','");
        }
    }
}

bool label_selector::matches(const boost::json::object* labels) const noexcept {
    for (const auto& r : requirements_) {
        const boost::json::value* v = labels ? labels->if_contains(r.key) : nullptr;
        const boost::json::string* s = v ? v->if_string() : nullptr;
        bool has = s != nullptr;
        auto in_set = [&] {
            return has && std::binary_search(r.values.begin(), r.values.end(), std::string_view(*s));
        };
        bool ok = false;
        switch (r.op) {
        case selector_op::equals: ok = has && std::string_view(*s) == r.values.front(); break;
        case selector_op::not_equals: ok = !has || std::string_view(*s) != r.values.front(); break;
        case selector_op::in: ok = in_set(); break;
        case selector_op::not_in: ok = !in_set(); break;
        case selector_op::exists: ok = has; break;
        case selector_op::does_not_exist: ok = !has; break;
        case selector_op::greater_than:
        case selector_op::less_than: {
            // Requirement.Matches: both sides parse as int64, else no match.
            auto have = has ? go_parse_int(std::string_view(*s)) : std::nullopt;
            auto want = go_parse_int(r.values.front());
            ok = have && want && (r.op == selector_op::greater_than ? *have > *want : *have < *want);
            break;
        }
        }
        if (!ok) return false;
    }
    return true;
}

bool label_selector::matches_object(const boost::json::object& obj) const noexcept {
    return matches(labels_of(obj));
}

std::string label_selector::str() const {
    std::string out;
    for (const auto& r : requirements_) {
        if (!out.empty()) out += ',';
        switch (r.op) {
        case selector_op::equals: out += r.key + "=" + r.values.front(); break;
        case selector_op::not_equals: out += r.key + "!=" + r.values.front(); break;
        case selector_op::in:
        case selector_op::not_in: {
            out += r.key + (r.op == selector_op::in ? " in (" : " notin (");
            for (std::size_t i = 0; i < r.values.size(); ++i) {
                if (i) out += ',';
                out += r.values[i];
            }
            out += ')';
            break;
        }
        case selector_op::exists: out += r.key; break;
        case selector_op::does_not_exist: out += "!" + r.key; break;
        case selector_op::greater_than: out += r.key + ">" + r.values.front(); break;
        case selector_op::less_than: out += r.key + "<" + r.values.front(); break;
        }
    }
    return out;
}

std::ostream& operator<<(std::ostream& os, const label_selector& s) { return os << s.str(); }

} // namespace kcoro
