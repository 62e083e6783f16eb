#include <kcoro/core/requests.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

using namespace kcoro;
namespace json = boost::json;

namespace {

const group_version_resource cm = resources::configmaps();
const group_version_resource deploy = resources::deployments();
const group_version_resource ns_res = resources::namespaces();
const group_version_resource gi{"gateway.kcoro.dev", "v1alpha1", "gatewayinstances"};

json::object parse_obj(std::string_view s) { return json::parse(s).as_object(); }

bool invalid(const error& e) { return e.code() == make_error_code(kcoro_errc::invalid_argument); }

} // namespace

TEST_CASE("query_escape matches Go's url.QueryEscape") {
    CHECK(query_escape("abc-_.~XYZ09") == "abc-_.~XYZ09");
    CHECK(query_escape("app=web,tier!=db") == "app%3Dweb%2Ctier%21%3Ddb");
    CHECK(query_escape("env in (a, b)") == "env+in+%28a%2C+b%29");
    CHECK(query_escape("a/b?c#d&e+f%") == "a%2Fb%3Fc%23d%26e%2Bf%25");
    CHECK(query_escape("\xc3\xa9") == "%C3%A9");
    CHECK(query_escape("").empty());
}

TEST_CASE("resource paths for core, grouped, namespaced and cluster-scoped resources") {
    CHECK(*resource_path(cm, "default") == "/api/v1/namespaces/default/configmaps");
    CHECK(*resource_path(cm, "") == "/api/v1/configmaps");
    CHECK(*resource_path(cm, "kube-system", "x") == "/api/v1/namespaces/kube-system/configmaps/x");
    CHECK(*resource_path(deploy, "prod", "web", "status") == "/apis/apps/v1/namespaces/prod/deployments/web/status");
    CHECK(*resource_path(deploy, "prod", "web", "scale") == "/apis/apps/v1/namespaces/prod/deployments/web/scale");
    CHECK(*resource_path(ns_res, "", "team-a") == "/api/v1/namespaces/team-a");
    CHECK(*resource_path(ns_res, "", "team-a", "finalize") == "/api/v1/namespaces/team-a/finalize");
    CHECK(*resource_path(gi, "default", "g1") == "/apis/gateway.kcoro.dev/v1alpha1/namespaces/default/gatewayinstances/g1");
    group_version_resource crole{"rbac.authorization.k8s.io", "v1", "clusterroles"};
    CHECK(*resource_path(crole, "", "system:controller:x") ==
          "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:controller:x");
    // a character that would end the path is escaped, never passed through
    CHECK(*resource_path(cm, "default", "a b?c") == "/api/v1/namespaces/default/configmaps/a%20b%3Fc");
}

TEST_CASE("names that cannot be path segments are rejected") {
    CHECK(invalid(resource_path(cm, "default", "a/b").error()));
    CHECK(invalid(resource_path(cm, "default", "..").error()));
    CHECK(invalid(resource_path(cm, "default", ".").error()));
    CHECK(invalid(resource_path(cm, "a%2F", "x").error()));
    CHECK(invalid(resource_path(cm, "default", "", "status").error()));
    CHECK(invalid(resource_path({"", "v1", ""}, "default").error()));
    CHECK(invalid(resource_path({"apps", "", "deployments"}, "default").error()));
    CHECK(invalid(get_request(cm, {"default", ""}).error()));
    auto e = get_request(cm, {"default", "a/b"}).error();
    CHECK(e.message().find("name") != std::string::npos);
}

TEST_CASE("get, with resourceVersion and a subresource") {
    auto r = get_request(cm, {"default", "x"});
    REQUIRE(r);
    CHECK(r->method == http_method::get);
    CHECK(r->target == "/api/v1/namespaces/default/configmaps/x");
    CHECK(r->body.empty());
    CHECK(r->content_type.empty());
    CHECK_FALSE(r->is_watch);
    CHECK(r->verb == "GET");
    CHECK_FALSE(r->timeout);

    auto s = get_request(deploy, {"prod", "web"},
                         {.resource_version = "0", .subresource = "status", .timeout = std::chrono::seconds(3)});
    REQUIRE(s);
    CHECK(s->target == "/apis/apps/v1/namespaces/prod/deployments/web/status?resourceVersion=0");
    CHECK(s->timeout == std::chrono::milliseconds(3000));
}

