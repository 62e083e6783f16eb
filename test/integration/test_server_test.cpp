// kcoro::testing::test_server as a user's test sees it: a ready client and
// kubeconfig, CRDs from files, faults, the request log, the manual clock, a
// manager in process, TLS, a policy, and the private-thread mode.
#include <kcoro/testing/test_server.hpp>

#include <kcoro/client/client.hpp>
#include <kcoro/client/config.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/runtime/apply_owned.hpp>
#include <kcoro/runtime/reconcile_result.hpp>
#include <kcoro/server/manager.hpp>
#include <kcoro/typed/k8s/config_map.hpp>

#include "recorders.hpp"

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

namespace json = boost::json;
using namespace std::chrono_literals;
using kcoro::testing::fault;
using kcoro::testing::request_filter;
using kcoro::testing::test_server;
using kcoro::testing::test_server_options;

namespace {

const kcoro::group_version_resource gateways{"gateway.kcoro.dev", "v1alpha1", "gatewayinstances"};

json::object configmap(std::string_view name) {
    return json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + std::string(name) +
                       R"("},"data":{"a":"1"}})")
        .as_object();
}

kcoro::result<kcoro::object_ptr> create_cm(test_server& srv, kcoro::client::client& c, std::string_view name) {
    auto r = srv.run(c.create(kcoro::resources::configmaps(), "default", configmap(name)));
    REQUIRE(r.has_value());
    return std::move(*r);
}

} // namespace

TEST_CASE("a ready admin client and a kubeconfig file that loads") {
    boost::asio::io_context ioc;
    auto srv = test_server::start(ioc).value();
    auto ns = srv->run(srv->client().get(kcoro::resources::namespaces(), {"", "default"}));
    REQUIRE(ns.has_value());
    REQUIRE(ns->has_value());
    CHECK(kcoro::name_of(*ns->value()) == "default");

    REQUIRE(std::filesystem::exists(srv->kubeconfig_path()));
    kcoro::client::load_options lo;
    lo.kubeconfig = srv->kubeconfig_path();
    auto cfg = kcoro::client::load_config(lo, kcoro::client::environment::process());
    REQUIRE_MESSAGE(cfg.has_value(), (cfg ? "" : cfg.error().message()));
    CHECK(cfg->server == srv->url());
    auto c = kcoro::client::client::create(*cfg, srv->clock()).value();
    auto created = create_cm(*srv, *c, "from-kubeconfig");
    REQUIRE_MESSAGE(created.has_value(), (created ? "" : created.error().message()));
    // The kubeconfig is the admin's: the log names the user.
    CHECK(srv->requests().count(kcoro::testing::match().verb("create").resource("configmaps").user("admin").code(201)) == 1);

    const std::string path = srv->kubeconfig_path();
    srv.reset();
    CHECK_FALSE(std::filesystem::exists(path));  // removed with the server
}

TEST_CASE("CRDs from files are served at once; a bad manifest is an error naming it") {
    boost::asio::io_context ioc;
    test_server_options o;
    o.crd_files = {KCORO_SOURCE_DIR "/deploy/crd/gateway.kcoro.dev_gatewayinstances.yaml"};
    auto srv = test_server::start(ioc, o).value();
    auto gi = json::parse(R"({"apiVersion":"gateway.kcoro.dev/v1alpha1","kind":"GatewayInstance",
        "metadata":{"name":"gw"},"spec":{"image":"nginx:1.27","replicas":1,"listenPort":8080}})").as_object();
    auto r = srv->run(srv->client().create(gateways, "default", gi));
    REQUIRE(r.has_value());
    REQUIRE_MESSAGE(r->has_value(), (*r ? "" : r->error().message()));

    // Read straight from the store: not a request, so not in the log.
    srv->clear_requests();
    auto stored = srv->get(gateways, {"default", "gw"});
    REQUIRE(stored);
    CHECK(kcoro::name_of(*stored) == "gw");
    CHECK(srv->get(gateways, {"default", "none"}) == nullptr);
    CHECK(srv->requests().records().empty());
    const kcoro::group_version_resource typo{"gateway.kcoro.dev", "v1alpha1", "gatewayinstance"};
    CHECK_THROWS_AS(srv->get(typo, {"default", "gw"}), std::invalid_argument);

    auto bad = srv->load_yaml("apiVersion: example.com/v1\nkind: Nothing\nmetadata: {name: x}\n");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message().find("no resource serves example.com/v1 Nothing") != std::string::npos);

    o.crd_files = {"/nonexistent/crd.yaml"};
    auto missing = test_server::start(ioc, o);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message().find("/nonexistent/crd.yaml") != std::string::npos);
    o.thread = kcoro::testing::threading::private_thread;  // a failed start leaves no thread behind
    CHECK_FALSE(test_server::start(ioc, o));
}

