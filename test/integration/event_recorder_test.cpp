// runtime::event_recorder against kcoro-apiserver (events.k8s.io/v1: create,
// series, per-object rate limit, drops counted) and against a scripted server
// that does not serve events.k8s.io (the core/v1 fallback). Manual clock.
#include <kcoro/runtime/event_recorder.hpp>

#include "harness.hpp"
#include "scripted_server.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/io/clock.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <doctest/doctest.h>

#include <map>
#include <string>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using kcoro::runtime::event_recorder;
using kcoro::runtime::event_type;

namespace {

json::object configmap(std::string name) {
    return json::object{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", {{"name", name}, {"namespace", "default"}, {"uid", "uid-" + name}}}};
}

struct recorder_run {
    std::map<std::string, int> drops;
    std::unique_ptr<event_recorder> rec;
    asio::cancellation_signal cancel;
    bool running = false;

    recorder_run(asio::io_context& ioc, kcoro::client::client& c, kcoro::io::clock& clk) {
        kcoro::runtime::event_recorder_options o;
        o.aggregator.reporting_controller = "test-operator";
        o.aggregator.reporting_instance = "host_1";
        o.on_drop = [this](std::string_view reason) { ++drops[std::string(reason)]; };
        rec = std::make_unique<event_recorder>(c, clk, std::move(o));
        running = true;
        asio::co_spawn(ioc, rec->run(), asio::bind_cancellation_slot(cancel.slot(), [this](std::exception_ptr e) {
                           running = false;
                           if (e) std::rethrow_exception(e);
                       }));
    }
};

struct harness : kcoro::test::harness {
    kcoro::io::manual_clock& clk = manual_clock();
    kcoro::apiserver::server& srv = server();
    kcoro::client::client* client = &admin();

    std::vector<kcoro::object_ptr> events() {
        const auto gvr = kcoro::resources::events_v1();
        const kcoro::list_options o;
        auto out = run(client->list(gvr, "default", o));
        REQUIRE(out.has_value());
        return out->items;
    }
};

std::string str(const json::object& o, std::string_view k) {
    auto* v = o.if_contains(k);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

} // namespace

TEST_CASE("events.k8s.io/v1: created, repeats become a series, stop flushes") {
    harness h;
    recorder_run r(h.ioc, *h.client, h.clk);
    auto cm = configmap("a");
    r.rec->record(cm, event_type::normal, "Created", "Reconcile", "created Deployment a");
    REQUIRE(h.run_until([&] { return r.rec->written() == 1; }));
    CHECK(r.rec->api() == kcoro::runtime::events_api::events_v1);
    auto evs = h.events();
    REQUIRE(evs.size() == 1);
    const auto& ev = *evs[0];
    CHECK(str(ev, "reason") == "Created");
    CHECK(str(ev, "action") == "Reconcile");
    CHECK(str(ev, "note") == "created Deployment a");
    CHECK(str(ev, "type") == "Normal");
    CHECK(str(ev, "reportingController") == "test-operator");
    CHECK(str(ev.at("regarding").as_object(), "name") == "a");

    h.clk.advance(1s);
    r.rec->record(cm, event_type::normal, "Created", "Reconcile", "created Deployment a");
    REQUIRE(h.run_until([&] { return r.rec->written() == 2; }));
    evs = h.events();
    REQUIRE(evs.size() == 1);
    auto* series = evs[0]->if_contains("series");
    REQUIRE(series);
    CHECK(series->as_object().at("count").to_number<std::int64_t>() == 2);

    // A third repeat only counts in memory.
    r.rec->record(cm, event_type::normal, "Created", "Reconcile", "created Deployment a");
    h.settle();
    CHECK(r.rec->written() == 2);

    r.rec->stop();
    REQUIRE(h.run_until([&] { return !r.running; }));
    r.rec->record(cm, event_type::warning, "Late", "Reconcile", "after stop");
    CHECK(r.drops["shutdown"] == 1);
    CHECK(r.rec->dropped_total() == 1);
}

TEST_CASE("per-object rate limit: 25 at once, the rest dropped and counted; invalid events counted") {
    harness h;
    recorder_run r(h.ioc, *h.client, h.clk);
    auto cm = configmap("b");
    for (int i = 0; i < 30; ++i) {
        r.rec->record(cm, event_type::normal, "Reason" + std::to_string(i), "Reconcile", "n");
    }
    r.rec->record(cm, event_type::normal, "", "Reconcile", "no reason");
    REQUIRE(h.run_until([&] { return r.rec->queued() == 0; }));
    CHECK(r.rec->written() == 25);
    CHECK(r.drops["rate_limited"] == 5);
    CHECK(r.drops["invalid"] == 1);
    CHECK(r.rec->dropped_total() == 6);
    // Another object has its own bucket.
    r.rec->record(configmap("c"), event_type::normal, "Other", "Reconcile", "n");
    REQUIRE(h.run_until([&] { return r.rec->written() == 26; }));
    r.rec->stop();
    h.settle();
}

TEST_CASE("an answered failure is dropped as rejected; transport failures are retried, then retries_exhausted") {
    harness h;
    kcoro::apiserver::http::fault_rule f;
    f.verb = "create";
    f.resource = "events";
    f.count = 0;
    f.code = 500;
    h.srv.faults().add(f);
    kcoro::client::client_options co;
    co.max_retries = 0;
    kcoro::test::client_spec spec;
    spec.options = co;
    auto c = h.make_client(spec);
    recorder_run r(h.ioc, *c, h.clk);
    r.rec->record(configmap("d"), event_type::warning, "Failed", "Reconcile", "n");
    REQUIRE(h.run_until([&] { return r.rec->queued() == 0; }));
    CHECK(r.drops["rejected"] == 1);
    r.rec->stop();
    h.settle();

    // Nobody listens on port 1: every attempt is a transport error.
    auto c2 = h.http_client("http://127.0.0.1:1", co);
    recorder_run r2(h.ioc, *c2, h.clk);
    r2.rec->record(configmap("d"), event_type::warning, "Failed", "Reconcile", "n");
    int sleeps = 0;
    for (; sleeps < 40 && r2.rec->queued() > 0; ++sleeps) {
        h.settle();
        h.clk.advance(10s);
    }
    h.settle();
    CHECK(r2.rec->queued() == 0);
    CHECK(r2.rec->written() == 0);
    CHECK(r2.drops["retries_exhausted"] == 1);
    CHECK(sleeps >= 11);  // 12 attempts, 10 s apart
    r2.rec->stop();
    h.settle();
}

TEST_CASE("a server without events.k8s.io: fallback to core/v1 Events") {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    using kcoro::test::step;
    std::vector<step> script;
    step s1;
    s1.expect.method = "POST";
    s1.expect.path = "/apis/events.k8s.io/v1/namespaces/default/events";
    s1.answer.status = 404;
    s1.answer.body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"the server could not find the requested resource"})";
    script.push_back(s1);
    step s2;
    s2.expect.method = "GET";
    s2.expect.path = "/apis/events.k8s.io/v1";
    s2.answer.status = 404;
    s2.answer.headers = {{"Content-Type", "text/plain; charset=utf-8"}};
    s2.answer.body = "404 page not found\n";
    script.push_back(s2);
    step s3;
    s3.expect.method = "POST";
    s3.expect.path = "/api/v1/namespaces/default/events";
    s3.expect.body_contains = "\"involvedObject\"";
    s3.answer.status = 201;
    s3.answer.body = R"({"kind":"Event","apiVersion":"v1","metadata":{"name":"e1","namespace":"default"}})";
    script.push_back(s3);
    kcoro::test::scripted_server srv(ioc, script);
    kcoro::client::client_config cfg;
    cfg.server = srv.url();
    auto c = kcoro::client::client::create(cfg, clk).value();
    recorder_run r(ioc, *c, clk);
    r.rec->record(configmap("e"), event_type::normal, "Created", "Reconcile", "n");
    REQUIRE(kcoro::test::run_until(ioc, [&] { return r.rec->written() == 1; }));
    CHECK(r.rec->api() == kcoro::runtime::events_api::core_v1);
    CHECK(r.rec->written() == 1);
    CHECK(r.rec->dropped_total() == 0);
    CHECK(srv.failures().empty());
    CHECK(srv.remaining() == 0);
    r.rec->stop();
    REQUIRE(kcoro::test::run_until(ioc, [&] { return !r.running; }));
    srv.stop();
    kcoro::test::drain(ioc);
}
