// store/shard_selector (and the CEL subset under it): KEP-5866's
// shardSelector parsed, printed and matched as apiserver/pkg/sharding
// /parser.go and apimachinery/pkg/sharding/selector.go do. The valid and
// invalid inputs are the cases of the real parser_test.go; every error text
// is parser.go's.
#include "store/shard_selector.hpp"

#include "store/cel_expr.hpp"

#include <doctest/doctest.h>

#include <string>
#include <variant>

using namespace kcoro::apiserver;
namespace json = boost::json;

namespace {

const std::string low = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
const std::string high = "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')";

shard_selector ok(std::string_view text) {
    auto r = shard_selector::parse(text);
    INFO(text);
    if (r.index() == 1) INFO(std::get<1>(r));
    REQUIRE(r.index() == 0);
    return std::get<0>(std::move(r));
}

std::string error_of(std::string_view text) {
    auto r = shard_selector::parse(text);
    INFO(text);
    REQUIRE(r.index() == 1);
    return std::get<1>(r);
}

json::object with_uid(std::string_view uid, std::string_view ns = "default") {
    return json::object{{"metadata", json::object{{"name", "x"}, {"namespace", ns}, {"uid", uid}}}};
}

} // namespace

TEST_CASE("fnv1a64 is Go's hash/fnv New64a") {
    CHECK(fnv1a64("") == 0xcbf29ce484222325ull);
    CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cull);
    CHECK(fnv1a64("foobar") == 0x85944171f73967e8ull);
}

TEST_CASE("shardSelector: the valid forms of parser_test.go, and String() round trips") {
    auto one = ok(low);
    REQUIRE(one.requirements().size() == 1);
    CHECK(one.requirements()[0].key == "object.metadata.uid");
    CHECK(one.requirements()[0].start == "0x0000000000000000");
    CHECK(one.requirements()[0].end == "0x8000000000000000");
    CHECK(one.requirements()[0].first == 0);
    CHECK(one.requirements()[0].last == 0x7fffffffffffffffull);
    CHECK(one.str() == low);

    auto full = ok("shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')");
    CHECK(full.requirements()[0].last == ~std::uint64_t{0});

    auto ns = ok("shardRange(object.metadata.namespace, '0x00000000000000aa', '0x00000000000000ff')");
    CHECK(ns.requirements()[0].key == "object.metadata.namespace");
    CHECK(ns.requirements()[0].first == 0xaa);
    CHECK(ns.requirements()[0].last == 0xfe);

    auto two = ok(low + " || " + high);
    REQUIRE(two.requirements().size() == 2);
    CHECK(two.str() == low + " || " + high);
    auto three = ok("shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000005') || "
                    "shardRange(object.metadata.uid, '0x0000000000000005', '0x000000000000000a') || "
                    "shardRange(object.metadata.uid, '0x000000000000000a', '0x000000000000000f')");
    REQUIRE(three.requirements().size() == 3);
    CHECK(three.requirements()[2].start == "0x000000000000000a");

    // Spacing does not matter; String() is canonical.
    CHECK(ok("shardRange(object.metadata.uid,'0x0000000000000000','0x8000000000000000')").str() == low);
    CHECK(ok("  shardRange( object.metadata.uid ,  '0x0000000000000000' ,  '0x8000000000000000' )  ").str() == low);
    // CEL's other string forms are string literals too.
    CHECK(ok(R"(shardRange(object.metadata.uid, "0x0000000000000000", r'0x8000000000000000'))").str() == low);
    CHECK(ok("(" + low + ")").str() == low);
}

