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

TEST_CASE("a new container is appended; nested ports merge by containerPort, env by name") {
    auto out = smp(deployment(), R"({"spec":{"template":{"spec":{"containers":[
        {"name":"web","ports":[{"containerPort":8080}],"env":[{"name":"B","value":"3"},{"name":"C","value":"4"}]},
        {"name":"new","image":"busybox"}]}}}})");
    const auto& c = containers(out);
    REQUIRE(c.size() == 3);
    CHECK(c[2].at("name") == "new");
    CHECK(json::serialize(c[0].at("ports")) == R"([{"containerPort":80},{"containerPort":443},{"containerPort":8080}])");
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
    CHECK(json::serialize(out.at("metadata").at("finalizers")) == R"(["a","b"])");
    out = smp(out, R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}})");
    CHECK(json::serialize(out.at("metadata").at("finalizers")) == R"(["b"])");
}

TEST_CASE("$setElementOrder is accepted and stripped; $retainKeys clears other keys") {
    auto out = smp(deployment(), R"({"spec":{"template":{"spec":{
        "$setElementOrder/containers":[{"name":"sidecar"},{"name":"web"}],
        "containers":[{"name":"web","image":"nginx:3"}]}}}})");
    CHECK(containers(out)[0].at("image") == "nginx:3");
    CHECK(json::serialize(out).find("$setElementOrder") == std::string::npos);

    auto d = j(R"({"kind":"Deployment","apiVersion":"apps/v1","spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}})");
    out = smp(d, R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}})");
    CHECK(json::serialize(out.at("spec").at("strategy")) == R"({"type":"Recreate"})");
    // a patch key outside $retainKeys is rejected with 422
    auto r = apply_strategic_merge_patch(d.get_object(), R"({"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":{}}}})");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 422);
}

TEST_CASE("directives never reach new values") {
    auto out = smp(j(R"({"kind":"Deployment","apiVersion":"apps/v1"})"),
                   R"({"spec":{"template":{"spec":{"containers":[{"name":"a","env":[{"name":"x","$patch":"delete"},{"name":"y"}]}]}}}})");
    CHECK(json::serialize(containers(out)) == R"([{"name":"a","env":[{"name":"y"}]}])");
}

TEST_CASE("Service ports merge by port; ownerReferences by uid") {
    auto svc = j(R"({"apiVersion":"v1","kind":"Service","metadata":{"ownerReferences":[{"uid":"u1","name":"a"}]},
      "spec":{"ports":[{"port":80,"targetPort":8080},{"port":443}]}})");
    auto out = smp(svc, R"({"spec":{"ports":[{"port":80,"targetPort":9090}]},
      "metadata":{"ownerReferences":[{"uid":"u2","name":"b"},{"uid":"u1","name":"a2"}]}})");
    CHECK(json::serialize(out.at("spec").at("ports")) == R"([{"port":80,"targetPort":9090},{"port":443}])");
    CHECK(json::serialize(out.at("metadata").at("ownerReferences")) ==
          R"([{"uid":"u1","name":"a2"},{"uid":"u2","name":"b"}])");
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
    r = apply_strategic_merge_patch(d.get_object(), "{");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 400);
    r = apply_strategic_merge_patch(d.get_object(), R"({"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}})");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 500);
    CHECK(r.error().message().find("does not contain declared merge key: name") != std::string::npos);
    r = apply_strategic_merge_patch(d.get_object(), R"({"metadata":{"$patch":"explode"}})");
    REQUIRE_FALSE(r.has_value());
    r = apply_strategic_merge_patch(d.get_object(), R"({"metadata":{"$retainKeys":"name"}})");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 400);
    // the input is never modified
    CHECK(d == deployment());
}
