#include "server_side_apply.hpp"

#include <kcoro/core/object.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <chrono>

using namespace kcoro;
using namespace kcoro::apiserver;
namespace json = boost::json;

namespace {

json::object o(std::string_view s) { return json::parse(s).as_object(); }

wall_time at(int seconds) {
    // 2026-01-02T03:04:05Z + seconds
    return wall_time{std::chrono::seconds{1767323045 + seconds}};
}

const json::object* entry(const json::object& obj, std::string_view manager, std::string_view op) {
    const auto* mf = managed_fields_of(obj);
    if (!mf || !mf->is_array()) return nullptr;
    for (const auto& e : mf->get_array()) {
        const auto& eo = e.get_object();
        if (eo.at("manager").as_string() == manager && eo.at("operation").as_string() == op) return &eo;
    }
    return nullptr;
}

std::string fields(const json::object& obj, std::string_view manager, std::string_view op) {
    const auto* e = entry(obj, manager, op);
    return e ? json::serialize(e->at("fieldsV1")) : "<none>";
}

json::object apply_ok(const json::object& live, std::string_view cfg, std::string manager, bool force = false, int t = 0) {
    auto r = server_side_apply(live, o(cfg), apply_options{std::move(manager), force, at(t)});
    REQUIRE_MESSAGE(r.has_value(), (r.has_value() ? "" : r.error().message()));
    return *r;
}

// A created Deployment, as the store records a create by `manager` at t=0.
json::object created(std::string_view body, std::string manager) {
    auto obj = update_managed_fields({}, o(body), update_options{std::move(manager), managed_operation::update, at(0)});
    mutable_metadata(obj)["uid"] = "u-1";
    return obj;
}

constexpr std::string_view deploy_replicas_1 =
    R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},"spec":{"replicas":1}})";

} // namespace

TEST_CASE("FieldsV1 is encoded as the real server writes it") {
    auto pod = o(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"d","uid":"x","labels":{"app":"x"}},
      "spec":{"containers":[{"name":"web","image":"nginx"}]}})");
    auto s = fields_of(pod, builtin_list_strategies("Pod"));
    CHECK(json::serialize(to_fields_v1(s)) ==
          R"({"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{}}}}})");
    CHECK(from_fields_v1(to_fields_v1(s)) == s);
}

TEST_CASE("sets of primitives use v:, atomic lists are one leaf, multi-key items sort their keys") {
    auto svc = o(R"({"kind":"Service","metadata":{"finalizers":["a","b"]},
      "spec":{"ports":[{"protocol":"TCP","port":80}],"externalIPs":["1.2.3.4"]}})");
    auto s = fields_of(svc, builtin_list_strategies("Service"));
    CHECK(json::serialize(to_fields_v1(s)) ==
          R"({"f:metadata":{"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}}},)"
          R"("f:spec":{"f:externalIPs":{},"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{},"f:protocol":{}}}}})");
    CHECK(from_fields_v1(to_fields_v1(s)) == s);
    CHECK(to_string({"f:spec", "f:ports", R"(k:{"port":80,"protocol":"TCP"})", "f:port"}) ==
          R"(.spec.ports[port=80,protocol="TCP"].port)");
    CHECK(to_string({"f:metadata", "f:finalizers", R"(v:"a")"}) == R"(.metadata.finalizers[="a"])");
}

TEST_CASE("default field manager from the user agent") {
    CHECK(field_manager_or_user_agent("", "kubectl/v1.30.0 (linux/amd64) kubernetes/abc") == "kubectl");
    CHECK(field_manager_or_user_agent("mine", "kubectl/v1.30.0") == "mine");
    CHECK(field_manager_or_user_agent("", "kcoro") == "kcoro");
    CHECK(field_manager_or_user_agent("", "a\x01" "b/1") == "ab");
    CHECK(field_manager_or_user_agent("", std::string(300, 'x')).size() == 128);
}

