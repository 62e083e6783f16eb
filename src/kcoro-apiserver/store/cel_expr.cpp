#include "store/cel_expr.hpp"

#include <array>
#include <cstddef>
#include <utility>

namespace kcoro::apiserver::cel {

std::string_view go_type_name(literal_type t) noexcept {
    switch (t) {
    case literal_type::string: return "string";
    case literal_type::int64: return "int64";
    case literal_type::uint64: return "uint64";
    case literal_type::float64: return "float64";
    case literal_type::boolean: return "bool";
    case literal_type::null: return "structpb.NullValue";
    case literal_type::bytes: return "[]uint8";
    }
    return "unknown";
}

namespace {

enum class tok { end, ident, number, string, bytes, punct, error };

struct token {
    tok type = tok::end;
    std::string text;     // as written (ident, punctuation, number)
    std::string value;    // string/bytes value
    literal_type number_type = literal_type::int64;
};

// CEL's reserved words that may not name a top-level identifier
// (cel-go parser/parser.go reservedIds).
constexpr std::array<std::string_view, 20> reserved = {
    "as", "break", "const", "continue", "else", "false", "for", "function", "if", "import",
    "in", "let", "loop", "package", "namespace", "null", "return", "true", "var", "void"};

bool is_reserved(std::string_view s) {
    for (auto r : reserved) {
        if (r == s) return true;
    }
    return s == "while";
}

bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool hex_digit(char c) { return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

class lexer {
public:
    explicit lexer(std::string_view s) : s_(s) {}

    token next() {
        skip_space();
        token t;
        if (pos_ >= s_.size()) return t;
        const char c = s_[pos_];
        // String and bytes literals, with the r/R (raw) and b/B prefixes.
        if (c == '\'' || c == '"' || ((c == 'r' || c == 'R' || c == 'b' || c == 'B') && pos_ + 1 < s_.size())) {
            std::size_t p = pos_;
            bool raw = false, bytes = false;
            while (p < s_.size() && p < pos_ + 2 && (s_[p] == 'r' || s_[p] == 'R' || s_[p] == 'b' || s_[p] == 'B')) {
                if (s_[p] == 'r' || s_[p] == 'R') raw = true; else bytes = true;
                ++p;
            }
            if (p < s_.size() && (s_[p] == '\'' || s_[p] == '"')) {
                pos_ = p;
                return quoted(raw, bytes);
            }
        }
        if (ident_start(c)) {
            std::size_t b = pos_;
            while (pos_ < s_.size() && ident_char(s_[pos_])) ++pos_;
            t.type = tok::ident;
            t.text = std::string(s_.substr(b, pos_ - b));
            return t;
        }
        if (digit(c) || (c == '.' && pos_ + 1 < s_.size() && digit(s_[pos_ + 1]))) return number();
        static constexpr std::array<std::string_view, 6> two = {"||", "&&", "==", "!=", "<=", ">="};
        for (auto p : two) {
            if (s_.substr(pos_, 2) == p) {
                pos_ += 2;
                t.type = tok::punct;
                t.text = std::string(p);
                return t;
            }
        }
        if (std::string_view("<>!?:.,()[]{}+-*/%").find(c) != std::string_view::npos) {
            ++pos_;
            t.type = tok::punct;
            t.text = std::string(1, c);
            return t;
        }
        t.type = tok::error;
        t.text = "Syntax error: token recognition error at: '" + std::string(1, c) + "'";
        ++pos_;
        return t;
    }

private:
    void skip_space() {
        for (;;) {
            while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' ||
                                        s_[pos_] == '\r' || s_[pos_] == '\f')) {
                ++pos_;
            }
            if (s_.substr(pos_, 2) == "//") {  // line comment
                while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
                continue;
            }
            return;
        }
    }

