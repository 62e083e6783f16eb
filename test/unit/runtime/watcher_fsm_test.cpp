#include <kcoro/runtime/watcher_fsm.hpp>

#include <doctest/doctest.h>

#include <boost/json/parse.hpp>
#include <boost/system/errc.hpp>

#include <sstream>

using namespace std::chrono_literals;
using namespace kcoro::runtime;
using kcoro::api_errc;
using kcoro::error;
using kcoro::object_ptr;
using kcoro::steady_time;
using kcoro::watch_event;
using kcoro::watch_event_type;

namespace {

const steady_time t0{};

object_ptr obj(const std::string& name, const std::string& rv) {
    auto v = boost::json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"ns","name":")" +
                                name + R"(","resourceVersion":")" + rv + R"("}})");
    return std::make_shared<const boost::json::object>(std::move(v.as_object()));
}

watcher_fsm make_fsm(bool streaming = false) {
    watcher_options o;
    o.random = [] { return 0.5; };  // timeouts 450 s, backoff × 1.5
    o.streaming_list = streaming;
    return watcher_fsm(o);
}

watcher_input ev(watch_event_type t, object_ptr o, bool end = false) {
    watch_event e;
    e.type = t;
    e.resource_version = o ? std::string(kcoro::resource_version_of(*o)) : "";
    e.object = std::move(o);
    e.initial_events_end = end;
    return watch_event_received{std::move(e)};
}

error api(int code, const std::string& reason, int retry_after = 0, const std::string& cause = "") {
    kcoro::status s;
    s.outcome = "Failure";
    s.code = code;
    s.reason = reason;
    if (retry_after || !cause.empty()) {
        s.details = kcoro::status_details{};
        s.details->retry_after_seconds = retry_after;
        if (!cause.empty()) {
            s.details->causes.push_back({cause, "", ""});
        }
    }
    return error::from_status(s);
}

watcher_input watch_error_event(int code, const std::string& reason) {
    watch_event e;
    e.type = watch_event_type::error;
    e.status = kcoro::status{"Failure", "", reason, code, std::nullopt};
    e.object = std::make_shared<const boost::json::object>();
    return watch_event_received{std::move(e)};
}

const error refused{make_error_code(boost::system::errc::connection_refused)};
const error reset{make_error_code(boost::system::errc::connection_reset)};

watcher_event init_start() { return {watcher_event_type::init_start, nullptr}; }
watcher_event init_done() { return {watcher_event_type::init_done, nullptr}; }
watcher_event init_apply(object_ptr o) { return {watcher_event_type::init_apply, std::move(o)}; }
watcher_event apply(object_ptr o) { return {watcher_event_type::apply, std::move(o)}; }

watch_request watch_at(std::string rv) { return {std::move(rv), 450, true, false, ""}; }

/// Brings an fsm to watching at revision "10" after a one-page list.
void to_watching(watcher_fsm& w, steady_time now = t0) {
    REQUIRE(w.step(start{}, now).next == watcher_next{list_request{"0", "", 500}});
    auto a = w.step(list_page_received{"10", "", {obj("a", "5")}}, now);
    REQUIRE(a.next == watcher_next{watch_at("10")});
    w.step(watch_started{}, now);
    REQUIRE(w.state() == watcher_state::watching);
}

} // namespace

TEST_CASE("paged initial list at RV 0, then watch from the list's revision") {
    auto w = make_fsm();
    CHECK(w.step(start{}, t0) == watcher_action{{}, list_request{"0", "", 500}});
    auto a = obj("a", "3"), b = obj("b", "4"), c = obj("c", "9");
    CHECK(w.step(list_page_received{"10", "c1", {a, b}}, t0) ==
          watcher_action{{init_start(), init_apply(a), init_apply(b)}, list_request{"", "c1", 500}});
    CHECK_FALSE(w.has_synced());
    CHECK(w.step(list_page_received{"10", "", {c}}, t0) ==
          watcher_action{{init_apply(c), init_done()}, watch_at("10")});
    CHECK(w.has_synced());
    CHECK(w.step(watch_started{}, t0) == watcher_action{{}, await_input{}});
    auto d = obj("d", "11");
    CHECK(w.step(ev(watch_event_type::added, d), t0 + 1s) == watcher_action{{apply(d)}, await_input{}});
    auto d2 = obj("d", "12");
    CHECK(w.step(ev(watch_event_type::modified, d2), t0 + 2s) == watcher_action{{apply(d2)}, await_input{}});
    CHECK(w.step(ev(watch_event_type::bookmark, obj("", "15")), t0 + 3s) == watcher_action{{}, await_input{}});
    CHECK(w.last_sync_resource_version() == "15");
    auto a2 = obj("a", "16");
    CHECK(w.step(ev(watch_event_type::deleted, a2), t0 + 4s) ==
          watcher_action{{{watcher_event_type::deleted, a2}}, await_input{}});
    // The server closes the stream at its timeout: re-watch at once from the last revision.
    CHECK(w.step(watch_stream_ended{}, t0 + 450s) == watcher_action{{}, watch_at("16")});
}

