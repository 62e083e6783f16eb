#include <kcoro/typed/declare.hpp>
#include <kcoro/typed/schema.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <doctest/doctest.h>

namespace typed = kcoro::typed;
namespace json = boost::json;

namespace schema_sample {

enum class mode { fast, safe_mode };
BOOST_DESCRIBE_ENUM(mode, fast, safe_mode)

struct leaf {
    std::string name;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(leaf, (), (name))
KCORO_FIELDS(leaf, field("name").required().pattern("^[a-z]+$"))

struct all {
    std::string text;
    bool flag = true;
    std::int32_t i32 = 3;
    std::int64_t i64 = 0;
    std::uint16_t u16 = 0;
    double d = 0;
    mode m = mode::safe_mode;
    std::optional<std::int32_t> maybe;
    std::vector<std::string> words;
    std::vector<leaf> leaves;
    std::map<std::string, std::int32_t> counts;
    json::value any;
    json::object obj;
    json::array arr;
    typed::quantity q;
    typed::int_or_string ios;
    typed::timestamp when;
    typed::bytes blob;
    typed::object_meta meta;
    std::string status;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(all, (),
                      (text, flag, i32, i64, u16, d, m, maybe, words, leaves, counts, any, obj, arr, q, ios,
                       when, blob, meta, status))
KCORO_FIELDS(all, field("text").description("Some text.").min_length(1).max_length(8).format("hostname"),
             field("flag").defaulted(), field("i32").defaulted().exclusive_minimum(0).maximum(9),
             field("m").defaulted(), field("maybe").default_json("7"),
             field("words").min_items(1).max_items(3).list_type("set").pattern("^w"),
             field("leaves").list_map("name"), field("counts").min_properties(1).max_properties(2).minimum(0),
             field("obj").description("kept"), field("status").one_of("True", "False").required())

struct bad_default {
    std::int32_t x = 0;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(bad_default, (), (x))
KCORO_FIELDS(bad_default, field("x").default_json("{nope"))

} // namespace schema_sample

TEST_CASE("every type and annotation in the OpenAPI schema") {
    auto s = typed::openapi_schema<schema_sample::all>();
    auto expected = json::parse(R"({
      "type": "object",
      "required": ["status"],
      "properties": {
        "text": {"type": "string", "format": "hostname", "description": "Some text.", "minLength": 1, "maxLength": 8},
        "flag": {"type": "boolean", "default": true},
        "i32": {"type": "integer", "format": "int32", "default": 3, "minimum": 0, "exclusiveMinimum": true, "maximum": 9},
        "i64": {"type": "integer", "format": "int64"},
        "u16": {"type": "integer"},
        "d": {"type": "number", "format": "double"},
        "m": {"type": "string", "default": "SafeMode", "enum": ["Fast", "SafeMode"]},
        "maybe": {"type": "integer", "format": "int32", "default": 7},
        "words": {"type": "array", "minItems": 1, "maxItems": 3, "x-kubernetes-list-type": "set",
                  "items": {"type": "string", "pattern": "^w"}},
        "leaves": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                   "items": {"type": "object", "required": ["name"],
                             "properties": {"name": {"type": "string", "pattern": "^[a-z]+$"}}}},
        "counts": {"type": "object", "minProperties": 1, "maxProperties": 2,
                   "additionalProperties": {"type": "integer", "format": "int32", "minimum": 0}},
        "any": {"x-kubernetes-preserve-unknown-fields": true},
        "obj": {"type": "object", "description": "kept", "x-kubernetes-preserve-unknown-fields": true},
        "arr": {"type": "array", "items": {"x-kubernetes-preserve-unknown-fields": true}},
        "q": {"x-kubernetes-int-or-string": true},
        "ios": {"x-kubernetes-int-or-string": true},
        "when": {"type": "string", "format": "date-time"},
        "blob": {"type": "string", "format": "byte"},
        "meta": {"type": "object"},
        "status": {"type": "string", "enum": ["True", "False"]}
      }})");
    CHECK_MESSAGE(s == expected, json::serialize(s));
    // Key order is stable (the generated files are compared byte for byte).
    auto it = s.at("properties").at("i32").as_object().begin();
    CHECK(it->key() == "type");
    CHECK((++it)->key() == "format");
    CHECK((++it)->key() == "default");
}

TEST_CASE("a default that is not JSON fails generation loudly") {
    CHECK_THROWS_AS(typed::openapi_schema<schema_sample::bad_default>(), std::invalid_argument);
}
