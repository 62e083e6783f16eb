// object_store: delete, finalizers, propagation policies, garbage collection
// and the namespace controller.
#include "store/object_store.hpp"

#include "store_test_support.hpp"

#include <doctest/doctest.h>

using namespace kcoro;
using namespace kcoro::apiserver;
using namespace kcoro::apiserver::test;
namespace json = boost::json;

namespace {

// Runs gc_step until it reports no work (bounded).
int settle(object_store& s, int max_rounds = 50) {
    int rounds = 0;
    while (rounds < max_rounds && s.gc_step(t0())) ++rounds;
    return rounds;
}

json::object with_owner(json::object o, const json::object& owner, bool block = false) {
    auto ref = make_controller_reference(owner);
    ref.block_owner_deletion = block;
    ref.controller = false;
    mutable_metadata(o)["ownerReferences"] = json::array{to_json(ref)};
    return o;
}

} // namespace

TEST_CASE("delete without finalizers removes the object and answers a Success Status") {
    object_store s;
    auto c = s.create(ctx_at(), resources::configmaps(), "default", configmap("x"));
    REQUIRE(c);
    auto d = s.remove(ctx_at(), resources::configmaps(), "default", "x");
    REQUIRE(d);
    CHECK(d->deleted);
    CHECK(d->body.at("kind") == "Status");
    CHECK(d->body.at("status") == "Success");
    CHECK(str_at(d->body, {"details", "uid"}) == uid_of(*c));
    CHECK(str_at(d->body, {"details", "kind"}) == "configmaps");
    CHECK(is_not_found(s.get(resources::configmaps(), "default", "x").error()));
    auto again = s.remove(ctx_at(), resources::configmaps(), "default", "x");
    REQUIRE_FALSE(again);
    CHECK(is_not_found(again.error()));
}

TEST_CASE("finalizers: delete marks, the object stays until the last finalizer goes") {
    object_store s;
    auto body = configmap("x");
    add_finalizer(body, "example.com/a");
    add_finalizer(body, "example.com/b");
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", body));
    auto later = t0() + std::chrono::seconds(30);
    auto d = s.remove(ctx_at(later), resources::configmaps(), "default", "x");
    REQUIRE(d);
    CHECK_FALSE(d->deleted);
    CHECK(deletion_timestamp_of(d->body) == format_rfc3339(later));
    CHECK(find_path(d->body, {"metadata", "deletionGracePeriodSeconds"})->as_int64() == 0);
    auto cur = *s.get(resources::configmaps(), "default", "x");
    remove_finalizer(cur, "example.com/a");
    auto u = s.update(ctx_at(), resources::configmaps(), "default", "x", cur);
    REQUIRE(u);
    CHECK(s.get(resources::configmaps(), "default", "x"));
    remove_finalizer(cur = *u, "example.com/b");
    auto last = s.update(ctx_at(), resources::configmaps(), "default", "x", cur);
    REQUIRE(last);
    CHECK(is_not_found(s.get(resources::configmaps(), "default", "x").error()));
}

TEST_CASE("no new finalizers once deleting: 422 with the real cause") {
    object_store s;
    auto body = configmap("x");
    add_finalizer(body, "example.com/a");
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", body));
    REQUIRE(s.remove(ctx_at(), resources::configmaps(), "default", "x"));
    auto cur = *s.get(resources::configmaps(), "default", "x");
    add_finalizer(cur, "example.com/new");
    auto r = s.update(ctx_at(), resources::configmaps(), "default", "x", cur);
    REQUIRE_FALSE(r);
    CHECK(is_invalid(r.error()));
    const auto& causes = r.error().api_status()->details->causes;
    REQUIRE(causes.size() == 1);
    CHECK(causes[0].type == "FieldValueForbidden");
    CHECK(causes[0].field == "metadata.finalizers");
    CHECK(causes[0].message ==
          "Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers "
          "[]string{\"example.com/new\"}");
}

