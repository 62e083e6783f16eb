// The pure pieces of the HTTP layer: surface (405/404), negotiation,
// PartialObjectMetadata, scale conversion, bookmark scheduling, the watch
// cache window, write-option and body-kind checks, storageVersionHash.
#include "http/bookmark.hpp"
#include "http/discovery.hpp"
#include "http/negotiation.hpp"
#include "http/partial_metadata.hpp"
#include "http/pretty.hpp"
#include "http/request_checks.hpp"
#include "http/scale.hpp"
#include "http/surface.hpp"
#include "http/watch_window.hpp"

#include <kcoro/io/clock.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

namespace json = boost::json;
using namespace kcoro;
using namespace kcoro::apiserver;
using namespace kcoro::apiserver::http;
using namespace std::chrono_literals;

namespace {

surface_answer surface(std::string_view method, std::string_view target, const resource_registry& reg) {
    auto r = parse_route(method, target);
    REQUIRE(r.has_value());
    return check_surface(method, *r, reg);
}

resource_registry with_widgets() {
    auto reg = resource_registry::with_builtins();
    resource_def d;
    d.gvr = {"example.com", "v1", "widgets"};
    d.kind = "Widget";
    d.list_kind = "WidgetList";
    d.singular = "widget";
    d.crd_name = "widgets.example.com";
    d.has_status = true;
    d.verbs = {"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"};
    reg.add(d);
    return reg;
}

} // namespace

TEST_CASE("surface: go-restful routes of the built-ins") {
    auto reg = with_widgets();
    CHECK(surface("GET", "/api/v1/namespaces/a/configmaps/x", reg) == surface_answer::serve);
    CHECK(surface("POST", "/api/v1/namespaces/a/configmaps/x", reg) == surface_answer::method_not_allowed);
    CHECK(surface("HEAD", "/api/v1/namespaces/a/configmaps/x", reg) == surface_answer::method_not_allowed);
    CHECK(surface("PUT", "/api/v1/namespaces/a/configmaps", reg) == surface_answer::method_not_allowed);
    CHECK(surface("POST", "/api/v1/configmaps", reg) == surface_answer::method_not_allowed);  // list only
    CHECK(surface("DELETE", "/api/v1/namespaces", reg) == surface_answer::method_not_allowed);  // no deletecollection
    CHECK(surface("DELETE", "/api/v1/namespaces/a/configmaps", reg) == surface_answer::serve);
    CHECK(surface("POST", "/api/v1/watch/namespaces/a/configmaps", reg) == surface_answer::method_not_allowed);
    CHECK(surface("TRACE", "/api/v1/namespaces/a/configmaps", reg) == surface_answer::method_not_allowed);
    CHECK(surface("DELETE", "/apis/apps/v1/namespaces/a/deployments/d/scale", reg) == surface_answer::method_not_allowed);
    CHECK(surface("GET", "/apis/apps/v1/namespaces/a/deployments/d/scale", reg) == surface_answer::serve);
    // Paths under a go-restful web service without a route: JSON 404.
    CHECK(surface("GET", "/api/v1/namespaces/a/foos", reg) == surface_answer::not_found_json);
    CHECK(surface("GET", "/api/v1/namespaces/a/configmaps/x/status", reg) == surface_answer::not_found_json);
    CHECK(surface("GET", "/api/v1/configmaps/x", reg) == surface_answer::not_found_json);
    CHECK(surface("GET", "/api/v2/namespaces", reg) == surface_answer::not_found_json);
    CHECK(surface("GET", "/apis/apps/v1/foos", reg) == surface_answer::not_found_json);
    CHECK(surface("GET", "/apis/apps/v2/deployments", reg) == surface_answer::not_found_json);
    // Nobody claims these: text 404.
    CHECK(surface("GET", "/foo", reg) == surface_answer::not_found_text);
    CHECK(surface("GET", "/apis/nope.io/v1/things", reg) == surface_answer::not_found_text);
    CHECK(surface("GET", "/apis/example.com/v1/namespaces/a/gadgets", reg) == surface_answer::not_found_text);
}

