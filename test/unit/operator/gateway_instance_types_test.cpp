// The typed GatewayInstance: its generated CRD loaded into kcoro-apiserver's
// store (admission of valid and invalid instances, defaults), validate(),
// and the typed round trip of what the server stores.
#include <kcoro/core/yaml.hpp>
#include <kcoro/core/yaml_writer.hpp>
#include <kcoro/typed/crd.hpp>
#include <kcoro/typed/validation.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <doctest/doctest.h>

#include "api/gateway_instance_types.hpp"
#include "apiserver/store_test_support.hpp"
#include "typed_samples.hpp"

using namespace gateway::v1alpha1;
using namespace kcoro::apiserver;
using namespace kcoro::apiserver::test;
namespace json = boost::json;
namespace typed = kcoro::typed;

namespace {

const kcoro::group_version_resource gis{"gateway.kcoro.dev", "v1alpha1", "gatewayinstances"};

// A store with the generated CRD, loaded through YAML as a cluster loads
// deploy/crd/ (crd_up_to_date checks that file is this text).
struct fixture {
    object_store s;
    fixture() {
        auto yaml = kcoro::to_yaml(typed::crd<gateway_instance>());
        auto crd = kcoro::parse_yaml(yaml);
        REQUIRE(crd);
        auto created =
            s.create(ctx_at(), kcoro::resources::customresourcedefinitions(), "", crd->as_object());
        REQUIRE_MESSAGE(created, (created ? "" : status_message(created.error())));
    }
    kcoro::result<json::object> create(std::string_view name, std::string_view spec) {
        auto o = obj(
            R"({"apiVersion":"gateway.kcoro.dev/v1alpha1","kind":"GatewayInstance","metadata":{},"spec":)" +
            std::string(spec) + "}");
        o["metadata"].as_object()["name"] = name;
        return s.create(ctx_at(), gis, "default", o);
    }
    std::string rejection(std::string_view spec) {
        auto r = create("bad", spec);
        if (r)
            return "accepted";
        return status_message(r.error());
    }
};

} // namespace

TEST_CASE("the generated CRD is served with its names, scope, columns and status subresource") {
    fixture f;
    const auto* def = f.s.registry().find(gis);
    REQUIRE(def);
    CHECK(def->kind == "GatewayInstance");
    CHECK(def->list_kind == "GatewayInstanceList");
    CHECK(def->namespaced);
    CHECK(def->has_status);
    CHECK(def->short_names == std::vector<std::string>{"gi"});
}

TEST_CASE("a minimal instance gets the schema's defaults, which the typed struct shares") {
    fixture f;
    auto stored = f.create("demo", R"({"image":"nginx:1.27"})");
    REQUIRE_MESSAGE(stored, (stored ? "" : status_message(stored.error())));
    CHECK(str_at(*stored, {"spec", "serviceType"}) == "ClusterIP");
    CHECK(kcoro::find_path(*stored, {"spec", "replicas"})->as_int64() == 1);
    CHECK(kcoro::find_path(*stored, {"spec", "port"})->as_int64() == 8080);

    auto gi = typed::from_json<gateway_instance>(*stored);
    REQUIRE_MESSAGE(gi.has_value(), (gi ? "" : typed::describe(gi.error())));
    const gateway_instance_spec defaults;
    CHECK(gi->spec.replicas == defaults.replicas);
    CHECK(gi->spec.port == defaults.port);
    CHECK(gi->spec.type == defaults.type);
    CHECK(gi->metadata.generation == 1);
    CHECK_FALSE(gi->metadata.uid.empty());
    CHECK_FALSE(gi->metadata.creation_timestamp.empty());
    CHECK(gi->spec.unknown.empty());
    CHECK(typed::to_object(*gi) == *stored); // nothing lost, nothing added
}

TEST_CASE("a typed instance is accepted as it encodes") {
    fixture f;
    gateway_instance gi;
    gi.metadata.name = "typed";
    gi.metadata.namespace_ = "default";
    gi.spec.image = "registry.example/gw@sha256:0123abcd";
    gi.spec.replicas = 0; // a value, written although it is zero
    gi.spec.type = service_type::load_balancer;
    gi.spec.resources.limits["cpu"] = typed::quantity("500m");
    gi.spec.env = {{"MODE", "demo", {}}, {"EMPTY", "", {}}};
    auto stored = f.s.create(ctx_at(), gis, "default", typed::to_object(gi));
    REQUIRE_MESSAGE(stored, (stored ? "" : status_message(stored.error())));
    auto back = typed::from_json<gateway_instance>(*stored);
    REQUIRE(back.has_value());
    CHECK(back->spec == gi.spec);
}

