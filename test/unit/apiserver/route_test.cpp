#include "http/route.hpp"

#include <doctest/doctest.h>

using namespace kcoro::apiserver::http;

TEST_CASE("route: namespaced resources, names and subresources") {
    auto r = parse_route("GET", "/api/v1/namespaces/ns1/configmaps/cm1/status?dryRun=All");
    REQUIRE(r.has_value());
    CHECK(r->kind == route_kind::resource);
    CHECK(r->verb == "get");
    CHECK(r->group == "");
    CHECK(r->version == "v1");
    CHECK(r->ns == "ns1");
    CHECK(r->resource == "configmaps");
    CHECK(r->name == "cm1");
    CHECK(r->subresource == "status");
    CHECK(r->query.dry_run);

    r = parse_route("GET", "/apis/apps/v1/namespaces/default/deployments");
    REQUIRE(r.has_value());
    CHECK(r->verb == "list");
    CHECK(r->gvr() == kcoro::group_version_resource{"apps", "v1", "deployments"});
    CHECK(r->ns == "default");

    r = parse_route("GET", "/apis/apps/v1/deployments");
    REQUIRE(r.has_value());
    CHECK(r->verb == "list");
    CHECK(r->ns.empty());
}

TEST_CASE("route: the namespace object itself and its subresources") {
    auto r = parse_route("GET", "/api/v1/namespaces/kube-system");
    REQUIRE(r.has_value());
    CHECK(r->resource == "namespaces");
    CHECK(r->name == "kube-system");
    CHECK(r->ns.empty());
    CHECK(r->verb == "get");

    r = parse_route("PUT", "/api/v1/namespaces/x/finalize");
    REQUIRE(r.has_value());
    CHECK(r->resource == "namespaces");
    CHECK(r->name == "x");
    CHECK(r->subresource == "finalize");
    CHECK(r->verb == "update");

    r = parse_route("GET", "/api/v1/namespaces");
    REQUIRE(r.has_value());
    CHECK(r->resource == "namespaces");
    CHECK(r->verb == "list");
}

TEST_CASE("route: verbs from methods, watch=true|1 and legacy /watch/ paths") {
    CHECK(parse_route("POST", "/api/v1/namespaces/a/configmaps")->verb == "create");
    CHECK(parse_route("PUT", "/api/v1/namespaces/a/configmaps/x")->verb == "update");
    CHECK(parse_route("PATCH", "/api/v1/namespaces/a/configmaps/x")->verb == "patch");
    CHECK(parse_route("DELETE", "/api/v1/namespaces/a/configmaps/x")->verb == "delete");
    CHECK(parse_route("DELETE", "/api/v1/namespaces/a/configmaps")->verb == "deletecollection");
    CHECK(parse_route("GET", "/api/v1/configmaps?watch=true")->verb == "watch");
    CHECK(parse_route("GET", "/api/v1/configmaps?watch=1")->verb == "watch");
    CHECK(parse_route("GET", "/api/v1/configmaps?watch=false")->verb == "list");
    // Convert_Slice_string_To_bool: only "0" and "false" (any case) are false.
    CHECK(parse_route("GET", "/api/v1/configmaps?watch=FALSE")->verb == "list");
    CHECK(parse_route("GET", "/api/v1/configmaps?watch=0")->verb == "list");
    CHECK(parse_route("GET", "/api/v1/configmaps?watch=")->verb == "watch");
    CHECK(parse_route("GET", "/api/v1/configmaps?watch=abc")->verb == "watch");
    auto w = parse_route("GET", "/api/v1/watch/namespaces/a/configmaps/x");
    REQUIRE(w.has_value());
    CHECK(w->verb == "watch");
    CHECK(w->ns == "a");
    CHECK(w->name == "x");
    // A method RequestInfo does not know has no verb (surface.hpp answers 405).
    auto bad = parse_route("TRACE", "/api/v1/configmaps");
    REQUIRE(bad.has_value());
    CHECK(bad->verb.empty());
}