TEST_CASE("faults fire as injected and the request log counts writes per resource and code") {
    boost::asio::io_context ioc;
    auto srv = test_server::start(ioc).value();
    srv->inject(fault::fail("create", "configmaps", 409).times(1).with_message("injected"));
    auto first = create_cm(*srv, srv->client(), "one");
    REQUIRE_FALSE(first);
    CHECK(kcoro::is_conflict(first.error()));
    CHECK(first.error().message().find("injected") != std::string::npos);
    auto second = create_cm(*srv, srv->client(), "one");
    REQUIRE(second);

    auto bob = srv->client_for("bob", {}).value();
    REQUIRE(create_cm(*srv, *bob, "two"));

    auto log = srv->requests();
    CHECK_MESSAGE(log.writes("configmaps") == 3, log.describe());
    CHECK(log.writes("configmaps", 409) == 1);
    CHECK(log.writes("configmaps", 201) == 2);
    CHECK(log.count(kcoro::testing::match().user("bob")) == 1);
    auto by = log.writes_by_resource_and_code();
    CHECK(by[{"configmaps", 201}] == 2);
    CHECK(by[{"configmaps", 409}] == 1);
    const auto& rec = log.records().front();
    CHECK(rec.method == "POST");
    CHECK(rec.namespace_ == "default");
    CHECK(rec.path == "/api/v1/namespaces/default/configmaps");
    REQUIRE_FALSE(srv->fault_log().empty());

    srv->clear_requests();
    CHECK(srv->requests().records().empty());
}

TEST_CASE("a write committed but never answered; the watch switches") {
    boost::asio::io_context ioc;
    auto srv = test_server::start(ioc).value();
    srv->inject(fault::drop_after_commit("create", "configmaps"));
    auto lost = create_cm(*srv, srv->client(), "lost-ack");
    REQUIRE_FALSE(lost);  // the connection closed without an answer ...
    CHECK(srv->get(kcoro::resources::configmaps(), {"default", "lost-ack"}) != nullptr);  // ... after the commit
    CHECK(srv->faults_fired() == 1);
    srv->close_watches();
    srv->stall_watches(true);
    srv->stall_watches(false);
    const auto before = srv->current_revision();
    srv->compact();
    CHECK(srv->current_revision() == before);
    auto log = srv->fault_log();
    auto has = [&](std::string_view text) {
        return std::any_of(log.begin(), log.end(), [&](const std::string& l) { return l.find(text) != std::string::npos; });
    };
    CHECK(has("closing all watch streams"));
    CHECK(has("watch delivery stalled"));
    CHECK(has("watch delivery resumed"));
    CHECK(has("compacting history at revision"));
    srv->inject(fault::fail("get", "", 500).times(0));
    srv->clear_faults();
    auto ns = srv->run(srv->client().get(kcoro::resources::namespaces(), {"", "default"}));
    REQUIRE(ns.has_value());
    CHECK(ns->has_value());  // cleared: the until-cleared rule is gone
}