TEST_CASE("deleting bumps generation once for generational kinds") {
    object_store s;
    auto dep = obj(R"({"metadata":{"name":"d","finalizers":["example.com/f"]},
        "spec":{"selector":{"matchLabels":{"app":"d"}},
                "template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"nginx:1"}]}}}})");
    auto c = s.create(ctx_at(), resources::deployments(), "default", dep);
    REQUIRE(c);
    CHECK(generation_of(*c) == 1);
    auto d = s.remove(ctx_at(), resources::deployments(), "default", "d");
    REQUIRE(d);
    CHECK(generation_of(d->body) == 2);
    auto d2 = s.remove(ctx_at(), resources::deployments(), "default", "d");
    REQUIRE(d2);
    CHECK(generation_of(d2->body) == 2);
}

TEST_CASE("delete preconditions: uid and resourceVersion mismatches are 409") {
    object_store s;
    auto c = s.create(ctx_at(), resources::configmaps(), "default", configmap("x"));
    REQUIRE(c);
    delete_options o;
    o.precondition_uid = "wrong";
    auto r = s.remove(ctx_at(), resources::configmaps(), "default", "x", o);
    REQUIRE_FALSE(r);
    CHECK(is_conflict(r.error()));
    // rest.BeforeDelete names the object by Kind, not by resource.
    CHECK(status_message(r.error()) ==
          "Operation cannot be fulfilled on ConfigMap \"x\": the UID in the precondition (wrong) does not match the "
          "UID in record (" + std::string(uid_of(*c)) + "). The object might have been deleted and then recreated");
    REQUIRE(r.error().api_status()->details);
    CHECK(r.error().api_status()->details->kind == "ConfigMap");
    delete_options o2;
    o2.precondition_resource_version = "1";
    auto r2 = s.remove(ctx_at(), resources::configmaps(), "default", "x", o2);
    REQUIRE_FALSE(r2);
    CHECK(is_conflict(r2.error()));
    CHECK(status_message(r2.error()) ==
          "Operation cannot be fulfilled on ConfigMap \"x\": the ResourceVersion in the precondition (1) does not "
          "match the ResourceVersion in record (" + std::string(resource_version_of(*c)) +
              "). The object might have been modified");
    // Namespaces check their preconditions in their own registry, with the storage wording.
    delete_options o3;
    o3.precondition_resource_version = "1";
    auto r3 = s.remove(ctx_at(), resources::namespaces(), "", "kcoro-system", o3);
    REQUIRE_FALSE(r3);
    CHECK(status_message(r3.error()).starts_with(
        "Operation cannot be fulfilled on namespaces \"kcoro-system\": Precondition failed: ResourceVersion in "
        "precondition: 1, ResourceVersion in object meta: "));
    delete_options ok;
    ok.precondition_uid = std::string(uid_of(*c));
    ok.precondition_resource_version = std::string(resource_version_of(*c));
    CHECK(s.remove(ctx_at(), resources::configmaps(), "default", "x", ok));
}

TEST_CASE("DeleteOptions decoding") {
    auto o = delete_options::from_json(obj(R"({"kind":"DeleteOptions","propagationPolicy":"Foreground",
        "preconditions":{"uid":"u","resourceVersion":"7"},"gracePeriodSeconds":0})"));
    REQUIRE(o);
    CHECK(o->propagation_policy == propagation::foreground);
    CHECK(o->precondition_uid == "u");
    CHECK(o->precondition_resource_version == "7");
    CHECK(o->grace_period_seconds == 0);
    auto bad = delete_options::from_json(obj(R"({"propagationPolicy":"Sideways"})"));
    REQUIRE_FALSE(bad);
    CHECK(bad.error().http_code() == 400);
}

TEST_CASE("background: dependents of a deleted owner are collected") {
    object_store s;
    auto owner = s.create(ctx_at(), resources::configmaps(), "default", configmap("owner"));
    REQUIRE(owner);
    REQUIRE(s.create(ctx_at(), resources::secrets(), "default", with_owner(obj(R"({"metadata":{"name":"dep"}})"), *owner)));
    CHECK_FALSE(s.gc_step(t0()));  // owner alive: nothing to do
    REQUIRE(s.remove(ctx_at(), resources::configmaps(), "default", "owner"));
    CHECK(s.get(resources::secrets(), "default", "dep"));  // GC is asynchronous
    settle(s);
    CHECK(is_not_found(s.get(resources::secrets(), "default", "dep").error()));
}

TEST_CASE("an owner reference to an object that never existed is collected") {
    object_store s;
    auto dep = obj(R"({"metadata":{"name":"dep","ownerReferences":[
        {"apiVersion":"v1","kind":"ConfigMap","name":"ghost","uid":"00000000-0000-0000-0000-000000000000"}]}})");
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", dep));
    settle(s);
    CHECK(is_not_found(s.get(resources::configmaps(), "default", "dep").error()));
}

