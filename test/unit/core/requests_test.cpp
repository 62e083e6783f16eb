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

    get_options go;
    go.resource_version = "0";
    go.subresource = "status";
    go.timeout = std::chrono::seconds(3);
    auto s = get_request(deploy, {"prod", "web"}, go);
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
    list_options two;
    two.limit = 2;
    CHECK(list_request(gi, "", two)->target == "/apis/gateway.kcoro.dev/v1alpha1/gatewayinstances?limit=2");
    list_options exact;
    exact.resource_version = "456";
    exact.resource_version_match = version_match::exact;
    CHECK(list_request(cm, "", exact)->target == "/api/v1/configmaps?resourceVersion=456&resourceVersionMatch=Exact");
}

TEST_CASE("list options the server would reject are rejected here") {
    list_options negative;
    negative.limit = -1;
    CHECK(invalid(list_request(cm, "default", negative).error()));
    list_options match_without_rv;
    match_without_rv.resource_version_match = version_match::not_older_than;
    CHECK(invalid(list_request(cm, "default", match_without_rv).error()));
    list_options exact_zero;
    exact_zero.resource_version = "0";
    exact_zero.resource_version_match = version_match::exact;
    CHECK(invalid(list_request(cm, "default", exact_zero).error()));
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

    watch_options no_bookmarks;
    no_bookmarks.field_selector = "metadata.name=g1";
    no_bookmarks.allow_watch_bookmarks = false;
    auto nb = watch_request(gi, "", no_bookmarks);
    REQUIRE(nb);
    CHECK(nb->target == "/apis/gateway.kcoro.dev/v1alpha1/gatewayinstances?fieldSelector=metadata.name%3Dg1&watch=true");

    // streaming lists: NotOlderThan and bookmarks are implied
    watch_options streaming;
    streaming.allow_watch_bookmarks = false;
    streaming.send_initial_events = true;
    auto si = watch_request(cm, "default", streaming);
    REQUIRE(si);
    CHECK(si->target ==
          "/api/v1/namespaces/default/configmaps?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan"
          "&sendInitialEvents=true&watch=true");

    watch_options negative;
    negative.timeout_seconds = -5;
    CHECK(invalid(watch_request(cm, "default", negative).error()));
}

TEST_CASE("create: POST to the collection; generateName leaves the name to the server") {
    auto obj = parse_obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"cfg-","namespace":"default"},"data":{"a":"1"}})");
    create_options co;
    co.field_manager = "kcoro";
    co.dry_run = true;
    auto r = create_request(cm, "default", obj, co);
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
    create_options eviction;
    eviction.subresource = "eviction";
    CHECK(create_request({"", "v1", "pods"}, "default", ev, eviction)->target ==
          "/api/v1/namespaces/default/pods/p1/eviction");
    CHECK(invalid(create_request({"", "v1", "pods"}, "default", nsobj.at("metadata").as_object(), eviction).error()));
}

TEST_CASE("update: PUT at the object's key, resourceVersion precondition in the body") {
    auto obj = parse_obj(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"prod","resourceVersion":"42"},"spec":{"replicas":3}})");
    update_options uo;
    uo.field_manager = "op";
    auto r = update_request(deploy, obj, uo);
    REQUIRE(r);
    CHECK(r->method == http_method::put);
    CHECK(r->verb == "PUT");
    CHECK(r->target == "/apis/apps/v1/namespaces/prod/deployments/web?fieldManager=op");
    CHECK(json::parse(r->body).at("metadata").at("resourceVersion") == "42");
    CHECK(r->content_type == "application/json");

    update_options status_only;
    status_only.subresource = "status";
    auto s = update_request(deploy, obj, status_only);
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
                           patch_options{patch_type::json});
    CHECK(j->content_type == "application/json-patch+json");

    patch_options smo{patch_type::strategic_merge};
    smo.subresource = "status";
    auto sm = patch_request(deploy, key, "{}", smo);
    CHECK(sm->content_type == "application/strategic-merge-patch+json");
    CHECK(sm->target == "/apis/apps/v1/namespaces/prod/deployments/web/status");

    patch_options ao{patch_type::apply};
    ao.field_manager = "gateway-operator";
    ao.force = true;
    ao.dry_run = true;
    auto a = patch_request(gi, {"default", "g1"}, "apiVersion: gateway.kcoro.dev/v1alpha1\nkind: GatewayInstance\n", ao);
    REQUIRE(a);
    CHECK(a->content_type == "application/apply-patch+yaml");
    CHECK(a->target ==
          "/apis/gateway.kcoro.dev/v1alpha1/namespaces/default/gatewayinstances/g1"
          "?dryRun=All&fieldManager=gateway-operator&force=true");
}

