#include <kcoro/core/strategic_merge_patch.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

using namespace kcoro;
namespace json = boost::json;

namespace {
json::value j(std::string_view s) { return json::parse(s); }

json::value deployment() {
    return j(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","finalizers":["a"]},
      "spec":{"replicas":1,"template":{"spec":{
        "containers":[
          {"name":"web","image":"nginx:1","ports":[{"containerPort":80},{"containerPort":443}],
           "env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},
          {"name":"sidecar","image":"envoy:1"}],
        "volumes":[{"name":"v1","emptyDir":{}}],
        "tolerations":[{"key":"k1"},{"key":"k2"}]}}}})");
}

json::value smp(const json::value& orig, std::string_view patch) {
    auto r = apply_strategic_merge_patch(orig.get_object(), patch);
    REQUIRE_MESSAGE(r.has_value(), (r.has_value() ? "" : r.error().message()));
    return *r;
}
const json::array& containers(const json::value& d) {
    return d.at("spec").at("template").at("spec").at("containers").get_array();
}
} // namespace

TEST_CASE("containers merge by name, other fields untouched") {
    auto out = smp(deployment(), R"({"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}})");
    const auto& c = containers(out);
    REQUIRE(c.size() == 2);
    CHECK(c[0].at("image") == "nginx:2");
    CHECK(c[0].at("ports").get_array().size() == 2);  // not replaced
    CHECK(c[1].at("image") == "envoy:1");
    CHECK(out.at("spec").at("replicas") == 1);
}

// Order (mergeSlice + normalizeElementOrder): the patch's items keep the
// patch's order, the live-only items theirs, woven by their live positions;
// an item the live list lacks goes in front of the live-only items it meets.
TEST_CASE("a new container goes after the patch's other items; nested ports merge by containerPort, env by name") {
    auto out = smp(deployment(), R"({"spec":{"template":{"spec":{"containers":[
        {"name":"web","ports":[{"containerPort":8080}],"env":[{"name":"B","value":"3"},{"name":"C","value":"4"}]},
        {"name":"new","image":"busybox"}]}}}})");
    const auto& c = containers(out);
    REQUIRE(c.size() == 3);
    CHECK(c[0].at("name") == "web");
    CHECK(c[1].at("name") == "new");
    CHECK(c[2].at("name") == "sidecar");
    // a patch of only a new port: it lands first
    CHECK(json::serialize(c[0].at("ports")) == R"([{"containerPort":8080},{"containerPort":80},{"containerPort":443}])");
    CHECK(json::serialize(c[0].at("env")) ==
          R"([{"name":"A","value":"1"},{"name":"B","value":"3"},{"name":"C","value":"4"}])");
}

TEST_CASE("$patch: delete removes a list item by merge key") {
    auto out = smp(deployment(),
                   R"({"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}})");
    const auto& c = containers(out);
    REQUIRE(c.size() == 1);
    CHECK(c[0].at("name") == "web");
}

TEST_CASE("$patch: replace on a list and on a map") {
    auto out = smp(deployment(), R"({"spec":{"template":{"spec":{"containers":[
        {"$patch":"replace"},{"name":"only","image":"x"}]}}}})");
    CHECK(json::serialize(containers(out)) == R"([{"name":"only","image":"x"}])");
    out = smp(deployment(), R"({"spec":{"template":{"spec":{"$patch":"replace","containers":[{"name":"z"}]}}}})");
    CHECK(json::serialize(out.at("spec").at("template").at("spec")) == R"({"containers":[{"name":"z"}]})");
    out = smp(deployment(), R"({"metadata":{"$patch":"delete"}})");
    CHECK(out.at("metadata").get_object().empty());
}

TEST_CASE("lists without a merge key are replaced (tolerations)") {
    auto out = smp(deployment(), R"({"spec":{"template":{"spec":{"tolerations":[{"key":"k3"}]}}}})");
    CHECK(json::serialize(out.at("spec").at("template").at("spec").at("tolerations")) == R"([{"key":"k3"}])");
}