    token number() {
        token t;
        t.type = tok::number;
        std::size_t b = pos_;
        bool is_double = false;
        if (s_.substr(pos_, 2) == "0x" || s_.substr(pos_, 2) == "0X") {
            pos_ += 2;
            while (pos_ < s_.size() && hex_digit(s_[pos_])) ++pos_;
        } else {
            while (pos_ < s_.size() && digit(s_[pos_])) ++pos_;
            if (pos_ + 1 < s_.size() && s_[pos_] == '.' && digit(s_[pos_ + 1])) {
                is_double = true;
                ++pos_;
                while (pos_ < s_.size() && digit(s_[pos_])) ++pos_;
            }
            if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
                std::size_t p = pos_ + 1;
                if (p < s_.size() && (s_[p] == '+' || s_[p] == '-')) ++p;
                if (p < s_.size() && digit(s_[p])) {
                    is_double = true;
                    pos_ = p;
                    while (pos_ < s_.size() && digit(s_[pos_])) ++pos_;
                }
            }
        }
        t.number_type = is_double ? literal_type::float64 : literal_type::int64;
        if (!is_double && pos_ < s_.size() && (s_[pos_] == 'u' || s_[pos_] == 'U')) {
            ++pos_;
            t.number_type = literal_type::uint64;
        }
        t.text = std::string(s_.substr(b, pos_ - b));
        return t;
    }

    token quoted(bool raw, bool bytes) {
        token t;
        t.type = bytes ? tok::bytes : tok::string;
        const char q = s_[pos_];
        const bool triple = s_.substr(pos_, 3) == std::string(3, q);
        pos_ += triple ? 3 : 1;
        for (;;) {
            if (pos_ >= s_.size() || (!triple && (s_[pos_] == '\n' || s_[pos_] == '\r'))) {
                t.type = tok::error;
                t.text = "Syntax error: token recognition error at: '" + std::string(1, q) + "'";
                return t;
            }
            if (triple ? s_.substr(pos_, 3) == std::string(3, q) : s_[pos_] == q) {
                pos_ += triple ? 3 : 1;
                return t;
            }
            char c = s_[pos_];
            if (c != '\\' || raw) {
                t.value.push_back(c);
                ++pos_;
                continue;
            }
            // Escapes: \\ \' \" \` \? \a \b \f \n \r \t \v \xHH \uHHHH \UHHHHHHHH \ooo.
            if (pos_ + 1 >= s_.size()) {
                t.type = tok::error;
                t.text = "Syntax error: token recognition error at: '" + std::string(s_.substr(pos_)) + "'";
                return t;
            }
            char e = s_[pos_ + 1];
            pos_ += 2;
            switch (e) {
            case '\\': case '\'': case '"': case '`': case '?': t.value.push_back(e); break;
            case 'a': t.value.push_back('\a'); break;
            case 'b': t.value.push_back('\b'); break;
            case 'f': t.value.push_back('\f'); break;
            case 'n': t.value.push_back('\n'); break;
            case 'r': t.value.push_back('\r'); break;
            case 't': t.value.push_back('\t'); break;
            case 'v': t.value.push_back('\v'); break;
            case 'x': case 'X': case 'u': case 'U': {
                const std::size_t n = (e == 'x' || e == 'X') ? 2 : (e == 'u' ? 4 : 8);
                std::uint32_t cp = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    if (pos_ >= s_.size() || !hex_digit(s_[pos_])) {
                        t.type = tok::error;
                        t.text = "Syntax error: token recognition error at: '\\" + std::string(1, e) + "'";
                        return t;
                    }
                    char h = s_[pos_++];
                    cp = cp * 16 + static_cast<std::uint32_t>(digit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
                }
                append_code_point(t.value, cp, n == 2);
                break;
            }
            default:
                if (e >= '0' && e <= '3' && pos_ + 1 < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '7' &&
                    s_[pos_ + 1] >= '0' && s_[pos_ + 1] <= '7') {
                    t.value.push_back(static_cast<char>((e - '0') * 64 + (s_[pos_] - '0') * 8 + (s_[pos_ + 1] - '0')));
                    pos_ += 2;
                    break;
                }
                t.type = tok::error;
                t.text = "Syntax error: token recognition error at: '\\" + std::string(1, e) + "'";
                return t;
            }
        }
    }

    static void append_code_point(std::string& out, std::uint32_t cp, bool byte) {
        if (byte || cp < 0x80) {
            out.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
        } else if (cp < 0x10000) {
            out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
        } else {
            out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
        }
    }

    std::string_view s_;
    std::size_t pos_ = 0;
};

expr make_call(std::string fn, std::vector<expr> args, std::shared_ptr<const expr> target = nullptr) {
    expr e;
    e.kind = expr_kind::call;
    e.name = std::move(fn);
    e.args = std::move(args);
    e.target = std::move(target);
    return e;
}

class parser {
public:
    explicit parser(std::string_view s) : lex_(s) { advance(); }

