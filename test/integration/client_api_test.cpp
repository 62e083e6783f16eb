// The client verbs, pagination, retries, the limiter, watch streams and
// discovery, over real sockets against the scripted server.
#include <kcoro/client/client.hpp>

#include <kcoro/client/discovery_client.hpp>

#include "run_until.hpp"
#include "scripted_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <cstdio>
#include <unistd.h>
#include <fstream>
#include <string>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using kcoro::test::run;
using kcoro::test::scripted_server;
using kcoro::test::step;
using kcoro::test::stream_piece;

namespace {

step expect(std::string method, std::string path, std::string body = "{}", int status = 200) {
    step s;
    s.expect.method = std::move(method);
    s.expect.path = std::move(path);
    s.answer.status = status;
    s.answer.body = std::move(body);
    return s;
}

std::unique_ptr<kcoro::client::client> make(kcoro::io::clock& clk, const scripted_server& srv,
                                            kcoro::client::client_options o = {}) {
    kcoro::client::client_config cfg;
    cfg.server = srv.url();
    auto c = kcoro::client::client::create(cfg, clk, std::move(o));
    REQUIRE(c.has_value());
    return std::move(*c);
}

std::string cm(std::string name, std::string rv = "1") {
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
           R"(","namespace":"default","resourceVersion":")" + rv + R"("}})";
}

std::string status(int code, std::string reason) {
    return R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":")" + reason + R"(","code":)" +
           std::to_string(code) + "}";
}

const auto configmaps = kcoro::resources::configmaps();

struct attempts_seen final : kcoro::request_metrics {
    std::vector<std::string> codes;
    void observe(std::string_view, std::string_view, std::string_view, std::string_view code, double) override {
        codes.emplace_back(code);
    }
};

} // namespace

TEST_CASE("get answers the object; a missing object is NotFound") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    scripted_server srv(ioc, {expect("GET", "/api/v1/namespaces/default/configmaps/a", cm("a")),
                              expect("GET", "/api/v1/namespaces/default/configmaps/b", status(404, "NotFound"), 404)});
    auto c = make(clk, srv);
    auto a = run(ioc, c->get(configmaps, {"default", "a"}));
    REQUIRE(a.has_value());
    REQUIRE(a->has_value());
    CHECK(kcoro::name_of(***a) == "a");
    auto b = run(ioc, c->get(configmaps, {"default", "b"}));
    REQUIRE(b.has_value());
    REQUIRE_FALSE(b->has_value());
    CHECK(kcoro::is_not_found(b->error()));
    CHECK(srv.failures().empty());
}

TEST_CASE("list_all follows continue tokens across pages") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    auto page = [](std::string items, std::string cont, std::string rv) {
        return R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":")" + rv +
               R"(","continue":")" + cont + R"("},"items":[)" + items + "]}";
    };
    step p1 = expect("GET", "/api/v1/namespaces/default/configmaps", page(cm("a") + "," + cm("b"), "t1", "10"));
    p1.expect.query = {{"limit", "2"}, {"labelSelector", "app=x"}};
    p1.expect.query_absent = {"continue"};
    step p2 = expect("GET", "/api/v1/namespaces/default/configmaps", page(cm("c") + "," + cm("d"), "t2", "10"));
    p2.expect.query = {{"limit", "2"}, {"continue", "t1"}, {"labelSelector", "app=x"}};
    step p3 = expect("GET", "/api/v1/namespaces/default/configmaps", page(cm("e"), "", "10"));
    p3.expect.query = {{"continue", "t2"}};
    scripted_server srv(ioc, {p1, p2, p3});
    auto c = make(clk, srv);
    kcoro::list_options o;
    o.limit = 2;
    o.label_selector = "app=x";
    auto all = run(ioc, c->list_all(configmaps, "default", o));
    REQUIRE(all.has_value());
    REQUIRE(all->has_value());
    REQUIRE((*all)->items.size() == 5);
    CHECK(kcoro::name_of(*(*all)->items[4]) == "e");
    CHECK((*all)->resource_version == "10");
    CHECK(srv.failures().empty());
    CHECK(srv.connections() == 1);
}