TEST_CASE("items streamed while a list answer arrives go to the store one at a time") {
    auto w = make_fsm();
    w.step(start{}, t0);
    auto a = obj("a", "3"), b = obj("b", "4"), c = obj("c", "9");
    // The first item opens the snapshot; the list stays in flight.
    CHECK(w.step(list_item_received{a}, t0) == watcher_action{{init_start(), init_apply(a)}, await_input{}});
    CHECK(w.state() == watcher_state::listing);
    CHECK(w.step(list_item_received{b}, t0) == watcher_action{{init_apply(b)}, await_input{}});
    // The page's end carries no items: the next page, without a second init_start.
    CHECK(w.step(list_page_received{"10", "c1", {}}, t0) == watcher_action{{}, list_request{"", "c1", 500}});
    CHECK(w.step(list_item_received{c}, t0) == watcher_action{{init_apply(c)}, await_input{}});
    CHECK(w.step(list_page_received{"10", "", {}}, t0) == watcher_action{{init_done()}, watch_at("10")});
    CHECK(w.has_synced());
    // Outside a list an item is ignored.
    CHECK(w.step(list_item_received{obj("x", "1")}, t0) == watcher_action{{}, await_input{}});
}

TEST_CASE("a list that fails after streaming some items: the relist starts a new snapshot") {
    auto w = make_fsm();
    w.step(start{}, t0);
    auto a = obj("a", "3");
    w.step(list_item_received{a}, t0);
    // Cut mid-body: back off, then the relist's first item opens a new snapshot
    // (init_start drops what the broken list applied).
    auto backoff = w.step(list_failed{reset}, t0);
    REQUIRE(std::holds_alternative<sleep_until>(backoff.next));
    CHECK(backoff.events.empty());
    CHECK_FALSE(w.has_synced());
    auto relist = w.step(timer_fired{}, t0 + 5s);
    CHECK(relist.next == watcher_next{list_request{"0", "", 500}});
    auto b = obj("b", "4");
    CHECK(w.step(list_item_received{b}, t0 + 5s) == watcher_action{{init_start(), init_apply(b)}, await_input{}});
    CHECK(w.step(list_page_received{"12", "", {}}, t0 + 5s) == watcher_action{{init_done()}, watch_at("12")});
}

TEST_CASE("watch timeouts are drawn from [300, 600) by the injected source") {
    for (double r : {0.0, 0.999999}) {
        watcher_options o;
        o.random = [r] { return r; };
        watcher_fsm w(o);
        w.step(start{}, t0);
        auto a = w.step(list_page_received{"1", "", {}}, t0);
        auto* req = std::get_if<watch_request>(&a.next);
        REQUIRE(req);
        CHECK(req->timeout_seconds >= 300);
        CHECK(req->timeout_seconds < 600);
        CHECK(req->allow_watch_bookmarks);
    }
}

TEST_CASE("first list fails: back off 800 ms (jittered) then relist at RV 0") {
    auto w = make_fsm();
    w.step(start{}, t0);
    CHECK(w.step(list_failed{reset}, t0) == watcher_action{{}, sleep_until{t0 + 1200ms}});
    CHECK(w.state() == watcher_state::backing_off);
    CHECK(w.step(watch_started{}, t0 + 1s) == watcher_action{{}, await_input{}});  // stray input
    CHECK(w.step(timer_fired{}, t0 + 1200ms) == watcher_action{{}, list_request{"0", "", 500}});
}

