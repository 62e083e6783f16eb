#include <kcoro/runtime/event_aggregator.hpp>

#include <doctest/doctest.h>

#include <map>

using namespace kcoro;
using namespace kcoro::runtime;
using namespace std::chrono_literals;
namespace json = boost::json;

namespace {

const steady_time t0 = steady_time{} + 1000s;
const wall_time w0 = wall_time{} + 1795951956s;  // 2026-11-29T11:32:36Z

json::object gateway(std::string name = "gw-1", std::string rv = "41") {
    return json::object{{"apiVersion", "example.com/v1"},
                        {"kind", "Gateway"},
                        {"metadata", json::object{{"name", name}, {"namespace", "apps"}, {"uid", "u-" + name},
                                                  {"resourceVersion", rv}}}};
}

event_request request(std::string reason = "Created", std::string note = "created deployment gw-1",
                      json::object obj = gateway()) {
    return event_request{object_reference_of(obj), std::nullopt, event_type::normal, std::move(reason), "Reconcile",
                         std::move(note)};
}

struct fixture {
    std::map<std::string, int> drops;
    event_aggregator agg;
    explicit fixture(events_api api = events_api::events_v1)
        : agg(event_aggregator_config{"gateway-operator", "gw-7d9f_0b9c", api},
              [this](std::string_view r) { ++drops[std::string(r)]; }) {}
};

} // namespace

TEST_CASE("object references") {
    auto ref = object_reference_of(gateway());
    CHECK(ref == json::object{{"apiVersion", "example.com/v1"}, {"kind", "Gateway"}, {"namespace", "apps"},
                              {"name", "gw-1"}, {"uid", "u-gw-1"}, {"resourceVersion", "41"}});
    auto cluster = object_reference_of(json::object{{"apiVersion", "v1"}, {"kind", "Namespace"},
                                                    {"metadata", json::object{{"name", "apps"}}}});
    CHECK_FALSE(cluster.contains("namespace"));
}

TEST_CASE("first occurrence creates an events.k8s.io/v1 Event") {
    fixture f;
    auto w = f.agg.record(request(), t0, w0);
    REQUIRE(w);
    CHECK(w->op == event_write::kind::create);
    CHECK(w->ns == "apps");
    CHECK(w->name == "gw-1.18ec80c9e30c4800");  // name.<unix nanos hex>, as client-go
    auto& b = w->body;
    CHECK(b.at("apiVersion") == "events.k8s.io/v1");
    CHECK(b.at("kind") == "Event");
    CHECK(b.at("metadata").as_object().at("name") == json::value(w->name));
    CHECK(b.at("eventTime") == "2026-11-29T11:32:36.000000Z");
    CHECK(b.at("reportingController") == "gateway-operator");
    CHECK(b.at("reportingInstance") == "gw-7d9f_0b9c");
    CHECK(b.at("action") == "Reconcile");
    CHECK(b.at("reason") == "Created");
    CHECK(b.at("note") == "created deployment gw-1");
    CHECK(b.at("type") == "Normal");
    CHECK(b.at("regarding").as_object().at("kind") == "Gateway");
    CHECK_FALSE(b.contains("series"));
    CHECK(f.agg.cached_events() == 1);
}

TEST_CASE("repeats become a series: patch at the second, memory after, written by tick") {
    fixture f;
    auto first = f.agg.record(request(), t0, w0);
    auto second = f.agg.record(request(), t0 + 10s, w0 + 10s);
    REQUIRE(second);
    CHECK(second->op == event_write::kind::patch_series);
    CHECK(second->name == first->name);
    CHECK(second->body == json::object{{"series", json::object{{"count", 2},
                                                               {"lastObservedTime", "2026-11-29T11:32:46.000000Z"}}}});
    CHECK(second->create_if_missing.at("series").as_object().at("count") == 2);
    CHECK(second->create_if_missing.at("metadata") == first->body.at("metadata"));

    // Third and later: nothing to write now.
    CHECK_FALSE(f.agg.record(request(), t0 + 20s, w0 + 20s));
    CHECK_FALSE(f.agg.record(request(), t0 + 30s, w0 + 30s));
    // A later resourceVersion of the same object still aggregates.
    auto newer = request();
    newer.regarding = object_reference_of(gateway("gw-1", "99"));
    CHECK_FALSE(f.agg.record(newer, t0 + 40s, w0 + 40s));

    // Nothing to do before the series ends or the refresh is due.
    CHECK(f.agg.tick(t0 + 60s, w0).empty());
    CHECK(f.agg.tick(t0 + 40s + 6min, w0).empty());
    // Six minutes after the last observation: the final count, then forgotten.
    auto fin = f.agg.tick(t0 + 40s + 6min + 1s, w0);
    REQUIRE(fin.size() == 1);
    CHECK(fin[0].body.at("series").as_object().at("count") == 5);
    CHECK(fin[0].body.at("series").as_object().at("lastObservedTime") == "2026-11-29T11:33:16.000000Z");
    CHECK(f.agg.cached_events() == 0);
    // The next occurrence starts over with a new Event.
    auto again = f.agg.record(request(), t0 + 10min, w0 + 10min);
    REQUIRE(again);
    CHECK(again->op == event_write::kind::create);
    CHECK(again->name != first->name);
}