TEST_CASE("a delay fault waits for the manual clock") {
    boost::asio::io_context ioc;
    auto srv = test_server::start(ioc).value();
    REQUIRE(create_cm(*srv, srv->client(), "slow"));
    srv->inject(fault::delayed("get", "configmaps", 5s));
    auto get = kcoro::testing::spawn(ioc, srv->client().get(kcoro::resources::configmaps(), {"default", "slow"}));
    // The rule fired: the answer now waits on the clock.
    REQUIRE(srv->run_until([&] { return srv->faults_fired() == 1; }));
    CHECK_FALSE(get.done());
    srv->advance(4s);
    CHECK_FALSE(get.done());
    srv->advance(1s);
    REQUIRE(srv->run_until([&] { return get.done(); }));
    REQUIRE(get.get());
    CHECK(kcoro::name_of(*get.get().value()) == "slow");
    CHECK_THROWS_AS([] {
        boost::asio::io_context io2;
        test_server_options o;
        o.clock = kcoro::testing::clock_mode::system;
        auto s = test_server::start(io2, o).value();
        s->advance(1s);
    }(), std::logic_error);
}

TEST_CASE("a manager in process: its writes in the log, a conflict retried after the backoff on the clock") {
    boost::asio::io_context ioc;
    auto srv = test_server::start(ioc).value();
    REQUIRE(create_cm(*srv, srv->client(), "stamp-me"));
    auto mgr = kcoro::server::manager::create(srv->manager_options(), srv->manager_setup("stamper")).value();
    kcoro::runtime::informer_key key;
    key.gvr = kcoro::resources::configmaps();
    auto& informer = mgr->cache().get_or_create(key);
    auto& client = mgr->client();
    mgr->controller("stamper").for_(kcoro::resources::configmaps()).complete(
        [&](const kcoro::object_key& k) -> boost::asio::awaitable<kcoro::result<kcoro::runtime::reconcile_result>> {
            auto cm = informer.cache().get(k);
            // Every namespace holds kube-root-ca.crt (the root-CA publisher,
            // as on a real cluster): this test counts the writes for its own.
            if (k.name == "kube-root-ca.crt") co_return kcoro::runtime::success();
            if (!cm || kcoro::annotation_of(*cm, "stamped")) co_return kcoro::runtime::success();
            auto gvr = kcoro::resources::configmaps();
            std::string body = R"({"metadata":{"annotations":{"stamped":"yes"}}})";
            auto w = co_await client.patch(gvr, k, body);
            if (!w) co_return w.error();
            co_return kcoro::runtime::success();
        });
    srv->inject(fault::fail("patch", "configmaps", 409));
    kcoro::testing::running_manager run(*srv, *mgr);
    REQUIRE(run.wait_synced());
    // The first patch gets the injected 409; the retry waits for the
    // rate limiter's backoff (5 ms) on the manual clock.
    auto patched = [&](int code) { return srv->requests().count(kcoro::testing::match().verb("patch").code(code)); };
    REQUIRE(srv->run_until([&] { return patched(409) == 1; }));
    const auto t0 = srv->clock().now();
    REQUIRE(srv->advance_until([&] { return patched(200) == 1; }, 1ms));
    CHECK(srv->clock().now() - t0 >= 5ms);
    CHECK(patched(409) == 1);
    auto log = srv->requests();
    CHECK_MESSAGE(log.count(kcoro::testing::match().user("stamper").writes()) == 2, log.describe());
    CHECK(log.count(kcoro::testing::match().verb("get").resource("configmaps").user("stamper")) == 0);  // cache reads
    CHECK(run.stop() == 0);
}