TEST_CASE("list_each hands each item over as it is decoded, before the body ends") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    step l = expect("GET", "/api/v1/namespaces/default/configmaps");
    l.expect.query = {{"resourceVersion", "0"}};
    l.answer.stream = {{R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[)" +
                            cm("a") + ",",
                        false},
                       {cm("b") + "]}", true}};
    // A body cut after one item: the error is the caller's, not retried
    // (the item already went out).
    step cut = expect("GET", "/api/v1/namespaces/default/configmaps");
    cut.answer.stream = {{R"({"kind":"ConfigMapList","apiVersion":"v1","items":[)" + cm("x") + ",", false}};
    cut.answer.hold_open = true;
    scripted_server srv(ioc, {l, cut});
    auto c = make(clk, srv);
    std::vector<std::string> seen;
    kcoro::list_options o;
    o.resource_version = "0";
    auto first = kcoro::test::start(ioc, c->list_each(configmaps, "default", o, [&](kcoro::object_ptr item) {
        seen.emplace_back(kcoro::name_of(*item));
    }));
    REQUIRE(kcoro::test::run_until(ioc, [&] { return seen.size() == 1; }));
    CHECK(seen[0] == "a");
    CHECK_FALSE(first->has_value());  // the rest of the body is not sent yet
    srv.open_gate();
    REQUIRE(kcoro::test::run_until(ioc, [&] { return first->has_value(); }));
    REQUIRE((*first)->has_value());
    CHECK((**first)->items.empty());
    CHECK((**first)->resource_version == "10");
    CHECK(seen == std::vector<std::string>{"a", "b"});

    seen.clear();
    auto broken = kcoro::test::start(ioc, c->list_each(configmaps, "default", {}, [&](kcoro::object_ptr item) {
        seen.emplace_back(kcoro::name_of(*item));
    }));
    REQUIRE(kcoro::test::run_until(ioc, [&] { return seen.size() == 1; }));
    srv.stop();
    REQUIRE(kcoro::test::run_until(ioc, [&] { return broken->has_value(); }));
    REQUIRE_FALSE((*broken)->has_value());
    CHECK(kcoro::is_transport_error((*broken)->error()));
    CHECK(seen == std::vector<std::string>{"x"});
    CHECK(srv.requests().size() == 2);  // not retried
}

TEST_CASE("writes: create, update conflict, patch types, apply, delete preconditions, status") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    step create = expect("POST", "/api/v1/namespaces/default/configmaps", cm("gen-x1"), 201);
    create.expect.body_contains = R"("generateName":"gen-")";
    step update = expect("PUT", "/api/v1/namespaces/default/configmaps/a", status(409, "Conflict"), 409);
    update.expect.body_contains = R"("resourceVersion":"5")";
    step merge = expect("PATCH", "/api/v1/namespaces/default/configmaps/a", cm("a", "6"));
    merge.expect.headers = {{"Content-Type", "application/merge-patch+json"}};
    merge.expect.body_contains = R"({"data":{"k":"v"}})";
    step apply = expect("PATCH", "/api/v1/namespaces/default/configmaps/a", cm("a", "7"));
    apply.expect.headers = {{"Content-Type", "application/apply-patch+yaml"}};
    apply.expect.query = {{"fieldManager", "kcoro-ctl"}, {"force", "true"}};
    step del = expect("DELETE", "/api/v1/namespaces/default/configmaps/a",
                      R"({"kind":"Status","apiVersion":"v1","status":"Success","code":200})");
    del.expect.body_contains = R"("uid":"u-1")";
    step st = expect("PATCH", "/api/v1/namespaces/default/configmaps/a/status", cm("a", "8"));
    scripted_server srv(ioc, {create, update, merge, apply, del, st});
    auto c = make(clk, srv);

    auto obj = json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"gen-"}})").as_object();
    auto r1 = run(ioc, c->create(configmaps, "default", obj));
    REQUIRE(r1.has_value());
    REQUIRE(r1->has_value());
    CHECK(kcoro::name_of(***r1) == "gen-x1");

    auto stale = json::parse(cm("a", "5")).as_object();
    auto r2 = run(ioc, c->update(configmaps, stale));
    REQUIRE(r2.has_value());
    REQUIRE_FALSE(r2->has_value());
    CHECK(kcoro::is_conflict(r2->error()));

    auto r3 = run(ioc, c->patch(configmaps, {"default", "a"}, R"({"data":{"k":"v"}})"));
    REQUIRE(r3.has_value());
    REQUIRE(r3->has_value());
    CHECK(kcoro::resource_version_of(***r3) == "6");

    auto r4 = run(ioc, c->apply(configmaps, json::parse(cm("a")).as_object(), "kcoro-ctl", true));
    REQUIRE(r4.has_value());
    CHECK(r4->has_value());

    kcoro::delete_options d;
    d.preconditions = kcoro::delete_preconditions{"u-1", ""};
    auto r5 = run(ioc, c->remove(configmaps, {"default", "a"}, d));
    REQUIRE(r5.has_value());
    CHECK(r5->has_value());

    auto r6 = run(ioc, c->patch_status(configmaps, {"default", "a"}, R"({"status":{}})"));
    REQUIRE(r6.has_value());
    CHECK(r6->has_value());
    CHECK(srv.failures().empty());
}

