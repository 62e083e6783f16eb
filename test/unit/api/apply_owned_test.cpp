// apply_owned against an in-process kcoro-apiserver: created once, no write
// while our fields hold our values (server defaults included), one forced
// apply on drift, a dropped field removed, someone else's object never
// adopted, AlreadyExists read back, a key-field edit undone, and the cache
// path (no GET) with our managedFields kept by the informer.
#include <kcoro/runtime/apply_owned.hpp>

#include "server.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/apply_drift.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/event_recorder.hpp>
#include <kcoro/runtime/informer_factory.hpp>
#include <kcoro/typed/k8s/service.hpp>

#include "run_until.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using namespace kcoro;
using runtime::write_op;

namespace {

// Counts the requests the operator's client sends, by method.
struct request_counter final : request_metrics {
    int gets = 0, writes = 0;
    void observe(std::string_view, std::string_view method, std::string_view, std::string_view, double) override {
        (method == "GET" ? gets : writes) += 1;
    }
};

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

// What a controller applies for its Service: no targetPort, clusterIP or
// sessionAffinity (the server fills them in). The protocol is set: it is a
// key of the ports list, and kcoro-apiserver does not default missing
// list-map keys in an apply as a real server does (server_side_apply.hpp,
// "Not modelled").
json::object desired_service(int port = 8080) {
    auto s = parse(R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"web","namespace":"default","labels":{"app":"web","tier":"front"}},
      "spec":{"type":"ClusterIP","selector":{"app":"web"},"ports":[{"name":"http","port":8080,"protocol":"TCP"}]}})");
    s["spec"].as_object()["ports"].as_array()[0].as_object()["port"] = port;
    return s;
}

json::object desired_deployment(std::string image) {
    auto d = parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},
      "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
        "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web",
          "ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}]}]}}}})");
    d["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object()["image"] =
        image;
    return d;
}

struct fixture {
    asio::io_context ioc;
    io::system_clock clk;
    apiserver::server srv{ioc.get_executor(), clk, {}};
    std::unique_ptr<client::client> admin, op;
    request_counter counter;
    object_ptr owner;
    std::vector<runtime::write_record> reported;

    fixture() {
        REQUIRE(srv.start());
        client::client_config cfg;
        cfg.server = srv.url();
        admin = client::client::create(cfg, clk).value();
        client::client_options oo;
        oo.metrics = &counter;
        op = client::client::create(cfg, clk, oo).value();
        owner = must(run(admin->create(resources::configmaps(), "default",
                                       parse(R"({"metadata":{"name":"owner","namespace":"default"}})"))));
    }
    ~fixture() { srv.stop(0ms); }

    template <class T>
    T run(asio::awaitable<T> aw) {
        auto out = test::run(ioc, std::move(aw));
        REQUIRE(out.has_value());
        return std::move(*out);
    }
    template <class T>
    T must(result<T> r) {
        REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message()));
        return std::move(*r);
    }

    runtime::apply_options options(std::optional<object_ptr> cached = std::nullopt) {
        runtime::apply_options o;
        o.cached = std::move(cached);
        o.helpers.on_write = [this](const runtime::write_record& w) { reported.push_back(w); };
        return o;
    }
    result<runtime::write_result> apply(const group_version_resource& gvr, json::object desired,
                                        std::optional<object_ptr> cached = std::nullopt) {
        return run(runtime::apply_owned(*op, gvr, std::move(desired), owner, "op", options(std::move(cached))));
    }
    object_ptr get(const group_version_resource& gvr, std::string name) {
        return must(run(admin->get(gvr, {"default", std::move(name)})));
    }
    void admin_patch(const group_version_resource& gvr, std::string name, std::string body) {
        must(run(admin->patch(gvr, {"default", std::move(name)}, std::move(body))));
    }
};

} // namespace

TEST_CASE("created once with a controller reference; then no write while the server's defaults are all that differ") {
    fixture f;
    auto w = f.must(f.apply(resources::services(), desired_service()));
    CHECK(w.op == write_op::created);
    auto live = f.get(resources::services(), "web");
    CHECK(is_controlled_by(*live, uid_of(*f.owner)));
    const auto* port = find_path(*live, {"spec", "ports"});
    REQUIRE(port);
    CHECK(port->as_array()[0].at("targetPort") == 8080);  // filled in by the server
    CHECK(live->at("spec").at("sessionAffinity") == "None");
    CHECK(f.counter.writes == 1);

    for (int i = 0; i < 3; ++i) {
        auto again = f.must(f.apply(resources::services(), desired_service()));
        CHECK(again.op == write_op::none);
    }
    CHECK(f.counter.writes == 1);
    REQUIRE(f.reported.size() == 1);
    CHECK(f.reported[0].op == write_op::created);
    CHECK(resource_version_of(*f.get(resources::services(), "web")) == resource_version_of(*live));
}

