#include "store/field_selector.hpp"

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

using namespace kcoro::apiserver;

TEST_CASE("field selectors on name and namespace") {
    auto obj = boost::json::parse(R"({"metadata":{"name":"a","namespace":"default"}})").as_object();
    auto s = field_selector::parse("metadata.name=a,metadata.namespace!=kube-system");
    REQUIRE(s.has_value());
    CHECK(s->matches(obj));
    REQUIRE(s->exact_name());
    CHECK(*s->exact_name() == "a");
    CHECK_FALSE(field_selector::parse("metadata.name==b")->matches(obj));
    CHECK(field_selector::parse("")->empty());
    // No trimming (fields.parseSelector): the spaces are part of the label and the value.
    auto spaced = field_selector::parse(" metadata.namespace = default ", "", "configmaps");
    REQUIRE_FALSE(spaced.has_value());
    CHECK(spaced.error().api_status()->message ==
          "\" metadata.namespace \" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
    CHECK_FALSE(field_selector::parse("metadata.name=a ")->matches(obj));
    // Empty terms are skipped; the earliest operator wins; escapes.
    CHECK(field_selector::parse("metadata.name=a,,metadata.namespace=default")->matches(obj));
    // "=" comes first, so the value "x!=y" holds a bare "=".
    CHECK(field_selector::parse("metadata.name=x!=y").error().api_status()->message ==
          "invalid field selector: unescaped character in value: 61");
    auto ne = field_selector::parse("metadata.name!=x=y");
    REQUIRE_FALSE(ne.has_value());
    auto esc_obj = boost::json::parse(R"({"metadata":{"name":"a,b=c\\d"}})").as_object();
    CHECK(field_selector::parse(R"(metadata.name=a\,b\=c\\d)")->matches(esc_obj));
    CHECK(field_selector::parse("metadata.name===x").error().api_status()->message ==
          "invalid field selector: unescaped character in value: 61");
    CHECK(field_selector::parse("metadata.name=x\\").error().api_status()->message ==
          "invalid field selector: invalid escape sequence: \\");
    CHECK(field_selector::parse("metadata.name=x\\q").error().api_status()->message ==
          "invalid field selector: invalid escape sequence: \\q");
    CHECK(field_selector::parse(" ").error().api_status()->message == "invalid selector: ' '; can't understand ' '");
}

TEST_CASE("unsupported fields and malformed selectors are 400") {
    for (const char* bad : {"spec.x=1", "metadata.name", "status.phase!=Running"}) {
        auto s = field_selector::parse(bad);
        REQUIRE_FALSE(s.has_value());
        CHECK(s.error().http_code() == 400);
    }
}

TEST_CASE("events select on involvedObject, reason, type, source (kubectl describe)") {
    auto ev = boost::json::parse(R"({"metadata":{"name":"e1","namespace":"default"},
        "involvedObject":{"kind":"ConfigMap","name":"cm1","namespace":"default","uid":"u-1"},
        "reason":"Created","type":"Normal","source":{"component":"kcoro"}})").as_object();
    auto s = field_selector::parse("involvedObject.name=cm1,involvedObject.namespace=default,involvedObject.uid=u-1",
                                   "", "events");
    REQUIRE(s.has_value());
    CHECK(s->matches(ev));
    CHECK_FALSE(field_selector::parse("involvedObject.uid=u-2", "", "events")->matches(ev));
    CHECK(field_selector::parse("type=Normal,reason=Created,source=kcoro", "", "events")->matches(ev));
    CHECK(field_selector::parse("type!=Warning", "", "events")->matches(ev));
    // An absent field reads as "".
    CHECK(field_selector::parse("involvedObject.fieldPath=", "", "events")->matches(ev));
    // events.k8s.io/v1 selects with its own labels (AddFieldLabelConversionsForEvent),
    // mapped onto the stored core/v1 form; the core-only labels are refused there.
    auto s2 = field_selector::parse("regarding.name=cm1,regarding.uid=u-1,reportingController=ctl,type=Normal",
                                    "events.k8s.io", "events");
    REQUIRE(s2.has_value());
    auto stored = ev;
    stored["reportingComponent"] = "ctl";
    CHECK(s2->matches(stored));
    for (const char* core_only : {"involvedObject.name=cm1", "source=kcoro", "reportingComponent=ctl"}) {
        auto r = field_selector::parse(core_only, "events.k8s.io", "events");
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().api_status()->message.starts_with("field label not supported: "));
    }
}

TEST_CASE("field labels are per resource, with the real 400 message") {
    auto on_cm = field_selector::parse("involvedObject.name=x", "", "configmaps");
    REQUIRE_FALSE(on_cm.has_value());
    CHECK(on_cm.error().http_code() == 400);
    REQUIRE(on_cm.error().api_status());
    // ConfigMaps register no conversion function: runtime.DefaultMetaV1FieldSelectorConversion's words.
    CHECK(on_cm.error().api_status()->message ==
          "\"involvedObject.name\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
    auto node = field_selector::parse("spec.nodeName=n1", "", "events");
    REQUIRE_FALSE(node.has_value());
    CHECK(node.error().api_status()->message == "field label not supported: spec.nodeName");
    auto secret = boost::json::parse(R"({"metadata":{"name":"s"},"type":"Opaque"})").as_object();
    CHECK(field_selector::parse("type=Opaque", "", "secrets")->matches(secret));
    auto ns = boost::json::parse(R"({"metadata":{"name":"n"},"status":{"phase":"Active"}})").as_object();
    CHECK(field_selector::parse("status.phase=Active", "", "namespaces")->matches(ns));
    CHECK_FALSE(field_selector::parse("status.phase=Active", "apps", "deployments").has_value());
    // Namespaces: status.phase and metadata.name only.
    auto ns_ns = field_selector::parse("metadata.namespace=x", "", "namespaces");
    REQUIRE_FALSE(ns_ns.has_value());
    CHECK(ns_ns.error().api_status()->message == "field label not supported: metadata.namespace");
    // Services: spec.clusterIP and spec.type.
    auto svc = boost::json::parse(R"({"metadata":{"name":"s"},"spec":{"type":"ClusterIP","clusterIP":"10.96.0.10"}})").as_object();
    CHECK(field_selector::parse("spec.type=ClusterIP,spec.clusterIP=10.96.0.10", "", "services")->matches(svc));
    CHECK_FALSE(field_selector::parse("spec.type=NodePort", "", "services")->matches(svc));
    // Custom resources: apiextensions' crConverter.
    auto cr = field_selector::parse("spec.size=1", "example.com", "widgets");
    REQUIRE_FALSE(cr.has_value());
    CHECK(cr.error().api_status()->message == "field label not supported: spec.size");
    auto lease = field_selector::parse("spec.holderIdentity=a", "coordination.k8s.io", "leases");
    REQUIRE_FALSE(lease.has_value());
    CHECK(lease.error().api_status()->message ==
          "\"spec.holderIdentity\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
    // The whole selector is parsed before any label is converted.
    auto both = field_selector::parse("spec.x=1,bad", "", "configmaps");
    REQUIRE_FALSE(both.has_value());
    CHECK(both.error().api_status()->message == "invalid selector: 'spec.x=1,bad'; can't understand 'bad'");
}
