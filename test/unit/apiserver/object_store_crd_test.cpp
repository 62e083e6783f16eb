// object_store: CustomResourceDefinitions and custom resources.
#include "store/object_store.hpp"

#include "store_test_support.hpp"

#include <doctest/doctest.h>

using namespace kcoro;
using namespace kcoro::apiserver;
using namespace kcoro::apiserver::test;
namespace json = boost::json;

namespace {

const group_version_resource widgets{"example.com", "v1", "widgets"};

json::object crd(bool with_status = true, std::string scope = "Namespaced") {
    auto c = obj(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
      "metadata":{"name":"widgets.example.com"},
      "spec":{"group":"example.com","scope":"Namespaced",
        "names":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wd"]},
        "versions":[{"name":"v1","served":true,"storage":true,
          "schema":{"openAPIV3Schema":{"type":"object","properties":{
            "spec":{"type":"object","required":["size"],"properties":{
              "size":{"type":"integer","minimum":1,"maximum":50},
              "color":{"type":"string","default":"blue"}}},
            "status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}}}]}})");
    c["spec"].as_object()["scope"] = scope;
    if (with_status) {
        c["spec"].at("versions").as_array()[0].as_object()["subresources"] = obj(R"({"status":{}})");
    }
    return c;
}

json::object widget(std::string_view name, int size) {
    auto w = obj(R"({"apiVersion":"example.com/v1","kind":"Widget","spec":{}})");
    mutable_metadata(w)["name"] = name;
    w["spec"].as_object()["size"] = size;
    return w;
}

} // namespace

TEST_CASE("creating a CRD serves its kind and marks it Established") {
    object_store s;
    CHECK(s.registry().find(widgets) == nullptr);
    auto c = s.create(ctx_at(), resources::customresourcedefinitions(), "", crd());
    REQUIRE(c);
    const auto* def = s.registry().find(widgets);
    REQUIRE(def);
    CHECK(def->kind == "Widget");
    CHECK(def->list_kind == "WidgetList");
    CHECK(def->namespaced);
    CHECK(def->has_status);
    CHECK(def->short_names == std::vector<std::string>{"wd"});
    CHECK(generation_of(*c) == 1);
    int established = 0;
    for (const auto& cond : find_path(*c, {"status", "conditions"})->as_array()) {
        const auto& co = cond.as_object();
        if (co.at("type") == "Established" || co.at("type") == "NamesAccepted") {
            CHECK(co.at("status") == "True");
            ++established;
        }
    }
    CHECK(established == 2);
    bool group_listed = false;
    for (const auto& g : s.registry().groups()) group_listed |= g.name == "example.com" && g.preferred_version() == "v1";
    CHECK(group_listed);
}

TEST_CASE("CRD validation: name must be plural.group") {
    object_store s;
    auto c = crd();
    mutable_metadata(c)["name"] = "wrong.example.com";
    auto r = s.create(ctx_at(), resources::customresourcedefinitions(), "", c);
    REQUIRE_FALSE(r);
    CHECK(is_invalid(r.error()));
}

TEST_CASE("custom resources: schema validation with the real message, defaults, generation") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::customresourcedefinitions(), "", crd()));
    auto bad = s.create(ctx_at(), widgets, "default", widget("w", 99));
    REQUIRE_FALSE(bad);
    CHECK(is_invalid(bad.error()));
    CHECK(status_message(bad.error()) ==
          "Widget.example.com \"w\" is invalid: spec.size: Invalid value: 99: spec.size in body should be less "
          "than or equal to 50");
    const auto& cause = bad.error().api_status()->details->causes.at(0);
    CHECK(cause.field == "spec.size");
    CHECK(cause.type == "FieldValueInvalid");
    auto w = s.create(ctx_at(), widgets, "default", widget("w", 3));
    REQUIRE(w);
    CHECK(str_at(*w, {"spec", "color"}) == "blue");
    CHECK(generation_of(*w) == 1);
    CHECK(api_version_of(*w) == "example.com/v1");
    CHECK(kind_of(*w) == "Widget");
}

TEST_CASE("custom resources: update needs a resourceVersion (AllowUnconditionalUpdate false)") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::customresourcedefinitions(), "", crd()));
    auto w = s.create(ctx_at(), widgets, "default", widget("w", 3));
    REQUIRE(w);
    auto r = s.update(ctx_at(), widgets, "default", "w", widget("w", 4));
    REQUIRE_FALSE(r);
    CHECK(is_invalid(r.error()));
    CHECK(status_message(r.error()) ==
          "widgets.example.com \"w\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified "
          "for an update");
    // Missing objects are not created by PUT.
    auto missing = s.update(ctx_at(), widgets, "default", "nope", widget("nope", 3));
    REQUIRE_FALSE(missing);
    CHECK(is_not_found(missing.error()));
}