TEST_CASE("surface: crdHandler for custom resources") {
    auto reg = with_widgets();
    CHECK(surface("HEAD", "/apis/example.com/v1/namespaces/a/widgets/w", reg) == surface_answer::serve);
    CHECK(surface("POST", "/apis/example.com/v1/namespaces/a/widgets/w", reg) == surface_answer::serve);
    CHECK(surface("PUT", "/apis/example.com/v1/namespaces/a/widgets", reg) == surface_answer::name_required);
    CHECK(surface("TRACE", "/apis/example.com/v1/namespaces/a/widgets/w", reg) == surface_answer::method_not_supported);
    CHECK(surface("POST", "/apis/example.com/v1/namespaces/a/widgets/w/status", reg) ==
          surface_answer::method_not_supported);
    CHECK(surface("GET", "/apis/example.com/v1/namespaces/a/widgets/w/scale", reg) == surface_answer::not_found_resource);
    CHECK(surface("GET", "/apis/example.com/v1/widgets", reg) == surface_answer::serve);  // list across namespaces
    CHECK(surface("GET", "/apis/example.com/v1/widgets/w", reg) == surface_answer::not_found_text);
}

TEST_CASE("negotiation: transforms, q order, go-restful's bare types") {
    CHECK(negotiate("") == media_choice::json);
    CHECK(negotiate("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json") ==
          media_choice::partial_list_v1);
    CHECK(negotiate("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1") == media_choice::partial_v1beta1);
    CHECK(negotiate("application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,"
                    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json") ==
          media_choice::partial_v1);
    CHECK(negotiate("application/json;as=Table;g=meta.k8s.io;v=v1;q=0.5,application/json;q=0.9") == media_choice::json);
    CHECK(negotiate("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2") == media_choice::not_acceptable);
    CHECK(negotiate("application/json;as=Foo;g=meta.k8s.io;v=v1") == media_choice::not_acceptable);
    CHECK(negotiate("text/plain") == media_choice::not_acceptable_route);
    CHECK(negotiate("text/plain", false) == media_choice::not_acceptable);
    CHECK(negotiate("application/yaml") == media_choice::not_acceptable);
}

TEST_CASE("PartialObjectMetadata of objects and lists; 406 for the wrong form") {
    auto cm = json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"1"}},"data":{"k":"v"}})").as_object();
    auto p = as_partial_object_metadata(cm, "meta.k8s.io/v1");
    CHECK(p["kind"] == "PartialObjectMetadata");
    CHECK(p["apiVersion"] == "meta.k8s.io/v1");
    CHECK(p["metadata"].as_object()["labels"].as_object()["x"] == "1");
    CHECK_FALSE(p.contains("data"));
    json::object list{{"kind", "ConfigMapList"}, {"apiVersion", "v1"},
                      {"metadata", json::object{{"resourceVersion", "7"}, {"continue", "c"}}},
                      {"items", json::array{cm}}};
    auto pl = as_partial_object_metadata_list(list, "meta.k8s.io/v1beta1");
    CHECK(pl["kind"] == "PartialObjectMetadataList");
    CHECK(pl["metadata"].as_object()["continue"] == "c");
    CHECK(pl["items"].as_array()[0].as_object()["kind"] == "PartialObjectMetadata");
    CHECK(pl["items"].as_array()[0].as_object()["apiVersion"] == "meta.k8s.io/v1beta1");
    CHECK(internal_type_name("", "ConfigMap", false, true) == "*core.ConfigMapList");
    CHECK(internal_type_name("apps", "Deployment", false, false) == "*apps.Deployment");
    CHECK(internal_type_name("events.k8s.io", "Event", false, true) == "*core.EventList");
    CHECK(internal_type_name("example.com", "Widget", true, false) == "*unstructured.Unstructured");
    auto e = partial_of_list_error("*core.ConfigMapList");
    CHECK(e.http_code() == 406);
    CHECK(e.api_status()->message ==
          "you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)");
    CHECK(e.api_status()->reason == "NotAcceptable");
}

