// object_store: the watch feed (events_since, initial_events), history
// window and compaction.
#include "store/object_store.hpp"

#include "store_test_support.hpp"

#include <doctest/doctest.h>

using namespace kcoro;
using namespace kcoro::apiserver;
using namespace kcoro::apiserver::test;
namespace json = boost::json;

namespace {

watch_filter filter(std::string ns = "", std::string_view labels = "", std::string_view fields = "") {
    auto f = watch_filter::make(resources::configmaps(), std::move(ns), labels, fields);
    REQUIRE(f);
    return *f;
}

std::vector<std::string> types(const std::vector<watch_event>& evs) {
    std::vector<std::string> out;
    for (const auto& e : evs) out.emplace_back(to_string(e.type));
    return out;
}

} // namespace

TEST_CASE("events strictly after a revision, in order, for the resource only") {
    object_store s;
    auto start = s.current_revision();
    auto c = s.create(ctx_at(), resources::configmaps(), "default", configmap("x", "1"));
    REQUIRE(s.create(ctx_at(), resources::secrets(), "default", obj(R"({"metadata":{"name":"s"}})")));
    auto u = s.update(ctx_at(), resources::configmaps(), "default", "x", configmap("x", "2"));
    auto d = s.remove(ctx_at(), resources::configmaps(), "default", "x");
    REQUIRE(c);
    REQUIRE(u);
    REQUIRE(d);
    auto evs = s.events_since(start, filter());
    REQUIRE(evs);
    CHECK(types(*evs) == std::vector<std::string>{"ADDED", "MODIFIED", "DELETED"});
    CHECK((*evs)[0].revision == rv_of(*c));
    CHECK(*(*evs)[0].object == *c);
    CHECK((*evs)[1].revision == rv_of(*u));
    // DELETED carries the final object at the deletion's revision.
    CHECK((*evs)[2].revision == s.current_revision());
    CHECK(rv_of(*(*evs)[2].object) == s.current_revision());
    CHECK(str_at(*(*evs)[2].object, {"data", "k"}) == "2");
    CHECK(kind_of(*(*evs)[2].object) == "ConfigMap");
    // Strictly after: from the ADDED revision, only the later two.
    auto later = s.events_since(rv_of(*c), filter());
    REQUIRE(later);
    CHECK(types(*later) == std::vector<std::string>{"MODIFIED", "DELETED"});
    // Nothing after the current revision.
    CHECK(s.events_since(s.current_revision(), filter())->empty());
    // max_events bounds a batch.
    CHECK(s.events_since(start, filter(), 2)->size() == 2);
}

TEST_CASE("namespace filter") {
    object_store s;
    auto start = s.current_revision();
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", configmap("a")));
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "kube-system", configmap("b")));
    auto evs = s.events_since(start, filter("kube-system"));
    REQUIRE(evs);
    REQUIRE(evs->size() == 1);
    CHECK(name_of(*(*evs)[0].object) == "b");
}

TEST_CASE("selectors: stops matching -> DELETED with the previous content, starts matching -> ADDED") {
    object_store s;
    auto a = configmap("a", "1");
    set_label(a, "app", "web");
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", a));
    auto start = s.current_revision();
    auto away = configmap("a", "2");
    set_label(away, "app", "db");
    auto u1 = s.update(ctx_at(), resources::configmaps(), "default", "a", away);
    REQUIRE(u1);
    auto back = configmap("a", "3");
    set_label(back, "app", "web");
    auto u2 = s.update(ctx_at(), resources::configmaps(), "default", "a", back);
    REQUIRE(u2);
    auto evs = s.events_since(start, filter("", "app=web"));
    REQUIRE(evs);
    REQUIRE(types(*evs) == std::vector<std::string>{"DELETED", "ADDED"});
    // The DELETED carries the content before the change, at the change's revision.
    CHECK(str_at(*(*evs)[0].object, {"data", "k"}) == "1");
    CHECK(rv_of(*(*evs)[0].object) == rv_of(*u1));
    CHECK(str_at(*(*evs)[1].object, {"data", "k"}) == "3");
    // A watcher on app=db sees the reverse.
    auto db = s.events_since(start, filter("", "app=db"));
    REQUIRE(db);
    CHECK(types(*db) == std::vector<std::string>{"ADDED", "DELETED"});
    // A field selector on the name.
    auto by_name = s.events_since(start, filter("", "", "metadata.name=other"));
    REQUIRE(by_name);
    CHECK(by_name->empty());
}

TEST_CASE("a revision older than the history window is 410 Expired with the real message") {
    store_config cfg;
    cfg.history_size = 2;
    object_store s(cfg, t0());
    auto start = s.current_revision();
    for (int i = 0; i < 5; ++i) REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", configmap("c" + std::to_string(i))));
    auto r = s.events_since(start, filter());
    REQUIRE_FALSE(r);
    CHECK(r.error().http_code() == 410);
    CHECK(r.error().api_status()->reason == "Expired");
    CHECK(status_message(r.error()) == "too old resource version: " + std::to_string(start) + " (" +
                                           std::to_string(s.oldest_revision()) + ")");
    // From the oldest retained revision it works.
    auto ok = s.events_since(s.oldest_revision(), filter());
    REQUIRE(ok);
    CHECK(ok->size() == 2);
}

TEST_CASE("compact() makes every earlier revision expire") {
    object_store s;
    auto start = s.current_revision();
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", configmap("a")));
    s.compact();
    CHECK(s.oldest_revision() == s.current_revision());
    CHECK_FALSE(s.events_since(start, filter()));
    CHECK(s.events_since(s.current_revision(), filter())->empty());
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", configmap("b")));
    CHECK(s.events_since(s.oldest_revision(), filter())->size() == 1);
}

TEST_CASE("initial_events lists the current state as ADDED") {
    object_store s;
    auto a = configmap("a");
    set_label(a, "app", "web");
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", a));
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", configmap("b")));
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "kube-system", configmap("c")));
    auto all = s.initial_events(filter());
    CHECK(all.size() == 3);
    auto web = s.initial_events(filter("default", "app=web"));
    REQUIRE(web.size() == 1);
    CHECK(web[0].type == event_type::added);
    CHECK(name_of(*web[0].object) == "a");
    CHECK(web[0].revision == rv_of(*web[0].object));
}

TEST_CASE("no-op writes produce no events") {
    object_store s;
    auto c = s.create(ctx_at(), resources::configmaps(), "default", configmap("a"));
    REQUIRE(c);
    auto start = s.current_revision();
    REQUIRE(s.update(ctx_at(), resources::configmaps(), "default", "a", *c));
    CHECK(s.events_since(start, filter())->empty());
}