TEST_CASE("list with every option, keys sorted as url.Values.Encode sorts them") {
    list_options o;
    o.label_selector = "app=web,tier notin (db, cache),!canary";
    o.field_selector = "metadata.name!=x";
    o.limit = 500;
    o.continue_token = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzfQ==";
    o.resource_version = "123";
    o.resource_version_match = version_match::not_older_than;
    auto r = list_request(cm, "default", o);
    REQUIRE(r);
    CHECK(r->verb == "GET");
    CHECK_FALSE(r->is_watch);
    CHECK(r->target ==
          "/api/v1/namespaces/default/configmaps"
          "?continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzfQ%3D%3D"
          "&fieldSelector=metadata.name%21%3Dx"
          "&labelSelector=app%3Dweb%2Ctier+notin+%28db%2C+cache%29%2C%21canary"
          "&limit=500&resourceVersion=123&resourceVersionMatch=NotOlderThan");

    CHECK(list_request(cm, "")->target == "/api/v1/configmaps");
    CHECK(list_request(gi, "", {.limit = 2})->target == "/apis/gateway.kcoro.dev/v1alpha1/gatewayinstances?limit=2");
    CHECK(list_request(cm, "", {.resource_version = "456", .resource_version_match = version_match::exact})->target ==
          "/api/v1/configmaps?resourceVersion=456&resourceVersionMatch=Exact");
}

TEST_CASE("list options the server would reject are rejected here") {
    CHECK(invalid(list_request(cm, "default", {.limit = -1}).error()));
    CHECK(invalid(list_request(cm, "default", {.resource_version_match = version_match::not_older_than}).error()));
    CHECK(invalid(list_request(cm, "default", {.resource_version = "0", .resource_version_match = version_match::exact})
                      .error()));
}

TEST_CASE("watch requests") {
    watch_options o;
    o.resource_version = "789";
    o.timeout_seconds = 300;
    o.label_selector = "app=web";
    auto r = watch_request(cm, "default", o);
    REQUIRE(r);
    CHECK(r->is_watch);
    CHECK(r->verb == "GET");
    CHECK_FALSE(r->timeout);  // the stream is endless; the server ends it
    CHECK(r->target ==
          "/api/v1/namespaces/default/configmaps?allowWatchBookmarks=true&labelSelector=app%3Dweb"
          "&resourceVersion=789&timeoutSeconds=300&watch=true");

    auto nb = watch_request(gi, "", {.field_selector = "metadata.name=g1", .allow_watch_bookmarks = false});
    REQUIRE(nb);
    CHECK(nb->target == "/apis/gateway.kcoro.dev/v1alpha1/gatewayinstances?fieldSelector=metadata.name%3Dg1&watch=true");

    // streaming lists: NotOlderThan and bookmarks are implied
    auto si = watch_request(cm, "default", {.allow_watch_bookmarks = false, .send_initial_events = true});
    REQUIRE(si);
    CHECK(si->target ==
          "/api/v1/namespaces/default/configmaps?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan"
          "&sendInitialEvents=true&watch=true");

    CHECK(invalid(watch_request(cm, "default", {.timeout_seconds = -5}).error()));
}

TEST_CASE("create: POST to the collection; generateName leaves the name to the server") {
    auto obj = parse_obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"cfg-","namespace":"default"},"data":{"a":"1"}})");
    auto r = create_request(cm, "default", obj, {.field_manager = "kcoro", .dry_run = true});
    REQUIRE(r);
    CHECK(r->method == http_method::post);
    CHECK(r->verb == "POST");
    CHECK(r->target == "/api/v1/namespaces/default/configmaps?dryRun=All&fieldManager=kcoro");
    CHECK(r->content_type == "application/json");
    CHECK(json::parse(r->body) == json::value(obj));

    // an object namespace that disagrees with the request would be a 400 from the server
    CHECK(invalid(create_request(cm, "other", obj).error()));
    // a cluster-scoped object
    auto nsobj = parse_obj(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}})");
    CHECK(create_request(ns_res, "", nsobj)->target == "/api/v1/namespaces");

    // create on a subresource: pods/eviction
    auto ev = parse_obj(R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p1","namespace":"default"}})");
    CHECK(create_request({"", "v1", "pods"}, "default", ev, {.subresource = "eviction"})->target ==
          "/api/v1/namespaces/default/pods/p1/eviction");
    CHECK(invalid(create_request({"", "v1", "pods"}, "default", nsobj.at("metadata").as_object(),
                                 {.subresource = "eviction"})
                      .error()));
}