    parse_result run() {
        auto e = expression();
        if (e && cur_.type != tok::end) fail_at_current();
        parse_result r;
        if (!error_.empty()) {
            r.error = error_;
        } else {
            r.value = std::move(e);
        }
        return r;
    }

private:
    void advance() {
        cur_ = lex_.next();
        if (cur_.type == tok::error && error_.empty()) error_ = cur_.text;
    }
    bool is(std::string_view p) const { return cur_.type == tok::punct && cur_.text == p; }
    bool is_word(std::string_view w) const { return cur_.type == tok::ident && cur_.text == w; }
    void fail(std::string msg) {
        if (error_.empty()) error_ = std::move(msg);
    }
    void fail_at_current() {
        if (cur_.type == tok::end) {
            fail("Syntax error: mismatched input '<EOF>'");
        } else if (cur_.type == tok::string || cur_.type == tok::bytes) {
            fail("Syntax error: extraneous input '" + cur_.value + "'");
        } else {
            fail("Syntax error: mismatched input '" + cur_.text + "'");
        }
    }
    bool expect(std::string_view p) {
        if (!is(p)) {
            fail_at_current();
            return false;
        }
        advance();
        return true;
    }

    std::optional<expr> expression() {
        auto cond = logical("||");
        if (!cond || !is("?")) return cond;
        advance();
        auto yes = logical("||");
        if (!yes || !expect(":")) return std::nullopt;
        auto no = expression();
        if (!no) return std::nullopt;
        return make_call("_?_:_", {std::move(*cond), std::move(*yes), std::move(*no)});
    }

    // conditionalOr / conditionalAnd (cel-go balances these; the walk visits
    // the operands left to right either way).
    std::optional<expr> logical(std::string_view op) {
        auto lhs = op == "||" ? logical("&&") : relation();
        while (lhs && is(op)) {
            advance();
            auto rhs = op == "||" ? logical("&&") : relation();
            if (!rhs) return std::nullopt;
            lhs = make_call(op == "||" ? "_||_" : "_&&_", {std::move(*lhs), std::move(*rhs)});
        }
        return lhs;
    }

    std::optional<expr> relation() {
        auto lhs = additive();
        for (;;) {
            if (!lhs) return lhs;
            std::string fn;
            if (is("<")) fn = "_<_";
            else if (is("<=")) fn = "_<=_";
            else if (is(">")) fn = "_>_";
            else if (is(">=")) fn = "_>=_";
            else if (is("==")) fn = "_==_";
            else if (is("!=")) fn = "_!=_";
            else if (is_word("in")) fn = "@in";
            else return lhs;
            advance();
            auto rhs = additive();
            if (!rhs) return std::nullopt;
            lhs = make_call(fn, {std::move(*lhs), std::move(*rhs)});
        }
    }

    std::optional<expr> additive() {
        auto lhs = multiplicative();
        while (lhs && (is("+") || is("-"))) {
            std::string fn = is("+") ? "_+_" : "_-_";
            advance();
            auto rhs = multiplicative();
            if (!rhs) return std::nullopt;
            lhs = make_call(fn, {std::move(*lhs), std::move(*rhs)});
        }
        return lhs;
    }

    std::optional<expr> multiplicative() {
        auto lhs = unary();
        while (lhs && (is("*") || is("/") || is("%"))) {
            std::string fn = is("*") ? "_*_" : (is("/") ? "_/_" : "_%_");
            advance();
            auto rhs = unary();
            if (!rhs) return std::nullopt;
            lhs = make_call(fn, {std::move(*lhs), std::move(*rhs)});
        }
        return lhs;
    }

    std::optional<expr> unary() {
        if (is("!") || is("-")) {
            const std::string op = cur_.text;
            int count = 0;
            while (is(op)) {
                ++count;
                advance();
            }
            // A single '-' before a number literal is part of the literal.
            if (op == "-" && count == 1 && cur_.type == tok::number && cur_.number_type != literal_type::uint64) {
                cur_.text = "-" + cur_.text;
                return member();
            }
            auto operand = member();
            if (!operand) return std::nullopt;
            if (count % 2 == 0) return operand;  // cel-go drops pairs
            return make_call(op == "!" ? "!_" : "-_", {std::move(*operand)});
        }
        return member();
    }

    std::optional<std::vector<expr>> arguments(std::string_view close) {
        std::vector<expr> args;
        if (is(close)) {
            advance();
            return args;
        }
        for (;;) {
            auto a = expression();
            if (!a) return std::nullopt;
            args.push_back(std::move(*a));
            if (is(",")) {
                advance();
                if (is(close)) break;  // trailing comma
                continue;
            }
            break;
        }
        if (!expect(close)) return std::nullopt;
        return args;
    }

