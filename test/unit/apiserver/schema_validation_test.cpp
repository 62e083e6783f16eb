#include "store/schema_validation.hpp"

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

using namespace kcoro;
using namespace kcoro::apiserver;
namespace json = boost::json;

namespace {

json::object o(std::string_view s) { return json::parse(s).as_object(); }

const json::object& schema() {
    static const json::object s = o(R"({
      "type":"object",
      "properties":{
        "spec":{"type":"object","required":["image"],
          "properties":{
            "image":{"type":"string","minLength":1,"maxLength":20,"pattern":"^[a-z:0-9.]+$"},
            "replicas":{"type":"integer","minimum":1,"maximum":50,"default":1},
            "ratio":{"type":"number","exclusiveMinimum":true,"minimum":0,"exclusiveMaximum":true,"maximum":1},
            "mode":{"type":"string","enum":["fast","safe"]},
            "enabled":{"type":"boolean"},
            "port":{"x-kubernetes-int-or-string":true},
            "tags":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string"}},
            "note":{"type":"string","nullable":true},
            "tls":{"type":"object","properties":{"enabled":{"type":"boolean","default":false},
                                                   "secret":{"type":"string"}}},
            "extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
            "labels":{"type":"object","additionalProperties":{"type":"string"}}
          }},
        "status":{"type":"object","properties":{"ready":{"type":"boolean"}}}
      }})");
    return s;
}

std::vector<status_cause> check(json::object& obj) { return validate_custom_resource(obj, schema()); }

std::string only_message(std::vector<status_cause> causes) {
    REQUIRE(causes.size() == 1);
    return causes[0].field + ": " + causes[0].message;
}

} // namespace

TEST_CASE("a valid object passes, defaults are applied, metadata is untouched") {
    auto obj = o(R"({"apiVersion":"example.com/v1","kind":"W","metadata":{"name":"x","anything":1},
                     "spec":{"image":"nginx:1","tls":{}}})");
    CHECK(check(obj).empty());
    CHECK(obj.at("spec").at("replicas") == 1);
    CHECK(obj.at("spec").at("tls").at("enabled") == false);
    CHECK(obj.at("metadata").at("anything") == 1);
    // A default inside an absent parent is not applied.
    CHECK_FALSE(obj.at("spec").as_object().contains("labels"));
}

TEST_CASE("maximum / minimum as the real server words them") {
    auto obj = o(R"({"spec":{"image":"a","replicas":99}})");
    CHECK(only_message(check(obj)) ==
          "spec.replicas: Invalid value: 99: spec.replicas in body should be less than or equal to 50");
    obj = o(R"({"spec":{"image":"a","replicas":0}})");
    CHECK(only_message(check(obj)) ==
          "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1");
    obj = o(R"({"spec":{"image":"a","ratio":1}})");
    CHECK(only_message(check(obj)) == "spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1");
    obj = o(R"({"spec":{"image":"a","ratio":0}})");
    CHECK(only_message(check(obj)) == "spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0");
    obj = o(R"({"spec":{"image":"a","ratio":0.5}})");
    CHECK(check(obj).empty());
}

TEST_CASE("types") {
    auto obj = o(R"({"spec":{"image":"a","replicas":"three"}})");
    auto causes = check(obj);
    CHECK(only_message(causes) ==
          "spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"");
    obj = o(R"({"spec":{"image":"a","enabled":"yes"}})");
    CHECK(check(obj).size() == 1);
    obj = o(R"({"spec":{"image":"a","replicas":2.5}})");
    CHECK(check(obj).size() == 1);
    obj = o(R"({"spec":"nope"})");
    CHECK(check(obj).size() == 1);
}

TEST_CASE("required, enum, pattern, lengths, items") {
    auto obj = o(R"({"spec":{}})");
    auto c = check(obj);
    REQUIRE(c.size() == 1);
    CHECK(c[0].type == "FieldValueRequired");
    CHECK(c[0].field == "spec.image");
    obj = o(R"({"spec":{"image":"a","mode":"slow"}})");
    CHECK(only_message(check(obj)) == "spec.mode: Unsupported value: \"slow\": supported values: \"fast\", \"safe\"");
    obj = o(R"({"spec":{"image":"UPPER"}})");
    CHECK(only_message(check(obj)) == "spec.image: Invalid value: \"UPPER\": spec.image in body should match '^[a-z:0-9.]+$'");
    obj = o(R"({"spec":{"image":""}})");
    auto empty = check(obj);  // both minLength and pattern fail, as on the real server
    REQUIRE(empty.size() == 2);
    CHECK(empty[0].field + ": " + empty[0].message ==
          "spec.image: Invalid value: \"\": spec.image in body should be at least 1 chars long");
    obj = o(R"({"spec":{"image":"aaaaaaaaaaaaaaaaaaaaaaaa"}})");
    CHECK(only_message(check(obj)) == "spec.image: Too long: may not be more than 20 bytes");
    obj = o(R"({"spec":{"image":"a","tags":["a","b","c"]}})");
    CHECK(only_message(check(obj)) == "spec.tags: Too many: 3: must have at most 2 items");
    obj = o(R"({"spec":{"image":"a","tags":[]}})");
    CHECK(only_message(check(obj)) == "spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items");
    obj = o(R"({"spec":{"image":"a","tags":[1]}})");
    CHECK(check(obj).at(0).field == "spec.tags[0]");
}

TEST_CASE("int-or-string and nullable") {
    auto obj = o(R"({"spec":{"image":"a","port":8080}})");
    CHECK(check(obj).empty());
    obj = o(R"({"spec":{"image":"a","port":"http"}})");
    CHECK(check(obj).empty());
    obj = o(R"({"spec":{"image":"a","port":true}})");
    CHECK(check(obj).size() == 1);
    obj = o(R"({"spec":{"image":"a","note":null}})");
    CHECK(check(obj).empty());
    obj = o(R"({"spec":{"image":null}})");
    CHECK(check(obj).size() == 1);
}

TEST_CASE("pruning of unknown fields, preserve-unknown-fields and additionalProperties") {
    auto obj = o(R"({"spec":{"image":"a","unknown":1,"tls":{"bogus":true},
                             "extra":{"free":{"form":1}},"labels":{"a":"b"}},"junk":true})");
    CHECK(check(obj).empty());
    CHECK_FALSE(obj.contains("junk"));
    CHECK_FALSE(obj.at("spec").as_object().contains("unknown"));
    CHECK_FALSE(obj.at("spec").at("tls").as_object().contains("bogus"));
    CHECK(obj.at("spec").at("extra").at("free").at("form") == 1);
    CHECK(obj.at("spec").at("labels").at("a") == "b");
    obj = o(R"({"spec":{"image":"a","labels":{"a":1}}})");
    CHECK(check(obj).at(0).field == "spec.labels.a");
}

TEST_CASE("a bad pattern in the schema is reported, not thrown") {
    auto s = o(R"({"type":"object","properties":{"a":{"type":"string","pattern":"("}}})");
    auto obj = o(R"({"a":"x"})");
    CHECK(validate_custom_resource(obj, s).size() == 1);
}

TEST_CASE("a huge string against a pattern is refused, not a stack overflow") {
    auto obj = o(R"({"spec":{"image":"a"}})");
    obj["spec"].as_object()["image"] = std::string(300000, 'a');
    auto causes = check(obj);
    bool pattern_refused = false;
    for (const auto& c : causes) pattern_refused |= c.message.find("too long to be matched against pattern") != std::string::npos;
    CHECK(pattern_refused);
}