TEST_CASE("apply creates a missing object and records an Apply entry") {
    auto obj = apply_ok({}, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"1"}},"data":{"k":"v"}})",
                        "kcoro");
    CHECK(obj.at("data").at("k") == "v");
    const auto* e = entry(obj, "kcoro", "Apply");
    REQUIRE(e);
    CHECK(e->at("apiVersion") == "v1");
    CHECK(e->at("time") == "2026-01-02T03:04:05Z");
    CHECK(e->at("fieldsType") == "FieldsV1");
    CHECK(fields(obj, "kcoro", "Apply") == R"({"f:data":{"f:k":{}},"f:metadata":{"f:labels":{"f:a":{}}}})");
}

TEST_CASE("apply without a field manager is 422 as the real server words it") {
    auto r = server_side_apply({}, o(R"({"apiVersion":"v1","kind":"ConfigMap"})"), apply_options{});
    REQUIRE_FALSE(r.has_value());
    REQUIRE(r.error().api_status());
    CHECK(r.error().api_status()->code == 422);
    CHECK(r.error().api_status()->message ==
          R"(PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch)");
}

TEST_CASE("two managers on disjoint fields both keep theirs") {
    auto obj = apply_ok({}, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"1"}}})", "m1");
    mutable_metadata(obj)["uid"] = "u";
    obj = apply_ok(obj, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"b":"2"}}})", "m2", false, 1);
    CHECK(json::serialize(obj.at("metadata").at("labels")) == R"({"a":"1","b":"2"})");
    CHECK(fields(obj, "m1", "Apply") == R"({"f:metadata":{"f:labels":{"f:a":{}}}})");
    CHECK(fields(obj, "m2", "Apply") == R"({"f:metadata":{"f:labels":{"f:b":{}}}})");
    // re-applying without `b` by m2 removes it; m1's label stays
    obj = apply_ok(obj, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})", "m2", false, 2);
    CHECK(json::serialize(obj.at("metadata").at("labels")) == R"({"a":"1"})");
    CHECK_FALSE(entry(obj, "m2", "Apply"));  // empty entries are removed
}

TEST_CASE("a conflict names the field and the manager exactly") {
    auto live = created(deploy_replicas_1, "kubectl-client-side-apply");
    auto r = server_side_apply(live, o(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":3}})"),
                               apply_options{"ctrl", false, at(5)});
    REQUIRE_FALSE(r.has_value());
    const auto* s = r.error().api_status();
    REQUIRE(s);
    CHECK(is_conflict(r.error()));
    CHECK(s->code == 409);
    CHECK(s->reason == "Conflict");
    CHECK(s->message ==
          R"(Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas)");
    REQUIRE(s->details);
    REQUIRE(s->details->causes.size() == 1);
    CHECK(s->details->causes[0].type == "FieldManagerConflict");
    CHECK(s->details->causes[0].field == ".spec.replicas");
    CHECK(s->details->causes[0].message ==
          R"(conflict with "kubectl-client-side-apply" using apps/v1)");
}

TEST_CASE("several conflicts: grouped by manager, sorted") {
    auto live = apply_ok({}, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"app":"a"}}})", "bar");
    mutable_metadata(live)["uid"] = "u";
    live = update_managed_fields(live, [&] { auto n = live; n["data"] = json::object{{"x", "1"}}; return n; }(),
                                 update_options{"foo", managed_operation::update, at(1)});
    auto r = server_side_apply(live, o(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"app":"b"}},"data":{"x":"2"}})"),
                               apply_options{"me", false, at(2)});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->message ==
          "Apply failed with 2 conflicts: conflicts with \"bar\":\n- .metadata.labels.app\n"
          "conflicts with \"foo\" using v1:\n- .data.x");
    CHECK(r.error().api_status()->details->causes.size() == 2);
}

TEST_CASE("applying the value another manager set shares ownership, no conflict") {
    auto live = created(deploy_replicas_1, "kubectl-client-side-apply");
    auto obj = apply_ok(live, R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":1}})", "ctrl");
    CHECK(fields(obj, "ctrl", "Apply") == R"({"f:spec":{"f:replicas":{}}})");
    CHECK(fields(obj, "kubectl-client-side-apply", "Update") == R"({"f:spec":{"f:replicas":{}}})");
    // and when the applier drops it, the shared owner keeps the value
    obj = apply_ok(obj, R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"}})", "ctrl", false, 1);
    CHECK(obj.at("spec").at("replicas") == 1);
}

