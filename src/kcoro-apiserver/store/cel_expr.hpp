// A parser for CEL's expression syntax, just far enough to hand KEP-5866's
// shardSelector walker (shard_selector.hpp) the same tree cel-go gives the
// real server: staging/src/k8s.io/apiserver/pkg/sharding/parser.go calls
// celparser.NewParser(celparser.Macros()) (no macros) and walks the AST of
// github.com/google/cel-go/common/ast without evaluating it.
//
// Covered: literals (int, uint `1u`, double, 'single'/"double"/'''triple'''
// strings with escapes, r'raw' strings, b'bytes', true/false/null),
// identifiers, `.`-selection, global and receiver calls, lists, maps,
// message literals `T{f: v}`, indexing, the unary (`!`, `-`), binary
// (`* / % + - < <= > >= == != in && ||`) and conditional (`?:`) operators
// with CEL's precedence; operators become calls named as cel-go names them
// (`_||_`, `_&&_`, `_==_`, `@in`, `_[_]`, `_?_:_`, `!_`, `-_`, ...). A `-`
// before a number literal is folded into the literal, as cel-go does.
// Top-level identifiers that CEL reserves are refused ("reserved identifier").
//
// Not covered exactly: the text of syntax errors. cel-go reports ANTLR's
// ("Syntax error: mismatched input 'x' expecting {...}"); here the message
// starts the same ("Syntax error: ") and names the offending token, but the
// expected-token list is not reproduced.
//
// Pure; never throws on bad input. Thread safety: values.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::apiserver::cel {

/// cel-go common/ast ExprKind, with its numeric values (fmt's %v prints
/// these numbers: ExprKind has no String method).
enum class expr_kind : int {
    unspecified = 0,
    call = 1,
    comprehension = 2,
    ident = 3,
    list = 4,
    literal = 5,
    map = 6,
    select = 7,
    message = 8,  // StructKind
};

/// A literal's type, named as Go's %T prints the value cel-go's
/// ref.Val.Value() returns for it.
enum class literal_type { string, int64, uint64, float64, boolean, null, bytes };
/// "string", "int64", "uint64", "float64", "bool", "structpb.NullValue", "[]uint8".
std::string_view go_type_name(literal_type t) noexcept;

struct expr {
    expr_kind kind = expr_kind::unspecified;
    /// Identifier name, selected field, called function or message type.
    std::string name;
    /// Select: the operand. Call: the receiver (null for a global call).
    std::shared_ptr<const expr> target;
    /// Call: arguments. List: elements. Map: key, value, key, value, ...
    /// Message: field values (field names in `fields`).
    std::vector<expr> args;
    std::vector<std::string> fields;
    literal_type literal = literal_type::null;
    std::string text;  // string/bytes literal value (escapes resolved)
};

struct parse_result {
    std::optional<expr> value;
    /// The first error (cel-go's errs.GetErrors()[0].Message) when !value.
    std::string error;
};

parse_result parse(std::string_view source);

} // namespace kcoro::apiserver::cel
