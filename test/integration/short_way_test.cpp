// Controllers written the short way (mgr.controller(...)) on a manager in
// process, against kcoro-apiserver:
//  - configmap-mirror: every series controller-runtime exports for a
//    controller is on the manager's registry, errors are logged as
//    "Reconciler error", the child is written with one request per write
//    and no GET (read from the cache), the max-concurrent-reconciles flag
//    reaches the controller;
//  - a reconciler that writes a timestamp into its object's status on every
//    pass (its own event wakes it again): the hot-loop alarm fires once per
//    window, with a warning log line, a HotLoop Warning Event and
//    kcoro_hot_loop_detected_total.
#include "mirror.hpp"
#include "harness.hpp"
#include "recorders.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/time.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/controller_helpers.hpp>
#include <kcoro/server/manager.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using kcoro::object_key;

namespace {

using kcoro::test::line_sink;

// The requests the server answered for the operator's user, as "verb path".
struct request_log {
    std::vector<std::string> lines;
    void observe(const json::object& line) {
        const auto* msg = line.if_contains("msg");
        if (!msg || *msg != "request" || line.at("user") != "operator") return;
        lines.push_back(std::string(line.at("verb").as_string()) + " " + std::string(line.at("path").as_string()));
    }
    int count(std::string_view prefix) const {
        int n = 0;
        for (const auto& l : lines) n += l.starts_with(prefix);
        return n;
    }
};

// The shared harness (real clock, memory transport, a token per user: the
// server's log tells the operator's requests from the test's).
struct log_holder {
    request_log requests;  // before the harness, whose server writes to it
};
struct harness : log_holder, kcoro::test::harness {
    kcoro::io::clock& clk = clock();
    kcoro::client::client* admin = &kcoro::test::harness::admin();
    std::unique_ptr<kcoro::client::client> op;
    std::shared_ptr<line_sink> sink = std::make_shared<line_sink>();
    std::unique_ptr<kcoro::server::manager> mgr;
    std::shared_ptr<std::optional<int>> exit_code;

    static kcoro::test::harness_options options(request_log* log) {
        kcoro::test::harness_options o;
        o.clock = kcoro::test::clock_kind::steady;
        o.authenticate = true;
        o.server.log = [log](const json::object& line) { log->observe(line); };
        return o;
    }

    harness() : kcoro::test::harness(options(&requests)) {
        kcoro::test::client_spec spec;
        spec.user = "operator";
        op = make_client(spec);
        auto o = manager_options();
        o.health_probe_bind_address = "127.0.0.1:0";
        o.max_concurrent_reconciles = 3;
        auto s = manager_setup("short-way", op.get());
        s.sink = sink;
        mgr = make_manager(std::move(o), std::move(s));
    }
    ~harness() {
        if (exit_code && !exit_code->has_value()) {
            mgr->request_stop();
            run_until([&] { return exit_code->has_value(); }, 40s);
        }
        mgr.reset();
    }

    void start() { exit_code = kcoro::test::start(ioc, mgr->run_async()); }

    template <class T>
    T run(asio::awaitable<T> aw) {
        return kcoro::test::harness::run(std::move(aw));
    }
    template <class Pred>
    bool wait_for(Pred p, std::chrono::milliseconds bound = 10s) {
        return run_until(p, bound);
    }
    kcoro::object_ptr create(const kcoro::group_version_resource& gvr, std::string_view text) {
        auto r = run(admin->create(gvr, "default", json::parse(text).as_object()));
        REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
        return *r;
    }
    // A sample of `family` whose labels include every one of `labels`.
    bool has_series(const std::string& text, std::string_view family, std::vector<std::string> labels) {
        std::size_t at = 0;
        while ((at = text.find(std::string(family) + "{", at)) != std::string::npos) {
            const auto end = text.find('}', at);
            const auto sample = text.substr(at, end - at);
            bool all = true;
            for (const auto& l : labels) all = all && sample.find(l) != std::string::npos;
            if (all) return true;
            at = end;
        }
        return false;
    }
};

} // namespace