TEST_CASE("force takes ownership") {
    auto live = created(deploy_replicas_1, "kubectl-client-side-apply");
    auto obj = apply_ok(live, R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":3}})",
                        "ctrl", true, 7);
    CHECK(obj.at("spec").at("replicas") == 3);
    CHECK(fields(obj, "ctrl", "Apply") == R"({"f:spec":{"f:replicas":{}}})");
    CHECK_FALSE(entry(obj, "kubectl-client-side-apply", "Update"));  // it owned nothing else
    CHECK(entry(obj, "ctrl", "Apply")->at("time") == "2026-01-02T03:04:12Z");
}

TEST_CASE("dropping a list item keeps it when another manager owns a field inside") {
    constexpr std::string_view two = R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
      "spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx"},{"name":"side","image":"envoy"}]}}}})";
    auto obj = apply_ok({}, two, "ctrl");
    mutable_metadata(obj)["uid"] = "u";
    CHECK(fields(obj, "ctrl", "Apply").find(R"(k:{\"name\":\"side\"}":{".":{},"f:image":{},"f:name":{}})") != std::string::npos);
    // another writer adds env to "side"
    auto edited = obj;
    edited["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[1].as_object()["env"] =
        json::array{json::object{{"name", "A"}, {"value", "1"}}};
    obj = update_managed_fields(obj, edited, update_options{"kubectl-edit", managed_operation::update, at(1)});
    CHECK(fields(obj, "kubectl-edit", "Update") ==
          R"({"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"side\"}":{"f:env":{"k:{\"name\":\"A\"}":{".":{},"f:name":{},"f:value":{}}}}}}}}})");
    // ctrl stops applying "side": the item stays (someone owns a field in it), its image goes
    obj = apply_ok(obj, R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
      "spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx"}]}}}})", "ctrl", false, 2);
    const auto& cs = obj.at("spec").at("template").at("spec").at("containers").as_array();
    REQUIRE(cs.size() == 2);
    CHECK(cs[1].at("name") == "side");
    CHECK_FALSE(cs[1].as_object().contains("image"));
    CHECK(cs[1].as_object().contains("env"));
}

TEST_CASE("a dropped list item nobody else owns is removed; containers merge by name") {
    auto obj = apply_ok({}, R"({"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"2"}]}})", "m");
    obj = apply_ok(obj, R"({"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"b","image":"3"}]}})", "m", false, 1);
    CHECK(json::serialize(obj.at("spec").at("containers")) == R"([{"name":"b","image":"3"}])");
}

TEST_CASE("managedFields after an Update: the writer owns what it changed") {
    auto obj = created(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"1"}},"data":{"k":"v"}})",
                       "kubectl-create");
    // an Update that adds a map owns the map too ("."), as the real server records it
    CHECK(fields(obj, "kubectl-create", "Update") == R"({"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:a":{}}}})");
    auto next = obj;
    next["data"].as_object()["k"] = "v2";
    next["data"].as_object()["n"] = "new";
    obj = update_managed_fields(obj, next, update_options{"kubectl-edit", managed_operation::update, at(30)});
    CHECK(fields(obj, "kubectl-edit", "Update") == R"({"f:data":{"f:k":{},"f:n":{}}})");
    CHECK(fields(obj, "kubectl-create", "Update") == R"({"f:data":{},"f:metadata":{"f:labels":{".":{},"f:a":{}}}})");
    CHECK(entry(obj, "kubectl-edit", "Update")->at("time") == "2026-01-02T03:04:35Z");
    // entries are sorted by time (both Update)
    const auto& mf = managed_fields_of(obj)->as_array();
    REQUIRE(mf.size() == 2);
    CHECK(mf[0].at("manager") == "kubectl-create");
    // a no-op update does not touch the time
    auto same = update_managed_fields(obj, obj, update_options{"kubectl-edit", managed_operation::update, at(99)});
    CHECK(entry(same, "kubectl-edit", "Update")->at("time") == "2026-01-02T03:04:35Z");
    // removing a field takes it from its owner
    auto removed = obj;
    removed["data"].as_object().erase("n");
    obj = update_managed_fields(obj, removed, update_options{"other", managed_operation::update, at(40)});
    CHECK(fields(obj, "kubectl-edit", "Update") == R"({"f:data":{"f:k":{}}})");
    CHECK_FALSE(entry(obj, "other", "Update"));
}