TEST_CASE("a dangling reference next to a live owner is removed, the dependent kept") {
    object_store s;
    auto owner = s.create(ctx_at(), resources::configmaps(), "default", configmap("owner"));
    REQUIRE(owner);
    auto dep = with_owner(configmap("dep"), *owner);
    mutable_metadata(dep)["ownerReferences"].as_array().push_back(
        obj(R"({"apiVersion":"v1","kind":"ConfigMap","name":"ghost","uid":"gone"})"));
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", dep));
    settle(s);
    auto d = s.get(resources::configmaps(), "default", "dep");
    REQUIRE(d);
    auto refs = owner_references_of(*d);
    REQUIRE(refs.size() == 1);
    CHECK(refs[0].uid == uid_of(*owner));
}

TEST_CASE("orphan: owner references are removed, dependents kept, then the owner goes") {
    object_store s;
    auto owner = s.create(ctx_at(), resources::configmaps(), "default", configmap("owner"));
    REQUIRE(owner);
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", with_owner(configmap("dep"), *owner)));
    delete_options o;
    o.propagation_policy = propagation::orphan;
    auto d = s.remove(ctx_at(), resources::configmaps(), "default", "owner", o);
    REQUIRE(d);
    CHECK_FALSE(d->deleted);
    CHECK(has_finalizer(d->body, "orphan"));
    settle(s);
    CHECK(is_not_found(s.get(resources::configmaps(), "default", "owner").error()));
    auto dep = s.get(resources::configmaps(), "default", "dep");
    REQUIRE(dep);
    CHECK(owner_references_of(*dep).empty());
}

TEST_CASE("foreground: the owner waits for blocking dependents, then goes") {
    object_store s;
    auto owner = s.create(ctx_at(), resources::configmaps(), "default", configmap("owner"));
    REQUIRE(owner);
    // A dependent with its own finalizer keeps the owner until it is gone.
    auto dep = with_owner(configmap("dep"), *owner, true);
    add_finalizer(dep, "example.com/hold");
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", dep));
    delete_options o;
    o.propagation_policy = propagation::foreground;
    auto d = s.remove(ctx_at(), resources::configmaps(), "default", "owner", o);
    REQUIRE(d);
    CHECK(has_finalizer(d->body, "foregroundDeletion"));
    settle(s);
    auto dep_now = s.get(resources::configmaps(), "default", "dep");
    REQUIRE(dep_now);
    CHECK(is_being_deleted(*dep_now));
    CHECK(s.get(resources::configmaps(), "default", "owner"));  // blocked
    auto cur = *dep_now;
    remove_finalizer(cur, "example.com/hold");
    REQUIRE(s.update(ctx_at(), resources::configmaps(), "default", "dep", cur));
    settle(s);
    CHECK(is_not_found(s.get(resources::configmaps(), "default", "dep").error()));
    CHECK(is_not_found(s.get(resources::configmaps(), "default", "owner").error()));
}