TEST_CASE("scale: from a Deployment and back") {
    auto d = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
        "metadata":{"name":"web","namespace":"a","uid":"u1","resourceVersion":"9","generation":2,"creationTimestamp":"2026-01-01T00:00:00Z"},
        "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web","tier":"fe"},
                 "matchExpressions":[{"key":"env","operator":"In","values":["prod","dev"]},{"key":"canary","operator":"DoesNotExist"}]}},
        "status":{"replicas":2}})").as_object();
    auto s = scale_from_deployment(d);
    REQUIRE(s.has_value());
    CHECK((*s)["apiVersion"] == "autoscaling/v1");
    CHECK((*s)["kind"] == "Scale");
    CHECK((*s)["spec"].as_object()["replicas"] == 3);
    CHECK((*s)["status"].as_object()["replicas"] == 2);
    CHECK((*s)["status"].as_object()["selector"] == "app=web,!canary,env in (dev,prod),tier=fe");
    CHECK((*s)["metadata"].as_object()["uid"] == "u1");
    CHECK_FALSE((*s)["metadata"].as_object().contains("generation"));
    // replicas 0 is omitted (omitempty), status.replicas is not.
    d["spec"].as_object()["replicas"] = 0;
    d.erase("status");
    auto z = scale_from_deployment(d);
    CHECK_FALSE((*z)["spec"].as_object().contains("replicas"));
    CHECK((*z)["status"].as_object()["replicas"] == 0);

    auto wanted = json::parse(R"({"metadata":{"name":"web","resourceVersion":"9"},"spec":{"replicas":5}})").as_object();
    auto n = apply_scale(d, wanted);
    REQUIRE(n.has_value());
    CHECK((*n)["spec"].as_object()["replicas"] == 5);
    CHECK((*n)["metadata"].as_object()["resourceVersion"] == "9");
    auto neg = apply_scale(d, json::parse(R"({"spec":{"replicas":-1}})").as_object());
    REQUIRE(neg.has_error());
    CHECK(neg.error().api_status()->message ==
          "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0");
    auto uid = apply_scale(d, json::parse(R"({"metadata":{"uid":"other"},"spec":{"replicas":1}})").as_object());
    REQUIRE(uid.has_error());
    CHECK(uid.error().api_status()->message ==
          "Operation cannot be fulfilled on deployments/scale.apps \"web\": Precondition failed: UID in precondition: "
          "other, UID in object meta: u1");
}