TEST_CASE("shardSelector: every invalid form, with parser.go's text") {
    CHECK(error_of("") == "empty shard selector is not allowed; omit the parameter for unfiltered lists");
    CHECK(error_of("  \t ") == "empty shard selector is not allowed; omit the parameter for unfiltered lists");
    CHECK(error_of("shardRange(object.metadata.uid, '0000000000000000', '0x8000000000000000')") ==
          R"(hexStart must have '0x' prefix, got "0000000000000000")");
    CHECK(error_of("shardRange(object.metadata.uid, '0x0000000000000000', '8000000000000000')") ==
          R"(hexEnd must have '0x' prefix, got "8000000000000000")");
    CHECK(error_of("shardRange(object.metadata.uid, '0x', '0x8000000000000000')") ==
          "hexStart: hex value is required after '0x'");
    CHECK(error_of("shardRange(object.metadata.name, '0x00', '0x80')") ==
          R"(unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace)");
    CHECK(error_of("shardRange(object.metadata.labels, '0x00', '0x80')") ==
          R"(unsupported field path "object.metadata.labels"; supported: object.metadata.uid, object.metadata.namespace)");
    CHECK(error_of("invalidFunc(object.metadata.uid, '0x00', '0x80')") ==
          R"(unsupported function "invalidFunc"; only shardRange() and || are allowed)");
    CHECK(error_of("shardRange(object.metadata.uid, '0x000000000000000000', '0x80')") ==
          R"(hexStart: hex value too long (18 chars, max 17): "000000000000000000")");
    CHECK(error_of("shardRange(object.metadata.uid, '0x0g', '0x80')") ==
          R"(hexStart: invalid hex character "g" in "0x0g")");
    CHECK(error_of("shardRange(object.metadata.uid, '0xFFFFFFFFFFFFFFFF', '0x10000000000000000')") ==
          R"(hexStart: invalid hex character "F" in "0xFFFFFFFFFFFFFFFF")");
    CHECK(error_of("shardRange(object.metadata.uid, '0x0', '0x8') && shardRange(object.metadata.uid, '0x8', '0xf')") ==
          R"(unsupported function "_&&_"; only shardRange() and || are allowed)");
    CHECK(error_of("shardRange(object.metadata.uid, 0, 8)") == "hexStart must be a string literal, got int64");
    CHECK(error_of("shardRange(object.metadata.uid, 0u, 8)") == "hexStart must be a string literal, got uint64");
    CHECK(error_of("shardRange(object.metadata.uid, b'0x0000000000000000', 8)") ==
          "hexStart must be a string literal, got []uint8");
    CHECK(error_of("object.metadata.uid > '0x0'") ==
          R"(unsupported function "_>_"; only shardRange() and || are allowed)");
    CHECK(error_of("shardRange(object.metadata.uid, '0x0')") == "shardRange() requires exactly 3 arguments, got 2");
    CHECK(error_of("shardRange(object.metadata.uid, hex(0), '0x8')") ==
          "hexStart must be a string literal (e.g. '0xff'), got expression kind 1");
    CHECK(error_of(low + " || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')") ==
          R"(all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace")");
    CHECK(error_of("shardRange(object.metadata.uid, '0x0', '0x8000000000000000')") ==
          R"(hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?))");
    CHECK(error_of("shardRange(object.metadata.uid, '0x0000000000000000', '0xff')") ==
          R"(hexEnd must be a 0x-prefixed 16-digit hex value, got "0xff" (did you mean "0x00000000000000ff"?))");
    CHECK(error_of("shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000001')") ==
          R"(hexEnd: 17-digit hex value must be '0x10000000000000000' (2^64), got "0x10000000000000001")");
    CHECK(error_of("shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')") ==
          "shard range start 0x8000000000000000 must be less than end 0x8000000000000000");
    CHECK(error_of("shardRange(object.metadata.uid, '0xffffffffffffffff', '0x0000000000000000')") ==
          "shard range start 0xffffffffffffffff must be less than end 0x0000000000000000");
    CHECK(error_of("shardRange(object.metadata.uid, '0x10000000000000000', '0x10000000000000000')") ==
          "shard range start 0x10000000000000000 must be less than end 0x10000000000000000");
    // The walk's other kinds (cel-go ExprKind numbers: ident 3, literal 5, list 4).
    CHECK(error_of("object") == "unexpected expression kind 3; expected shardRange() call or || operator");
    CHECK(error_of("'0x0000000000000000'") == "unexpected expression kind 5; expected shardRange() call or || operator");
    CHECK(error_of("[1]") == "unexpected expression kind 4; expected shardRange() call or || operator");
    CHECK(error_of(low + " || true") == "unexpected expression kind 5; expected shardRange() call or || operator");
    CHECK(error_of("shardRange('object.metadata.uid', '0x0000000000000000', '0x8000000000000000')") ==
          "shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind 5");
    CHECK(error_of("shardRange(object.metadata[0], '0x0000000000000000', '0x8000000000000000')") ==
          "shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind 1");
    CHECK(error_of("!" + low) == R"(unsupported function "!_"; only shardRange() and || are allowed)");
    // CEL syntax errors: cel-go's first error, behind "CEL parse error: ".
    CHECK(error_of("shardRange(").starts_with("CEL parse error: Syntax error: "));
    CHECK(error_of(low + " |").starts_with("CEL parse error: Syntax error: token recognition error at: '|'"));
    CHECK(error_of(low + ",").starts_with("CEL parse error: Syntax error: "));
    CHECK(error_of("shardRange(object.metadata.uid, '0x0000000000000000, '0x8')").starts_with("CEL parse error: "));
    CHECK(error_of("namespace") == "CEL parse error: reserved identifier: namespace");
}