TEST_CASE("page 2 expires: one full unpaged list at the requested revision") {
    auto w = make_fsm();
    w.step(start{}, t0);
    auto a = obj("a", "3");
    w.step(list_page_received{"10", "c1", {a}}, t0);
    CHECK(w.step(list_failed{api(410, "Expired")}, t0) == watcher_action{{}, list_request{"0", "", 0}});
    auto b = obj("b", "4");
    // The full answer starts a new snapshot (the store drops page 1).
    CHECK(w.step(list_page_received{"12", "", {a, b}}, t0) ==
          watcher_action{{init_start(), init_apply(a), init_apply(b), init_done()}, watch_at("12")});
}

TEST_CASE("page 2 fails otherwise: back off, relist from scratch") {
    auto w = make_fsm();
    w.step(start{}, t0);
    w.step(list_page_received{"10", "c1", {obj("a", "3")}}, t0);
    CHECK(std::holds_alternative<sleep_until>(w.step(list_failed{api(500, "InternalError")}, t0).next));
    CHECK(w.step(timer_fired{}, t0 + 2s) == watcher_action{{}, list_request{"0", "", 500}});
    // The relist's first page opens a new snapshot.
    CHECK(w.step(list_page_received{"11", "", {}}, t0 + 2s).events ==
          std::vector<watcher_event>{init_start(), init_done()});
}

TEST_CASE("list 410 or too-large revision: retry at once at \"\", paged; a second failure backs off") {
    for (auto err : {api(410, "Expired"), api(410, "Gone"), api(504, "Timeout", 0, "ResourceVersionTooLarge")}) {
        auto w = make_fsm();
        to_watching(w);
        // watch ERROR 410: relist at the last revision after backoff.
        CHECK(w.step(watch_error_event(410, "Expired"), t0 + 1min) == watcher_action{{}, sleep_until{t0 + 1min + 1200ms}});
        CHECK_FALSE(w.resource_version_unavailable());
        CHECK(w.step(timer_fired{}, t0 + 2min) == watcher_action{{}, list_request{"10", "", 0}});
        CHECK(w.step(list_failed{err}, t0 + 2min) == watcher_action{{}, list_request{"", "", 500}});
        CHECK(w.resource_version_unavailable());
        CHECK(std::holds_alternative<sleep_until>(w.step(list_failed{err}, t0 + 2min).next));
        CHECK(w.step(timer_fired{}, t0 + 3min) == watcher_action{{}, list_request{"", "", 500}});
        w.step(list_page_received{"20", "", {}}, t0 + 3min);
        CHECK_FALSE(w.resource_version_unavailable());
        CHECK(w.last_sync_resource_version() == "20");
    }
}

TEST_CASE("a server that paged the RV=0 list gets paged relists") {
    auto w = make_fsm();
    w.step(start{}, t0);
    w.step(list_page_received{"10", "c1", {}}, t0);
    w.step(list_page_received{"10", "", {}}, t0);
    w.step(watch_failed{api(500, "InternalError")}, t0);
    CHECK(w.step(timer_fired{}, t0 + 5s) == watcher_action{{}, list_request{"10", "", 500}});
}

TEST_CASE("429 with Retry-After on the watch request: wait at least that long, re-watch same revision") {
    auto w = make_fsm();
    to_watching(w);
    w.step(watch_stream_ended{}, t0 + 10min);  // -> watch request pending
    CHECK(w.step(watch_failed{api(429, "TooManyRequests", 7)}, t0 + 10min) ==
          watcher_action{{}, sleep_until{t0 + 10min + 7s}});
    CHECK(w.step(timer_fired{}, t0 + 10min + 7s) == watcher_action{{}, watch_at("10")});
}

TEST_CASE("connection refused on the watch request: back off, re-watch; other failures relist") {
    auto w = make_fsm();
    to_watching(w);
    w.step(watch_stream_ended{}, t0 + 10min);
    w.step(watch_failed{refused}, t0 + 10min);
    CHECK(w.step(timer_fired{}, t0 + 11min) == watcher_action{{}, watch_at("10")});
    CHECK(std::holds_alternative<sleep_until>(w.step(watch_failed{api(403, "Forbidden")}, t0 + 11min).next));
    CHECK(w.last_error() == error(api_errc::forbidden));
    CHECK(w.step(timer_fired{}, t0 + 12min) == watcher_action{{}, list_request{"10", "", 0}});
}

