#include <kcoro/core/apply_drift.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

namespace json = boost::json;
using kcoro::apply_drift;

namespace {

json::object obj(std::string_view text) { return json::parse(text).as_object(); }

// What gateway-operator applies for a Service, and what a server answers
// after defaulting it (clusterIP, protocol on ports it did not name, ...).
const auto applied_service = obj(R"({"apiVersion":"v1","kind":"Service",
  "metadata":{"name":"gw","namespace":"default","labels":{"app":"gw"},
              "ownerReferences":[{"apiVersion":"gateway.kcoro.dev/v1alpha1","kind":"GatewayInstance","name":"gw",
                                  "uid":"u-1","controller":true,"blockOwnerDeletion":true}]},
  "spec":{"type":"ClusterIP","selector":{"app":"gw"},"ports":[{"name":"http","port":8080,"targetPort":8080}]}})");

const auto live_service = obj(R"({"apiVersion":"v1","kind":"Service",
  "metadata":{"name":"gw","namespace":"default","uid":"s-1","resourceVersion":"12",
              "labels":{"app":"gw","team":"x"},
              "annotations":{"someone":"else"},
              "ownerReferences":[{"apiVersion":"gateway.kcoro.dev/v1alpha1","kind":"GatewayInstance","name":"gw",
                                  "uid":"u-1","controller":true,"blockOwnerDeletion":true}]},
  "spec":{"type":"ClusterIP","clusterIP":"10.0.0.7","sessionAffinity":"None","selector":{"app":"gw"},
          "ports":[{"name":"http","port":8080,"targetPort":8080,"protocol":"TCP"}]}})");

json::object with(json::object o, std::initializer_list<std::string_view> path, json::value v) {
    json::object* at = &o;
    for (auto it = path.begin(); it + 1 != path.end(); ++it) at = &(*at)[*it].as_object();
    (*at)[*(path.end() - 1)] = std::move(v);
    return o;
}

} // namespace

TEST_CASE("server defaults and other managers' fields never count as drift") {
    CHECK(apply_drift(applied_service, live_service, "gateway-operator") == std::nullopt);
}

TEST_CASE("a field we apply with another value, or missing, is drift") {
    auto port = with(live_service, {"spec", "ports"}, json::parse(R"([{"name":"http","port":9090,"protocol":"TCP"}])"));
    CHECK(apply_drift(applied_service, port, "m") == std::optional<std::string>(".spec.ports[port=8080]: missing"));
    auto type = with(live_service, {"spec", "type"}, "NodePort");
    CHECK(apply_drift(applied_service, type, "m") == std::optional<std::string>(R"(.spec.type: "NodePort", want "ClusterIP")"));
    auto label = with(live_service, {"metadata", "labels"}, json::object{{"team", "x"}});
    CHECK(apply_drift(applied_service, label, "m") == std::optional<std::string>(".metadata.labels.app: missing"));
    auto no_owner = live_service;
    no_owner["metadata"].as_object().erase("ownerReferences");
    CHECK(apply_drift(applied_service, no_owner, "m") == std::optional<std::string>(".metadata.ownerReferences: missing"));
}

TEST_CASE("list-maps: items matched by their keys; other managers' items are left alone") {
    const auto applied = obj(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
      "spec":{"template":{"spec":{"containers":[{"name":"gateway","image":"gw:1",
        "env":[{"name":"A","value":"1"}],
        "ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}]}]}}}})");
    const auto live = obj(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
      "spec":{"replicas":1,"template":{"spec":{"containers":[
        {"name":"sidecar","image":"other"},
        {"name":"gateway","image":"gw:1","imagePullPolicy":"IfNotPresent",
         "env":[{"name":"B","value":"theirs"},{"name":"A","value":"1"}],
         "ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}]}]}}}})");
    CHECK(apply_drift(applied, live, "m") == std::nullopt);

    auto no_env = live;
    no_env["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[1].as_object().erase("env");
    CHECK(apply_drift(applied, no_env, "m") ==
          std::optional<std::string>(R"(.spec.template.spec.containers[name="gateway"].env: missing)"));

    auto other_value = live;
    other_value["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[1]
        .as_object()["env"].as_array()[1].as_object()["value"] = "2";
    CHECK(apply_drift(applied, other_value, "m") ==
          std::optional<std::string>(R"(.spec.template.spec.containers[name="gateway"].env[name="A"].value: "2", want "1")"));
}

TEST_CASE("sets must contain ours; atomic lists are ours whole, defaults inside tolerated") {
    const auto applied = obj(R"({"kind":"Widget","metadata":{"name":"w","finalizers":["a.io/x"]},
      "spec":{"items":[{"n":1},{"n":2}]}})");
    auto live = obj(R"({"kind":"Widget","metadata":{"name":"w","finalizers":["b.io/y","a.io/x"]},
      "spec":{"items":[{"n":1,"default":true},{"n":2,"default":true}]}})");
    CHECK(apply_drift(applied, live, "m") == std::nullopt);
    auto three = with(live, {"spec", "items"}, json::parse(R"([{"n":1},{"n":2},{"n":3}])"));
    CHECK(apply_drift(applied, three, "m") == std::optional<std::string>(".spec.items: 3 items, want 2"));
    auto fin = live;
    fin["metadata"].as_object()["finalizers"] = json::array{"b.io/y"};
    CHECK(apply_drift(applied, fin, "m") == std::optional<std::string>(R"(.metadata.finalizers: "a.io/x" missing)"));
}

TEST_CASE("null means not set by me; status and identity are never compared") {
    const auto applied = obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"x","uid":"u"},
      "data":{"k":"v","gone":null},"status":{"x":1}})");
    const auto live = obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"x","uid":"other"},
      "data":{"k":"v"}})");
    CHECK(apply_drift(applied, live, "m") == std::nullopt);
}

TEST_CASE("what our Apply entry owns and we no longer apply needs a write; other entries do not count") {
    const auto applied = obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"1"}},
      "data":{"k":"v"}})");
    auto live = obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"1"},
      "managedFields":[
        {"manager":"mine","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1",
         "fieldsV1":{"f:data":{"f:k":{},"f:old":{}},"f:metadata":{"f:labels":{"f:a":{}}}}},
        {"manager":"mine","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1",
         "fieldsV1":{"f:data":{"f:created":{}}}},
        {"manager":"someone","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1",
         "fieldsV1":{"f:data":{"f:theirs":{}}}}]},
      "data":{"k":"v","old":"x","created":"y","theirs":"z"}})");
    CHECK(apply_drift(applied, live, "mine") == std::optional<std::string>(".data.old: applied before, no longer"));
    CHECK(apply_drift(applied, live, "someone") == std::optional<std::string>(".data.theirs: applied before, no longer"));
    CHECK(apply_drift(applied, live, "nobody") == std::nullopt);
    // Once the apply dropped it, our entry no longer lists it.
    auto& entry = live["metadata"].as_object()["managedFields"].as_array()[0].as_object();
    entry["fieldsV1"].as_object()["f:data"].as_object().erase("f:old");
    CHECK(apply_drift(applied, live, "mine") == std::nullopt);
}