TEST_CASE("shardSelector matches half-open ranges of the FNV-1a hash, ORed") {
    // Find uids on either side of the middle of the space.
    std::string lower, upper;
    for (int i = 0; lower.empty() || upper.empty(); ++i) {
        std::string u = "uid-" + std::to_string(i);
        (fnv1a64(u) < 0x8000000000000000ull ? lower : upper) = u;
    }
    auto l = ok(low), h = ok(high), both = ok(low + " || " + high);
    CHECK(l.matches(with_uid(lower)));
    CHECK_FALSE(l.matches(with_uid(upper)));
    CHECK(h.matches(with_uid(upper)));
    CHECK_FALSE(h.matches(with_uid(lower)));
    CHECK(both.matches(with_uid(lower)));
    CHECK(both.matches(with_uid(upper)));

    // Ends: a range [h, h+1) holds exactly h.
    const std::uint64_t hash = fnv1a64(lower);
    auto hex = [](std::uint64_t v) {
        static const char* d = "0123456789abcdef";
        std::string s = "0x";
        for (int i = 60; i >= 0; i -= 4) s.push_back(d[(v >> i) & 0xf]);
        return s;
    };
    auto exact = ok("shardRange(object.metadata.uid, '" + hex(hash) + "', '" + hex(hash + 1) + "')");
    CHECK(exact.matches(with_uid(lower)));
    auto below = ok("shardRange(object.metadata.uid, '0x0000000000000000', '" + hex(hash) + "')");
    CHECK_FALSE(below.matches(with_uid(lower)));

    // By namespace: every object of a namespace on the same side; a
    // cluster-scoped object hashes "".
    auto by_ns = ok("shardRange(object.metadata.namespace, '" + hex(fnv1a64("team-a")) + "', '" +
                    hex(fnv1a64("team-a") + 1) + "')");
    CHECK(by_ns.matches(with_uid(lower, "team-a")));
    CHECK(by_ns.matches(with_uid(upper, "team-a")));
    CHECK_FALSE(by_ns.matches(with_uid(lower, "team-b")));
    auto empty_ns = ok("shardRange(object.metadata.namespace, '" + hex(fnv1a64("")) + "', '0x10000000000000000')");
    CHECK(empty_ns.matches(json::object{{"metadata", json::object{{"name", "n"}}}}));
}

TEST_CASE("cel subset: operators become cel-go's calls, selections and literals") {
    auto r = cel::parse("a.b.c(1, -2, 'x') || !d[0] && e in [f] ? {1: 2} : T{x: 1}");
    REQUIRE(r.value);
    CHECK(r.value->kind == cel::expr_kind::call);
    CHECK(r.value->name == "_?_:_");
    const auto& cond = r.value->args[0];
    CHECK(cond.name == "_||_");
    CHECK(cond.args[0].name == "c");
    REQUIRE(cond.args[0].target);
    CHECK(cond.args[0].target->kind == cel::expr_kind::select);
    CHECK(cond.args[0].args[1].kind == cel::expr_kind::literal);  // -2 folded
    CHECK(cond.args[1].name == "_&&_");
    CHECK(cond.args[1].args[0].name == "!_");
    CHECK(cond.args[1].args[1].name == "@in");
    CHECK(r.value->args[1].kind == cel::expr_kind::map);
    CHECK(r.value->args[2].kind == cel::expr_kind::message);
    CHECK(cel::parse("'a\\x41\\u00e9'").value->text == "aA\xc3\xa9");
    CHECK_FALSE(cel::parse("a +").value);
    CHECK_FALSE(cel::parse("'unterminated").value);
}