TEST_CASE("live series are refreshed every 30 minutes; single events are forgotten after 6") {
    fixture f;
    f.agg.tick(t0, w0);  // starts the refresh clock
    f.agg.record(request(), t0, w0);
    f.agg.record(request(), t0 + 1s, w0 + 1s);
    f.agg.record(request("Other"), t0, w0);  // a single event
    for (auto m = 1; m < 30; ++m) {
        // Keep the series alive.
        f.agg.record(request(), t0 + std::chrono::minutes(m), w0 + std::chrono::minutes(m));
        auto writes = f.agg.tick(t0 + std::chrono::minutes(m) + 1s, w0);
        CHECK(writes.empty());
    }
    CHECK(f.agg.cached_events() == 1);  // "Other" was forgotten
    auto refresh = f.agg.tick(t0 + 30min + 1s, w0);
    REQUIRE(refresh.size() == 1);
    CHECK(refresh[0].body.at("series").as_object().at("count") == 31);
}

TEST_CASE("different type, reason, action, object or related are different events; note is not") {
    fixture f;
    CHECK(f.agg.record(request("Created"), t0, w0)->op == event_write::kind::create);
    CHECK(f.agg.record(request("Updated"), t0, w0)->op == event_write::kind::create);
    auto warning = request("Created");
    warning.type = event_type::warning;
    CHECK(f.agg.record(warning, t0, w0)->op == event_write::kind::create);
    auto other_action = request("Created");
    other_action.action = "Delete";
    CHECK(f.agg.record(other_action, t0, w0)->op == event_write::kind::create);
    CHECK(f.agg.record(request("Created", "x", gateway("gw-2")), t0, w0)->op == event_write::kind::create);
    auto related = request("Created");
    related.related = object_reference_of(gateway("dep"));
    CHECK(f.agg.record(related, t0, w0)->op == event_write::kind::create);
    // Same key, another note: a new Event (an Event's note never changes).
    CHECK(f.agg.record(request("Created", "another note"), t0, w0)->op == event_write::kind::create);
}

TEST_CASE("another note starts a new Event; the old series' last count is written at the next tick") {
    fixture f;
    auto first = f.agg.record(request("Repaired", "repaired drift: spec.ports"), t0, w0);
    REQUIRE(first);
    auto second = f.agg.record(request("Repaired", "repaired drift: spec.ports"), t0 + 1s, w0 + 1s);
    REQUIRE(second);
    CHECK(second->op == event_write::kind::patch_series);
    CHECK_FALSE(second->body.contains("note"));  // a patch never touches the note
    // The same note again: only counted.
    CHECK_FALSE(f.agg.record(request("Repaired", "repaired drift: spec.ports"), t0 + 2s, w0 + 2s));
    // Another note: a new Event with it, under a new name.
    auto third = f.agg.record(request("Repaired", "repaired drift: spec.selector"), t0 + 3s, w0 + 3s);
    REQUIRE(third);
    CHECK(third->op == event_write::kind::create);
    CHECK(third->name != first->name);
    CHECK(third->body.at("note") == "repaired drift: spec.selector");
    CHECK_FALSE(third->body.contains("series"));
    // The first series had counted a third occurrence since its last write:
    // the tick writes it, once.
    auto pending = f.agg.tick(t0 + 4s, w0 + 4s);
    REQUIRE(pending.size() == 1);
    CHECK(pending[0].op == event_write::kind::patch_series);
    CHECK(pending[0].name == first->name);
    CHECK(pending[0].body.at("series").as_object().at("count") == 3);
    CHECK(f.agg.tick(t0 + 5s, w0 + 5s).empty());
    // The new note folds from now on.
    CHECK(f.agg.record(request("Repaired", "repaired drift: spec.selector"), t0 + 6s, w0 + 6s)->op ==
          event_write::kind::patch_series);
    CHECK(f.agg.cached_events() == 1);
}