TEST_CASE("an existing untracked object: updates stay untracked, apply attributes to before-first-apply") {
    auto live = o(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","uid":"u"},"data":{"a":"1"}})");
    auto upd = live;
    upd["data"].as_object()["b"] = "2";
    CHECK_FALSE(managed_fields_of(update_managed_fields(live, upd, update_options{"x", managed_operation::update, at(0)})));
    auto obj = apply_ok(live, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"b":"2"}})", "m");
    CHECK(fields(obj, "before-first-apply", "Update") == R"({"f:data":{".":{},"f:a":{}}})");
    CHECK(fields(obj, "m", "Apply") == R"({"f:data":{"f:b":{}}})");
    // changing a before-first-apply field is a conflict
    auto r = server_side_apply(obj, o(R"({"apiVersion":"v1","kind":"ConfigMap","data":{"a":"9"}})"), apply_options{"m", false, at(1)});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->details->causes[0].field == ".data.a");
}

TEST_CASE("more than 10 Update managers: the oldest merge into ancient-changes") {
    auto obj = created(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"m0":"x"}})", "m0");
    for (int i = 1; i <= 11; ++i) {
        auto next = obj;
        next["data"].as_object()["m" + std::to_string(i)] = "x";
        obj = update_managed_fields(obj, next, update_options{"m" + std::to_string(i), managed_operation::update, at(i)});
    }
    const auto& mf = managed_fields_of(obj)->as_array();
    CHECK(mf.size() == 10);
    CHECK(fields(obj, "ancient-changes", "Update") == R"({"f:data":{".":{},"f:m0":{},"f:m1":{},"f:m2":{}}})");
    CHECK_FALSE(entry(obj, "m0", "Update"));
    CHECK(entry(obj, "m11", "Update"));
}

TEST_CASE("status scope: the main endpoint does not own status") {
    auto obj = update_managed_fields({}, o(R"({"apiVersion":"v1","kind":"X","spec":{"a":1},"status":{"s":1}})"),
                                     update_options{"m", managed_operation::update, at(0), field_scope::main_without_status});
    CHECK(fields(obj, "m", "Update") == R"({"f:spec":{"f:a":{}}})");
    auto next = obj;
    next["status"].as_object()["s"] = 2;
    obj = update_managed_fields(obj, next, update_options{"ctl", managed_operation::update, at(1), field_scope::status_subresource});
    const auto* e = entry(obj, "ctl", "Update");
    REQUIRE(e);
    CHECK(e->at("subresource") == "status");
    CHECK(json::serialize(e->at("fieldsV1")) == R"({"f:status":{"f:s":{}}})");
}

TEST_CASE("client-written managedFields with nonsense paths never break apply") {
    auto live = o(R"({"apiVersion":"v1","kind":"Service","metadata":{"uid":"u","managedFields":[
        {"manager":"m","operation":"Apply","fieldsV1":{"f:spec":{"f:ports":{"k:{\"port\":80}":{".":{},"f":{},"x":{}},"k:nope":{}}},"":{}}},
        {"manager":7},{"operation":"Bogus"}]},"spec":{"ports":[{"port":80,"name":"a"},{"port":81}]}})");
    // undecodable entries read as "no managedFields": the object counts as untracked
    CHECK_FALSE(decode_managed_fields(live).has_value());
    auto& mf = live["metadata"].as_object()["managedFields"].as_array();
    mf.erase(mf.begin() + 1, mf.end());
    REQUIRE(decode_managed_fields(live).has_value());
    auto obj = apply_ok(live, R"({"apiVersion":"v1","kind":"Service","spec":{"ports":[{"port":81}]}})", "m");
    // the item m no longer applies is pruned; nonsense elements are ignored
    CHECK(json::serialize(obj.at("spec").at("ports")) == R"([{"port":81}])");
}