TEST_CASE("429 with Retry-After is retried after sleeping on the clock; 503 without it is not") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    step busy = expect("GET", "/api/v1/namespaces/default/configmaps/a", status(429, "TooManyRequests"), 429);
    busy.answer.headers = {{"Retry-After", "2"}};
    step down = expect("GET", "/api/v1/namespaces/default/configmaps/b", status(503, "ServiceUnavailable"), 503);
    scripted_server srv(ioc, {busy, expect("GET", "/api/v1/namespaces/default/configmaps/a", cm("a")), down});
    attempts_seen m;
    kcoro::client::client_options o;
    o.metrics = &m;
    auto c = make(clk, srv, o);
    // Started later than made: the arguments (temporaries here) live in the
    // coroutine's frame.
    auto out = kcoro::test::start(ioc, c->get(kcoro::resources::configmaps(), {"default", "a"}));
    // The first attempt is over (its deadline timer gone) and the client sleeps out Retry-After.
    REQUIRE(kcoro::test::run_until(ioc, [&] { return m.codes.size() == 1 && clk.sleepers() == 1; }));
    CHECK(m.codes[0] == "429");
    clk.advance(1s);
    ioc.poll();
    CHECK(srv.requests().size() == 1);  // still waiting out Retry-After
    clk.advance(1s);
    REQUIRE(kcoro::test::run_until(ioc, [&] { return out->has_value(); }));
    REQUIRE((*out)->has_value());
    CHECK(srv.requests().size() == 2);

    auto b = run(ioc, c->get(configmaps, {"default", "b"}));
    REQUIRE(b.has_value());
    REQUIRE_FALSE(b->has_value());
    CHECK(b->error().code() == kcoro::api_errc::service_unavailable);
    CHECK(srv.requests().size() == 3);
}

TEST_CASE("the optional QPS limiter spaces requests on the clock") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    scripted_server srv(ioc, {expect("GET", "/api/v1/namespaces/default/configmaps/a", cm("a")),
                              expect("GET", "/api/v1/namespaces/default/configmaps/a", cm("a"))});
    kcoro::client::client_options o;
    o.qps = 1;
    o.burst = 1;
    auto c = make(clk, srv, o);
    auto first = run(ioc, c->get(configmaps, {"default", "a"}));
    REQUIRE(first.has_value());
    CHECK(first->has_value());
    auto second = kcoro::test::start(ioc, c->get(kcoro::resources::configmaps(), {"default", "a"}));
    REQUIRE(kcoro::test::run_until(ioc, [&] { return clk.sleepers() == 1; }));
    CHECK(srv.requests().size() == 1);
    clk.advance(1s);
    REQUIRE(kcoro::test::run_until(ioc, [&] { return second->has_value(); }));
    CHECK((*second)->has_value());
    CHECK(srv.requests().size() == 2);
}