TEST_CASE("per-object rate limit: burst 25, one more every 5 minutes, each drop counted") {
    fixture f;
    int created = 0;
    for (int i = 0; i < 30; ++i)
        if (f.agg.record(request("Reason" + std::to_string(i)), t0, w0)) ++created;
    CHECK(created == 25);
    CHECK(f.drops["rate_limited"] == 5);
    CHECK(f.agg.dropped_total() == 5);
    // Another object has its own bucket.
    CHECK(f.agg.record(request("R", "n", gateway("gw-2")), t0, w0));
    // Refill: one token per 5 minutes.
    CHECK_FALSE(f.agg.record(request("Late1"), t0 + 4min, w0));
    CHECK(f.agg.record(request("Late2"), t0 + 5min, w0));
    CHECK_FALSE(f.agg.record(request("Late3"), t0 + 5min, w0));
    CHECK(f.drops["rate_limited"] == 7);
}

TEST_CASE("in-memory repeats do not spend tokens") {
    fixture f;
    f.agg.record(request(), t0, w0);
    f.agg.record(request(), t0, w0);
    for (int i = 0; i < 100; ++i) CHECK_FALSE(f.agg.record(request(), t0, w0));
    CHECK(f.drops.empty());
    CHECK(f.agg.record(request("Fresh"), t0, w0));
}

TEST_CASE("invalid requests are dropped and counted, never thrown") {
    fixture f;
    auto no_reason = request("");
    CHECK_FALSE(f.agg.record(no_reason, t0, w0));
    auto no_action = request();
    no_action.action.clear();
    CHECK_FALSE(f.agg.record(no_action, t0, w0));
    auto no_object = request();
    no_object.regarding = json::object{};
    CHECK_FALSE(f.agg.record(no_object, t0, w0));
    CHECK(f.drops["invalid"] == 3);

    event_aggregator unnamed(event_aggregator_config{});
    CHECK_FALSE(unnamed.record(request(), t0, w0));
    CHECK(unnamed.dropped_total() == 1);
}

TEST_CASE("notes are cut at 1024 bytes without splitting a UTF-8 sequence") {
    fixture f;
    std::string note(1023, 'a');
    note += "\xC3\xA9tail";  // 'é' straddles the limit
    auto w = f.agg.record(request("Long", note), t0, w0);
    REQUIRE(w);
    CHECK(w->body.at("note").as_string().size() == 1023);
}

TEST_CASE("event names stay unique within one nanosecond") {
    fixture f;
    auto a = f.agg.record(request("A"), t0, w0);
    auto b = f.agg.record(request("B"), t0, w0);
    CHECK(a->name != b->name);
}

TEST_CASE("core/v1 fallback bodies") {
    fixture f(events_api::core_v1);
    auto w = f.agg.record(request(), t0, w0);
    REQUIRE(w);
    auto& b = w->body;
    CHECK(b.at("apiVersion") == "v1");
    CHECK(b.at("kind") == "Event");
    CHECK(b.at("involvedObject").as_object().at("name") == "gw-1");
    CHECK(b.at("message") == "created deployment gw-1");
    CHECK(b.at("reason") == "Created");
    CHECK(b.at("type") == "Normal");
    CHECK(b.at("reportingComponent") == "gateway-operator");
    CHECK(b.at("source").as_object().at("component") == "gateway-operator");
    CHECK(b.at("firstTimestamp") == "2026-11-29T11:32:36Z");
    CHECK(b.at("count") == 1);
    auto s = f.agg.record(request(), t0 + 5s, w0 + 5s);
    REQUIRE(s);
    CHECK(s->body.at("count") == 2);
    CHECK(s->body.at("lastTimestamp") == "2026-11-29T11:32:41Z");
    CHECK(s->body.at("series").as_object().at("count") == 2);
    CHECK_FALSE(s->body.contains("message"));  // never changed by a patch
    CHECK(s->create_if_missing.at("apiVersion") == "v1");
}

TEST_CASE("write errors: client-go's retry rules") {
    CHECK(classify_write_error(error(kcoro_errc::deadline_exceeded), false) == write_verdict::retry);
    CHECK(classify_write_error(error(kcoro_errc::decode_error), true) == write_verdict::retry);
    CHECK(classify_write_error(error(api_errc::invalid), false) == write_verdict::drop);
    CHECK(classify_write_error(error(api_errc::already_exists), false) == write_verdict::drop);
    CHECK(classify_write_error(error(api_errc::already_exists), true) == write_verdict::retry);
    CHECK(classify_write_error(error(kcoro_errc::cancelled), false) == write_verdict::drop);
    fixture f;
    f.agg.dropped("retries_exhausted");
    CHECK(f.drops["retries_exhausted"] == 1);
}