TEST_CASE("in the stream: 429 re-watches after backoff, reset ends the stream, garbage relists") {
    auto w = make_fsm();
    to_watching(w);
    w.step(ev(watch_event_type::added, obj("b", "11")), t0 + 1s);
    CHECK(std::holds_alternative<sleep_until>(w.step(watch_error_event(429, "TooManyRequests"), t0 + 2s).next));
    CHECK(w.step(timer_fired{}, t0 + 5s) == watcher_action{{}, watch_at("11")});
    w.step(watch_started{}, t0 + 5s);
    w.step(ev(watch_event_type::added, obj("c", "12")), t0 + 6s);
    CHECK(w.step(watch_failed{reset}, t0 + 7s) == watcher_action{{}, watch_at("12")});
    w.step(watch_started{}, t0 + 7s);
    w.step(ev(watch_event_type::added, obj("d", "13")), t0 + 8s);
    CHECK(std::holds_alternative<sleep_until>(
        w.step(watch_failed{error(kcoro::kcoro_errc::decode_error, "garbage")}, t0 + 9s).next));
    CHECK(w.step(timer_fired{}, t0 + 20s) == watcher_action{{}, list_request{"13", "", 0}});
}

TEST_CASE("a very short watch (under 1 s, no events) backs off and relists") {
    auto w = make_fsm();
    to_watching(w);
    CHECK(std::holds_alternative<sleep_until>(w.step(watch_stream_ended{}, t0 + 500ms).next));
    CHECK(w.step(timer_fired{}, t0 + 2s) == watcher_action{{}, list_request{"10", "", 0}});
}

TEST_CASE("backoff: 800 ms doubling to 30 s, jittered, reset after 2 minutes") {
    watcher_options o;
    o.random = [] { return 0.0; };  // no jitter: the bare steps
    watcher_fsm w(o);
    w.step(start{}, t0);
    steady_time now = t0;
    std::vector<std::chrono::milliseconds> expect{800ms, 1600ms, 3200ms, 6400ms, 12800ms, 25600ms, 30s, 30s};
    for (auto e : expect) {
        auto a = w.step(list_failed{reset}, now);
        REQUIRE(std::holds_alternative<sleep_until>(a.next));
        CHECK(std::get<sleep_until>(a.next).deadline - now == e);
        now = std::get<sleep_until>(a.next).deadline;
        w.step(timer_fired{}, now);
    }
    now += 2min + 1s;  // healthy for over two minutes since the last backoff began
    auto a = w.step(list_failed{reset}, now);
    CHECK(std::get<sleep_until>(a.next).deadline - now == 800ms);
}

TEST_CASE("404 on list delivers an empty snapshot, then backs off") {
    auto w = make_fsm();
    w.step(start{}, t0);
    auto a = w.step(list_failed{api(404, "NotFound")}, t0);
    CHECK(a.events == std::vector<watcher_event>{init_start(), init_done()});
    CHECK(std::holds_alternative<sleep_until>(a.next));
    CHECK(w.has_synced());
}

TEST_CASE("streaming list: initial events up to the end bookmark, then the same stream watches") {
    auto w = make_fsm(true);
    CHECK(w.step(start{}, t0) == watcher_action{{}, watch_request{"", 450, true, true, "NotOlderThan"}});
    w.step(watch_started{}, t0);
    auto a = obj("a", "5"), b = obj("b", "7");
    CHECK(w.step(ev(watch_event_type::added, a), t0) == watcher_action{{init_start(), init_apply(a)}, await_input{}});
    CHECK(w.step(ev(watch_event_type::added, b), t0) == watcher_action{{init_apply(b)}, await_input{}});
    CHECK(w.step(ev(watch_event_type::bookmark, obj("", "9")), t0) == watcher_action{{}, await_input{}});
    CHECK_FALSE(w.has_synced());
    CHECK(w.step(ev(watch_event_type::bookmark, obj("", "10"), true), t0) == watcher_action{{init_done()}, await_input{}});
    CHECK(w.has_synced());
    CHECK(w.state() == watcher_state::watching);
    auto c = obj("c", "11");
    CHECK(w.step(ev(watch_event_type::added, c), t0 + 1s) == watcher_action{{apply(c)}, await_input{}});
    // Later re-syncs stream again from the last revision.
    w.step(watch_error_event(410, "Expired"), t0 + 1min);
    CHECK(w.step(timer_fired{}, t0 + 2min) == watcher_action{{}, watch_request{"11", 450, true, true, "NotOlderThan"}});
}

