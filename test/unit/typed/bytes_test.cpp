#include <kcoro/typed/bytes.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

using kcoro::typed::bytes;
namespace json = boost::json;

TEST_CASE("bytes are base64 on the wire and raw in the struct") {
    bytes b;
    REQUIRE(b.assign(json::value("AAECAwQ=")));
    CHECK(b.str() == std::string("\0\1\2\3\4", 5));
    CHECK(b.to_json() == "AAECAwQ=");
    CHECK(bytes("admin").to_json() == "YWRtaW4=");
    CHECK_FALSE(b.assign(json::value("not base64!")));
    CHECK_FALSE(b.assign(json::value(3)));
    CHECK(bytes().empty());
    json::object s;
    bytes::schema(s);
    CHECK(s == json::parse(R"({"type":"string","format":"byte"})"));
}