TEST_CASE("wait_idle: a chain of writes through the watches all reconciled, the Events sent; reads without requests") {
    boost::asio::io_context ioc;
    auto srv = test_server::start(ioc).value();
    // A ConfigMap labelled chain=N (N > 0) makes "<name>-next" labelled N-1,
    // owned by it, with an Event: each write comes back through the watch
    // as the next reconcile.
    auto first = configmap("link");
    first["metadata"].as_object()["labels"] = json::object{{"chain", "3"}};
    REQUIRE(srv->run(srv->client().create(kcoro::resources::configmaps(), "default", first)));
    auto setup = srv->manager_setup("chainer");
    auto sink = std::make_shared<kcoro::test::line_sink>();
    setup.sink = sink;
    auto mgr = kcoro::server::manager::create(srv->manager_options(), setup).value();
    auto& m = *mgr;
    m.controller("chainer").for_(kcoro::resources::configmaps()).complete(
        [&m](const kcoro::runtime::reconcile_context& ctx)
            -> boost::asio::awaitable<kcoro::result<kcoro::runtime::reconcile_result>> {
            auto cm = m.cache().get(kcoro::resources::configmaps(), ctx.key);
            auto n = cm ? kcoro::label_of(*cm, "chain") : std::nullopt;
            if (!n || *n == "0") co_return kcoro::runtime::success();
            auto next = configmap(ctx.key.name + "-next");
            next["metadata"].as_object()["namespace"] = ctx.key.ns;
            next["metadata"].as_object()["labels"] = json::object{{"chain", std::to_string(std::stoi(std::string(*n)) - 1)}};
            auto w = co_await kcoro::runtime::apply_owned(m.client(), ctx, kcoro::resources::configmaps(), std::move(next),
                                                          cm, kcoro::runtime::owned_events::record);
            if (!w) co_return w.error();
            co_return kcoro::runtime::success();
        });
    kcoro::testing::running_manager run(*srv, *mgr);
    REQUIRE(run.wait_idle());
    // The whole chain, and every Event, without a further wait.
    const auto names = [&] {
        std::vector<std::string> out;
        for (const auto& cm : srv->list<kcoro::k8s::config_map>("default")) out.push_back(cm.metadata.name);
        return out;
    }();
    for (std::string n : {"link", "link-next", "link-next-next", "link-next-next-next"}) {
        CHECK_MESSAGE(std::find(names.begin(), names.end(), n) != names.end(), n);
    }
    auto last = srv->get<kcoro::k8s::config_map>({"default", "link-next-next-next"});
    REQUIRE(last);
    CHECK(last->metadata.labels.at("chain") == "0");
    CHECK(last->metadata.owner_references.at(0).name == "link-next-next");
    CHECK_FALSE(srv->get<kcoro::k8s::config_map>({"default", "absent"}));
    auto about_link = srv->events_about("ConfigMap", {"default", "link"});
    REQUIRE(about_link.size() == 1);
    CHECK(about_link[0].reason == "Created");
    CHECK(about_link[0].note == "created ConfigMap default/link-next");
    REQUIRE(about_link[0].related);
    CHECK(about_link[0].related->name == "link-next");
    CHECK(srv->events("default").size() == 3);
    // None of these reads was a request.
    auto log = srv->requests();
    CHECK(log.count(kcoro::testing::match().user("admin").verb("list")) == 0);
    CHECK(log.count(kcoro::testing::match().user("admin").verb("get")) == 0);

    // The start order in the log: the caches, then the controller.
    auto at = [&](std::string_view text) {
        for (std::size_t i = 0; i < sink->lines.size(); ++i)
            if (sink->lines[i].find(text) != std::string::npos) return static_cast<long>(i);
        return -1L;
    };
    CHECK(at("Waiting for caches to sync") >= 0);
    CHECK(at("Waiting for caches to sync") < at("caches synced"));
    CHECK(at("caches synced") < at("Starting Controller"));
    CHECK(at("Starting Controller") < at("Starting workers"));
    CHECK(run.stop() == 0);
}

TEST_CASE("TLS and a policy") {
    boost::asio::io_context ioc;
    test_server_options o;
    o.tls = true;
    auto srv = test_server::start(ioc, o).value();
    CHECK(srv->url().starts_with("https://127.0.0.1:"));
    CHECK(srv->kubeconfig_yaml().find("certificate-authority-data") != std::string::npos);
    REQUIRE(create_cm(*srv, srv->client(), "over-tls"));
    REQUIRE(srv->set_policy("rules:\n- users: [admin]\n  verbs: ['*']\n  resources: ['*']\n"));
    auto bob = srv->client_for("bob", {}).value();
    auto denied = create_cm(*srv, *bob, "nope");
    REQUIRE_FALSE(denied);
    CHECK(kcoro::is_forbidden(denied.error()));
    srv->clear_policy();
    CHECK(create_cm(*srv, *bob, "now-yes"));
    CHECK_FALSE(srv->set_policy("rules: 5"));
}

