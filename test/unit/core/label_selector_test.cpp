#include <kcoro/core/label_selector.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

using kcoro::label_selector;
using kcoro::selector_op;

namespace {
boost::json::object labels(std::string_view json) { return boost::json::parse(json).as_object(); }

bool match(std::string_view sel, std::string_view json) {
    auto s = label_selector::parse(sel);
    REQUIRE_MESSAGE(s.has_value(), sel);
    auto l = labels(json);
    return s->matches(&l);
}
} // namespace

TEST_CASE("empty selector matches everything, including no labels") {
    auto s = label_selector::parse("");
    REQUIRE(s);
    CHECK(s->empty());
    CHECK(s->matches(nullptr));
    CHECK(label_selector::parse("   ")->empty());
}

TEST_CASE("equality and inequality") {
    CHECK(match("app=web", R"({"app":"web"})"));
    CHECK(match("app==web", R"({"app":"web"})"));
    CHECK_FALSE(match("app=web", R"({"app":"db"})"));
    CHECK_FALSE(match("app=web", R"({})"));
    CHECK(match("app!=web", R"({"app":"db"})"));
    CHECK(match("app!=web", R"({})"));  // != holds for a missing key
    CHECK_FALSE(match("app!=web", R"({"app":"web"})"));
    CHECK(match("app=", R"({"app":""})"));
}

TEST_CASE("set-based requirements") {
    CHECK(match("env in (prod, staging)", R"({"env":"prod"})"));
    CHECK_FALSE(match("env in (prod,staging)", R"({"env":"dev"})"));
    CHECK_FALSE(match("env in (prod)", R"({})"));
    CHECK(match("env notin (prod)", R"({"env":"dev"})"));
    CHECK(match("env notin (prod)", R"({})"));
    CHECK_FALSE(match("env notin (prod,dev)", R"({"env":"dev"})"));
}

TEST_CASE("exists and does-not-exist") {
    CHECK(match("app", R"({"app":"x"})"));
    CHECK_FALSE(match("app", R"({"other":"x"})"));
    CHECK(match("!app", R"({"other":"x"})"));
    CHECK_FALSE(match("!app", R"({"app":"x"})"));
}

TEST_CASE("all requirements must hold") {
    CHECK(match("app=web,tier!=db,!legacy,env in (a,b)", R"({"app":"web","tier":"fe","env":"b"})"));
    CHECK_FALSE(match("app=web,!legacy", R"({"app":"web","legacy":"1"})"));
}

TEST_CASE("prefixed keys and parsed structure") {
    auto s = label_selector::parse("app.kubernetes.io/name = web , x in (b,a,b)");
    REQUIRE(s);
    REQUIRE(s->requirements().size() == 2);
    CHECK(s->requirements()[0].key == "app.kubernetes.io/name");
    CHECK(s->requirements()[0].op == selector_op::equals);
    CHECK(s->requirements()[1].values == std::vector<std::string>{"a", "b"});
    CHECK(s->str() == "app.kubernetes.io/name=web,x in (a,b)");
    auto again = label_selector::parse(s->str());
    REQUIRE(again);
    CHECK(*again == *s);
}

TEST_CASE("bad selectors are 400 errors with labels/selector.go's texts (checked against v1.32.13)") {
    const std::pair<const char*, const char*> cases[] = {
        {"app=web,",
         "found '', expected: identifier after ','"},
        {"=x",
         "found '=', expected: !, identifier, or 'end of string'"},
        {"a in x",
         "unable to parse requirement: found 'x' expected: '('"},
        {"a in (x",
         "unable to parse requirement: found '', expected: ',' or ')'"},
        {"a b",
         "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"},
        {"!",
         "unable to parse requirement: found '', expected: identifier"},
        {"-bad=x",
         "unable to parse requirement: <nil>: Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
        {"a=b=c",
         "found '=', expected: ',' or 'end of string'"},
        {"a=-x-",
         "unable to parse requirement: values[0][a]: Invalid value: \"-x-\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"},
        {"a in (x y)",
         "unable to parse requirement: found 'y', expected: ',' or ')'"},
        {",",
         "found ',', expected: !, identifier, or 'end of string'"},
        {"a,,b",
         "found ',', expected: identifier after ','"},
        {"a in (",
         "unable to parse requirement: found '', expected: ',', ')' or identifier"},
        {"a notin b",
         "unable to parse requirement: found 'b' expected: '('"},
        {"a in (b,-c,-d)",
         "unable to parse requirement: [values[0][a]: Invalid value: \"-c\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), values[1][a]: Invalid value: \"-d\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]"},
        {"!a=b",
         "found '=', expected: ',' or 'end of string'"},
        {"a in (=",
         "unable to parse requirement: found '=', expected: ',', ')' or identifier"},
        {"a in (b,=)",
         "unable to parse requirement: found '=', expected: ',', or identifier"},
        {"a in (,b",
         "unable to parse requirement: found '', expected: ',' or ')'"},
    };
    for (const auto& [bad, want] : cases) {
        auto s = label_selector::parse(bad);
        REQUIRE_MESSAGE(!s.has_value(), bad);
        CHECK(s.error().http_code() == 400);
        CHECK(kcoro::is_api_error(s.error()));
        CHECK_MESSAGE(s.error().api_status()->message == want, bad);
    }
    // Keywords are identifiers where a key or a value goes.
    CHECK(label_selector::parse("in=notin").has_value());
    CHECK(label_selector::parse("a in (in,notin)").has_value());
}

TEST_CASE("an empty value list means the empty value, as in apimachinery") {
    auto s = label_selector::parse("a in ()");
    REQUIRE(s);
    CHECK(s->requirements()[0].values == std::vector<std::string>{""});
    CHECK(match("a in ()", R"({"a":""})"));
    CHECK_FALSE(match("a in ()", R"({"a":"x"})"));
    CHECK(match("a in (x,)", R"({"a":""})"));
}

TEST_CASE("non-string label values never match equality") {
    auto s = label_selector::parse("a=1");
    REQUIRE(s);
    auto l = labels(R"({"a":1})");
    CHECK_FALSE(s->matches(&l));
}

TEST_CASE("gt and lt compare integers (labels/selector.go Requirement.Matches)") {
    CHECK(match("a>1", R"({"a":"2"})"));
    CHECK_FALSE(match("a>1", R"({"a":"1"})"));
    CHECK_FALSE(match("a>1", R"({"a":"x"})"));  // not an integer: no match
    CHECK_FALSE(match("a>1", R"({})"));
    CHECK(match("a<10,b", R"({"a":"-3","b":""})"));
    CHECK(label_selector::parse("a>1")->str() == "a>1");
    // NewRequirement: the integer check, then the label value check.
    CHECK(label_selector::parse("a<x").error().api_status()->message ==
          "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer");
    CHECK(label_selector::parse("a>").error().api_status()->message ==
          "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer");
}