TEST_CASE("streaming list rejected by the server: paged list now and from then on") {
    auto w = make_fsm(true);
    w.step(start{}, t0);
    CHECK(w.step(watch_failed{api(400, "BadRequest")}, t0) == watcher_action{{}, list_request{"0", "", 500}});
    CHECK_FALSE(w.streaming_enabled());
}

TEST_CASE("streaming list ended before the bookmark: fall back to a list for this round only") {
    auto w = make_fsm(true);
    w.step(start{}, t0);
    w.step(watch_started{}, t0);
    w.step(ev(watch_event_type::added, obj("a", "5")), t0);
    CHECK(w.step(watch_stream_ended{}, t0 + 5s) == watcher_action{{}, list_request{"0", "", 500}});
    CHECK(w.streaming_enabled());
    // 410 on the streaming watch: retry streaming at once at "".
    auto w2 = make_fsm(true);
    w2.step(start{}, t0);
    w2.step(watch_started{}, t0);
    w2.step(ev(watch_event_type::bookmark, obj("", "10"), true), t0);
    REQUIRE(w2.state() == watcher_state::watching);
    w2.step(watch_error_event(410, "Expired"), t0 + 1min);
    CHECK(w2.step(timer_fired{}, t0 + 2min) == watcher_action{{}, watch_request{"10", 450, true, true, "NotOlderThan"}});
    CHECK(w2.step(watch_failed{api(410, "Expired")}, t0 + 2min) ==
          watcher_action{{}, watch_request{"", 450, true, true, "NotOlderThan"}});
}

TEST_CASE("stop from any state ends the fsm") {
    auto w = make_fsm();
    to_watching(w);
    CHECK(w.step(stop{}, t0) == watcher_action{{}, watcher_done{}});
    CHECK(w.step(start{}, t0) == watcher_action{{}, watcher_done{}});
    CHECK(w.state() == watcher_state::stopped);
}

TEST_CASE("a bad random source cannot produce bad timeouts") {
    watcher_options o;
    o.random = [] { return 7.0; };
    watcher_fsm w(o);
    w.step(start{}, t0);
    auto a = w.step(list_page_received{"1", "", {}}, t0);
    CHECK(std::get<watch_request>(a.next).timeout_seconds == 300);
}

// The happy path as a script; then the same script with a failure injected at
// each step in turn. Whatever fails, the store sees a well-formed event
// sequence (init_apply only inside init_start..init_done), the fsm always
// asks for something (never stalls), and it gets back to watching with every
// object delivered.
TEST_CASE("failure injected at every step: recovers and keeps the event sequence well formed") {
    auto a = obj("a", "3"), b = obj("b", "4"), c = obj("c", "11");
    std::vector<watcher_input> script{
        start{},
        list_page_received{"10", "c1", {a}},
        list_page_received{"10", "", {b}},
        watch_started{},
        ev(watch_event_type::added, c),
        ev(watch_event_type::bookmark, obj("", "12")),
    };
    for (std::size_t fail_at = 1; fail_at < script.size(); ++fail_at) {
        CAPTURE(fail_at);
        auto w = make_fsm();
        steady_time now = t0;
        bool in_init = false;
        int snapshots = 0;
        auto check_events = [&](const watcher_action& act) {
            for (const auto& e : act.events) {
                switch (e.type) {
                case watcher_event_type::init_start: in_init = true; break;
                case watcher_event_type::init_apply: CHECK(in_init); break;
                case watcher_event_type::init_done: CHECK(in_init); in_init = false; ++snapshots; break;
                default: CHECK_FALSE(in_init); break;
                }
            }
        };
        watcher_action last;
        for (std::size_t i = 0; i < fail_at; ++i) {
            last = w.step(script[i], now);
            check_events(last);
            now += 2s;
        }
        // Inject the failure the current operation can have.
        bool listing = w.state() == watcher_state::listing;
        watcher_input failure = listing ? watcher_input{list_failed{reset}} : watcher_input{watch_failed{api(500, "InternalError")}};
        last = w.step(failure, now);
        check_events(last);
        CHECK_FALSE(std::holds_alternative<await_input>(last.next));
        CHECK_FALSE(std::holds_alternative<watcher_done>(last.next));
        // Recover: fire timers and answer requests until watching again.
        for (int guard = 0; guard < 10 && w.state() != watcher_state::watching; ++guard) {
            now += 1min;
            if (std::holds_alternative<sleep_until>(last.next)) {
                last = w.step(timer_fired{}, now);
            } else if (std::holds_alternative<list_request>(last.next)) {
                last = w.step(list_page_received{"20", "", {a, b, c}}, now);
            } else if (std::holds_alternative<watch_request>(last.next)) {
                last = w.step(watch_started{}, now);
            }
            check_events(last);
        }
        CHECK(w.state() == watcher_state::watching);
        CHECK_FALSE(in_init);
        CHECK(snapshots >= 1);
        CHECK(w.has_synced());
    }
}

