#include <kcoro/typed/schema_check.hpp>

#include <kcoro/typed/declare.hpp>
#include <kcoro/typed/validation.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

namespace typed = kcoro::typed;
namespace json = boost::json;

namespace schema_check_sample {

struct port {
    std::string name;
    std::int32_t number = 80;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(port, (), (name, number))
KCORO_FIELDS(port, field("name").required().pattern("^[a-z]+$"), field("number").minimum(1).maximum(65535))

struct spec {
    std::string image;
    std::int32_t replicas = 1;
    std::optional<std::int64_t> budget;
    std::int32_t weight = 5;
    std::string mode;
    std::vector<std::string> tags;
    std::map<std::string, std::int32_t> limits;
    std::vector<port> ports;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(spec, (), (image, replicas, budget, weight, mode, tags, limits, ports))
KCORO_FIELDS(spec, field("image").required().min_length(3).max_length(8),
             field("replicas").minimum(0).maximum(50),
             field("budget").exclusive_minimum(0),
             field("weight").exclusive_maximum(10),
             field("mode").one_of("fast", "safe"),
             field("tags").max_items(2).min_length(2).pattern("^t"),
             field("limits").max_properties(1).maximum(9),
             field("ports").min_items(1))

struct widget {
    typed::object_meta metadata;
    spec spec_;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(widget, (), (metadata, spec_))
KCORO_FIELDS(widget, field("spec_").name("spec").required())

typed::field_errors validate(const widget& w) {
    if (w.spec_.mode == "safe" && w.spec_.replicas == 0) {
        return {{"spec.mode", typed::field_error_type::invalid, "safe needs a replica"}};
    }
    return {};
}

std::vector<std::string> described(const typed::field_errors& errors) {
    std::vector<std::string> out;
    for (const auto& e : errors) out.push_back(e.str());
    return out;
}

widget decode(std::string_view spec_json) {
    auto v = json::parse(R"({"metadata":{"name":"w","labels":{"a":"b"}},"spec":)" + std::string(spec_json) + "}");
    auto w = typed::from_json<widget>(v);
    REQUIRE_MESSAGE(w.has_value(), (w ? "" : typed::describe(w.error())));
    return *w;
}

} // namespace schema_check_sample

TEST_CASE("an object within every bound has no errors") {
    auto w = schema_check_sample::decode(R"({"image":"nginx","replicas":50,"budget":1,"weight":9,"mode":"fast",
      "tags":["t1","t2"],"limits":{"cpu":9},"ports":[{"name":"http","number":65535}]})");
    CHECK(typed::check_schema(w).empty());
    CHECK(typed::check(w).empty());
}

TEST_CASE("every bound is reported with its path, in declaration order, in the API server's words") {
    auto w = schema_check_sample::decode(R"({"image":"a very long image","replicas":51,"budget":0,"weight":10,"mode":"slow",
      "tags":["x","t2","t3"],"limits":{"cpu":10,"mem":1},"ports":[{"name":"HTTP","number":0},{"number":2}]})");
    CHECK(schema_check_sample::described(typed::check_schema(w)) ==
          std::vector<std::string>{
              "spec.image: may not be more than 8 bytes",
              "spec.replicas: should be less than or equal to 50",
              "spec.budget: should be greater than 0",
              "spec.weight: should be less than 10",
              "spec.mode: Unsupported value: \"slow\": supported values: \"fast\", \"safe\"",
              "spec.tags: must have at most 2 items",
              "spec.tags[0]: should be at least 2 chars long",
              "spec.tags[0]: should match '^t'",
              "spec.limits: must have at most 1 items",
              "spec.limits[cpu]: should be less than or equal to 9",
              "spec.ports[0].name: should match '^[a-z]+$'",
              "spec.ports[0].number: should be greater than or equal to 1",
              "spec.ports[1].name: Required value",
          });
    auto errors = typed::check_schema(w);
    CHECK(errors[0].type == typed::field_error_type::too_long);
    CHECK(errors[4].type == typed::field_error_type::not_supported);
    CHECK(errors[5].type == typed::field_error_type::too_many);
    CHECK(errors[12].type == typed::field_error_type::required);
}

TEST_CASE("empty strings were absent: only required applies; lists below their minimum are reported") {
    auto w = schema_check_sample::decode(R"({"replicas":-1})");
    CHECK(schema_check_sample::described(typed::check_schema(w)) ==
          std::vector<std::string>{"spec.image: Required value", "spec.replicas: should be greater than or equal to 0",
                                   "spec.ports: should have at least 1 items"});
}

TEST_CASE("a string too long to match is reported, not matched") {
    schema_check_sample::widget w = schema_check_sample::decode(R"({"image":"nginx","ports":[{"name":"a"}]})");
    w.spec_.ports[0].name = std::string(5000, 'a');
    auto errors = typed::check_schema(w);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].str() == "spec.ports[0].name: is too long to be matched against pattern '^[a-z]+$'");
}

TEST_CASE("check: the schema's errors, then the type's own") {
    auto w = schema_check_sample::decode(R"({"image":"x","replicas":0,"mode":"safe","ports":[{"name":"a"}]})");
    CHECK(schema_check_sample::described(typed::check(w)) ==
          std::vector<std::string>{"spec.image: should be at least 3 chars long", "spec.mode: safe needs a replica"});
    auto v = json::parse(R"({"metadata":{"name":"w"},"spec":{"image":"nginx","ports":[{"name":"a"}],"replicas":99}})");
    auto checked = typed::decode_valid<schema_check_sample::widget>(v.as_object());
    REQUIRE_FALSE(checked.has_value());
    CHECK(typed::describe(checked.error()) == "spec.replicas: should be less than or equal to 50");
}
