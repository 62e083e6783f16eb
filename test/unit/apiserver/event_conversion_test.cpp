#include "store/event_conversion.hpp"

#include "store/object_store.hpp"
#include "store_test_support.hpp"

#include <doctest/doctest.h>

using namespace kcoro;
using namespace kcoro::apiserver;
using namespace kcoro::apiserver::test;
namespace json = boost::json;

namespace {
// What client-go's events.k8s.io recorder writes.
json::object recorder_event(std::string_view name) {
    auto e = obj(R"({"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"namespace":"default"},
        "eventTime":"2026-01-02T03:04:05.000000Z","reportingController":"kcoro.dev/ctl","reportingInstance":"ctl-1",
        "action":"Reconcile","reason":"Created","type":"Normal","note":"made it",
        "regarding":{"kind":"ConfigMap","namespace":"default","name":"cm","uid":"u-1","apiVersion":"v1"}})");
    mutable_metadata(e)["name"] = name;
    return e;
}
} // namespace

TEST_CASE("events.k8s.io/v1 <-> core/v1 conversion (pkg/apis/events/v1/conversion.go)") {
    auto core = events_v1_to_core_event(recorder_event("e"));
    CHECK(core.at("apiVersion") == "v1");
    CHECK(core.at("involvedObject").at("name") == "cm");
    CHECK(core.at("message") == "made it");
    CHECK(core.at("reportingComponent") == "kcoro.dev/ctl");
    CHECK(core.at("reportingInstance") == "ctl-1");
    // what Go always serializes for the unset fields of a core/v1 Event
    CHECK(core.at("firstTimestamp").is_null());
    CHECK(core.at("lastTimestamp").is_null());
    CHECK(core.at("source") == json::object{});
    auto back = core_event_to_events_v1(core);
    CHECK(back.at("apiVersion") == "events.k8s.io/v1");
    CHECK(back.at("regarding") == core.at("involvedObject"));
    CHECK(back.at("note") == "made it");
    CHECK(back.at("reportingController") == "kcoro.dev/ctl");
    CHECK(back.at("deprecatedSource") == json::object{});
    CHECK(back.at("deprecatedFirstTimestamp").is_null());
    CHECK_FALSE(back.contains("deprecatedCount"));
    CHECK_FALSE(back.contains("message"));
    // a legacy event read through events.k8s.io
    auto legacy = obj(R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"x","namespace":"d"},"count":3,
        "source":{"component":"kubelet"},"firstTimestamp":"2026-01-02T03:04:05Z","message":"m","reason":"R",
        "involvedObject":{"kind":"Pod","name":"p","namespace":"d"}})");
    auto v = core_event_to_events_v1(legacy);
    CHECK(v.at("deprecatedCount") == 3);
    CHECK(v.at("deprecatedSource").at("component") == "kubelet");
    CHECK(v.at("deprecatedFirstTimestamp") == "2026-01-02T03:04:05Z");
    CHECK(v.at("eventTime").is_null());
    CHECK(events_v1_field_label("regarding.name") == "involvedObject.name");
    CHECK(events_v1_field_label("reportingController") == "reportingComponent");
    CHECK_FALSE(events_v1_field_label("involvedObject.name"));
}

TEST_CASE("one storage: an event written through events.k8s.io is got, listed and watched through core/v1") {
    object_store s;
    auto rv0 = s.current_revision();
    auto w = s.create(ctx_at(), resources::events_v1(), "default", recorder_event("e1"));
    REQUIRE(w);
    CHECK(w->at("apiVersion") == "events.k8s.io/v1");
    CHECK(w->at("note") == "made it");
    auto core = s.get(resources::events(), "default", "e1");
    REQUIRE(core);
    CHECK(core->at("apiVersion") == "v1");
    CHECK(core->at("message") == "made it");
    CHECK(core->at("involvedObject").at("uid") == "u-1");
    CHECK(core->at("metadata").at("resourceVersion") == w->at("metadata").at("resourceVersion"));
    // kubectl describe's selector, on the core endpoint
    list_options lo;
    lo.field_selector = "involvedObject.name=cm,involvedObject.namespace=default,involvedObject.uid=u-1";
    auto l = s.list(resources::events(), "default", lo);
    REQUIRE(l);
    CHECK(l->at("items").as_array().size() == 1);
    // and regarding.* on events.k8s.io
    lo.field_selector = "regarding.name=cm,reportingController=kcoro.dev/ctl";
    auto l2 = s.list(resources::events_v1(), "default", lo);
    REQUIRE(l2);
    REQUIRE(l2->at("items").as_array().size() == 1);
    CHECK(l2->at("items").at(0).at("note") == "made it");
    // a core write is seen through events.k8s.io, in both watches
    auto ev = *core;
    ev["message"] = "changed";
    REQUIRE(s.update(ctx_at(), resources::events(), "default", "e1", ev));
    auto f1 = watch_filter::make(resources::events_v1(), "default", "", "");
    auto f2 = watch_filter::make(resources::events(), "default", "", "");
    REQUIRE(f1);
    REQUIRE(f2);
    auto e1 = s.events_since(rv0, *f1);
    auto e2 = s.events_since(rv0, *f2);
    REQUIRE(e1);
    REQUIRE(e2);
    REQUIRE(e1->size() == 2);
    REQUIRE(e2->size() == 2);
    CHECK(e1->back().object->at("note") == "changed");
    CHECK(e2->back().object->at("message") == "changed");
    CHECK(s.count(resources::events()) == 1);
}

