// object_store: PATCH with the four content types, and managedFields.
#include "store/object_store.hpp"

#include "store_test_support.hpp"

#include <doctest/doctest.h>

using namespace kcoro;
using namespace kcoro::apiserver;
using namespace kcoro::apiserver::test;
namespace json = boost::json;

namespace {

json::object deployment() {
    return obj(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
      "spec":{"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},
        "spec":{"containers":[{"name":"web","image":"nginx:1"},{"name":"side","image":"busybox:1"}]}}}})");
}

} // namespace

TEST_CASE("content types map to patch types") {
    CHECK(patch_type_from_content_type("application/merge-patch+json") == patch_type::merge);
    CHECK(patch_type_from_content_type("application/json-patch+json; charset=utf-8") == patch_type::json);
    CHECK(patch_type_from_content_type("application/strategic-merge-patch+json") == patch_type::strategic);
    CHECK(patch_type_from_content_type("application/apply-patch+yaml") == patch_type::apply);
    CHECK_FALSE(patch_type_from_content_type("text/plain"));
}

TEST_CASE("merge patch: null deletes, objects merge") {
    object_store s;
    auto c = configmap("x");
    c["data"].as_object()["other"] = "o";
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", c));
    auto r = s.patch(ctx_at(), resources::configmaps(), "default", "x", patch_type::merge,
                     R"({"data":{"k":"new","other":null}})");
    REQUIRE(r);
    CHECK(str_at(*r, {"data", "k"}) == "new");
    CHECK(find_path(*r, {"data", "other"}) == nullptr);
    auto missing = s.patch(ctx_at(), resources::configmaps(), "default", "nope", patch_type::merge, "{}");
    REQUIRE_FALSE(missing);
    CHECK(is_not_found(missing.error()));
    auto bad = s.patch(ctx_at(), resources::configmaps(), "default", "x", patch_type::merge, "{nope");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().http_code() == 400);
}

TEST_CASE("merge patch carrying a stale resourceVersion is 409") {
    object_store s;
    auto c = s.create(ctx_at(), resources::configmaps(), "default", configmap("x"));
    REQUIRE(c);
    REQUIRE(s.update(ctx_at(), resources::configmaps(), "default", "x", configmap("x", "2")));
    std::string p = R"({"metadata":{"resourceVersion":")" + std::string(resource_version_of(*c)) + R"("},"data":{"k":"3"}})";
    auto r = s.patch(ctx_at(), resources::configmaps(), "default", "x", patch_type::merge, p);
    REQUIRE_FALSE(r);
    CHECK(is_conflict(r.error()));
}

TEST_CASE("json patch with a failing test op is 422 and changes nothing") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", configmap("x", "v")));
    auto rev = s.current_revision();
    auto r = s.patch(ctx_at(), resources::configmaps(), "default", "x", patch_type::json,
                     R"([{"op":"test","path":"/data/k","value":"other"},{"op":"replace","path":"/data/k","value":"w"}])");
    REQUIRE_FALSE(r);
    CHECK(r.error().http_code() == 422);
    CHECK(s.current_revision() == rev);
    auto ok = s.patch(ctx_at(), resources::configmaps(), "default", "x", patch_type::json,
                      R"([{"op":"test","path":"/data/k","value":"v"},{"op":"replace","path":"/data/k","value":"w"}])");
    REQUIRE(ok);
    CHECK(str_at(*ok, {"data", "k"}) == "w");
}

TEST_CASE("strategic merge patch merges containers by name") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::deployments(), "default", deployment()));
    auto r = s.patch(ctx_at(), resources::deployments(), "default", "d", patch_type::strategic,
                     R"({"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}})");
    REQUIRE(r);
    const auto& cs = find_path(*r, {"spec", "template", "spec", "containers"})->as_array();
    REQUIRE(cs.size() == 2);
    CHECK(cs[0].at("image") == "nginx:2");
    CHECK(cs[1].at("name") == "side");
    CHECK(generation_of(*r) == 2);
}

TEST_CASE("status patch changes only status") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::deployments(), "default", deployment()));
    auto r = s.patch(ctx_at(), resources::deployments(), "default", "d", patch_type::merge,
                     R"({"spec":{"replicas":5},"status":{"replicas":1}})", subresource::status);
    REQUIRE(r);
    CHECK(find_path(*r, {"status", "replicas"})->as_int64() == 1);
    CHECK(find_path(*r, {"spec", "replicas"})->as_int64() == 1);
    CHECK(generation_of(*r) == 1);
}

TEST_CASE("server-side apply creates, tracks managedFields, and reports conflicts") {
    object_store s;
    auto a = ctx_at();
    a.field_manager = "alice";
    bool created = false;
    auto r = s.patch(a, resources::configmaps(), "default", "x", patch_type::apply,
                     R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"k":"a"}})",
                     subresource::none, false, &created);
    REQUIRE(r);
    CHECK(created);
    CHECK(uid_of(*r).size() == 36);
    const auto* mf = managed_fields_of(*r);
    REQUIRE(mf);
    REQUIRE(mf->is_array());
    CHECK(mf->as_array().at(0).at("manager") == "alice");
    CHECK(mf->as_array().at(0).at("operation") == "Apply");
    auto b = ctx_at();
    b.field_manager = "bob";
    auto conflict = s.patch(b, resources::configmaps(), "default", "x", patch_type::apply,
                            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"k":"b"}})");
    REQUIRE_FALSE(conflict);
    CHECK(is_conflict(conflict.error()));
    auto forced = s.patch(b, resources::configmaps(), "default", "x", patch_type::apply,
                          R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"k":"b"}})",
                          subresource::none, true);
    REQUIRE(forced);
    CHECK(str_at(*forced, {"data", "k"}) == "b");
    auto no_manager = ctx_at();
    no_manager.field_manager.clear();
    auto r2 = s.patch(no_manager, resources::configmaps(), "default", "x", patch_type::apply, "{}");
    REQUIRE_FALSE(r2);
    CHECK(is_invalid(r2.error()));
}

TEST_CASE("updates record managedFields for their manager") {
    object_store s;
    auto r = s.create(ctx_at(), resources::configmaps(), "default", configmap("x"));
    REQUIRE(r);
    const auto* mf = managed_fields_of(*r);
    REQUIRE(mf);
    CHECK(mf->as_array().at(0).at("manager") == "test");
    CHECK(mf->as_array().at(0).at("operation") == "Update");
}