TEST_CASE("status subresource: main endpoint ignores status, /status changes only status; generation") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::customresourcedefinitions(), "", crd(true)));
    auto w0 = widget("w", 3);
    w0["status"] = obj(R"({"ready":true})");
    auto w = s.create(ctx_at(), widgets, "default", w0);
    REQUIRE(w);
    CHECK(find_path(*w, {"status"}) == nullptr);  // status dropped on create
    // /status: status changes, spec and labels do not, generation does not move.
    auto st = *w;
    st["status"] = obj(R"({"ready":true})");
    st["spec"].as_object()["size"] = 10;
    set_label(st, "x", "y");
    auto r1 = s.update(ctx_at(), widgets, "default", "w", st, subresource::status);
    REQUIRE(r1);
    CHECK(find_path(*r1, {"status", "ready"})->as_bool());
    CHECK(find_path(*r1, {"spec", "size"})->as_int64() == 3);
    CHECK(label_of(*r1, "x") == std::nullopt);
    CHECK(generation_of(*r1) == 1);
    // Main endpoint: status ignored, spec change bumps generation.
    auto main = *r1;
    main["status"] = obj(R"({"ready":false})");
    main["spec"].as_object()["size"] = 5;
    auto r2 = s.update(ctx_at(), widgets, "default", "w", main);
    REQUIRE(r2);
    CHECK(find_path(*r2, {"status", "ready"})->as_bool());
    CHECK(find_path(*r2, {"spec", "size"})->as_int64() == 5);
    CHECK(generation_of(*r2) == 2);
    // Metadata-only change: no generation bump.
    auto meta_only = *r2;
    set_label(meta_only, "a", "b");
    auto r3 = s.update(ctx_at(), widgets, "default", "w", meta_only);
    REQUIRE(r3);
    CHECK(generation_of(*r3) == 2);
    CHECK(rv_of(*r3) > rv_of(*r2));
}

TEST_CASE("without a status subresource, a status change bumps generation") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::customresourcedefinitions(), "", crd(false)));
    auto w = s.create(ctx_at(), widgets, "default", widget("w", 3));
    REQUIRE(w);
    auto next = *w;
    next["status"] = obj(R"({"ready":true})");
    auto r = s.update(ctx_at(), widgets, "default", "w", next);
    REQUIRE(r);
    CHECK(generation_of(*r) == 2);
    auto sub = s.update(ctx_at(), widgets, "default", "w", *r, subresource::status);
    REQUIRE_FALSE(sub);
    CHECK(is_not_found(sub.error()));
}

TEST_CASE("cluster-scoped custom resources") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::customresourcedefinitions(), "", crd(false, "Cluster")));
    auto w = s.create(ctx_at(), widgets, "", widget("w", 3));
    REQUIRE(w);
    CHECK(namespace_of(*w).empty());
    CHECK(s.get(widgets, "", "w"));
}

TEST_CASE("strategic merge patch on a custom resource is 415") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::customresourcedefinitions(), "", crd()));
    REQUIRE(s.create(ctx_at(), widgets, "default", widget("w", 3)));
    auto r = s.patch(ctx_at(), widgets, "default", "w", patch_type::strategic, R"({"spec":{"size":4}})");
    REQUIRE_FALSE(r);
    CHECK(r.error().http_code() == 415);
}

TEST_CASE("deleting a CRD deletes its objects and stops serving the kind") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::customresourcedefinitions(), "", crd()));
    REQUIRE(s.create(ctx_at(), widgets, "default", widget("a", 3)));
    REQUIRE(s.create(ctx_at(), widgets, "kube-system", widget("b", 3)));
    auto d = s.remove(ctx_at(), resources::customresourcedefinitions(), "", "widgets.example.com");
    REQUIRE(d);
    CHECK_FALSE(d->deleted);
    auto create_while_terminating = s.create(ctx_at(), widgets, "default", widget("c", 3));
    REQUIRE_FALSE(create_while_terminating);
    CHECK(create_while_terminating.error().http_code() == 405);
    for (int i = 0; i < 10 && s.gc_step(t0()); ++i) {
    }
    CHECK(s.registry().find(widgets) == nullptr);
    CHECK(is_not_found(s.get(resources::customresourcedefinitions(), "", "widgets.example.com").error()));
    // Re-creating it serves an empty collection.
    REQUIRE(s.create(ctx_at(), resources::customresourcedefinitions(), "", crd()));
    CHECK(s.count(widgets) == 0);
}

TEST_CASE("status subresource: unknown fields under status are pruned, status is validated") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::customresourcedefinitions(), "", crd(true)));
    auto w = s.create(ctx_at(), widgets, "default", widget("w", 3));
    REQUIRE(w);
    auto st = *w;
    st["status"] = obj(R"({"ready":true,"status":"unknown","nested":{"x":1}})");
    auto r = s.update(ctx_at(), widgets, "default", "w", st, subresource::status);
    REQUIRE(r);
    CHECK(find_path(*r, {"status", "ready"})->as_bool());
    CHECK(find_path(*r, {"status", "status"}) == nullptr);
    CHECK(find_path(*r, {"status", "nested"}) == nullptr);
    // A merge patch on /status goes through the same pruning.
    auto p = s.patch(ctx_at(), widgets, "default", "w", patch_type::merge, R"({"status":{"status":"again"}})",
                     subresource::status);
    REQUIRE(p);
    CHECK(find_path(*p, {"status", "status"}) == nullptr);
    // A wrong type under status is 422 with the field's path.
    auto bad = *r;
    bad["status"] = obj(R"({"ready":"yes"})");
    auto b = s.update(ctx_at(), widgets, "default", "w", bad, subresource::status);
    REQUIRE_FALSE(b);
    CHECK(is_invalid(b.error()));
    CHECK(b.error().api_status()->message.find("status.ready") != std::string::npos);
}