TEST_CASE("event validation: namespaces must agree; events.k8s.io creates get the strict rules") {
    object_store s;
    auto e = recorder_event("bad");
    e["regarding"].as_object()["namespace"] = "other";
    // With eventTime set (a new-style event) only an empty regarding namespace
    // outside default/kube-system is refused (legacyValidateEvent).
    CHECK(s.create(ctx_at(), resources::events_v1(), "default", e));
    auto empty_ns = recorder_event("bad2");
    empty_ns["regarding"].as_object().erase("namespace");
    mutable_metadata(empty_ns)["namespace"] = "apps";
    REQUIRE(s.create(ctx_at(), resources::namespaces(), "", obj(R"({"metadata":{"name":"apps"}})")));
    auto r = s.create(ctx_at(), resources::events_v1(), "apps", empty_ns);
    REQUIRE_FALSE(r);
    CHECK(status_message(r.error()) ==
          R"(Event.events.k8s.io "bad2" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace)");
    auto core_bad = obj(R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"c1"},"reason":"R",
        "involvedObject":{"kind":"ConfigMap","name":"cm","namespace":"other"}})");
    auto r2 = s.create(ctx_at(), resources::events(), "default", core_bad);
    REQUIRE_FALSE(r2);
    CHECK(status_message(r2.error()) ==
          R"(Event "c1" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace)");
    auto strict = recorder_event("s");
    strict.erase("eventTime");
    strict["type"] = "Odd";
    auto r3 = s.create(ctx_at(), resources::events_v1(), "default", strict);
    REQUIRE_FALSE(r3);
    CHECK(status_message(r3.error()) ==
          R"(Event.events.k8s.io "s" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: Odd])");
    // the deprecated fields must be unset on create, named by their core names
    auto dep = recorder_event("dep");
    dep["deprecatedCount"] = 3;
    auto r4 = s.create(ctx_at(), resources::events_v1(), "default", dep);
    REQUIRE_FALSE(r4);
    CHECK(status_message(r4.error()) == R"(Event.events.k8s.io "dep" is invalid: count: Invalid value: "": needs to be unset)");
}

TEST_CASE("an update through events.k8s.io may change the series, not what the event says (ValidateEventUpdate)") {
    object_store s;
    auto made = s.create(ctx_at(), resources::events_v1(), "default", recorder_event("u"));
    REQUIRE(made);
    auto next = *made;
    next["series"] = json::object{{"count", 2}, {"lastObservedTime", "2026-01-02T03:05:05.000000Z"}};
    auto ok = s.update(ctx_at(), resources::events_v1(), "default", "u", next);
    REQUIRE(ok);
    auto changed = *ok;
    changed["note"] = "other words";
    changed["regarding"].as_object()["name"] = "elsewhere";
    auto r = s.update(ctx_at(), resources::events_v1(), "default", "u", changed);
    REQUIRE_FALSE(r);
    CHECK(status_message(r.error()) ==
          R"(Event.events.k8s.io "u" is invalid: [involvedObject: Invalid value: core.ObjectReference{Kind:"ConfigMap", )"
          R"(Namespace:"default", Name:"elsewhere", UID:"u-1", APIVersion:"v1", ResourceVersion:"", FieldPath:""}: )"
          R"(field is immutable, message: Invalid value: "other words": field is immutable])");
    // the core/v1 API keeps the legacy rules only
    auto core = s.get(resources::events(), "default", "u");
    REQUIRE(core);
    auto c2 = *core;
    c2["message"] = "core may";
    CHECK(s.update(ctx_at(), resources::events(), "default", "u", c2));
}