TEST_CASE("owned list-map items and set values are matched by their keys") {
    const auto applied = obj(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
      "spec":{"template":{"spec":{"containers":[{"name":"gateway","env":[{"name":"A","value":"1"}]}]}}}})");
    auto live = obj(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","managedFields":[
      {"manager":"op","operation":"Apply","fieldsV1":{"f:spec":{"f:template":{"f:spec":{"f:containers":{
        "k:{\"name\":\"gateway\"}":{".":{},"f:name":{},"f:env":{
          "k:{\"name\":\"A\"}":{".":{},"f:name":{},"f:value":{}},
          "k:{\"name\":\"B\"}":{".":{},"f:name":{},"f:value":{}}}}}}}}}}]},
      "spec":{"template":{"spec":{"containers":[{"name":"gateway","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}]}}}})");
    CHECK(apply_drift(applied, live, "op") ==
          std::optional<std::string>(R"(.spec.template.spec.containers[name="gateway"].env[name="B"]: applied before, no longer)"));
}

TEST_CASE("bad input never throws") {
    const auto applied = obj(R"({"kind":"Deployment","spec":{"template":{"spec":{"containers":[1,2]}}}})");
    const auto live = obj(R"({"kind":"Deployment","metadata":{"managedFields":[
      {"manager":"m","operation":"Apply","fieldsV1":{"k:{bad json":{},"f:spec":7}}, 5, {"manager":3}]},
      "spec":{"template":{"spec":{"containers":"x"}}}})");
    CHECK(apply_drift(applied, live, "m").has_value());
    CHECK(apply_drift(obj("{}"), obj("{}"), "m") == std::nullopt);
}

TEST_CASE("an item that took the place of ours (a key field edited) is removed, guarded; others' items stay") {
    // kubectl edit changed our port 8080 to 9090: ours is gone, theirs is named like ours.
    auto edited = with(live_service, {"spec", "ports"}, json::parse(R"([
        {"name":"metrics","port":9100,"protocol":"TCP"},
        {"name":"http","port":9090,"targetPort":8080,"protocol":"TCP"}])"));
    CHECK(apply_drift(applied_service, edited, "m") == std::optional<std::string>(".spec.ports[port=8080]: missing"));
    auto patch = kcoro::colliding_items_patch(applied_service, edited);
    REQUIRE(patch);
    CHECK(*patch == json::parse(R"([
        {"op":"test","path":"/spec/ports/1","value":{"name":"http","port":9090,"targetPort":8080,"protocol":"TCP"}},
        {"op":"replace","path":"/spec/ports/1","value":{"name":"http","port":8080,"targetPort":8080}}])"));
    // Nothing collides in the converged object, nor with an extra item named otherwise.
    CHECK_FALSE(kcoro::colliding_items_patch(applied_service, live_service));
    auto extra = with(live_service, {"spec", "ports"}, json::parse(R"([
        {"name":"http","port":8080,"targetPort":8080,"protocol":"TCP"},{"name":"metrics","port":9100,"protocol":"TCP"}])"));
    CHECK_FALSE(kcoro::colliding_items_patch(applied_service, extra));
}

TEST_CASE("collisions inside our containers: a container port whose number was edited") {
    const auto applied = obj(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
      "spec":{"template":{"spec":{"containers":[{"name":"gateway","image":"gw:1",
        "ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}]}]}}}})");
    const auto live = obj(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
      "spec":{"template":{"spec":{"containers":[{"name":"sidecar","ports":[{"name":"http","containerPort":1}]},
        {"name":"gateway","image":"gw:1","ports":[{"name":"http","containerPort":9090,"protocol":"TCP"}]}]}}}})");
    auto patch = kcoro::colliding_items_patch(applied, live);
    REQUIRE(patch);
    CHECK(patch->size() == 2);
    CHECK(patch->at(1) == json::parse(R"({"op":"replace","path":"/spec/template/spec/containers/1/ports/0",
                                           "value":{"name":"http","containerPort":8080,"protocol":"TCP"}})"));
}
