#include <kcoro/typed/declare.hpp>
#include <kcoro/typed/validation.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

namespace typed = kcoro::typed;
namespace json = boost::json;

namespace validation_sample {
struct range {
    std::int32_t min = 0;
    std::int32_t max = 0;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(range, (), (min, max))

typed::field_errors validate(const range& r) {
    if (r.min > r.max) {
        return {{typed::field_path("spec").child("min").str(), typed::field_error_type::invalid,
                 "must not exceed max (" + std::to_string(r.max) + ")"}};
    }
    return {};
}

struct free_form {
    std::string x;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(free_form, (), (x))
} // namespace validation_sample

static_assert(typed::validatable<validation_sample::range>);
static_assert(!typed::validatable<validation_sample::free_form>);

TEST_CASE("decode_valid: decoding errors first, then the type's rules") {
    CHECK(typed::decode_valid<validation_sample::range>(json::parse(R"({"min":1,"max":2})")).has_value());
    auto cross = typed::decode_valid<validation_sample::range>(json::parse(R"({"min":3,"max":2})"));
    REQUIRE_FALSE(cross.has_value());
    CHECK(typed::describe(cross.error()) == "spec.min: must not exceed max (2)");
    auto undecodable = typed::decode_valid<validation_sample::range>(json::parse(R"({"min":"x","max":2})"));
    REQUIRE_FALSE(undecodable.has_value());
    CHECK(typed::describe(undecodable.error()) == "min: expected an integer, got \"x\"");
}

TEST_CASE("a type without validate() has no rules of its own") {
    CHECK(typed::check(validation_sample::free_form{}).empty());
    CHECK(typed::decode_valid<validation_sample::free_form>(json::parse(R"({"x":"y"})")).has_value());
}
