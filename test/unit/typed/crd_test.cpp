#include <kcoro/typed/crd.hpp>
#include <kcoro/typed/declare.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <doctest/doctest.h>

namespace typed = kcoro::typed;
namespace json = boost::json;

namespace crd_sample {
struct thing_spec {
    std::int32_t size = 1;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(thing_spec, (), (size))
KCORO_FIELDS(thing_spec, field("size").defaulted().minimum(1))

struct thing {
    typed::object_meta metadata;
    thing_spec spec;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(thing, (), (metadata, spec))
KCORO_RESOURCE(thing,
               resource("example.com", "v1beta1", "Thing", "things")
                   .cluster_scoped()
                   .column(typed::printer_column{"Size", "integer", ".spec.size", "the size", "int32", 1}))

struct widget {
    typed::object_meta metadata;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(widget, (), (metadata))
KCORO_RESOURCE(widget, resource("example.com", "v1", "Widget", "widgets")
                           .description("Widgets.")
                           .short_names("wd")
                           .categories("all", "example")
                           .status_subresource())
} // namespace crd_sample

TEST_CASE("a cluster-scoped CRD with a column and no subresources") {
    auto c = typed::crd<crd_sample::thing>();
    auto expected = json::parse(R"({
      "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
      "metadata": {"name": "things.example.com"},
      "spec": {"group": "example.com",
        "names": {"kind": "Thing", "listKind": "ThingList", "plural": "things", "singular": "thing"},
        "scope": "Cluster",
        "versions": [{"name": "v1beta1", "served": true, "storage": true,
          "additionalPrinterColumns": [{"name": "Size", "type": "integer", "format": "int32",
            "description": "the size", "priority": 1, "jsonPath": ".spec.size"}],
          "schema": {"openAPIV3Schema": {"type": "object", "properties": {
            "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": {
              "size": {"type": "integer", "format": "int32", "default": 1, "minimum": 1}}}}}}}]}})");
    CHECK_MESSAGE(c == expected, json::serialize(c));
    CHECK(typed::crd_file_name<crd_sample::thing>() == "example.com_things.yaml");
}

TEST_CASE("names, categories, the status subresource, the root description") {
    auto c = typed::crd<crd_sample::widget>();
    const auto& spec = c.at("spec").as_object();
    CHECK(spec.at("scope") == "Namespaced");
    CHECK(spec.at("names").at("shortNames") == json::parse(R"(["wd"])"));
    CHECK(spec.at("names").at("categories") == json::parse(R"(["all","example"])"));
    const auto& v = spec.at("versions").at(0).as_object();
    CHECK(v.at("subresources") == json::parse(R"({"status":{}})"));
    CHECK_FALSE(v.contains("additionalPrinterColumns"));
    CHECK(v.at("schema").at("openAPIV3Schema").at("description") == "Widgets.");
}