TEST_CASE("the server on a private thread") {
    boost::asio::io_context ioc;
    test_server_options o;
    o.thread = kcoro::testing::threading::private_thread;
    o.crd_files = {KCORO_SOURCE_DIR "/deploy/crd/gateway.kcoro.dev_gatewayinstances.yaml"};
    auto srv = test_server::start(ioc, o).value();
    srv->inject(fault::fail("create", "configmaps", 503).times(1).retry_after(1));
    // The client retries the 503 after its Retry-After, on the test's manual clock.
    auto created = kcoro::testing::spawn(ioc, srv->client().create(kcoro::resources::configmaps(), "default",
                                                                   configmap("threaded")));
    REQUIRE(srv->run_until([&] { return srv->requests().writes("configmaps", 503) == 1; }));
    const auto t0 = srv->clock().now();
    REQUIRE(srv->advance_until([&] { return created.done(); }, 100ms));
    CHECK(srv->clock().now() - t0 >= 1s);
    REQUIRE(created.get());
    CHECK(srv->requests().writes("configmaps", 201) == 1);
    CHECK(srv->current_revision() > 0);
    auto list = srv->run(srv->client().list(gateways, "default"));
    REQUIRE(list.has_value());
    CHECK(list->has_value());  // the CRD loaded before the thread started is served
    CHECK(srv->get(kcoro::resources::configmaps(), {"default", "threaded"}) != nullptr);  // on the server's thread
}

TEST_CASE("kube-root-ca.crt in every namespace, as on a real cluster; off on request") {
    boost::asio::io_context ioc;
    test_server_options o;
    o.tls = true;
    auto srv = test_server::start(ioc, o).value();
    const auto cms = kcoro::resources::configmaps();
    for (const char* ns : {"default", "kube-system"}) {
        auto cm = srv->get<kcoro::k8s::config_map>({ns, "kube-root-ca.crt"});
        REQUIRE_MESSAGE(cm, ns);
        // The server's CA, the one the kubeconfig trusts.
        CHECK(cm->data.at("ca.crt") == srv->config().ca_pem);
    }
    // A new namespace has it when its create returns.
    json::object nsobj{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", json::object{{"name", "team"}}}};
    REQUIRE(srv->run(srv->client().create(kcoro::resources::namespaces(), "", nsobj)));
    REQUIRE(srv->get(cms, {"team", "kube-root-ca.crt"}));
    // Deleted, it comes back with the server's next controller pass (on the clock).
    REQUIRE(srv->run(srv->client().remove(cms, {"team", "kube-root-ca.crt"})));
    CHECK_FALSE(srv->get(cms, {"team", "kube-root-ca.crt"}));
    srv->advance(100ms);
    CHECK(srv->get(cms, {"team", "kube-root-ca.crt"}));

    test_server_options off;
    off.root_ca_publisher = false;
    auto bare = test_server::start(ioc, off).value();
    CHECK(bare->list(cms, "").empty());
}

TEST_CASE("RBAC on request: an operator's ServiceAccount can do what its Role grants and nothing more") {
    boost::asio::io_context ioc;
    test_server_options o;
    o.rbac = true;
    auto srv = test_server::start(ioc, o).value();
    CHECK(srv->get(kcoro::resources::serviceaccounts(), {"default", "default"}) != nullptr);  // the controller's
    // The operator's identity, as its pod's token would name it.
    auto op = srv->client_for("system:serviceaccount:default:op", {"system:serviceaccounts"}).value();
    auto denied = create_cm(*srv, *op, "before");
    REQUIRE_FALSE(denied);
    CHECK(kcoro::is_forbidden(denied.error()));
    // The RBAC the operator ships (here: configmaps in default), applied by the admin.
    REQUIRE(srv->load_yaml(R"(apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: op, namespace: default}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [create, get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: op, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: op}
subjects:
- {kind: ServiceAccount, name: op, namespace: default}
)"));
    CHECK(create_cm(*srv, *op, "after"));
    auto secrets = srv->run(op->list(kcoro::resources::secrets(), "default"));
    REQUIRE(secrets.has_value());
    REQUIRE_FALSE(secrets->has_value());
    CHECK(kcoro::is_forbidden(secrets->error()));
    CHECK(create_cm(*srv, srv->client(), "admin-can"));  // system:masters
}
