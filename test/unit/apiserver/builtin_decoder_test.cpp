#include "store/builtin_decoder.hpp"

#include "store/object_store.hpp"
#include "store_test_support.hpp"

#include <doctest/doctest.h>

using namespace kcoro;
using namespace kcoro::apiserver;
using namespace kcoro::apiserver::test;
namespace json = boost::json;

namespace {
const resource_def& def_of(const object_store& s, const group_version_resource& gvr) { return *s.registry().find(gvr); }
} // namespace

TEST_CASE("unknown fields of a built-in are dropped and named as the decoder names them") {
    object_store s;
    auto d = obj(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","bogus":1},
        "spec":{"replicas":1,"extra":true,"template":{"spec":{"containers":[
          {"name":"c","image":"x","env":[{"$patch":"replace"},{"name":"A","value":"1","colour":"red"}]}]}}},
        "status":{"replicas":0}})");
    auto r = decode_builtin(def_of(s, resources::deployments()), d);
    CHECK_FALSE(r.error);
    REQUIRE(r.unknown_fields.size() == 4);
    CHECK(r.unknown_fields[0] == "metadata.bogus");
    CHECK(r.unknown_fields[1] == "spec.extra");
    CHECK(r.unknown_fields[2] == "spec.template.spec.containers[0].env[0].$patch");
    CHECK(r.unknown_fields[3] == "spec.template.spec.containers[0].env[1].colour");
    CHECK(json::serialize(d.at("spec").at("template").at("spec").at("containers").at(0).at("env")) ==
          R"([{},{"name":"A","value":"1"}])");
    CHECK_FALSE(d.at("metadata").as_object().contains("bogus"));
    CHECK(strict_decoding_error({"a", "b.c"}) == R"(strict decoding error: unknown field "a", unknown field "b.c")");
}

TEST_CASE("custom resources are left to their schema; subtrees kcoro does not model are kept whole") {
    object_store s;
    auto cm = obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"any-key":"v"}})");
    CHECK(decode_builtin(def_of(s, resources::configmaps()), cm).unknown_fields.empty());
    auto d = obj(R"({"apiVersion":"apps/v1","kind":"Deployment","spec":{"template":{"spec":{
        "affinity":{"whatever":{"deep":1}},"containers":[{"name":"c","livenessProbe":{"httpGet":{"path":"/"}}}]}}}})");
    CHECK(decode_builtin(def_of(s, resources::deployments()), d).unknown_fields.empty());
}

TEST_CASE("MicroTime needs exactly six fractional digits; Time takes RFC 3339") {
    CHECK_FALSE(check_go_time("2026-01-02T03:04:05.123456Z", true));
    CHECK_FALSE(check_go_time("2026-01-02T03:04:05.123456+02:00", true));
    CHECK(check_go_time("2026-01-02T03:04:05Z", true) ==
          R"(parsing time "2026-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000")");
    CHECK(check_go_time("2026-01-02T03:04:05.123Z", true) ==
          R"(parsing time "2026-01-02T03:04:05.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000")");
    CHECK_FALSE(check_go_time("2026-01-02T03:04:05Z", false));
    CHECK_FALSE(check_go_time("2026-01-02T03:04:05.5Z", false));
    CHECK(check_go_time("2026-01-02 03:04:05Z", false) ==
          R"(parsing time "2026-01-02 03:04:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 03:04:05Z" as "T")");
    CHECK(check_go_time("2026-13-02T03:04:05Z", false) == R"(parsing time "2026-13-02T03:04:05Z": month out of range)");
    CHECK(check_go_time("yesterday", false) ==
          R"(parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006")");
}