TEST_CASE("null deletes; maps merge") {
    auto out = smp(deployment(), R"({"spec":{"replicas":null,"paused":true},"metadata":{"labels":{"a":"b"}}})");
    CHECK_FALSE(out.at("spec").as_object().contains("replicas"));
    CHECK(out.at("spec").at("paused") == true);
    CHECK(out.at("metadata").at("labels").at("a") == "b");
    CHECK(out.at("metadata").at("name") == "web");
    // deleting a field inside a merged list item
    out = smp(deployment(), R"({"spec":{"template":{"spec":{"containers":[{"name":"web","env":null}]}}}})");
    CHECK_FALSE(containers(out)[0].as_object().contains("env"));
}

TEST_CASE("finalizers merge as a set; $deleteFromPrimitiveList removes") {
    auto out = smp(deployment(), R"({"metadata":{"finalizers":["b","a"]}})");
    CHECK(json::serialize(out.at("metadata").at("finalizers")) == R"(["b","a"])");  // the patch's order
    auto added = smp(deployment(), R"({"metadata":{"finalizers":["c"]}})");
    CHECK(json::serialize(added.at("metadata").at("finalizers")) == R"(["c","a"])");
    out = smp(out, R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}})");
    CHECK(json::serialize(out.at("metadata").at("finalizers")) == R"(["b"])");
}

TEST_CASE("$setElementOrder is accepted and stripped; $retainKeys clears other keys") {
    auto out = smp(deployment(), R"({"spec":{"template":{"spec":{
        "$setElementOrder/containers":[{"name":"sidecar"},{"name":"web"}],
        "containers":[{"name":"web","image":"nginx:3"}]}}}})");
    // the order the directive gives wins over the live order
    REQUIRE(containers(out).size() == 2);
    CHECK(containers(out)[0].at("name") == "sidecar");
    CHECK(containers(out)[1].at("image") == "nginx:3");
    CHECK(json::serialize(out).find("$setElementOrder") == std::string::npos);

    auto d = j(R"({"kind":"Deployment","apiVersion":"apps/v1","spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}})");
    out = smp(d, R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}})");
    CHECK(json::serialize(out.at("spec").at("strategy")) == R"({"type":"Recreate"})");
    // a patch key outside $retainKeys: applyRetainKeysDirective returns
    // ErrBadPatchFormatForRetainKeys, a 400
    auto r = apply_strategic_merge_patch(d.get_object(), R"({"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":{}}}})");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 400);
    CHECK(r.error().api_status()->message == "invalid patch format of retainKeys");
}

TEST_CASE("a value the original lacks is taken without its directives (removeDirectives, v0.32)") {
    // mergeMap: `original[k], ok = removeDirectives(patchV)` when the key is
    // absent: maps holding `$patch` are dropped, from lists too. Checked
    // against a real v1.32.13 (issue 22).
    auto out = smp(j(R"({"kind":"Deployment","apiVersion":"apps/v1"})"),
                   R"({"spec":{"template":{"spec":{"containers":[{"name":"a","env":[{"name":"x","$patch":"delete"},{"name":"y"}]}]}}}})");
    CHECK(json::serialize(containers(out)) == R"([{"name":"a","env":[{"name":"y"}]}])");
    // An absent map that is itself a directive is not stored.
    out = smp(j(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"}})"),
              R"({"metadata":{"labels":{"$patch":"replace","a":"1"}}})");
    CHECK(out.at("metadata").as_object().if_contains("labels") == nullptr);
    // `$deleteFromPrimitiveList` on an absent list stores nothing.
    out = smp(j(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"}})"),
              R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a/b"]}})");
    CHECK(json::serialize(out.at("metadata")) == R"({"name":"c"})");
}

