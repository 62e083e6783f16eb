#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/k8s/secret.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

#include "typed_samples.hpp"

namespace typed = kcoro::typed;
namespace json = boost::json;

TEST_CASE("a Secret's data are the decoded bytes, and round-trip") {
    auto v = json::parse(kcoro::test::samples::secret);
    auto s = typed::from_json<kcoro::k8s::secret>(v);
    REQUIRE(s.has_value());
    CHECK(s->data.at("username").str() == "admin");
    CHECK(s->data.at("password").str() == "s3cr3t");
    CHECK(s->type == "Opaque");
    CHECK(s->immutable == false);
    CHECK(typed::to_json(*s) == v);
}

TEST_CASE("bad base64 names the key") {
    auto r = typed::from_json<kcoro::k8s::secret>(json::parse(R"({"data":{"k":"***"}})"));
    REQUIRE_FALSE(r.has_value());
    CHECK(typed::describe(r.error()) == "data[k]: expected base64 data, got \"***\"");
}
