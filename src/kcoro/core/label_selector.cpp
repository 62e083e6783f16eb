#include <kcoro/core/label_selector.hpp>
#include <kcoro/core/name_validation.hpp>
#include <kcoro/core/object.hpp>

#include <algorithm>
#include <ostream>

namespace kcoro {
namespace {

enum class tok { ident, eq, deq, neq, bang, lparen, rparen, comma, in, notin, end, bad };

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
        case '<':
        case '>': return {tok::bad, std::string(1, c)};
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

error parse_error(std::string message) {
    status s;
    s.outcome = "Failure";
    s.message = "unable to parse requirement: " + message;
    s.reason = "BadRequest";
    s.code = 400;
    return error::from_status(std::move(s));
}

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& e : v) {
        if (!out.empty()) out += "; ";
        out += e;
    }
    return out;
}

result<std::string> key_of(const token& t) {
    if (t.kind != tok::ident) {
        return parse_error("found '" + t.text + "', expected: identifier");
    }
    if (auto errs = validate_qualified_name(t.text); !errs.empty()) {
        return parse_error("key: Invalid value: \"" + t.text + "\": " + join(errs));
    }
    return t.text;
}

result<std::string> value_of(const std::string& v) {
    if (auto errs = validate_label_value(v); !errs.empty()) {
        return parse_error("values[0]: Invalid value: \"" + v + "\": " + join(errs));
    }
    return v;
}

result<label_requirement> parse_requirement(lexer& lx) {
    label_requirement r;
    auto t = lx.next();
    if (t.kind == tok::bang) {
        auto k = key_of(lx.next());
        if (!k) return k.error();
        r.key = *k;
        r.op = selector_op::does_not_exist;
        return r;
    }
    auto k = key_of(t);
    if (!k) return k.error();
    r.key = *k;
    auto op = lx.peek();
    switch (op.kind) {
    case tok::end:
    case tok::comma:
        r.op = selector_op::exists;
        return r;
    case tok::eq:
    case tok::deq:
    case tok::neq: {
        lx.next();
        r.op = op.kind == tok::neq ? selector_op::not_equals : selector_op::equals;
        auto v = lx.peek();
        std::string value;
        if (v.kind == tok::ident || v.kind == tok::in || v.kind == tok::notin) {
            lx.next();
            value = v.text;
        } else if (v.kind != tok::end && v.kind != tok::comma) {
            return parse_error("found '" + v.text + "', expected: identifier");
        }
        auto checked = value_of(value);
        if (!checked) return checked.error();
        r.values.push_back(std::move(value));
        return r;
    }
    case tok::in:
    case tok::notin: {
        lx.next();
        r.op = op.kind == tok::in ? selector_op::in : selector_op::not_in;
        if (auto lp = lx.next(); lp.kind != tok::lparen) {
            return parse_error("found '" + lp.text + "', expected: '('");
        }
        bool expect_value = true;
        while (true) {
            auto v = lx.next();
            if (v.kind == tok::rparen) {
                // "a in ()" and "a in (x,)" hold the empty value, as in apimachinery.
                if (expect_value) r.values.emplace_back();
                break;
            }
            if (v.kind == tok::comma) {
                if (expect_value) r.values.emplace_back();
                expect_value = true;
                continue;
            }
            if ((v.kind == tok::ident || v.kind == tok::in || v.kind == tok::notin) && expect_value) {
                auto checked = value_of(v.text);
                if (!checked) return checked.error();
                r.values.push_back(v.text);
                expect_value = false;
                continue;
            }
            if (v.kind == tok::end) {
                return parse_error("found '', expected: ')'");
            }
            return parse_error("found '" + v.text + "', expected: ',' or ')'");
        }
        if (r.values.empty()) {
            return parse_error("for 'in', 'notin' operators, values set can't be empty");
        }
        std::sort(r.values.begin(), r.values.end());
        r.values.erase(std::unique(r.values.begin(), r.values.end()), r.values.end());
        return r;
    }
    default:
        return parse_error("found '" + op.text + "', expected: in, notin, =, ==, !=, or end of string");
    }
}

} // namespace

result<label_selector> label_selector::parse(std::string_view text) {
    label_selector sel;
    lexer lx(text);
    if (lx.peek().kind == tok::end) {
        return sel;
    }
    while (true) {
        auto r = parse_requirement(lx);
        if (!r) return r.error();
        sel.requirements_.push_back(std::move(*r));
        auto t = lx.next();
        if (t.kind == tok::end) break;
        if (t.kind != tok::comma) {
            return parse_error("found '" + t.text + "', expected: ',' or end of string");
        }
    }
    return sel;
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
        }
    }
    return out;
}

std::ostream& operator<<(std::ostream& os, const label_selector& s) { return os << s.str(); }

} // namespace kcoro
