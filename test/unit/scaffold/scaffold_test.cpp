#include "scaffold.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

using namespace kcoro::scaffold;

namespace {

project_params widget() {
    project_params p;
    p.name = "widget-operator";
    p.group = "example.com";
    p.kind = "Widget";
    p.kcoro_version = "0.1.0";
    return p;
}

std::string error_of(const project_params& p) {
    auto r = validate(p);
    return r ? std::string() : r.error().message();
}

} // namespace

TEST_CASE("names derived from the kind") {
    CHECK(snake_case("Widget") == "widget");
    CHECK(snake_case("DataStore") == "data_store");
    CHECK(snake_case("HTTPRoute") == "http_route");
    CHECK(snake_case("S3Bucket") == "s3_bucket");
    CHECK(plural_of("widget") == "widgets");
    CHECK(plural_of("policy") == "policies");
    CHECK(plural_of("gateway") == "gateways");
    CHECK(plural_of("ingress") == "ingresses");
    CHECK(plural_of("box") == "boxes");
    auto v = placeholders(widget());
    CHECK(v["namespace"] == "widget_operator");
    CHECK(v["NAME_UPPER"] == "WIDGET_OPERATOR");
    CHECK(v["plural"] == "widgets");
    CHECK(v["singular"] == "widget");
    CHECK(v["kcoro_major_minor"] == "0.1");
    auto p = widget();
    p.plural = "widgetry";
    CHECK(placeholders(p)["plural"] == "widgetry");
}

TEST_CASE("bad parameters are refused with the flag and the rule") {
    CHECK(error_of(widget()).empty());
    auto p = widget();
    p.name = "";
    CHECK(error_of(p).find("--name is required") != std::string::npos);
    p.name = "Widget_Operator";
    CHECK(error_of(p).find("--name \"Widget_Operator\": a DNS-1123 label") != std::string::npos);
    p.name = "9lives";
    CHECK(error_of(p).find("must start with a letter") != std::string::npos);
    p = widget();
    p.group = "example";
    CHECK(error_of(p).find("--group \"example\": a DNS subdomain") != std::string::npos);
    p.group = "ex_ample.com";
    CHECK(error_of(p).find("\"ex_ample\" is not a DNS label") != std::string::npos);
    p = widget();
    for (const char* ok : {"v1", "v2", "v1beta1", "v1alpha12"}) {
        p.version = ok;
        CHECK_MESSAGE(error_of(p).empty(), ok);
    }
    for (const char* bad : {"1", "v", "vbeta1", "v1beta", "v1gamma1", "V1"}) {
        p.version = bad;
        CHECK_MESSAGE(error_of(p).find("--version") != std::string::npos, bad);
    }
    p = widget();
    p.kind = "widget";
    CHECK(error_of(p).find("--kind \"widget\": PascalCase") != std::string::npos);
    p.kind = "Wid-get";
    CHECK_FALSE(error_of(p).empty());
    p = widget();
    p.plural = "Widgets";
    CHECK(error_of(p).find("--plural") != std::string::npos);
}

TEST_CASE("render: placeholders replaced, other @@ text kept, unknown keys refused") {
    std::map<std::string, std::string, std::less<>> v{{"kind", "Widget"}, {"name", "w"}};
    CHECK(render("@@kind@@List of @@name@@", v, "t").value() == "WidgetList of w");
    CHECK(render("a @@ b @@9@@ c@@", v, "t").value() == "a @@ b @@9@@ c@@");
    CHECK(render("$.x[?(@.type==\"Ready\")] user@@example.com", v, "t").value() ==
          "$.x[?(@.type==\"Ready\")] user@@example.com");
    auto unknown = render("x @@kinds@@", v, "src/a.cpp");
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().message() == "kcoro-scaffold: src/a.cpp: unknown placeholder @@kinds@@");
}

TEST_CASE("the embedded templates render completely into a project") {
    auto p = widget();
    p.kind = "DataStore";
    auto files = plan(p, embedded_templates());
    REQUIRE_MESSAGE(files.has_value(), (files ? "" : files.error().message()));
    auto find = [&](std::string_view path) -> const output_file* {
        auto it = std::find_if(files->begin(), files->end(), [&](const output_file& f) { return f.path == path; });
        return it == files->end() ? nullptr : &*it;
    };
    for (const char* path : {"meson.build", "CMakeLists.txt", "README.md", "Containerfile", ".gitignore",
                             "src/main.cpp", "src/reconciler.cpp", "src/reconciler.hpp", "src/crdgen_main.cpp",
                             "src/api/data_store_types.hpp", "src/api/data_store_types.cpp",
                             "test/reconciler_test.cpp", "deploy/kustomization.yaml",
                             "deploy/crd/example.com_datastores.yaml", "deploy/rbac/role.yaml",
                             "deploy/manager/deployment.yaml", "deploy/samples/datastore.yaml", "scripts/build-image"}) {
        CHECK_MESSAGE(find(path) != nullptr, path);
    }
    for (const auto& f : *files) {
        // Nothing left unrendered: every @@key@@ is known (render checks),
        // and no file keeps the template's sample words.
        CHECK_MESSAGE(f.contents.find("@@name@@") == std::string::npos, f.path);
        CHECK_MESSAGE(f.executable == f.path.starts_with("scripts/"), f.path);
    }
    const auto* crd = find("deploy/crd/example.com_datastores.yaml");
    REQUIRE(crd);
    CHECK(crd->contents.find("  name: datastores.example.com\n") != std::string::npos);
    CHECK(crd->contents.find("    listKind: DataStoreList\n") != std::string::npos);
    const auto* types = find("src/api/data_store_types.hpp");
    REQUIRE(types);
    CHECK(types->contents.find("namespace widget_operator::v1alpha1 {") != std::string::npos);
    CHECK(types->contents.find("struct data_store_spec {") != std::string::npos);
    const auto* role = find("deploy/rbac/role.yaml");
    REQUIRE(role);
    CHECK(role->contents.find("resources: [\"datastores/status\"]") != std::string::npos);
    // The RBAC never grants more than the controller sends: no wildcards,
    // no delete (the garbage collector removes the children).
    CHECK(role->contents.find("\"*\"") == std::string::npos);
    CHECK(role->contents.find("\"delete\"") == std::string::npos);
    const auto* deployment = find("deploy/manager/deployment.yaml");
    REQUIRE(deployment);
    for (const char* must : {"runAsNonRoot: true", "readOnlyRootFilesystem: true", "allowPrivilegeEscalation: false",
                             "path: /healthz", "path: /readyz", "image: localhost/widget-operator:0.1.0"}) {
        CHECK_MESSAGE(deployment->contents.find(must) != std::string::npos, must);
    }

    p.name = "";
    CHECK_FALSE(plan(p, embedded_templates()).has_value());
    std::vector<template_file> broken{{"x/@@nope@@.txt", "x"}};
    auto b = plan(widget(), broken);
    REQUIRE_FALSE(b.has_value());
    CHECK(b.error().message().find("unknown placeholder @@nope@@") != std::string::npos);
}
