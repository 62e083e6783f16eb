#include <kcoro/runtime/predicates.hpp>

#include <doctest/doctest.h>

#include <boost/json/parse.hpp>

using namespace kcoro::runtime;

namespace {
boost::json::object o(const char* meta) {
    return boost::json::parse(std::string(R"({"metadata":)") + meta + "}").as_object();
}
} // namespace

TEST_CASE("generation changed: spec changes pass, status-only writes do not") {
    auto p = generation_changed_predicate();
    auto a = o(R"({"generation":1,"resourceVersion":"5"})");
    auto status_write = o(R"({"generation":1,"resourceVersion":"6"})");
    auto spec_write = o(R"({"generation":2,"resourceVersion":"7"})");
    CHECK_FALSE(p.on_update(a, status_write));
    CHECK(p.on_update(a, spec_write));
    CHECK(p.on_create(a));
    CHECK(p.on_delete(a));
    CHECK(p.on_generic(a));
}

TEST_CASE("resource version changed drops relist no-ops") {
    auto p = resource_version_changed_predicate();
    auto a = o(R"({"resourceVersion":"5"})");
    CHECK_FALSE(p.on_update(a, a));
    CHECK(p.on_update(a, o(R"({"resourceVersion":"6"})")));
}

TEST_CASE("labels and annotations changed; missing and empty maps are equal") {
    auto none = o(R"({})");
    auto empty = o(R"({"labels":{},"annotations":{}})");
    auto l1 = o(R"({"labels":{"a":"1"}})");
    auto l2 = o(R"({"labels":{"a":"2"}})");
    auto an = o(R"({"annotations":{"x":"y"}})");
    CHECK_FALSE(labels_changed(none, empty));
    CHECK(labels_changed(none, l1));
    CHECK(labels_changed(l1, l2));
    CHECK_FALSE(labels_changed(l1, o(R"({"labels":{"a":"1"}})")));
    CHECK_FALSE(annotations_changed(none, empty));
    CHECK(annotations_changed_predicate().on_update(none, an));
    CHECK_FALSE(labels_changed_predicate().on_update(none, an));
}

TEST_CASE("label selector: matches on every event; an update passes if either side matches") {
    auto sel = kcoro::label_selector::parse("app.example.io/managed=true");
    REQUIRE(sel);
    auto p = label_selector_predicate(*sel);
    auto in = o(R"({"labels":{"app.example.io/managed":"true"}})");
    auto out = o(R"({"labels":{"app.example.io/managed":"false"}})");
    CHECK(p.on_create(in));
    CHECK_FALSE(p.on_create(out));
    CHECK(p.on_update(in, out));   // leaving the selection is still seen
    CHECK(p.on_update(out, in));
    CHECK_FALSE(p.on_update(out, out));
    CHECK_FALSE(p.on_delete(out));
}

TEST_CASE("all_of and any_of") {
    auto a = o(R"({"generation":1,"resourceVersion":"1","labels":{"k":"v"}})");
    auto b = o(R"({"generation":1,"resourceVersion":"2","labels":{"k":"w"}})");
    auto both = all_of({generation_changed_predicate(), labels_changed_predicate()});
    auto either = any_of({generation_changed_predicate(), labels_changed_predicate()});
    CHECK_FALSE(both.on_update(a, b));
    CHECK(either.on_update(a, b));
    CHECK(both.on_create(a));
    CHECK_FALSE(any_of({}).on_create(a));
    CHECK(predicate{}.on_update(a, b));
}

TEST_CASE("all_of leaves updates unfiltered when none of its predicates filters them") {
    predicate creates_only;
    creates_only.create = [](const boost::json::object& obj) { return !obj.empty(); };
    auto a = o(R"({"generation":1})");
    auto none = all_of({creates_only, predicate{}});
    CHECK_FALSE(none.update);  // so a For handler need not decode the old state
    CHECK(none.on_update(a, a));
    CHECK(none.on_create(a));
    CHECK_FALSE(none.on_create(boost::json::object{}));
    CHECK(all_of({creates_only, generation_changed_predicate()}).update);
}