TEST_CASE("bookmarks: every frequency, 2 s before the deadline, none after") {
    io::manual_clock clk;
    const auto t0 = clk.now();
    const auto deadline = t0 + 300s;
    CHECK(next_bookmark_time(t0, deadline, 60s) == t0 + 60s);
    CHECK(next_bookmark_time(t0 + 270s, deadline, 60s) == deadline - 2s);
    CHECK_FALSE(next_bookmark_time(t0 + 299s, deadline, 60s).has_value());
    CHECK_FALSE(next_bookmark_time(t0, t0 + 1s, 60s).has_value());  // timeoutSeconds=1
    CHECK(should_send_bookmark(8, 7));
    CHECK_FALSE(should_send_bookmark(7, 7));
    auto b = bookmark_object("", "ConfigMap", "v1", false, 12);
    CHECK(b["metadata"].as_object()["resourceVersion"] == "12");
    CHECK(b["metadata"].as_object()["creationTimestamp"].is_null());
    CHECK(b.size() == 3);
    auto d = bookmark_object("apps", "Deployment", "apps/v1", false, 12);
    CHECK(d["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].is_null());
    auto w = bookmark_object("example.com", "Widget", "example.com/v1", true, 12);
    CHECK_FALSE(w["metadata"].as_object().contains("creationTimestamp"));
}

TEST_CASE("watch window: starts at the list revision, grows while fresh, drops when full") {
    io::manual_clock clk;
    watch_window_params p;
    p.lower_bound_capacity = 4;
    p.upper_bound_capacity = 8;
    p.event_fresh_duration = 75s;
    watch_window w(p);
    w.start("/configmaps", 5);
    auto old = w.check("/configmaps", 1);
    REQUIRE(old.has_error());
    CHECK(old.error().http_code() == 410);
    CHECK(old.error().api_status()->message == "too old resource version: 1 (5)");
    CHECK(w.check("/configmaps", 4).has_error());
    CHECK(w.check("/configmaps", 5).has_value());
    CHECK(w.last_revision("/configmaps") == 5);
    for (revision_t r = 6; r <= 13; ++r) w.record("/configmaps", r, clk.now());  // fresh: grows to 8
    CHECK(w.capacity("/configmaps") == 8);
    CHECK(w.check("/configmaps", 5).has_value());  // nothing dropped yet
    w.record("/configmaps", 14, clk.now());         // full at the upper bound: drops 6
    CHECK(w.check("/configmaps", 6).has_value());
    auto dropped = w.check("/configmaps", 5);
    REQUIRE(dropped.has_error());
    CHECK(dropped.error().api_status()->message == "too old resource version: 5 (6)");
    CHECK(w.last_revision("/configmaps") == 14);
    // Stale and full: the newest quarter is older than 75 s, so it halves.
    clk.advance(100s);
    w.record("/configmaps", 15, clk.now());
    CHECK(w.capacity("/configmaps") == 4);
    CHECK(w.check("/configmaps", 10).has_error());
    CHECK(w.check("/configmaps", 11).has_value());
}

TEST_CASE("write options: dryRun, fieldValidation, force, apply fieldManager") {
    write_options o;
    o.dry_run = {"foo"};
    auto e = validate_write_options("create", o, false);
    REQUIRE(e.has_error());
    CHECK(e.error().http_code() == 422);
    CHECK(e.error().api_status()->message ==
          "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"foo\"}: supported values: \"All\"");
    CHECK(e.error().api_status()->details->kind == "CreateOptions");
    CHECK(e.error().api_status()->details->group == "meta.k8s.io");
    o.dry_run = {"All"};
    CHECK(validate_write_options("update", o, false).has_value());
    o.field_validation = "Loose";
    CHECK(validate_write_options("update", o, false).error().api_status()->message ==
          "UpdateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"Loose\": supported values: "
          "\"\", \"Ignore\", \"Strict\", \"Warn\"");
    write_options f;
    f.force = true;
    CHECK(validate_write_options("patch", f, false).error().api_status()->message ==
          "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch");
    CHECK(validate_write_options("patch", write_options{}, true).error().api_status()->message ==
          "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");
    write_options d;
    d.dry_run = {"All", "x"};
    CHECK(validate_write_options("delete", d, false).error().api_status()->message ==
          "DeleteOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"All\", \"x\"}: supported "
          "values: \"All\"");
}

TEST_CASE("body kind: defaults, wrong kind, wrong version") {
    auto reg = resource_registry::with_builtins();
    const endpoint_kind cms{"", "v1", "ConfigMap", false};
    CHECK(check_body_kind(cms, json::object{}, reg).has_value());
    CHECK(check_body_kind(cms, json::parse(R"({"apiVersion":"v1","kind":"ConfigMap"})").as_object(), reg).has_value());
    auto secret = check_body_kind(cms, json::parse(R"({"apiVersion":"v1","kind":"Secret"})").as_object(), reg);
    REQUIRE(secret.has_error());
    CHECK(secret.error().http_code() == 400);
    CHECK(secret.error().api_status()->message ==
          "Secret in version \"v1\" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown "
          "conversion");
    auto foo = check_body_kind(cms, json::parse(R"({"apiVersion":"v1","kind":"Foo"})").as_object(), reg);
    CHECK(foo.error().api_status()->message ==
          "Foo in version \"v1\" cannot be handled as a ConfigMap: no kind \"Foo\" is registered for version \"v1\" in "
          "scheme \"pkg/api/legacyscheme/scheme.go:30\"");
    const endpoint_kind evs{"", "v1", "Event", false};
    auto gv = check_body_kind(evs, json::parse(R"({"apiVersion":"events.k8s.io/v1","kind":"Event"})").as_object(), reg);
    CHECK(gv.error().api_status()->message ==
          "the API version in the data (events.k8s.io/v1) does not match the expected API version (v1)");
    CHECK(check_body_kind({"example.com", "v1", "Widget", true},
                          json::parse(R"({"apiVersion":"x/v9","kind":"Nope"})").as_object(), reg)
              .has_value());
}

TEST_CASE("discovery: storageVersionHash and subresources") {
    CHECK(storage_version_hash("", "v1", "ConfigMap") == "qFsyl6wFWjQ=");
    CHECK(storage_version_hash("apps", "v1", "Deployment") == "8aSe+NMegvE=");
    auto reg = resource_registry::with_builtins();
    auto v1 = resource_list_document(reg, "", "v1");
    REQUIRE(v1.has_value());
    bool cm = false;
    for (const auto& r : (*v1)["resources"].as_array()) {
        const auto& o = r.as_object();
        if (o.at("name") == "configmaps") {
            cm = true;
            CHECK(o.at("storageVersionHash") == "qFsyl6wFWjQ=");
            CHECK(o.at("shortNames").as_array()[0] == "cm");
        }
    }
    CHECK(cm);
    auto apps = resource_list_document(reg, "apps", "v1");
    bool scale = false;
    for (const auto& r : (*apps)["resources"].as_array()) {
        const auto& o = r.as_object();
        if (o.at("name") == "deployments/scale") {
            scale = true;
            CHECK(o.at("group") == "autoscaling");
            CHECK(o.at("version") == "v1");
            CHECK(o.at("kind") == "Scale");
            CHECK_FALSE(o.contains("storageVersionHash"));
        }
    }
    CHECK(scale);
    auto events = resource_list_document(reg, "events.k8s.io", "v1");
    CHECK((*events)["resources"].as_array()[0].as_object().at("storageVersionHash") == "r2yiGXH7wu8=");
    // The protobuf /openapi/v2 starts with field 1 (swagger) "2.0".
    auto pb = openapi_v2_protobuf();
    CHECK(pb.substr(0, 5) == std::string("\x0a\x03" "2.0", 5));
}

TEST_CASE("indent_json is json.Indent with two spaces; wants_pretty is isPrettyPrint") {
    // The 403 body a real v1.32.13 sends to curl.
    CHECK(indent_json(R"({"kind":"Status","metadata":{},"details":{"kind":"configmaps"},"code":403})"
                      "\n") ==
          "{\n  \"kind\": \"Status\",\n  \"metadata\": {},\n  \"details\": {\n    \"kind\": \"configmaps\"\n  },\n"
          "  \"code\": 403\n}");
    CHECK(indent_json(R"({"a":[1,{"b":"x, y: {z}"}],"e":[],"s":"q\"{,"})") ==
          "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"x, y: {z}\"\n    }\n  ],\n  \"e\": [],\n  \"s\": \"q\\\"{,\"\n}");
    CHECK(wants_pretty("", "curl/8.5.0"));
    CHECK(wants_pretty("", "Wget/1.21"));
    CHECK(wants_pretty("", "Mozilla/5.0 (X11)"));
    CHECK_FALSE(wants_pretty("", "kubectl/v1.32.4 (linux/amd64)"));
    CHECK(wants_pretty("limit=1&pretty=true", "kubectl/v1.32.4"));
    CHECK(wants_pretty("pretty=1", ""));
    CHECK_FALSE(wants_pretty("pretty=0", "curl/8.5.0"));
    CHECK_FALSE(wants_pretty("pretty=nope", "curl/8.5.0"));  // ParseBool fails: false
    CHECK(wants_pretty("pretty=", "curl/8.5.0"));            // empty: the User-Agent decides
    CHECK_FALSE(wants_pretty("pretty=&pretty=1", ""));       // url.Values.Get takes the first
}