TEST_CASE("drift of our fields: one forced apply restores them; other managers' fields stay") {
    fixture f;
    f.must(f.apply(resources::deployments(), desired_deployment("web:1")));
    // kubectl scale, kubectl set image, and someone's own label.
    f.admin_patch(resources::deployments(), "web",
                  R"({"metadata":{"labels":{"theirs":"x"}},"spec":{"replicas":5,"template":{"spec":{"containers":[{"name":"web","image":"web:evil"}]}}}})");
    const int before = f.counter.writes;
    auto w = f.must(f.apply(resources::deployments(), desired_deployment("web:1")));
    CHECK(w.op == write_op::applied);
    CHECK(w.drift == ".spec.replicas: 5, want 2");
    CHECK(f.counter.writes == before + 1);
    auto live = f.get(resources::deployments(), "web");
    CHECK(live->at("spec").at("replicas") == 2);
    CHECK(find_path(*live, {"spec", "template", "spec", "containers"})->as_array()[0].at("image") == "web:1");
    CHECK(label_of(*live, "theirs") == std::optional<std::string_view>("x"));
    auto want = desired_deployment("web:1");
    REQUIRE(runtime::set_controller_reference(want, *f.owner));
    CHECK(apply_drift(want, *live, "op").value_or("") == "");
    auto again = f.must(f.apply(resources::deployments(), desired_deployment("web:1")));
    CHECK(again.op == write_op::none);
    CHECK(f.counter.writes == before + 1);

    // A changed desired state (a new image) is one apply too.
    auto upgrade = f.must(f.apply(resources::deployments(), desired_deployment("web:2")));
    CHECK(upgrade.op == write_op::applied);
    CHECK(find_path(*f.get(resources::deployments(), "web"), {"spec", "template", "spec", "containers"})
              ->as_array()[0].at("image") == "web:2");
}

TEST_CASE("a field we applied and no longer apply is removed by the next apply") {
    fixture f;
    f.must(f.apply(resources::services(), desired_service()));
    // Someone takes `tier`; our apply takes it back: our Apply entry owns it now.
    f.admin_patch(resources::services(), "web", R"({"metadata":{"labels":{"tier":"back"}}})");
    CHECK(f.must(f.apply(resources::services(), desired_service())).op == write_op::applied);
    CHECK(label_of(*f.get(resources::services(), "web"), "tier") == std::optional<std::string_view>("front"));

    auto without_tier = desired_service();
    without_tier["metadata"].as_object()["labels"].as_object().erase("tier");
    auto w = f.must(f.apply(resources::services(), without_tier));
    CHECK(w.op == write_op::applied);
    CHECK(w.drift == ".metadata.labels.tier: applied before, no longer");
    CHECK_FALSE(label_of(*f.get(resources::services(), "web"), "tier"));
    CHECK(f.must(f.apply(resources::services(), without_tier)).op == write_op::none);
}

TEST_CASE("an object of that name that is not ours is never adopted, owned by someone else or by no one") {
    fixture f;
    auto unowned = f.must(f.run(f.admin->create(resources::services(), "default", desired_service(9999))));
    auto r = f.apply(resources::services(), desired_service());
    REQUIRE_FALSE(r);
    CHECK(runtime::is_name_conflict(r.error()));
    CHECK(resource_version_of(*f.get(resources::services(), "web")) == resource_version_of(*unowned));

    // Controlled by another owner: the same, also when the cache says it is absent.
    auto other = f.must(f.run(f.admin->create(resources::configmaps(), "default",
                                              parse(R"({"metadata":{"name":"other","namespace":"default"}})"))));
    auto theirs = desired_deployment("theirs:1");
    REQUIRE(runtime::set_controller_reference(theirs, *other));
    f.must(f.run(f.admin->create(resources::deployments(), "default", theirs)));
    const int before = f.counter.writes;
    auto stale = f.apply(resources::deployments(), desired_deployment("web:1"), object_ptr{});
    REQUIRE_FALSE(stale);
    CHECK(runtime::is_name_conflict(stale.error()));
    CHECK(f.counter.writes == before + 1);  // the create that met AlreadyExists; nothing after it
    CHECK(is_controlled_by(*f.get(resources::deployments(), "web"), uid_of(*other)));
    CHECK(f.reported.empty());
}

