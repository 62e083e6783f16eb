// The pure parts of controller_helpers.hpp: ownership, drift, conditions,
// status equality, no-op writes. (The coroutines are exercised against
// kcoro-apiserver in test/integration/controller_test.cpp.)
#include <kcoro/runtime/controller_helpers.hpp>

#include <kcoro/core/json_merge_patch.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

namespace json = boost::json;
using namespace kcoro::runtime;

namespace {

json::object obj(std::string_view text) { return json::parse(text).as_object(); }

const json::object parent = obj(R"({"apiVersion":"v1","kind":"ConfigMap",
  "metadata":{"name":"demo","namespace":"default","uid":"uid-1","generation":3}})");

} // namespace

TEST_CASE("set_controller_reference adds once, refuses another controller, keeps other owners") {
    auto child = obj(R"({"metadata":{"name":"demo-observed","namespace":"default",
      "ownerReferences":[{"apiVersion":"v1","kind":"Secret","name":"s","uid":"other"}]}})");
    auto r = set_controller_reference(child, parent);
    REQUIRE(r);
    CHECK(*r);
    CHECK(kcoro::is_controlled_by(child, "uid-1"));
    CHECK(kcoro::owner_references_of(child).size() == 2);
    r = set_controller_reference(child, parent);
    REQUIRE(r);
    CHECK_FALSE(*r);

    auto foreign = obj(R"({"kind":"ConfigMap","metadata":{"name":"x","namespace":"default",
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"dep","controller":true}]}})");
    auto refused = set_controller_reference(foreign, parent);
    REQUIRE_FALSE(refused);
    CHECK(is_already_owned(refused.error()));
    CHECK(refused.error().message().find("Deployment controller d") != std::string::npos);
    CHECK(kcoro::owner_references_of(foreign).size() == 1);
}

TEST_CASE("drift: desired fields as a subset; the patch repairs only them, with a resourceVersion precondition") {
    auto desired = obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"demo-observed","namespace":"default",
      "labels":{"app.example.io/child":"true"}},"data":{"parentUID":"uid-1"}})");
    REQUIRE(set_controller_reference(desired, parent));
    auto current = desired;
    current["metadata"].as_object()["resourceVersion"] = "42";
    current["metadata"].as_object()["labels"].as_object()["extra"] = "kept";
    current["data"].as_object()["other"] = "kept";
    CHECK(matches_desired(current, desired));

    current["data"].as_object()["parentUID"] = "wrong";
    current["metadata"].as_object()["labels"].as_object().erase("app.example.io/child");
    CHECK_FALSE(matches_desired(current, desired));
    auto patch = make_drift_patch(current, desired);
    CHECK(patch.at("metadata").at("resourceVersion") == "42");
    CHECK(patch.at("data").at("parentUID") == "uid-1");
    CHECK_FALSE(patch.at("data").as_object().contains("other"));
    auto repaired = kcoro::apply_merge_patch(current, patch);
    CHECK(matches_desired(repaired.as_object(), desired));
    CHECK(repaired.at("data").at("other") == "kept");
    CHECK(repaired.at("metadata").at("labels").at("extra") == "kept");
}

TEST_CASE("set_status_condition: observedGeneration filled, lastTransitionTime only on a real change") {
    auto o = parent;
    const auto t1 = kcoro::wall_time{} + std::chrono::hours(24 * 365 * 56);
    condition c{"Ready", "True", "Reconciled", "ok", 0};
    CHECK(set_status_condition(o, c, t1));
    CHECK(o.at("status").at("observedGeneration") == 3);
    const auto* cs = conditions_of(o);
    REQUIRE(cs);
    auto ltt = find_condition(*cs, "Ready")->at("lastTransitionTime");
    CHECK(find_condition(*cs, "Ready")->at("observedGeneration") == 3);
    CHECK_FALSE(set_status_condition(o, c, t1 + std::chrono::hours(1)));
    c.message = "still ok";
    CHECK(set_status_condition(o, c, t1 + std::chrono::hours(1)));
    CHECK(find_condition(*conditions_of(o), "Ready")->at("lastTransitionTime") == ltt);
    c.status = "False";
    CHECK(set_status_condition(o, c, t1 + std::chrono::hours(2)));
    CHECK(find_condition(*conditions_of(o), "Ready")->at("lastTransitionTime") != ltt);
}

TEST_CASE("status_equal and is_noop_write") {
    auto o = obj(R"({"metadata":{"resourceVersion":"7"},"status":{"a":1,"b":[1,2]}})");
    CHECK(status_equal(o, json::parse(R"({"b":[1,2],"a":1.0})")));
    CHECK_FALSE(status_equal(o, json::parse(R"({"a":1})")));
    CHECK(status_equal(obj("{}"), json::object{}));
    CHECK(is_noop_write(o, obj(R"({"metadata":{"resourceVersion":"7"}})")));
    CHECK_FALSE(is_noop_write(o, obj(R"({"metadata":{"resourceVersion":"8"}})")));
    CHECK(to_string(write_op::patched) == "patched");
}

TEST_CASE("json_subset: lists item by item, in order, defaults inside items tolerated") {
    auto v = [](std::string_view t) { return boost::json::parse(t); };
    CHECK(json_subset(v(R"([{"port":80}])"), v(R"([{"port":80,"protocol":"TCP"}])")));
    CHECK_FALSE(json_subset(v(R"([{"port":80}])"), v(R"([{"port":81,"protocol":"TCP"}])")));
    CHECK_FALSE(json_subset(v(R"([{"port":80}])"), v(R"([{"port":80},{"port":81}])")));  // an extra item
    CHECK_FALSE(json_subset(v(R"([1,2])"), v(R"([2,1])")));
    CHECK(json_subset(v(R"({"a":[1,2],"b":null})"), v(R"({"a":[1,2],"c":3})")));
    CHECK(matches_desired(obj(R"({"spec":{"ports":[{"port":80,"protocol":"TCP","targetPort":80}]}})"),
                          obj(R"({"spec":{"ports":[{"port":80}]}})")));
}