TEST_CASE("apply rejects managedFields in the configuration and a wrong apiVersion (400)") {
    auto live = created(deploy_replicas_1, "kubectl-create");
    auto r = server_side_apply(live, o(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"managedFields":[]}})"),
                               apply_options{"m", false, at(1)});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 400);
    CHECK(r.error().api_status()->message == "metadata.managedFields must be nil");
    r = server_side_apply(live, o(R"({"apiVersion":"apps/v1beta1","kind":"Deployment"})"), apply_options{"m", false, at(1)});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 400);
    CHECK(r.error().api_status()->message ==
          "Incorrect version specified in apply patch. Specified patch version: apps/v1beta1, expected: apps/v1");
}

TEST_CASE("managers are manager + operation: fields an Update of M wrote conflict with an Apply by M") {
    // fieldmanager/internal BuildManagerIdentifier keys the managers by
    // manager, operation (and apiVersion for Update): "kcoro" Update and
    // "kcoro" Apply are two managers. So `create` then `apply` of a changed
    // field by the same program is a 409.
    auto live = created(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"value":"one"}})", "kcoro");
    auto r = server_side_apply(live, o(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"value":"two"}})"),
                               apply_options{"kcoro", false, at(1)});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->message == R"(Apply failed with 1 conflict: conflict with "kcoro" using v1: .data.value)");
    // The same value is shared, no conflict; force takes it over.
    CHECK(server_side_apply(live, o(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"value":"one"}})"),
                            apply_options{"kcoro", false, at(1)}).has_value());
    auto forced = apply_ok(live, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"value":"two"}})", "kcoro", true, 2);
    CHECK(fields(forced, "kcoro", "Apply") == R"({"f:data":{"f:value":{}}})");
    // the Update keeps the map it created, not the value
    CHECK(fields(forced, "kcoro", "Update") == R"({"f:data":{}})");
}

TEST_CASE("the manager of a write without fieldManager is the User-Agent up to its first '/'") {
    CHECK(field_manager_or_user_agent("", "kubectl/v1.33.0 (linux/amd64) kubernetes/abc") == "kubectl");
    CHECK(field_manager_or_user_agent("", "kcoro/0.1.0") == "kcoro");
    CHECK(field_manager_or_user_agent("", "curl 8.0") == "curl 8.0");  // no '/': the whole agent
    CHECK(field_manager_or_user_agent("mine", "kubectl/v1") == "mine");
    CHECK(field_manager_or_user_agent("", std::string(200, 'a')).size() == 128);
}

TEST_CASE("client-written managedFields owning kind or metadata.name never prune them") {
    // Regression (libFuzzer, server_side_apply): kind was in the manager's
    // last set, never in the new one (stripped), so the apply removed it.
    auto live = o(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","uid":"u","managedFields":[
        {"manager":"m","operation":"Apply","fieldsV1":{"f:kind":{},"f:metadata":{"f:name":{}},"f:data":{"f:a":{}}}}]},
        "data":{"a":"1"}})");
    auto obj = apply_ok(live, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"b":"2"}})", "m");
    CHECK(obj.at("kind") == "ConfigMap");
    CHECK(name_of(obj) == "c");
    CHECK(json::serialize(obj.at("data")) == R"({"b":"2"})");  // what m stopped applying goes
}

TEST_CASE("lists merge as the live object's kind says, whatever kind the configuration names") {
    // Regression (libFuzzer): a configuration naming another kind read the
    // live Service's keyed ports as atomic and pruned the item it applied.
    auto live = apply_ok(o(R"({"apiVersion":"v1","kind":"Service","metadata":{"uid":"u"}})"),
                         R"({"apiVersion":"v1","kind":"Service","spec":{"ports":[{"port":80},{"port":81}]}})", "m");
    auto obj = apply_ok(live, R"({"apiVersion":"v1","kind":"Servic","spec":{"ports":[{"port":80}]}})", "m");
    CHECK(json::serialize(obj.at("spec").at("ports")) == R"([{"port":80}])");
}