TEST_CASE("the store: Warn (default) drops and warns, Strict refuses with 400 on bodies and 422 on patches") {
    object_store s;
    std::vector<std::string> warnings;
    auto ctx = ctx_at();
    ctx.warnings = &warnings;
    auto cm = configmap("w");
    cm["colour"] = "red";
    auto r = s.create(ctx, resources::configmaps(), "default", cm);
    REQUIRE(r);
    CHECK_FALSE(r->contains("colour"));
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == R"(unknown field "colour")");

    ctx.field_validation = "Strict";
    auto strict = s.create(ctx, resources::configmaps(), "default", cm);
    REQUIRE_FALSE(strict);
    CHECK(strict.error().http_code() == 400);
    CHECK(status_message(strict.error()) ==
          R"(ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "colour")");

    auto p = s.patch(ctx, resources::configmaps(), "default", "w", patch_type::merge, R"({"colour":"blue"})");
    REQUIRE_FALSE(p);
    CHECK(p.error().http_code() == 422);
    CHECK(status_message(p.error()).starts_with(R"( "" is invalid: patch: Invalid value: ")"));
    CHECK(status_message(p.error()).ends_with(R"(: strict decoding error: unknown field "colour")"));

    ctx.field_validation = "Ignore";
    warnings.clear();
    CHECK(s.patch(ctx, resources::configmaps(), "default", "w", patch_type::merge, R"({"colour":"blue"})"));
    CHECK(warnings.empty());
}

TEST_CASE("the store: a Lease renewTime without microseconds is a 400 from the decoder") {
    object_store s;
    auto lease = obj(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},
        "spec":{"holderIdentity":"a","leaseDurationSeconds":15,"renewTime":"2026-01-02T03:04:05Z"}})");
    auto r = s.create(ctx_at(), resources::leases(), "default", lease);
    REQUIRE_FALSE(r);
    CHECK(r.error().http_code() == 400);
    CHECK(status_message(r.error()) ==
          R"(Lease in version "v1" cannot be handled as a Lease: parsing time "2026-01-02T03:04:05Z" as )"
          R"("2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000")");
}

TEST_CASE("Secret data and ConfigMap binaryData are base64, as encoding/json decodes []byte") {
    object_store s;
    auto sec = obj(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"k":"no!pe"}})");
    auto r = s.create(ctx_at(), resources::secrets(), "default", sec);
    REQUIRE_FALSE(r);
    CHECK(status_message(r.error()) ==
          R"(Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 2)");
    auto ok = obj(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"t"},"data":{"k":"aGk=","l":"aGVsbG8="}})");
    CHECK(s.create(ctx_at(), resources::secrets(), "default", ok));
    auto cm = obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"},"binaryData":{"k":"abc"}})");
    auto r2 = s.create(ctx_at(), resources::configmaps(), "default", cm);
    REQUIRE_FALSE(r2);
    CHECK(status_message(r2.error()).ends_with("illegal base64 data at input byte 0"));
}

TEST_CASE("server-side apply of a field the type lacks: 500 from the typed conversion, SMD paths") {
    object_store s;
    auto ctx = ctx_at();
    auto r = s.patch(ctx, resources::configmaps(), "default", "a", patch_type::apply,
                     R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"colour":"red"})");
    REQUIRE_FALSE(r);
    CHECK(r.error().http_code() == 500);
    CHECK(status_message(r.error()) ==
          "failed to create typed patch object (default/a; /v1, Kind=ConfigMap): .colour: field not declared in schema");
    auto d = s.patch(ctx, resources::deployments(), "default", "d", patch_type::apply,
                     R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":{
                         "containers":[{"name":"c","image":"x","colour":1,"ports":[{"containerPort":80,"protocol":"TCP","x":1}]}]}}}})");
    REQUIRE_FALSE(d);
    CHECK(status_message(d.error()) ==
          "failed to create typed patch object (default/d; apps/v1, Kind=Deployment): errors:\n"
          "  .spec.template.spec.containers[name=\"c\"].colour: field not declared in schema\n"
          "  .spec.template.spec.containers[name=\"c\"].ports[containerPort=80,protocol=\"TCP\"].x: field not declared in schema");
    // known fields apply
    CHECK(s.patch(ctx, resources::configmaps(), "default", "a", patch_type::apply,
                  R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}})"));
}