TEST_CASE("the short way: every controller-runtime series, errors logged, one request per child write, no GET") {
    harness h;
    mirror::reconciler rec(h.mgr->client());
    auto& ctl = mirror::add_to(*h.mgr, rec);
    CHECK(ctl.options().max_concurrent_reconciles == 3);  // --max-concurrent-reconciles
    h.start();
    REQUIRE(h.wait_for([&] { return h.mgr->cache_synced() && h.mgr->is_leader(); }));

    // A parent: its child, with exactly one write and no GET of the child.
    auto parent = h.create(kcoro::resources::configmaps(),
                           R"({"metadata":{"name":"demo","namespace":"default","labels":{"app.example.io/managed":"true"}}})");
    REQUIRE(h.wait_for([&] { return h.run(h.admin->get(kcoro::resources::configmaps(), {"default", "demo-observed"})).has_value(); }));
    REQUIRE(h.wait_for([&] { return ctl.queue().queue().len() == 0 && ctl.active_workers() == 0; }));
    const std::string child_path = "/api/v1/namespaces/default/configmaps/demo-observed";
    CHECK(h.requests.count("create /api/v1/namespaces/default/configmaps") == 1);
    CHECK(h.requests.count("get " + child_path) == 0);  // read from the cache
    // Drift: one forced apply, still no GET.
    auto child = *h.run(h.admin->get(kcoro::resources::configmaps(), {"default", "demo-observed"}));
    json::object tampered = *child;
    tampered["data"].as_object()["parentUID"] = "tampered";
    REQUIRE(h.run(h.admin->update(kcoro::resources::configmaps(), tampered)));
    REQUIRE(h.wait_for([&] {
        auto c = h.run(h.admin->get(kcoro::resources::configmaps(), {"default", "demo-observed"}));
        return c && (*c)->at("data").at("parentUID").as_string() == kcoro::uid_of(*parent);
    }));
    REQUIRE(h.wait_for([&] { return ctl.queue().queue().len() == 0 && ctl.active_workers() == 0; }));
    CHECK(h.requests.count("patch " + child_path) == 1);
    CHECK(h.requests.count("get " + child_path) == 0);
    CHECK(ctl.stats().writes == 2);

    // A name conflict: the reconcile fails, and the error is logged.
    h.create(kcoro::resources::configmaps(), R"({"metadata":{"name":"taken-observed","namespace":"default"}})");
    h.create(kcoro::resources::configmaps(),
             R"({"metadata":{"name":"taken","namespace":"default","labels":{"app.example.io/managed":"true"}}})");
    REQUIRE(h.wait_for([&] { return ctl.stats().errors >= 1; }));
    CHECK(h.sink->count(R"("msg":"Reconciler error")") >= 1);
    CHECK(h.sink->count(R"("controller":"configmap-mirror")") >= 1);
    CHECK(h.sink->count("name conflict: ConfigMap default/taken-observed") >= 1);

    // Every series controller-runtime exports for a controller, plus kcoro's.
    auto text = h.mgr->metrics().serialize();
    const std::string c = R"(controller="configmap-mirror")";
    for (const char* result : {"success", "error", "requeue", "requeue_after"}) {
        CHECK_MESSAGE(h.has_series(text, "controller_runtime_reconcile_total", {c, std::string("result=\"") + result + "\""}),
                      result);
    }
    for (const char* family : {"controller_runtime_reconcile_errors_total",
                               "controller_runtime_terminal_reconcile_errors_total",
                               "controller_runtime_reconcile_panics_total",
                               "controller_runtime_reconcile_time_seconds_bucket",
                               "controller_runtime_reconcile_time_seconds_sum",
                               "controller_runtime_reconcile_time_seconds_count",
                               "controller_runtime_max_concurrent_reconciles",
                               "controller_runtime_active_workers",
                               "kcoro_hot_loop_detected_total"}) {
        CHECK_MESSAGE(h.has_series(text, family, {c}), family);
    }
    CHECK(h.has_series(text, "controller_runtime_max_concurrent_reconciles", {c}));
    CHECK(text.find(R"(controller_runtime_max_concurrent_reconciles{controller="configmap-mirror"} 3)") !=
          std::string::npos);
    for (const char* family : {"workqueue_depth", "workqueue_adds_total", "workqueue_queue_duration_seconds_bucket",
                               "workqueue_work_duration_seconds_bucket", "workqueue_unfinished_work_seconds",
                               "workqueue_longest_running_processor_seconds", "workqueue_retries_total"}) {
        CHECK_MESSAGE(h.has_series(text, family, {c, R"(name="configmap-mirror")"}), family);
    }
    // The probes the manager serves.
    CHECK(h.mgr->probe_endpoint().has_value());
}