TEST_CASE("AlreadyExists (a stale cache, a lost response): read back from the API and verified") {
    fixture f;
    f.must(f.apply(resources::services(), desired_service()));
    const int gets = f.counter.gets;
    // The cache has not seen our own create yet.
    auto w = f.must(f.apply(resources::services(), desired_service(), object_ptr{}));
    CHECK(w.op == write_op::none);
    CHECK(f.counter.gets == gets + 1);  // the read back, and no write after the failed create
}

TEST_CASE("a key field of ours edited (a port number): the item that took its place is removed, ours is back") {
    fixture f;
    f.must(f.apply(resources::services(), desired_service()));
    // kubectl edit: port 8080 becomes 9090 (a merge patch replaces the list).
    f.admin_patch(resources::services(), "web", R"({"spec":{"ports":[{"name":"http","port":9090,"targetPort":9090}]}})");
    auto w = f.must(f.apply(resources::services(), desired_service()));
    CHECK(w.op == write_op::patched);
    CHECK(w.drift == R"(.spec.ports[port=8080,protocol="TCP"]: missing)");
    auto ports = find_path(*f.get(resources::services(), "web"), {"spec", "ports"})->as_array();
    REQUIRE(ports.size() == 1);  // never two ports named "http" (a real server answers 422)
    CHECK(ports[0].at("port") == 8080);
    CHECK(ports[0].at("targetPort") == 8080);  // defaulted again by the server
    REQUIRE(f.reported.size() == 2);  // created; the guarded replacement (nothing else drifted)
    CHECK(f.reported[1].op == write_op::patched);
    CHECK(f.must(f.apply(resources::services(), desired_service())).op == write_op::none);
}

TEST_CASE("from an informer cache that keeps our managedFields: no GET at all, dropped fields still seen") {
    fixture f;
    runtime::informer_factory factory(*f.admin, f.clk, f.ioc.get_executor());
    factory.keep_managed_fields_of("op");
    runtime::informer_key key;
    key.gvr = resources::services();
    auto& inf = factory.get_or_create(key);
    bool done = false;
    asio::co_spawn(f.ioc, factory.run(), [&](std::exception_ptr) { done = true; });
    REQUIRE(test::run_until(f.ioc, [&] { return inf.has_synced(); }));
    auto cached = [&] { return std::optional<object_ptr>(inf.cache().get({"default", "web"})); };
    auto settled = [&](const object_ptr& want) {
        return test::run_until(f.ioc, [&] {
            auto c = inf.cache().get({"default", "web"});
            return c && resource_version_of(*c) == resource_version_of(*want);
        });
    };

    auto w = f.must(f.apply(resources::services(), desired_service(), cached()));
    CHECK(w.op == write_op::created);
    REQUIRE(settled(w.object));
    f.admin_patch(resources::services(), "web", R"({"metadata":{"labels":{"tier":"back"}}})");
    REQUIRE(settled(f.get(resources::services(), "web")));
    auto repaired = f.must(f.apply(resources::services(), desired_service(), cached()));
    CHECK(repaired.op == write_op::applied);
    REQUIRE(settled(repaired.object));
    // The cache holds only our entries (the admin's Update entry is stripped).
    const auto stored = inf.cache().get({"default", "web"});  // a fresh decode: keep it alive
    REQUIRE(stored);
    const auto* mf = managed_fields_of(*stored);
    REQUIRE(mf);
    for (const auto& e : mf->as_array()) CHECK(e.at("manager") == "op");

    auto without_tier = desired_service();
    without_tier["metadata"].as_object()["labels"].as_object().erase("tier");
    auto dropped = f.must(f.apply(resources::services(), without_tier, cached()));
    CHECK(dropped.op == write_op::applied);
    REQUIRE(settled(dropped.object));
    CHECK(f.must(f.apply(resources::services(), without_tier, cached())).op == write_op::none);
    CHECK(f.counter.gets == 0);
    CHECK(f.counter.writes == 3);

    factory.stop();
    REQUIRE(test::run_until(f.ioc, [&] { return done; }));
}

TEST_CASE("bad arguments are errors, not crashes") {
    fixture f;
    auto no_owner = f.run(runtime::apply_owned(*f.op, resources::services(), desired_service(), object_ptr{}, "op"));
    CHECK((!no_owner && no_owner.error().code() == make_error_code(kcoro_errc::invalid_argument)));
    auto no_manager = f.run(runtime::apply_owned(*f.op, resources::services(), desired_service(), f.owner, ""));
    CHECK((!no_manager && no_manager.error().code() == make_error_code(kcoro_errc::invalid_argument)));
}

