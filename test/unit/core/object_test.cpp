#include <kcoro/core/object.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

using namespace kcoro;
namespace json = boost::json;

TEST_CASE("metadata readers") {
    auto o = json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns",
      "uid":"u1","resourceVersion":"42","generation":3,"labels":{"k":"v"},"finalizers":["f1","f2"],
      "ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"p","uid":"pu","controller":true}]}})")
                 .as_object();
    CHECK(name_of(o) == "a");
    CHECK(namespace_of(o) == "ns");
    CHECK(uid_of(o) == "u1");
    CHECK(resource_version_of(o) == "42");
    CHECK(generation_of(o) == 3);
    CHECK(key_of(o).str() == "ns/a");
    CHECK(label_of(o, "k") == std::optional<std::string_view>("v"));
    CHECK_FALSE(label_of(o, "x"));
    CHECK(has_finalizer(o, "f2"));
    CHECK(is_controlled_by(o, "pu"));
    CHECK_FALSE(is_controlled_by(o, "other"));
    CHECK_FALSE(is_being_deleted(o));
}

TEST_CASE("mistyped metadata reads as empty") {
    auto o = json::parse(R"({"metadata":{"name":3,"labels":[],"finalizers":"x","ownerReferences":{}}})").as_object();
    CHECK(name_of(o).empty());
    CHECK(labels_of(o) == nullptr);
    CHECK(finalizers_of(o).empty());
    CHECK(owner_references_of(o).empty());
    json::object empty;
    CHECK(name_of(empty).empty());
    CHECK(generation_of(empty) == 0);
}

TEST_CASE("finalizer add and remove report changes") {
    json::object o;
    CHECK(add_finalizer(o, "a/b"));
    CHECK_FALSE(add_finalizer(o, "a/b"));
    CHECK(add_finalizer(o, "c/d"));
    CHECK(remove_finalizer(o, "a/b"));
    CHECK_FALSE(remove_finalizer(o, "a/b"));
    CHECK(finalizers_of(o) == std::vector<std::string>{"c/d"});
}

TEST_CASE("controller reference") {
    auto owner = json::parse(R"({"apiVersion":"gateway.kcoro.dev/v1alpha1","kind":"GatewayInstance",
      "metadata":{"name":"g","uid":"U"}})").as_object();
    auto ref = make_controller_reference(owner);
    CHECK(ref.controller);
    CHECK(ref.block_owner_deletion);
    CHECK(owner_reference_from(to_json(ref)) == ref);
}

TEST_CASE("a label may be set from the object's own fields") {
    // The value points into the object; inserting "labels" must not invalidate it.
    auto o = json::parse(R"({"metadata":{"name":"a-rather-long-name-that-is-not-inline","namespace":"n"}})").as_object();
    set_label(o, "kubernetes.io/metadata.name", name_of(o));
    set_annotation(o, "copy", namespace_of(o));
    CHECK(label_of(o, "kubernetes.io/metadata.name") == std::optional<std::string_view>("a-rather-long-name-that-is-not-inline"));
    CHECK(annotation_of(o, "copy") == std::optional<std::string_view>("n"));
}