TEST_CASE("route: query options are decoded") {
    auto r = parse_route("GET",
                         "/api/v1/namespaces/a/pods?labelSelector=app%3Dx%2Ctier+in+%28a%2Cb%29&fieldSelector=metadata.name%3Dy"
                         "&limit=500&continue=abc&resourceVersion=42&resourceVersionMatch=NotOlderThan&timeoutSeconds=30"
                         "&allowWatchBookmarks=true&sendInitialEvents=true&watch=1&fieldManager=me&force=true"
                         "&propagationPolicy=Foreground&gracePeriodSeconds=0");
    REQUIRE(r.has_value());
    const auto& q = r->query;
    CHECK(q.label_selector == "app=x,tier in (a,b)");
    CHECK(q.field_selector == "metadata.name=y");
    CHECK(q.limit == 500);
    CHECK(q.continue_token == "abc");
    CHECK(q.resource_version == "42");
    CHECK(q.resource_version_match == "NotOlderThan");
    CHECK(q.timeout_seconds == 30);
    CHECK(q.allow_watch_bookmarks);
    CHECK(q.send_initial_events == true);
    CHECK(q.watch);
    CHECK(q.field_manager == "me");
    CHECK(q.force);
    CHECK(q.propagation_policy == "Foreground");
    CHECK(q.grace_period_seconds == 0);
}

TEST_CASE("route: bad queries are 400 values") {
    for (const char* t : {"/api/v1/configmaps?limit=ten", "/api/v1/configmaps?labelSelector=%zz",
                          "/api/v1/configmaps?timeoutSeconds=", "/api/v1/%"}) {
        auto r = parse_route("GET", t);
        REQUIRE_MESSAGE(r.has_error(), t);
        CHECK(r.error().http_code() == 400);
    }
    // The query decoder's strconv.ParseInt text (runtime/conversion.go).
    CHECK(parse_route("GET", "/api/v1/configmaps?limit=ten").error().api_status()->message ==
          "strconv.ParseInt: parsing \"ten\": invalid syntax");
    CHECK(parse_route("GET", "/api/v1/configmaps?limit=9223372036854775808").error().api_status()->message ==
          "strconv.ParseInt: parsing \"9223372036854775808\": value out of range");
    CHECK(parse_route("GET", "/api/v1/configmaps?limit=-9223372036854775808")->query.limit == INT64_MIN);
    CHECK(parse_route("GET", "/api/v1/configmaps?limit=%2B7")->query.limit == 7);  // "+" in a query is a space
}

TEST_CASE("route: discovery and other non-resource paths") {
    CHECK(parse_route("GET", "/version")->kind == route_kind::version);
    CHECK(parse_route("GET", "/api")->kind == route_kind::core_groups);
    CHECK(parse_route("GET", "/api/v1")->kind == route_kind::core_resources);
    CHECK(parse_route("GET", "/apis")->kind == route_kind::groups);
    auto g = parse_route("GET", "/apis/apps");
    CHECK(g->kind == route_kind::group);
    CHECK(g->group == "apps");
    auto gv = parse_route("GET", "/apis/apps/v1?timeout=32s");
    CHECK(gv->kind == route_kind::group_resources);
    CHECK(gv->version == "v1");
    CHECK(parse_route("GET", "/openapi/v3")->kind == route_kind::openapi);
    CHECK(parse_route("GET", "/healthz")->kind == route_kind::health);
    CHECK(parse_route("POST", "/kcoro/faults")->kind == route_kind::faults);
    CHECK(parse_route("GET", "/")->kind == route_kind::not_found);
    CHECK(parse_route("GET", "/foo/bar")->kind == route_kind::not_found);
    CHECK(parse_route("GET", "/api/v1/namespaces/a/configmaps/x/status/extra")->kind == route_kind::not_found);
}