TEST_CASE("$patch: replace in a list whose field is absent is dropped; present, it replaces; new items keep it") {
    // The drift-repair case of issue 13: containers[0].env absent.
    auto out = smp(deployment(), R"({"spec":{"template":{"spec":{"containers":[
        {"name":"sidecar","env":[{"$patch":"replace"},{"name":"A","value":"1"}]}]}}}})");
    CHECK(json::serialize(containers(out)[1].at("env")) == R"([{"name":"A","value":"1"}])");
    // env present on "web": the directive replaces the list
    out = smp(deployment(), R"({"spec":{"template":{"spec":{"containers":[
        {"name":"web","env":[{"$patch":"replace"},{"name":"Z","value":"9"}]}]}}}})");
    CHECK(json::serialize(containers(out)[0].at("env")) == R"([{"name":"Z","value":"9"}])");
    // a new container appended from the patch keeps its directives (mergeSlice
    // appends the patch's new items as they are; 1.32 then answers 422 on
    // env[0].name)
    out = smp(deployment(), R"({"spec":{"template":{"spec":{"containers":[
        {"name":"new","image":"x","env":[{"$patch":"replace"}]}]}}}})");
    CHECK(json::serialize(containers(out)[0]) == R"({"name":"new","image":"x","env":[{"$patch":"replace"}]})");
}

// Cases re-derived from apimachinery's patch_test.go tables (same inputs
// and expectations, on built-in fields instead of the test struct).
TEST_CASE("patch_test.go: replace/delete directives on lists and maps") {
    // "delete all items from merging list"
    auto out = smp(deployment(), R"({"spec":{"template":{"spec":{"containers":[{"$patch":"replace"}]}}}})");
    CHECK(containers(out).empty());
    // "add key and delete all keys from map"
    out = smp(j(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"labels":{"name":"1","value":"1"}}})"),
              R"({"metadata":{"labels":{"$patch":"replace","other":"a"}}})");
    CHECK(json::serialize(out.at("metadata").at("labels")) == R"({"other":"a"})");
    // "delete map from nested map"
    out = smp(j(R"({"kind":"ConfigMap","apiVersion":"v1","data":{"key1":"1","key2":"1"}})"), R"({"data":{"$patch":"delete"}})");
    CHECK(out.at("data").get_object().empty());
    // "delete all duplicate entries in a merging list"
    auto d = j(R"({"kind":"Deployment","apiVersion":"apps/v1","spec":{"template":{"spec":{"containers":[
        {"name":"1"},{"name":"1"},{"name":"2","image":"a"},{"name":"3"},{"name":"3"}]}}}})");
    out = smp(d, R"({"spec":{"template":{"spec":{"containers":[{"name":"1","$patch":"delete"},{"name":"3","$patch":"delete"}]}}}})");
    CHECK(json::serialize(containers(out)) == R"([{"name":"2","image":"a"}])");
    // "merge empty merging lists"
    auto e = j(R"({"kind":"Deployment","apiVersion":"apps/v1","spec":{"template":{"spec":{"containers":[]}}}})");
    out = smp(e, R"({"spec":{"template":{"spec":{"containers":[]}}}})");
    CHECK(containers(out).empty());
}