TEST_CASE("duplicate keys in an applied list are refused as the real server's typed conversion does (500)") {
    // structuredmerge.go: "Don't allow duplicates in the applied object".
    auto r = server_side_apply(json::object{},
                               o(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"d",
                                     "ownerReferences":[{"uid":"1"},{"uid":"1","name":"x"}],"finalizers":["f","f"]}})"),
                               apply_options{"m", true, at(0)});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().api_status()->code == 500);
    CHECK(r.error().api_status()->message ==
          "failed to create typed patch object (d/p; /v1, Kind=Pod): errors:\n"
          "  .metadata.ownerReferences: duplicate entries for key [uid=\"1\"]\n"
          "  .metadata.finalizers: duplicate entries for key [=\"f\"]");
    // Duplicates in the live object are tolerated (typed.AllowDuplicates).
    auto live = o(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","ownerReferences":[{"uid":"1"},{"uid":"1"}]}})");
    CHECK(server_side_apply(live, o(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}}})"),
                            apply_options{"m", true, at(0)})
              .has_value());
}

TEST_CASE("a list this apply owns as a whole keeps what was applied: no pruning inside it") {
    // Regression (libFuzzer, server_side_apply): the live object's kind has
    // no list strategy (ports is atomic there) while the manager's last set,
    // written by a client, owned keyed items of it; pruning those items
    // emptied the atomic list just applied, and re-applying changed it.
    auto live = o(R"({"apiVersion":"v1","kind":"Widget","metadata":{"uid":"u","managedFields":[
        {"manager":"m","operation":"Apply","fieldsV1":{"f:spec":{"f:ports":{"k:{\"port\":80}":{".":{}}}}}}]},
        "spec":{"ports":[{"port":280,"name":"a"},{"port":80}]}})");
    const auto cfg = R"({"apiVersion":"v1","kind":"Widget","spec":{"ports":[{"port":80}]}})";
    auto once = apply_ok(live, cfg, "m", true);
    CHECK(json::serialize(once.at("spec").at("ports")) == R"([{"port":80}])");
    auto twice = apply_ok(once, cfg, "m", true);
    CHECK(twice.at("spec") == once.at("spec"));
}

TEST_CASE("a path a client wrote that does not address an item as its list does prunes nothing") {
    // Regression (libFuzzer, server_side_apply, this stop): Service ports is
    // a list-map (keys port, protocol). The manager's last set, written by a
    // client, held a set-value element "v:{\"port\":81}" and an empty key
    // "k:{}"; pruning them removed the item the apply had just added (and
    // with "k:{}" every item), so re-applying changed the object.
    // structured-merge-diff addresses a list-map item by its whole key only.
    for (const auto* stale : {R"("v:{\"port\":81}":{".":{}})", R"("k:{}":{".":{}})", R"("k:{\"protocol\":\"TCP\"}":{".":{}})"}) {
        CAPTURE(stale);
        auto live = o(std::string(R"({"apiVersion":"v1","kind":"Service","metadata":{"uid":"u","managedFields":[
            {"manager":"m","operation":"Apply","fieldsV1":{"f:spec":{"f:ports":{)") + stale + R"(}}}}]},
            "spec":{"ports":[{"port":80,"name":"a","protocol":"TCP"}]}})");
        const auto cfg = R"({"apiVersion":"v1","kind":"Service","spec":{"ports":[{"port":81}]}})";
        auto once = apply_ok(live, cfg, "m", true);
        CHECK(json::serialize(once.at("spec").at("ports")) == R"([{"port":80,"name":"a","protocol":"TCP"},{"port":81}])");
        auto twice = apply_ok(once, cfg, "m", true);
        CHECK(twice.at("spec") == once.at("spec"));
    }
    // The item's whole key still addresses it: the manager stops applying it, it goes.
    auto live = o(R"({"apiVersion":"v1","kind":"Service","metadata":{"uid":"u","managedFields":[
        {"manager":"m","operation":"Apply","fieldsV1":{"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{},"f:protocol":{}}}}}}]},
        "spec":{"ports":[{"port":80,"protocol":"TCP"}]}})");
    auto moved = apply_ok(live, R"({"apiVersion":"v1","kind":"Service","spec":{"ports":[{"port":81,"protocol":"TCP"}]}})", "m", true);
    CHECK(json::serialize(moved.at("spec").at("ports")) == R"([{"port":81,"protocol":"TCP"}])");
}
