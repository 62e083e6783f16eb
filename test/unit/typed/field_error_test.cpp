#include <kcoro/typed/field_error.hpp>

#include <boost/system/result.hpp>

#include <doctest/doctest.h>

#include <sstream>
#include <stdexcept>

using namespace kcoro::typed;

TEST_CASE("an error reads path: message; describe joins them") {
    field_error e{"spec.replicas", field_error_type::invalid, "expected an integer, got \"two\""};
    CHECK(e.str() == "spec.replicas: expected an integer, got \"two\"");
    CHECK(field_error{"", field_error_type::too_many, "and 3 more errors"}.str() == "and 3 more errors");
    field_errors all{e, {"spec.image", field_error_type::required, "required"}};
    CHECK(describe(all) == "spec.replicas: expected an integer, got \"two\"; spec.image: required");
    CHECK(describe({}) == "");
    std::ostringstream os;
    os << e;
    CHECK(os.str() == e.str());
}

TEST_CASE("cause types are metav1's") {
    CHECK(cause_type(field_error_type::invalid) == "FieldValueInvalid");
    CHECK(cause_type(field_error_type::required) == "FieldValueRequired");
    CHECK(cause_type(field_error_type::duplicate) == "FieldValueDuplicate");
    CHECK(cause_type(field_error_type::not_supported) == "FieldValueNotSupported");
    CHECK(cause_type(field_error_type::too_long) == "FieldValueTooLong");
    CHECK(cause_type(field_error_type::too_many) == "FieldValueTooMany");
    CHECK(cause_type(field_error_type::forbidden) == "FieldValueForbidden");
}

TEST_CASE("field_path builds apimachinery's notation") {
    CHECK(field_path("spec").child("env").index(2).child("name").str() == "spec.env[2].name");
    CHECK(field_path("metadata").child("labels").key("app").str() == "metadata.labels[app]");
    CHECK(field_path().child("spec").str() == "spec");
    CHECK(field_path().index(0).str() == "[0]");
}

TEST_CASE("as a kcoro::error: decode_error with the context") {
    auto e = to_error({{"spec.port", field_error_type::invalid, "expected an integer, got true"}},
                      "GatewayInstance ns/x");
    CHECK(e.code() == kcoro::kcoro_errc::decode_error);
    CHECK(e.message() == "GatewayInstance ns/x: spec.port: expected an integer, got true");
    CHECK(to_error({{"a", field_error_type::invalid, "b"}}, "").message() == "a: b");
}

TEST_CASE("reading the value of a failed result throws with the errors") {
    boost::system::result<int, field_errors> r(field_errors{{"a", field_error_type::invalid, "b"}});
    CHECK_THROWS_WITH_AS(r.value(), "a: b", std::invalid_argument);
}
