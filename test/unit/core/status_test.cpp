#include <kcoro/core/status.hpp>

#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

using namespace kcoro;

TEST_CASE("decode a real 422 Status with causes") {
    auto s = decode_status_body(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
      "message":"GatewayInstance.gateway.kcoro.dev \"g\" is invalid: spec.replicas: Invalid value: 99",
      "reason":"Invalid","details":{"name":"g","group":"gateway.kcoro.dev","kind":"GatewayInstance",
      "causes":[{"reason":"FieldValueInvalid","message":"Invalid value: 99","field":"spec.replicas"}]},"code":422})");
    REQUIRE(s);
    CHECK(s->code == 422);
    CHECK(s->reason == "Invalid");
    REQUIRE(s->details);
    REQUIRE(s->details->causes.size() == 1);
    CHECK(s->details->causes[0].field == "spec.replicas");
    CHECK(s->details->causes[0].type == "FieldValueInvalid");
}

TEST_CASE("non-Status bodies are not Statuses") {
    CHECK_FALSE(decode_status_body("<html>bad gateway</html>"));
    CHECK_FALSE(decode_status_body(R"({"kind":"ConfigMap"})"));
    CHECK_FALSE(decode_status_body("[1,2]"));
    CHECK_FALSE(decode_status_body(""));
    // mistyped fields read as empty, never throw
    auto s = decode_status_body(R"({"kind":"Status","code":"x","details":{"causes":[1,{"field":2}]}})");
    REQUIRE(s);
    CHECK(s->code == 0);
    REQUIRE(s->details);
    CHECK(s->details->causes.size() == 1);
}

TEST_CASE("encode and decode round trip") {
    status s{"Failure", "the object has been modified", "Conflict", 409,
             status_details{"x", "", "configmaps", "", {{"T", "m", "f"}}, 3}};
    auto back = decode_status(encode_status(s));
    REQUIRE(back);
    CHECK(*back == s);
}

TEST_CASE("status from a bare HTTP answer") {
    auto s = status_from_http(503, "upstream down");
    CHECK(s.reason == "ServiceUnavailable");
    CHECK(s.message == "upstream down");
    CHECK(status_from_http(500, "").message.find("500") != std::string::npos);
}