namespace {
std::string event(std::string type, std::string obj) {
    return R"({"type":")" + type + R"(","object":)" + obj + "}\n";
}
asio::awaitable<kcoro::result<std::vector<kcoro::watch_event>>> drain(kcoro::client::watch_stream& w) {
    std::vector<kcoro::watch_event> out;
    for (;;) {
        auto e = co_await w.next();
        if (!e) co_return e.error();
        if (!*e) co_return out;
        out.push_back(std::move(**e));
    }
}
} // namespace

TEST_CASE("watch decodes events split across chunks, bookmarks, and a 410 ERROR event") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    std::string added = event("ADDED", cm("a", "11"));
    std::string modified = event("MODIFIED", cm("a", "12"));
    step w = expect("GET", "/api/v1/namespaces/default/configmaps");
    w.expect.query = {{"watch", "true"}, {"resourceVersion", "10"}, {"allowWatchBookmarks", "true"}};
    w.answer.stream = {
        {added.substr(0, 17), false},
        {added.substr(17) + modified.substr(0, 5), false},
        {modified.substr(5) + event("BOOKMARK", R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"15"}})"), false},
        {event("ERROR", R"x({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","message":"too old resource version: 10 (15)","code":410})x"), false},
    };
    scripted_server srv(ioc, {w});
    auto c = make(clk, srv);
    kcoro::watch_options o;
    o.resource_version = "10";
    auto ws = run(ioc, c->watch(configmaps, "default", o));
    REQUIRE(ws.has_value());
    REQUIRE(ws->has_value());
    auto events = run(ioc, drain(**ws));
    REQUIRE(events.has_value());
    REQUIRE(events->has_value());
    auto& ev = **events;
    REQUIRE(ev.size() == 4);
    CHECK(ev[0].type == kcoro::watch_event_type::added);
    CHECK(ev[0].resource_version == "11");
    CHECK(ev[1].type == kcoro::watch_event_type::modified);
    CHECK(ev[2].type == kcoro::watch_event_type::bookmark);
    CHECK(ev[2].resource_version == "15");
    CHECK(ev[3].type == kcoro::watch_event_type::error);
    CHECK(kcoro::needs_relist(ev[3].to_error()));
    CHECK(srv.failures().empty());
}

TEST_CASE("watch: garbage and a truncated stream end with clear errors") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    step garbage = expect("GET", "/api/v1/namespaces/default/configmaps");
    garbage.answer.stream = {{event("ADDED", cm("a")), false}, {"<html>proxy error</html>", false}};
    step truncated = expect("GET", "/api/v1/namespaces/default/configmaps");
    truncated.answer.stream = {{event("ADDED", cm("a")) + R"({"type":"MODIFIED","obj)", false}};
    scripted_server srv(ioc, {garbage, truncated});
    auto c = make(clk, srv);
    for (auto expected : {kcoro::kcoro_errc::decode_error, kcoro::kcoro_errc::stream_truncated}) {
        auto ws = run(ioc, c->watch(configmaps, "default"));
        REQUIRE(ws.has_value());
        REQUIRE(ws->has_value());
        auto first = run(ioc, (*ws)->next());
        REQUIRE(first.has_value());
        REQUIRE(first->has_value());
        REQUIRE(first->value().has_value());
        CHECK(first->value()->type == kcoro::watch_event_type::added);
        auto second = run(ioc, (*ws)->next());
        REQUIRE(second.has_value());
        REQUIRE_FALSE(second->has_value());
        CHECK(second->error().code() == expected);
        CHECK_FALSE((*ws)->is_open());
    }
}

TEST_CASE("a watch refused with 410 is the call's error") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    scripted_server srv(ioc, {expect("GET", "/api/v1/namespaces/default/configmaps", status(410, "Expired"), 410)});
    auto c = make(clk, srv);
    auto ws = run(ioc, c->watch(configmaps, "default"));
    REQUIRE(ws.has_value());
    REQUIRE_FALSE(ws->has_value());
    CHECK(kcoro::needs_relist(ws->error()));
}