TEST_CASE("deleting a namespace deletes its contents, then the namespace") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::namespaces(), "", obj(R"({"metadata":{"name":"tmp"}})")));
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "tmp", configmap("a")));
    auto held = configmap("held");
    add_finalizer(held, "example.com/hold");
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "tmp", held));
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", configmap("outside")));
    auto d = s.remove(ctx_at(), resources::namespaces(), "", "tmp");
    REQUIRE(d);
    CHECK_FALSE(d->deleted);
    auto again = s.remove(ctx_at(), resources::namespaces(), "", "tmp");
    REQUIRE_FALSE(again);
    CHECK(is_conflict(again.error()));
    settle(s);
    CHECK(is_not_found(s.get(resources::configmaps(), "tmp", "a").error()));
    CHECK(s.get(resources::namespaces(), "", "tmp"));  // waits for the held object
    auto h = *s.get(resources::configmaps(), "tmp", "held");
    remove_finalizer(h, "example.com/hold");
    REQUIRE(s.update(ctx_at(), resources::configmaps(), "tmp", "held", h));
    settle(s);
    CHECK(is_not_found(s.get(resources::namespaces(), "", "tmp").error()));
    CHECK(s.get(resources::configmaps(), "default", "outside"));
}

TEST_CASE("delete_collection deletes what the selector matches") {
    object_store s;
    auto a = configmap("a");
    set_label(a, "app", "x");
    auto b = configmap("b");
    set_label(b, "app", "y");
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", a));
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", b));
    list_options sel;
    sel.label_selector = "app=x";
    auto r = s.delete_collection(ctx_at(), resources::configmaps(), "default", sel);
    REQUIRE(r);
    CHECK(r->at("items").as_array().size() == 1);
    CHECK(is_not_found(s.get(resources::configmaps(), "default", "a").error()));
    CHECK(s.get(resources::configmaps(), "default", "b"));
}

TEST_CASE("the system namespaces may not be deleted") {
    object_store s;
    for (const char* ns : {"default", "kube-system", "kube-public"}) {
        auto r = s.remove(ctx_at(), resources::namespaces(), "", ns);
        REQUIRE_FALSE(r);
        CHECK(is_forbidden(r.error()));
        CHECK(status_message(r.error()) == "namespaces \"" + std::string(ns) + "\" is forbidden: this namespace may not be deleted");
    }
}

TEST_CASE("gc_step settles (returns false) when only a user finalizer holds a namespace") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::namespaces(), "",
                     obj(R"({"metadata":{"name":"held","finalizers":["example.com/hold"]}})")));
    REQUIRE(s.remove(ctx_at(), resources::namespaces(), "", "held"));
    CHECK(settle(s) < 50);
    CHECK_FALSE(s.gc_step(t0()));
    auto ns = s.get(resources::namespaces(), "", "held");
    REQUIRE(ns);
    CHECK(find_path(*ns, {"spec", "finalizers"}) == nullptr);
    auto cur = *ns;
    remove_finalizer(cur, "example.com/hold");
    REQUIRE(s.update(ctx_at(), resources::namespaces(), "", "held", cur));
    settle(s);
    CHECK(is_not_found(s.get(resources::namespaces(), "", "held").error()));
}

TEST_CASE("deleting a namespace: deletionTimestamp and Terminating, no deletionGracePeriodSeconds (namespace registry)") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::namespaces(), "", obj(R"({"metadata":{"name":"nsd"}})")));
    auto d = s.remove(ctx_at(), resources::namespaces(), "", "nsd");
    REQUIRE(d);
    CHECK_FALSE(d->deleted);
    CHECK(d->body.at("metadata").as_object().contains("deletionTimestamp"));
    CHECK_FALSE(d->body.at("metadata").as_object().contains("deletionGracePeriodSeconds"));
    CHECK(d->body.at("status").at("phase") == "Terminating");
}
