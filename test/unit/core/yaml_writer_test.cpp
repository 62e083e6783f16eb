#include <kcoro/core/yaml.hpp>
#include <kcoro/core/yaml_writer.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <doctest/doctest.h>

namespace json = boost::json;

namespace {
// Writing then reading gives the same value.
void round_trips(std::string_view js) {
    auto v = json::parse(js);
    auto text = kcoro::to_yaml(v);
    auto back = kcoro::parse_yaml(text);
    REQUIRE_MESSAGE(back, text);
    CHECK_MESSAGE(*back == v, text << "\nread back as " << json::serialize(*back));
}
} // namespace

TEST_CASE("block mappings and sequences, in the object's order") {
    auto v = json::parse(
        R"({"kind":"CustomResourceDefinition","spec":{"names":{"plural":"widgets","shortNames":["wd","w"]},
      "versions":[{"name":"v1","served":true,"subresources":{"status":{}}}]}})");
    CHECK(kcoro::to_yaml(v) == "kind: CustomResourceDefinition\n"
                               "spec:\n"
                               "  names:\n"
                               "    plural: widgets\n"
                               "    shortNames:\n"
                               "      - wd\n"
                               "      - w\n"
                               "  versions:\n"
                               "    - name: v1\n"
                               "      served: true\n"
                               "      subresources:\n"
                               "        status: {}\n");
}

TEST_CASE("strings a reader would take for something else are quoted") {
    CHECK(kcoro::yaml_scalar("ClusterIP") == "ClusterIP");
    CHECK(kcoro::yaml_scalar("True") == "\"True\"");
    CHECK(kcoro::yaml_scalar("yes") == "\"yes\"");
    CHECK(kcoro::yaml_scalar("Off") == "\"Off\"");
    CHECK(kcoro::yaml_scalar("null") == "\"null\"");
    CHECK(kcoro::yaml_scalar("8080") == "\"8080\"");
    CHECK(kcoro::yaml_scalar("1.27") == "\"1.27\"");
    CHECK(kcoro::yaml_scalar("") == "\"\"");
    CHECK(kcoro::yaml_scalar(".status.replicas") == "\".status.replicas\"");
    CHECK(kcoro::yaml_scalar("a: b") == "\"a: b\"");
    CHECK(kcoro::yaml_scalar("x #y") == "\"x #y\"");
    CHECK(kcoro::yaml_scalar("-x") == "\"-x\"");
    CHECK(kcoro::yaml_scalar("a \"q\" \\ b\n\t\x01") == "\"a \\\"q\\\" \\\\ b\\n\\t\\x01\"");
    CHECK(kcoro::yaml_scalar("A gateway instance managed by gateway-operator.") ==
          "A gateway instance managed by gateway-operator.");
    CHECK(kcoro::yaml_scalar("x-kubernetes-int-or-string") == "x-kubernetes-int-or-string");
}

TEST_CASE("scalars, nested sequences and empty collections read back the same") {
    round_trips(
        R"({"a":null,"b":true,"c":-3,"d":1.5,"e":"True","f":"","g":{},"h":[],"i":[[1,2],[],[{"x":"y"}]],
      "j":"line1\nline2","k":"  padded ","l":"ünïcode","m":18446744073709551615,"n":"#not a comment",
      "o":".status.conditions[?(@.type==\"Ready\")].status","p":"^[^\\x00-\\x20]*$","q":[{"a":{"b":[1]}}]})");
    round_trips(R"([1,"two",{"three":3}])");
    round_trips(R"("just a string")");
    round_trips(R"(42)");
    round_trips(R"({})");
}

TEST_CASE("a scalar document is one line") {
    CHECK(kcoro::to_yaml(json::value("x")) == "x\n");
    CHECK(kcoro::to_yaml(json::value(nullptr)) == "null\n");
    CHECK(kcoro::to_yaml(json::array{}) == "[]\n");
}