TEST_CASE("with a recorder: Created, then Updated with the field it changed, on the owner; no Event without a write") {
    fixture f;
    runtime::event_recorder_options ro;
    ro.aggregator.reporting_controller = "test-controller";
    ro.aggregator.reporting_instance = "test-controller-1";  // required of an Event by the API
    runtime::event_recorder rec(*f.admin, f.clk, std::move(ro));
    bool rec_done = false;
    asio::co_spawn(f.ioc, rec.run(), [&](std::exception_ptr) { rec_done = true; });
    auto with_events = [&] {
        auto o = f.options();
        o.events = &rec;
        return o;
    };
    const group_version_resource events_gvr{"events.k8s.io", "v1", "events"};
    auto events = [&] { return f.must(f.run(f.admin->list(events_gvr, "default"))).items; };

    CHECK(f.must(f.run(runtime::apply_owned(*f.op, resources::services(), desired_service(), f.owner, "op",
                                            with_events()))).op == write_op::created);
    REQUIRE(test::run_until(f.ioc, [&] { return rec.written() == 1; }));
    auto list = events();
    REQUIRE(list.size() == 1);
    CHECK(list[0]->at("reason") == "Created");
    CHECK(list[0]->at("action") == "Create");
    CHECK(list[0]->at("type") == "Normal");
    CHECK(list[0]->at("note") == "created Service default/web");
    CHECK(list[0]->at("regarding").at("uid").as_string() == uid_of(*f.owner));
    CHECK(list[0]->at("related").at("kind") == "Service");
    CHECK(list[0]->at("related").at("name") == "web");

    // No drift: no write, no Event.
    CHECK(f.must(f.run(runtime::apply_owned(*f.op, resources::services(), desired_service(), f.owner, "op",
                                            with_events()))).op == write_op::none);
    // Drift: the repair's Event names what it changed.
    auto reselected = desired_service();
    reselected["spec"].as_object()["selector"].as_object()["app"] = "web-v2";
    CHECK(f.must(f.run(runtime::apply_owned(*f.op, resources::services(), reselected, f.owner, "op",
                                            with_events()))).op == write_op::applied);
    REQUIRE(test::run_until(f.ioc, [&] { return rec.written() == 2; }));
    list = events();
    REQUIRE(list.size() == 2);
    const auto& updated = list[0]->at("reason") == "Updated" ? list[0] : list[1];
    CHECK(updated->at("reason") == "Updated");
    CHECK(updated->at("action") == "Apply");
    const auto note = std::string(updated->at("note").as_string());
    CHECK(note.starts_with("updated Service default/web: .spec.selector.app"));
    CHECK(note.find("web-v2") != std::string::npos);
    CHECK(rec.written() == 2);
    rec.stop();
    REQUIRE(test::run_until(f.ioc, [&] { return rec_done; }));
}

TEST_CASE("a typed child from a reconcile: encoded without its empty members, then no write") {
    fixture f;
    k8s::service svc;
    svc.metadata.name = "typed";
    svc.metadata.namespace_ = "default";
    svc.spec.selector = {{"app", "typed"}};
    k8s::service_port port;
    port.name = "http";
    port.port = 80;
    port.protocol = "TCP";
    port.target_port = typed::int_or_string(8080);
    svc.spec.ports.push_back(port);

    runtime::reconcile_context ctx;
    ctx.key = {"default", "owner"};
    ctx.field_manager = "op";
    ctx.helpers.on_write = [&](const runtime::write_record& w) { f.reported.push_back(w); };
    auto w = f.must(f.run(runtime::apply_owned(*f.op, ctx, svc, f.owner)));
    CHECK(w.op == write_op::created);
    auto live = f.get(resources::services(), "typed");
    CHECK(is_controlled_by(*live, uid_of(*f.owner)));
    CHECK(live->at("spec").at("ports").at(0).at("targetPort") == 8080);
    // The struct's empty members (clusterIP, type, status, ...) were not
    // applied: the server's defaults stand, and nothing drifts.
    CHECK(live->at("spec").at("type") == "ClusterIP");
    auto again = f.must(f.run(runtime::apply_owned(*f.op, ctx, svc, f.owner)));
    CHECK(again.op == write_op::none);
    REQUIRE(f.reported.size() == 1);
    CHECK(f.reported[0].gvr == resources::services());
}
