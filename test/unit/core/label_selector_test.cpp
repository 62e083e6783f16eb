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

TEST_CASE("bad selectors are 400 errors, never exceptions") {
    for (const char* bad : {"app=web,", "=x", "a in x", "a in (x", "a b", "!", "a>1",
                            "-bad=x", "a=b=c", "a=-x-", "a in (x y)", ",", "a,,b"}) {
        auto s = label_selector::parse(bad);
        CHECK_MESSAGE(!s.has_value(), bad);
        if (!s) {
            CHECK(s.error().http_code() == 400);
            CHECK(kcoro::is_api_error(s.error()));
            CHECK(s.error().message().find("unable to parse requirement") != std::string::npos);
        }
    }
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