TEST_CASE("patch misuse is rejected") {
    const object_key key{"prod", "web"};
    CHECK(invalid(patch_request(deploy, key, "{}", patch_options{patch_type::apply}).error()));
    patch_options forced;
    forced.force = true;
    CHECK(invalid(patch_request(deploy, key, "{}", forced).error()));
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

    auto uid_only = delete_request(cm, {"default", "x"}, delete_options{delete_preconditions{"u", ""}});
    CHECK(json::parse(uid_only->body).at("preconditions") == json::parse(R"({"uid":"u"})"));

    CHECK(invalid(delete_request(cm, {"default", ""}).error()));
    delete_options negative;
    negative.grace_period_seconds = -1;
    CHECK(invalid(delete_request(cm, {"default", "x"}, negative).error()));
}

TEST_CASE("delete collection selects with list options") {
    list_options web;
    web.label_selector = "app=web";
    auto r = delete_collection_request(cm, "default", web, delete_options{deletion_propagation::background});
    REQUIRE(r);
    CHECK(r->method == http_method::delete_);
    CHECK(r->target == "/api/v1/namespaces/default/configmaps?labelSelector=app%3Dweb");
    CHECK(json::parse(r->body).at("propagationPolicy") == "Background");
}

TEST_CASE("metadata-only list and watch ask for PartialObjectMetadata(List) in Accept; others send no Accept") {
    list_options lo;
    lo.metadata_only = true;
    auto l = list_request(cm, "default", lo);
    REQUIRE(l);
    using header = std::pair<std::string, std::string>;
    CHECK(l->headers == std::vector<header>{{"Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"}});
    watch_options wo;
    wo.metadata_only = true;
    auto w = watch_request(cm, "default", wo);
    REQUIRE(w);
    CHECK(w->headers == std::vector<header>{{"Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"}});
    CHECK(list_request(cm, "default", list_options{})->headers.empty());
    CHECK(watch_request(cm, "default", watch_options{})->headers.empty());
}

TEST_CASE("shardSelector (KEP-5866) on lists and watches, encoded like every parameter") {
    const std::string sel = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
    list_options l;
    l.shard_selector = sel;
    l.limit = 500;
    auto lr = list_request(cm, "default", l);
    REQUIRE(lr);
    CHECK(lr->target ==
          "/api/v1/namespaces/default/configmaps?limit=500"
          "&shardSelector=shardRange%28object.metadata.uid%2C+%270x0000000000000000%27%2C+%270x8000000000000000%27%29");
    watch_options w;
    w.shard_selector = sel;
    w.resource_version = "5";
    auto wr = watch_request(cm, "", w);
    REQUIRE(wr);
    CHECK(wr->target ==
          "/api/v1/configmaps?allowWatchBookmarks=true&resourceVersion=5"
          "&shardSelector=shardRange%28object.metadata.uid%2C+%270x0000000000000000%27%2C+%270x8000000000000000%27%29"
          "&watch=true");
    // None: no parameter.
    CHECK(list_request(cm, "")->target == "/api/v1/configmaps");
}