namespace {

// A CRD whose status takes any field.
constexpr std::string_view stamps_crd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
  "metadata":{"name":"stamps.example.kcoro.dev"},
  "spec":{"group":"example.kcoro.dev","scope":"Namespaced",
    "names":{"kind":"Stamp","listKind":"StampList","plural":"stamps","singular":"stamp"},
    "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
      "schema":{"openAPIV3Schema":{"type":"object","properties":{
        "spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
        "status":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}})";

const kcoro::group_version_resource stamps{"example.kcoro.dev", "v1", "stamps"};

} // namespace

TEST_CASE("hot loop: a reconciler that writes a timestamp into status on every pass is reported once per window") {
    harness h;
    REQUIRE(h.run(h.admin->create(kcoro::resources::customresourcedefinitions(), "", json::parse(stamps_crd).as_object())));
    REQUIRE(h.wait_for([&] { return h.run(h.admin->list(stamps, "default")).has_value(); }));
    kcoro::resource_info info;
    info.gvr = stamps;
    info.kind = "Stamp";
    info.has_status = true;
    h.mgr->resources().add(info);

    // The anti-pattern: every pass stores "now" in the status; the write is
    // an event, the event a pass.
    int passes = 0;
    auto& ctl = h.mgr->controller("stamper")
                    .for_(stamps)
                    .complete([&](const kcoro::runtime::reconcile_context& ctx)
                                  -> asio::awaitable<kcoro::result<kcoro::runtime::reconcile_result>> {
                        auto obj = co_await h.mgr->client().get(stamps, ctx.key);
                        if (!obj) co_return kcoro::runtime::success();
                        ++passes;
                        const json::value status = json::object{
                            {"lastReconciled", kcoro::format_rfc3339_micro(h.clk.wall_now()) + "#" + std::to_string(passes)}};
                        auto w = co_await kcoro::runtime::update_status_if_changed(h.mgr->client(), stamps, *obj, status,
                                                                                    ctx.helpers);
                        if (!w) co_return w.error();
                        co_return kcoro::runtime::success();
                    });
    h.start();
    REQUIRE(h.wait_for([&] { return h.mgr->cache_synced() && h.mgr->is_leader(); }));
    auto obj = h.create(stamps, R"({"apiVersion":"example.kcoro.dev/v1","kind":"Stamp","metadata":{"name":"s1","namespace":"default"},"spec":{}})");

    REQUIRE(h.wait_for([&] { return ctl.stats().hot_loops >= 1; }));
    // It goes on looping; one alarm per key and window (5 minutes).
    const auto seen = ctl.stats().reconciles;
    REQUIRE(h.wait_for([&] { return ctl.stats().reconciles >= seen + 30; }));
    CHECK(ctl.stats().hot_loops == 1);
    CHECK(ctl.stats().writes >= 41);

    CHECK(h.sink->count("Warning: hot loop") == 1);
    CHECK(h.sink->count("updated status of stamps.example.kcoro.dev default/s1") >= 1);
    auto text = h.mgr->metrics().serialize();
    CHECK(text.find(R"(kcoro_hot_loop_detected_total{controller="stamper"} 1)") != std::string::npos);
    // The Warning Event on the object, through the controller's recorder.
    CHECK(h.wait_for([&] {
        for (auto gvr : {kcoro::resources::events_v1(), kcoro::resources::events()}) {
            auto l = h.run(h.admin->list(gvr, "default"));
            if (!l) continue;
            for (const auto& e : l->items) {
                if (e->at("reason") == "HotLoop" && e->at("type") == "Warning") return true;
            }
        }
        return false;
    }));
    (void)obj;
}