TEST_CASE("the schema's bounds reject invalid instances with the server's messages") {
    fixture f;
    CHECK(f.rejection(R"({"image":"nginx","replicas":51})") ==
          "GatewayInstance.gateway.kcoro.dev \"bad\" is invalid: spec.replicas: Invalid value: 51: "
          "spec.replicas in "
          "body should be less than or equal to 50");
    CHECK(f.rejection(R"({"image":"nginx","port":0})")
              .find("spec.port in body should be greater than or equal to 1") != std::string::npos);
    CHECK(f.rejection(R"({"replicas":1})").find("spec.image: Required value") != std::string::npos);
    CHECK(f.rejection(R"({"image":"nginx","serviceType":"Ingress"})")
              .find("spec.serviceType: Unsupported value: \"Ingress\"") != std::string::npos);
    CHECK(f.rejection(R"({"image":"nginx","replicas":"two"})")
              .find("spec.replicas in body must be of type integer") != std::string::npos);
    // The rules parse_spec enforced by hand are now patterns in the schema.
    CHECK(f.rejection(R"({"image":"has space"})").find("spec.image in body should match") !=
          std::string::npos);
    CHECK(f.rejection(R"({"image":":tag"})").find("spec.image in body should match") != std::string::npos);
    CHECK(f.rejection(R"({"image":"nginx","env":[{"name":"1BAD"}]})")
              .find("spec.env[0].name in body should match") != std::string::npos);
    CHECK(
        f.rejection(R"({"image":"nginx","env":[{"value":"x"}]})").find("spec.env[0].name: Required value") !=
        std::string::npos);
    json::array many;
    for (int i = 0; i < 65; ++i)
        many.push_back(json::object{{"name", "V" + std::to_string(i)}});
    CHECK(f.rejection(R"({"image":"nginx","env":)" + json::serialize(many) + "}")
              .find("spec.env: Too many: 65") != std::string::npos);
    CHECK(f.rejection(R"({"image":"nginx","env":[{"name":"A.b-c_1"}]})") == "accepted");
}

TEST_CASE("status: the typed status is accepted by the status subresource; bad condition values are not") {
    fixture f;
    auto stored = f.create("demo", R"({"image":"nginx"})");
    REQUIRE(stored);
    auto gi = typed::from_json<gateway_instance>(*stored).value();
    gi.status.observed_generation = gi.metadata.generation;
    gi.status.endpoint = "demo.default.svc:8080";
    typed::set_condition(gi.status.conditions,
                         {"Ready", "False", 1, {}, "WaitingForDeployment", "waiting", {}}, t0());
    auto updated = f.s.update(ctx_at(), gis, "default", "demo", typed::to_object(gi), subresource::status);
    REQUIRE_MESSAGE(updated, (updated ? "" : status_message(updated.error())));
    auto back = typed::from_json<gateway_instance>(*updated).value();
    REQUIRE(back.status.conditions.size() == 1);
    CHECK(back.status.conditions[0].last_transition_time.str() == kcoro::format_rfc3339(t0()));
    CHECK(typed::is_condition_false(back.status.conditions, "Ready"));

    back.status.conditions[0].status = "Maybe";
    auto bad = f.s.update(ctx_at(), gis, "default", "demo", typed::to_object(back), subresource::status);
    REQUIRE_FALSE(bad);
    CHECK(status_message(bad.error()).find("status.conditions[0].status: Unsupported value: \"Maybe\"") !=
          std::string::npos);
}

TEST_CASE("validate: what the schema cannot say (duplicate env names) has a field path") {
    fixture f;
    auto stored = f.create("dup", R"({"image":"nginx","env":[{"name":"A"},{"name":"B"},{"name":"A"}]})");
    REQUIRE(stored); // admitted: the schema cannot see it
    auto gi = typed::decode_valid<gateway_instance>(*stored);
    REQUIRE_FALSE(gi.has_value());
    REQUIRE(gi.error().size() == 1);
    CHECK(gi.error()[0].path == "spec.env[2].name");
    CHECK(gi.error()[0].type == typed::field_error_type::duplicate);
    CHECK(typed::describe(gi.error()) == "spec.env[2].name: duplicate name \"A\"");

    auto ok =
        typed::decode_valid<gateway_instance>(*f.create("ok", R"({"image":"nginx","env":[{"name":"A"}]})"));
    CHECK(ok.has_value());
}

TEST_CASE("a real server's GatewayInstance round-trips exactly, numbers in quantities included") {
    auto v = json::parse(kcoro::test::samples::gateway_instance);
    auto gi = typed::from_json<gateway_instance>(v);
    REQUIRE_MESSAGE(gi.has_value(), (gi ? "" : typed::describe(gi.error())));
    CHECK(gi->spec.image == "nginx:1.27");
    CHECK(gi->spec.resources.requests.at("cpu").str() == "1");
    CHECK(gi->status.conditions.size() == 4);
    CHECK(typed::is_condition_true(gi->status.conditions, "Ready"));
    CHECK(gi->metadata.has_finalizer("gateway.kcoro.dev/registration"));
    CHECK(gi->metadata.managed_fields.size() == 3);
    CHECK(typed::to_json(*gi) == v);
}