TEST_CASE("merge errors answer as the real handler does") {
    const auto d = deployment();
    // a list item's $patch: merge
    auto r = apply_strategic_merge_patch(d.get_object(), R"({"spec":{"template":{"spec":{"containers":[{"name":"web","$patch":"merge"}]}}}})");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 500);
    CHECK(r.error().api_status()->reason.empty());
    CHECK(r.error().api_status()->message == "merging lists cannot yet be specified in the patch");
    // a map's $patch other than replace/delete
    r = apply_strategic_merge_patch(d.get_object(), R"({"metadata":{"$patch":"merge","labels":{"a":"b"}}})");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->message == "unknown patch type: merge in map: map[$patch:merge labels:map[a:b]]");
    // items of different types
    r = apply_strategic_merge_patch(d.get_object(), R"({"metadata":{"finalizers":[1]}})");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->message == "list element types are not identical: [[a] [1]]");
    // lists of lists: 422 (when the first element seen is a list)
    auto empty_fin = j(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"finalizers":[]}})");
    r = apply_strategic_merge_patch(empty_fin.get_object(), R"({"metadata":{"finalizers":[["x"]]}})");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 422);
    // a malformed parallel list key
    r = apply_strategic_merge_patch(d.get_object(), R"({"metadata":{"$deleteFromPrimitiveListfinalizers":["a"]}})");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 400);
    CHECK(r.error().api_status()->message == "invalid patch format of primitive list");
    r = apply_strategic_merge_patch(d.get_object(), R"({"spec":{"template":{"spec":{"$setElementOrderx":[]}}}})");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->message == "invalid patch format of setElementOrder list");
    // $setElementOrder that does not hold the patch's items
    r = apply_strategic_merge_patch(d.get_object(), R"({"spec":{"template":{"spec":{
        "$setElementOrder/containers":[{"name":"web"}],"containers":[{"name":"sidecar","image":"x"}]}}}})");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 500);
    CHECK(r.error().api_status()->message.starts_with("The order in patch list:\n[map[image:x name:sidecar]]\n doesn't match $setElementOrder list:"));
    // a JSON null patch changes nothing
    auto n = apply_strategic_merge_patch(d.get_object(), "null");
    REQUIRE(n.has_value());
    CHECK(*n == d);
}

TEST_CASE("Service ports merge by port; ownerReferences by uid") {
    auto svc = j(R"({"apiVersion":"v1","kind":"Service","metadata":{"ownerReferences":[{"uid":"u1","name":"a"}]},
      "spec":{"ports":[{"port":80,"targetPort":8080},{"port":443}]}})");
    auto out = smp(svc, R"({"spec":{"ports":[{"port":80,"targetPort":9090}]},
      "metadata":{"ownerReferences":[{"uid":"u2","name":"b"},{"uid":"u1","name":"a2"}]}})");
    CHECK(json::serialize(out.at("spec").at("ports")) == R"([{"port":80,"targetPort":9090},{"port":443}])");
    // both items are the patch's: the patch's order
    CHECK(json::serialize(out.at("metadata").at("ownerReferences")) ==
          R"([{"uid":"u2","name":"b"},{"uid":"u1","name":"a2"}])");
}

TEST_CASE("errors: custom resources 415, bad bodies 400, missing merge key 500") {
    auto cr = j(R"({"apiVersion":"gateway.kcoro.dev/v1","kind":"GatewayInstance","spec":{}})").get_object();
    auto r = apply_strategic_merge_patch(cr, R"({"spec":{"a":1}})");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 415);
    CHECK(r.error().api_status()->reason == "UnsupportedMediaType");
    CHECK(supports_strategic_merge("v1"));
    CHECK(supports_strategic_merge("apps/v1"));
    CHECK(supports_strategic_merge("coordination.k8s.io/v1"));
    CHECK_FALSE(supports_strategic_merge("gateway.kcoro.dev/v1"));

    const auto d = deployment();
    r = apply_strategic_merge_patch(d.get_object(), "[1]");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 400);
    CHECK(r.error().api_status()->message == "json: cannot unmarshal array into Go value of type map[string]interface {}");
    r = apply_strategic_merge_patch(d.get_object(), "{");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 400);
    r = apply_strategic_merge_patch(d.get_object(), R"({"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}})");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 500);
    CHECK(r.error().api_status()->message == "map: map[image:x] does not contain declared merge key: name");
    r = apply_strategic_merge_patch(d.get_object(), R"({"metadata":{"$patch":"explode"}})");
    REQUIRE_FALSE(r.has_value());
    r = apply_strategic_merge_patch(d.get_object(), R"({"metadata":{"$retainKeys":"name"}})");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 400);
    // the input is never modified
    CHECK(d == deployment());
}