TEST_CASE("update: PUT at the object's key, resourceVersion precondition in the body") {
    auto obj = parse_obj(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"prod","resourceVersion":"42"},"spec":{"replicas":3}})");
    auto r = update_request(deploy, obj, {.field_manager = "op"});
    REQUIRE(r);
    CHECK(r->method == http_method::put);
    CHECK(r->verb == "PUT");
    CHECK(r->target == "/apis/apps/v1/namespaces/prod/deployments/web?fieldManager=op");
    CHECK(json::parse(r->body).at("metadata").at("resourceVersion") == "42");
    CHECK(r->content_type == "application/json");

    auto s = update_request(deploy, obj, {.subresource = "status"});
    CHECK(s->target == "/apis/apps/v1/namespaces/prod/deployments/web/status");

    CHECK(invalid(update_request(deploy, parse_obj(R"({"metadata":{"namespace":"prod"}})")).error()));
}

TEST_CASE("patch with the four content types") {
    const object_key key{"prod", "web"};
    auto m = patch_request(deploy, key, R"({"spec":{"replicas":2}})");
    REQUIRE(m);
    CHECK(m->method == http_method::patch);
    CHECK(m->verb == "PATCH");
    CHECK(m->content_type == "application/merge-patch+json");
    CHECK(m->target == "/apis/apps/v1/namespaces/prod/deployments/web");
    CHECK(m->body == R"({"spec":{"replicas":2}})");

    auto j = patch_request(deploy, key,
                           R"([{"op":"test","path":"/metadata/resourceVersion","value":"42"},{"op":"replace","path":"/spec/replicas","value":2}])",
                           {.type = patch_type::json});
    CHECK(j->content_type == "application/json-patch+json");

    auto sm = patch_request(deploy, key, "{}", {.type = patch_type::strategic_merge, .subresource = "status"});
    CHECK(sm->content_type == "application/strategic-merge-patch+json");
    CHECK(sm->target == "/apis/apps/v1/namespaces/prod/deployments/web/status");

    auto a = patch_request(gi, {"default", "g1"}, "apiVersion: gateway.kcoro.dev/v1alpha1\nkind: GatewayInstance\n",
                           {.type = patch_type::apply, .field_manager = "gateway-operator", .force = true, .dry_run = true});
    REQUIRE(a);
    CHECK(a->content_type == "application/apply-patch+yaml");
    CHECK(a->target ==
          "/apis/gateway.kcoro.dev/v1alpha1/namespaces/default/gatewayinstances/g1"
          "?dryRun=All&fieldManager=gateway-operator&force=true");
}

TEST_CASE("patch misuse is rejected") {
    const object_key key{"prod", "web"};
    CHECK(invalid(patch_request(deploy, key, "{}", {.type = patch_type::apply}).error()));
    CHECK(invalid(patch_request(deploy, key, "{}", {.force = true}).error()));
    CHECK(invalid(patch_request(deploy, key, "").error()));
    CHECK(invalid(patch_request(deploy, {"prod", ""}, "{}").error()));
}

TEST_CASE("delete carries a DeleteOptions body") {
    delete_options o;
    o.preconditions = delete_preconditions{"0d6c-uid", "42"};
    o.propagation_policy = deletion_propagation::foreground;
    o.grace_period_seconds = 0;
    o.dry_run = true;
    auto r = delete_request(cm, {"default", "x"}, o);
    REQUIRE(r);
    CHECK(r->method == http_method::delete_);
    CHECK(r->verb == "DELETE");
    CHECK(r->target == "/api/v1/namespaces/default/configmaps/x");
    CHECK(r->content_type == "application/json");
    CHECK(json::parse(r->body) == json::parse(R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0,
        "preconditions":{"uid":"0d6c-uid","resourceVersion":"42"},"propagationPolicy":"Foreground","dryRun":["All"]})"));

    auto plain = delete_request(cm, {"default", "x"});
    REQUIRE(plain);
    CHECK(json::parse(plain->body) == json::parse(R"({"kind":"DeleteOptions","apiVersion":"v1"})"));

    auto uid_only = delete_request(cm, {"default", "x"}, {.preconditions = delete_preconditions{"u", ""}});
    CHECK(json::parse(uid_only->body).at("preconditions") == json::parse(R"({"uid":"u"})"));

    CHECK(invalid(delete_request(cm, {"default", ""}).error()));
    CHECK(invalid(delete_request(cm, {"default", "x"}, {.grace_period_seconds = -1}).error()));
}

TEST_CASE("delete collection selects with list options") {
    auto r = delete_collection_request(cm, "default", {.label_selector = "app=web"},
                                       {.propagation_policy = deletion_propagation::background});
    REQUIRE(r);
    CHECK(r->method == http_method::delete_);
    CHECK(r->target == "/api/v1/namespaces/default/configmaps?labelSelector=app%3Dweb");
    CHECK(json::parse(r->body).at("propagationPolicy") == "Background");
}