TEST_CASE("discovery resolves names and kinds, refreshing on a miss at a bounded rate") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    std::string api = R"({"kind":"APIVersions","versions":["v1"]})";
    std::string v1 = R"({"kind":"APIResourceList","groupVersion":"v1","resources":[
        {"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch","create","update","patch","delete"],"shortNames":["cm"]},
        {"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["get","list"],"shortNames":["ns"]}]})";
    std::string apis = R"({"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]})";
    std::string apps = R"({"kind":"APIResourceList","groupVersion":"apps/v1","resources":[
        {"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get","list"],"shortNames":["deploy"]},
        {"name":"deployments/status","singularName":"","namespaced":true,"kind":"Deployment","verbs":["get","patch"]}]})";
    auto round = [&] {
        return std::vector<step>{expect("GET", "/api", api), expect("GET", "/api/v1", v1), expect("GET", "/apis", apis),
                                 expect("GET", "/apis/apps/v1", apps)};
    };
    scripted_server srv(ioc, round());
    auto c = make(clk, srv);
    auto& d = c->discovery();
    auto cm_info = run(ioc, d.resolve("cm"));
    REQUIRE(cm_info.has_value());
    REQUIRE(cm_info->has_value());
    CHECK((*cm_info)->gvr == configmaps);
    auto dep = run(ioc, d.find(kcoro::group_version_kind{"apps", "v1", "Deployment"}));
    REQUIRE(dep.has_value());
    REQUIRE(dep->has_value());
    CHECK((*dep)->gvr.resource == "deployments");
    CHECK((*dep)->has_status);
    auto ns = run(ioc, d.resolve("namespaces"));
    REQUIRE(ns.has_value());
    REQUIRE(ns->has_value());
    CHECK_FALSE((*ns)->namespaced);
    CHECK(d.refreshes() == 1);

    // A miss right after a refresh does not refresh again.
    auto miss = run(ioc, d.resolve("gatewayinstances"));
    REQUIRE(miss.has_value());
    REQUIRE_FALSE(miss->has_value());
    CHECK(miss->error().code() == kcoro::kcoro_errc::unsupported);
    CHECK(d.refreshes() == 1);
    // Later, a miss refreshes once more.
    for (auto& s : round()) srv.add(s);
    clk.advance(30s);
    auto again = run(ioc, d.resolve("gatewayinstances"));
    REQUIRE(again.has_value());
    CHECK_FALSE(again->has_value());
    CHECK(d.refreshes() == 2);
    CHECK(srv.failures().empty());
    CHECK(srv.remaining() == 0);
}

TEST_CASE("a rotated token file is re-read after a 401") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    std::string path = "/tmp/kcoro-client-token-" + std::to_string(::getpid());
    std::ofstream(path) << "first\n";
    step ok1 = expect("GET", "/api/v1/namespaces/default/configmaps/a", cm("a"));
    ok1.expect.headers = {{"Authorization", "Bearer first"}};
    step denied = expect("GET", "/api/v1/namespaces/default/configmaps/a", status(401, "Unauthorized"), 401);
    denied.expect.headers = {{"Authorization", "Bearer first"}};
    step ok2 = expect("GET", "/api/v1/namespaces/default/configmaps/a", cm("a"));
    ok2.expect.headers = {{"Authorization", "Bearer second"}};
    scripted_server srv(ioc, {ok1, denied, ok2});
    kcoro::client::client_config cfg;
    cfg.server = srv.url();
    cfg.token_file = path;
    auto c = kcoro::client::client::create(cfg, clk);
    REQUIRE(c.has_value());
    auto r1 = run(ioc, (*c)->get(configmaps, {"default", "a"}));
    REQUIRE(r1.has_value());
    CHECK(r1->has_value());
    std::ofstream(path) << "second\n";
    auto r2 = run(ioc, (*c)->get(configmaps, {"default", "a"}));
    REQUIRE(r2.has_value());
    CHECK(r2->has_value());
    CHECK(srv.failures().empty());
    std::remove(path.c_str());
}