    std::optional<expr> member() {
        auto e = primary();
        for (;;) {
            if (!e) return e;
            if (is(".")) {
                advance();
                if (cur_.type != tok::ident) {
                    fail_at_current();
                    return std::nullopt;
                }
                std::string name = cur_.text;
                advance();
                if (is("(")) {
                    advance();
                    auto args = arguments(")");
                    if (!args) return std::nullopt;
                    auto target = std::make_shared<const expr>(std::move(*e));
                    e = make_call(std::move(name), std::move(*args), std::move(target));
                } else {
                    expr s;
                    s.kind = expr_kind::select;
                    s.name = std::move(name);
                    s.target = std::make_shared<const expr>(std::move(*e));
                    e = std::move(s);
                }
            } else if (is("[")) {
                advance();
                auto index = expression();
                if (!index || !expect("]")) return std::nullopt;
                e = make_call("_[_]", {std::move(*e), std::move(*index)});
            } else {
                return e;
            }
        }
    }

    std::optional<expr> primary() {
        expr e;
        switch (cur_.type) {
        case tok::end:
        case tok::error:
            fail_at_current();
            return std::nullopt;
        case tok::string:
        case tok::bytes:
            e.kind = expr_kind::literal;
            e.literal = cur_.type == tok::string ? literal_type::string : literal_type::bytes;
            e.text = cur_.value;
            advance();
            return e;
        case tok::number:
            e.kind = expr_kind::literal;
            e.literal = cur_.number_type;
            e.text = cur_.text;
            advance();
            return e;
        case tok::ident: {
            std::string name = cur_.text;
            if (name == "true" || name == "false" || name == "null") {
                e.kind = expr_kind::literal;
                e.literal = name == "null" ? literal_type::null : literal_type::boolean;
                e.text = name;
                advance();
                return e;
            }
            advance();
            if (is("(")) {
                advance();
                auto args = arguments(")");
                if (!args) return std::nullopt;
                return make_call(std::move(name), std::move(*args));
            }
            if (is("{")) return message(std::move(name));
            if (is_reserved(name)) {
                fail("reserved identifier: " + name);
                return std::nullopt;
            }
            e.kind = expr_kind::ident;
            e.name = std::move(name);
            return e;
        }
        case tok::punct:
            break;
        }
        if (is("(")) {
            advance();
            auto inner = expression();
            if (!inner || !expect(")")) return std::nullopt;
            return inner;
        }
        if (is("[")) {
            advance();
            auto elems = arguments("]");
            if (!elems) return std::nullopt;
            e.kind = expr_kind::list;
            e.args = std::move(*elems);
            return e;
        }
        if (is("{")) {
            advance();
            e.kind = expr_kind::map;
            while (!is("}")) {
                auto k = expression();
                if (!k || !expect(":")) return std::nullopt;
                auto v = expression();
                if (!v) return std::nullopt;
                e.args.push_back(std::move(*k));
                e.args.push_back(std::move(*v));
                if (!is(",")) break;
                advance();
            }
            if (!expect("}")) return std::nullopt;
            return e;
        }
        if (is(".")) {  // leading-dot identifier: .name
            advance();
            if (cur_.type != tok::ident) {
                fail_at_current();
                return std::nullopt;
            }
            e.kind = expr_kind::ident;
            e.name = "." + cur_.text;
            advance();
            return e;
        }
        fail_at_current();
        return std::nullopt;
    }

    std::optional<expr> message(std::string type) {
        expr e;
        e.kind = expr_kind::message;
        e.name = std::move(type);
        advance();  // '{'
        while (!is("}")) {
            if (cur_.type != tok::ident) {
                fail_at_current();
                return std::nullopt;
            }
            e.fields.push_back(cur_.text);
            advance();
            if (!expect(":")) return std::nullopt;
            auto v = expression();
            if (!v) return std::nullopt;
            e.args.push_back(std::move(*v));
            if (!is(",")) break;
            advance();
        }
        if (!expect("}")) return std::nullopt;
        return e;
    }

    lexer lex_;
    token cur_;
    std::string error_;
};

} // namespace

parse_result parse(std::string_view source) { return parser(source).run(); }

} // namespace kcoro::apiserver::cel
