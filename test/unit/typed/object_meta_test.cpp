#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/object_meta.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

namespace typed = kcoro::typed;
namespace json = boost::json;

namespace object_meta_sample {
struct owner {
    typed::object_meta metadata;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(owner, (), (metadata))
KCORO_RESOURCE(owner, resource("gateway.kcoro.dev", "v1alpha1", "GatewayInstance", "gatewayinstances"))
} // namespace object_meta_sample

namespace {
constexpr std::string_view server_meta = R"({
  "name": "demo", "generateName": "demo-", "namespace": "default", "selfLink": "/legacy",
  "uid": "u-1", "resourceVersion": "42", "generation": 3,
  "creationTimestamp": "2026-03-02T09:14:07Z", "deletionTimestamp": "2026-03-02T10:00:00Z",
  "deletionGracePeriodSeconds": 0,
  "labels": {"app": "demo"}, "annotations": {"note": "x"},
  "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u-0"},
                      {"apiVersion": "gateway.kcoro.dev/v1alpha1", "kind": "GatewayInstance", "name": "gi",
                       "uid": "u-9", "controller": true, "blockOwnerDeletion": true, "future": 1}],
  "finalizers": ["a", "b"],
  "managedFields": [{"manager": "m", "operation": "Apply", "fieldsV1": {"f:spec": {}}}]
})";
} // namespace

TEST_CASE("every metadata field a server writes decodes; the rest is kept") {
    auto v = json::parse(server_meta);
    auto m = typed::from_json<typed::object_meta>(v);
    REQUIRE_MESSAGE(m.has_value(), (m ? "" : typed::describe(m.error())));
    CHECK(m->name == "demo");
    CHECK(m->generate_name == "demo-");
    CHECK(m->namespace_ == "default");
    CHECK(m->uid == "u-1");
    CHECK(m->resource_version == "42");
    CHECK(m->generation == 3);
    CHECK(m->creation_timestamp.str() == "2026-03-02T09:14:07Z");
    CHECK(m->is_being_deleted());
    CHECK(m->deletion_grace_period_seconds == 0);
    CHECK(m->labels.at("app") == "demo");
    CHECK(m->annotations.at("note") == "x");
    REQUIRE(m->owner_references.size() == 2);
    CHECK(m->owner_references[1].unknown.at("future") == 1);
    CHECK(m->finalizers == std::vector<std::string>{"a", "b"});
    CHECK(m->managed_fields.size() == 1);
    CHECK(m->unknown.at("selfLink") == "/legacy");
    CHECK(m->key() == kcoro::object_key{"default", "demo"});
    CHECK(typed::to_json(*m) == v);
}

TEST_CASE("a new object's metadata writes only what is set") {
    typed::object_meta m;
    m.name = "x";
    m.labels["a"] = "b";
    CHECK(typed::to_json(m) == json::parse(R"({"name":"x","labels":{"a":"b"}})"));
    CHECK_FALSE(m.is_being_deleted());
}

TEST_CASE("finalizers") {
    typed::object_meta m;
    CHECK(m.add_finalizer("f"));
    CHECK_FALSE(m.add_finalizer("f"));
    CHECK(m.has_finalizer("f"));
    CHECK(m.add_finalizer("g"));
    CHECK(m.remove_finalizer("f"));
    CHECK_FALSE(m.remove_finalizer("f"));
    CHECK(m.finalizers == std::vector<std::string>{"g"});
}

TEST_CASE("controller owner references") {
    auto m = typed::from_json<typed::object_meta>(json::parse(server_meta)).value();
    REQUIRE(m.controller() != nullptr);
    CHECK(m.controller()->name == "gi");
    CHECK(m.is_controlled_by("u-9"));
    CHECK_FALSE(m.is_controlled_by("u-0"));
    CHECK(typed::object_meta{}.controller() == nullptr);

    object_meta_sample::owner o;
    o.metadata.name = "gi";
    o.metadata.uid = "u-9";
    auto ref = typed::controller_reference(o);
    CHECK(ref.api_version == "gateway.kcoro.dev/v1alpha1");
    CHECK(ref.kind == "GatewayInstance");
    CHECK(ref.controller == true);
    CHECK(ref.block_owner_deletion == true);
    CHECK(typed::to_json(ref) ==
          json::parse(R"({"apiVersion":"gateway.kcoro.dev/v1alpha1","kind":"GatewayInstance",
      "name":"gi","uid":"u-9","controller":true,"blockOwnerDeletion":true})"));
}