TEST_CASE("actions print readably") {
    std::ostringstream os;
    os << watcher_action{{init_start(), init_apply(obj("a", "3"))}, list_request{"0", "c", 500}};
    CHECK(os.str() == "{events=[init_start init_apply(ns/a@3)] next=list{rv=\"0\" continue=\"c\" limit=500}}");
    std::ostringstream os2;
    os2 << watch_at("7") << " " << watcher_state::backing_off;
    CHECK(os2.str() == "watch{rv=\"7\" timeout=450 bookmarks} backing_off");
}

TEST_CASE("relist_requested: a watching fsm relists at its last revision, unpaged, and the list is a new snapshot") {
    auto w = make_fsm();
    // Before start nothing happens (start lists anyway).
    CHECK(w.step(relist_requested{}, t0).next == watcher_next{await_input{}});
    CHECK(w.state() == watcher_state::idle);
    to_watching(w);
    w.step(ev(watch_event_type::modified, obj("a", "11")), t0);
    // A sharded informer's share grew: the open watch is abandoned and the
    // list asks at the last revision seen (the watch cache answers it whole).
    auto a = w.step(relist_requested{}, t0 + 1s);
    CHECK(a.next == watcher_next{list_request{"11", "", 0}});
    CHECK(w.state() == watcher_state::listing);
    auto b = obj("b", "9");
    CHECK(w.step(list_item_received{b}, t0 + 1s) == watcher_action{{init_start(), init_apply(b)}, await_input{}});
    CHECK(w.step(list_page_received{"12", "", {}}, t0 + 1s) == watcher_action{{init_done()}, watch_at("12")});
}

TEST_CASE("relist_requested while a list streams in: the list starts over and opens a new snapshot") {
    auto w = make_fsm();
    w.step(start{}, t0);
    auto a = obj("a", "3");
    CHECK(w.step(list_item_received{a}, t0).events == std::vector<watcher_event>{init_start(), init_apply(a)});
    // Items so far were chosen by the old share: the new list's first item
    // begins a new snapshot (init_start drops them from the pending one).
    CHECK(w.step(relist_requested{}, t0).next == watcher_next{list_request{"0", "", 500}});
    auto b = obj("b", "4");
    CHECK(w.step(list_item_received{b}, t0) == watcher_action{{init_start(), init_apply(b)}, await_input{}});
    CHECK(w.step(list_page_received{"12", "", {}}, t0) == watcher_action{{init_done()}, watch_at("12")});
}

TEST_CASE("relist_requested cuts a backoff short; a stopped fsm ignores it") {
    auto w = make_fsm();
    to_watching(w);
    auto backoff = w.step(watch_failed{api(500, "InternalError")}, t0);
    REQUIRE(std::holds_alternative<sleep_until>(backoff.next));
    CHECK(w.step(relist_requested{}, t0).next == watcher_next{list_request{"10", "", 0}});
    w.step(stop{}, t0);
    CHECK(w.step(relist_requested{}, t0).next == watcher_next{watcher_done{}});
}
