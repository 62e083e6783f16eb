// gateway-operator as a service: the controller of controller_setup.hpp on a
// server::manager, in process against kcoro-apiserver (workload simulation
// on), time on a manual clock shared by the server and the managers.
//
//  - end to end: the sample converges to Ready, and drift (replicas edited,
//    Service deleted, registration deleted) is repaired through the watches:
//    the periodic recheck and the rollout poll are set to an hour, so only
//    the For/Owns/Watches event sources can wake the reconciler in time.
//  - leader election: two operator managers, one Lease; only the leader's
//    client writes; the standby takes over when the leader stops.
#include "controller_setup.hpp"

#include "desired_state.hpp"
#include "harness.hpp"
#include "recorders.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/core/yaml.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/conditions.hpp>
#include <kcoro/server/manager.hpp>
#include <kcoro/typed/validation.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using kcoro::object_key;
using kcoro::server::manager;

namespace {

using kcoro::test::read_file;

using kcoro::test::write_counter;  // the writes one client sends (every attempt)
using quiet_sink = kcoro::test::line_sink;

// One operator process: its own client (writes counted), manager and controller.
struct operator_replica {
    write_counter counter;
    std::unique_ptr<kcoro::client::client> client;
    std::shared_ptr<quiet_sink> sink = std::make_shared<quiet_sink>();
    std::unique_ptr<manager> mgr;
    gateway::operator_handle handle;
    std::shared_ptr<std::optional<int>> exit_code;
};

const object_key key{"default", "demo"};

struct harness : kcoro::test::harness {
    kcoro::io::manual_clock& clk = manual_clock();
    kcoro::apiserver::server& srv = server();
    kcoro::client::client* admin = &kcoro::test::harness::admin();  // the test's own client (not counted)
    std::vector<std::unique_ptr<operator_replica>> replicas;

    static kcoro::test::harness_options options() {
        kcoro::test::harness_options o;
        o.server.store.simulate_workloads = true;
        o.server.store.simulate_delay = 1000ms;  // on the manual clock
        return o;
    }

    harness() : kcoro::test::harness(options()) {
        for (auto path : {"/deploy/crd/gateway.kcoro.dev_gatewayinstances.yaml", "/deploy/operator/namespace.yaml"}) {
            auto doc = kcoro::parse_yaml(read_file(std::string(KCORO_SOURCE_DIR) + path));
            REQUIRE(doc);
            const auto gvr = doc->as_object().at("kind") == "Namespace" ? kcoro::resources::namespaces()
                                                                          : kcoro::resources::customresourcedefinitions();
            auto created = run(admin->create(gvr, "", doc->as_object(), kcoro::create_options{}));
            // kcoro-apiserver may already serve the namespace.
            REQUIRE_MESSAGE((created || kcoro::is_already_exists(created.error())),
                            (created ? "" : created.error().message()));
        }
    }
    ~harness() {
        for (auto& r : replicas) {
            if (r->exit_code && !r->exit_code->has_value()) r->mgr->request_stop();
        }
        advance_until([&] {
            for (auto& r : replicas) {
                if (r->exit_code && !r->exit_code->has_value()) return false;
            }
            return true;
        }, 60s);
        replicas.clear();
    }

    kcoro::result<kcoro::object_ptr> get(const kcoro::group_version_resource& gvr, const object_key& k) {
        return run(admin->get(gvr, k, kcoro::get_options{}));
    }

    operator_replica& add_replica(std::string identity, bool leader_elect,
                                  std::chrono::nanoseconds sync_period = std::chrono::hours(10)) {
        auto r = std::make_unique<operator_replica>();
        kcoro::test::client_spec spec;
        spec.user = identity;
        spec.metrics = &r->counter;
        r->client = make_client(spec);

        kcoro::server::manager_options o;
        o.metrics_bind_address = "127.0.0.1:0";
        o.health_probe_bind_address = "127.0.0.1:0";
        o.leader_elect = leader_elect;
        o.leader_election_namespace = "kcoro-system";
        o.leader_election_id = "gateway-operator.gateway.kcoro.dev";
        o.log_level = "debug";
        o.sync_period = sync_period;
        kcoro::server::manager_setup s;
        s.name = "gateway-operator";
        s.io_context = &ioc;
        s.clock = &clk;
        s.client = r->client.get();
        s.sink = r->sink;
        s.handle_signals = false;
        s.identity = std::move(identity);
        s.leader_election_release_on_cancel = true;
        s.random = [] { return 0.5; };
        auto m = manager::create(std::move(o), std::move(s));
        REQUIRE_MESSAGE(m, (m ? "" : m.error().message()));
        r->mgr = std::move(*m);

        gateway::reconciler_options ro;
        ro.rollout_poll = std::chrono::hours(1);  // only watch events may wake the reconciler in time
        ro.recheck = std::chrono::hours(1);
        r->handle = gateway::setup(*r->mgr, ro);
        r->exit_code = kcoro::test::start(ioc, r->mgr->run_async());
        replicas.push_back(std::move(r));
        return *replicas.back();
    }

    kcoro::object_ptr apply_sample() {
        auto doc = kcoro::parse_yaml(read_file(KCORO_SOURCE_DIR "/deploy/samples/gatewayinstance.yaml"));
        REQUIRE(doc);
        auto r = run(admin->create(gateway::gateway_instances(), "default", doc->as_object(), kcoro::create_options{}));
        REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
        return *r;
    }

    bool ready() {
        auto gi = get(gateway::gateway_instances(), key);
        if (!gi) return false;
        const auto* cs = kcoro::runtime::conditions_of(**gi);
        return cs && kcoro::runtime::is_condition_true(*cs, "Ready");
    }
    std::size_t registrations() {
        kcoro::list_options lo;
        lo.label_selector = std::string(gateway::uid_label);
        auto l = run(admin->list(kcoro::resources::configmaps(), "kcoro-system", lo));
        REQUIRE(l);
        return l->items.size();
    }
    std::int64_t deployment_replicas() {
        auto d = get(kcoro::resources::deployments(), key);
        return d ? (*d)->at("spec").at("replicas").to_number<std::int64_t>() : -1;
    }
    /// Reasons of the Events about the instance (events.k8s.io/v1 or core/v1).
    std::vector<std::string> event_reasons() {
        std::vector<std::string> out;
        for (auto gvr : {kcoro::resources::events_v1(), kcoro::resources::events()}) {
            auto l = run(admin->list(gvr, "default", kcoro::list_options{}));
            if (!l) continue;
            for (const auto& e : l->items) out.emplace_back(e->at("reason").as_string());
        }
        return out;
    }
};

bool contains(const std::vector<std::string>& v, std::string_view s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

TEST_CASE("end to end: the sample converges through the manager; drift is repaired through the watches") {
    harness h;
    auto& op = h.add_replica("solo", false, 30s);
    REQUIRE(h.advance_until([&] { return op.mgr->cache_synced(); }, 10s));
    auto gi = h.apply_sample();
    REQUIRE(h.advance_until([&] { return h.ready(); }, 30s));
    CHECK(h.registrations() == 1);
    CHECK(h.deployment_replicas() == 2);
    const auto uid = std::string(kcoro::uid_of(*gi));

    // Converged: informer resyncs (every 30 s here) wake passes that write nothing.
    h.advance_until([] { return false; }, 5s);  // let the last status write's own event settle
    const int converged_writes = op.counter.writes;
    const auto converged_passes = op.handle.ctl->stats().reconciles;
    h.advance_until([] { return false; }, 70s, 500ms);
    CHECK(op.handle.ctl->stats().reconciles > converged_passes);
    CHECK(op.counter.writes == converged_writes);

    // Deployment replicas edited: the Owns watch wakes the reconciler.
    kcoro::patch_options po;
    po.type = kcoro::patch_type::merge;
    REQUIRE(h.run(h.admin->patch(kcoro::resources::deployments(), key, R"({"spec":{"replicas":7}})", po)));
    CHECK(h.advance_until([&] { return h.deployment_replicas() == 2; }, 10s));

    // kubectl scale: through the deployments/scale subresource.
    kcoro::patch_options scale{kcoro::patch_type::merge};
    scale.subresource = "scale";
    REQUIRE(h.run(h.admin->patch(kcoro::resources::deployments(), key, R"({"spec":{"replicas":9}})", scale)));
    CHECK(h.advance_until([&] { return h.deployment_replicas() == 2; }, 10s));

    // The image and the Service port edited by hand (JSON patches, as
    // `kubectl set image` / `kubectl edit` send): restored from the events.
    kcoro::patch_options jp;
    jp.type = kcoro::patch_type::json;
    REQUIRE(h.run(h.admin->patch(kcoro::resources::deployments(), key,
                                 R"([{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"evil:1"}])", jp)));
    CHECK(h.advance_until([&] {
        auto d = h.get(kcoro::resources::deployments(), key);
        return d && kcoro::find_path(**d, {"spec", "template", "spec", "containers"})->as_array()[0].at("image") !=
                        "evil:1";
    }, 10s));
    REQUIRE(h.run(h.admin->patch(kcoro::resources::services(), key,
                                 R"([{"op":"replace","path":"/spec/ports/0/port","value":9999}])", jp)));
    CHECK(h.advance_until([&] {
        auto svc = h.get(kcoro::resources::services(), key);
        if (!svc) return false;
        const auto& ports = (*svc)->at("spec").at("ports").as_array();
        return ports.size() == 1 && ports[0].at("port") != 9999;
    }, 10s));

    // Service deleted: recreated, ours again.
    REQUIRE(h.run(h.admin->remove(kcoro::resources::services(), key, kcoro::delete_options{})));
    CHECK(h.advance_until([&] {
        auto s = h.get(kcoro::resources::services(), key);
        return s && kcoro::is_controlled_by(**s, uid);
    }, 10s));

    // Registration deleted: the Watches source maps it back through the uid index.
    const object_key reg{"kcoro-system", gateway::registration_name(uid)};
    REQUIRE(h.run(h.admin->remove(kcoro::resources::configmaps(), reg, kcoro::delete_options{})));
    CHECK(h.advance_until([&] { return h.get(kcoro::resources::configmaps(), reg).has_value(); }, 10s));
    CHECK(h.registrations() == 1);
    CHECK(h.advance_until([&] { return h.ready(); }, 30s));

    // Events reached the server through the manager's recorder.
    auto reasons = h.event_reasons();
    CHECK(contains(reasons, "Registered"));
    CHECK(contains(reasons, "CreatedDeployment"));
    CHECK(contains(reasons, "RepairedDeployment"));
    CHECK(contains(reasons, "RepairedService"));
    // The controller's metrics are registered under controller-runtime's names.
    auto text = op.mgr->metrics().serialize();
    CHECK(text.find(R"(controller_runtime_reconcile_total{controller="gatewayinstance",result="requeue_after"})") !=
          std::string::npos);
    CHECK(op.handle.ctl->stats().errors == 0);

    // Deleting the instance: the registration is cleaned, the finalizer removed.
    REQUIRE(h.run(h.admin->remove(gateway::gateway_instances(), key, kcoro::delete_options{})));
    CHECK(h.advance_until([&] { return !h.get(gateway::gateway_instances(), key).has_value(); }, 10s));
    CHECK(h.registrations() == 0);

    // A registration create that commits after the cleanup ran (its client
    // had given up): the Watches source maps it to the instance its data
    // names, whose pass deletes it.
    const auto late = gateway::desired_registration(kcoro::typed::decode_valid<gateway::gateway_instance>(*gi).value(),
                                                    "kcoro-system");
    REQUIRE(h.run(h.admin->create(kcoro::resources::configmaps(), "kcoro-system", kcoro::typed::to_object(late),
                                  kcoro::create_options{})));
    CHECK(h.advance_until([&] { return h.registrations() == 0; }, 10s));
    CHECK(op.handle.ctl->stats().errors == 0);

    op.mgr->request_stop();
    REQUIRE(h.advance_until([&] { return op.exit_code->has_value(); }, 40s));
    CHECK(**op.exit_code == kcoro::server::exit_ok);
}

TEST_CASE("two operator replicas with leader election: only the leader writes; the standby takes over") {
    harness h;
    auto& a = h.add_replica("replica-a", true);
    REQUIRE(h.advance_until([&] { return a.mgr->is_leader(); }, 10s));
    auto& b = h.add_replica("replica-b", true);
    REQUIRE(h.advance_until([&] { return b.mgr->cache_synced(); }, 10s));

    auto gi = h.apply_sample();
    REQUIRE(h.advance_until([&] { return h.ready(); }, 30s));
    // A few lease periods more: the standby keeps reading, never writes.
    h.advance_until([] { return false; }, 20s, 500ms);
    CHECK(a.mgr->is_leader());
    CHECK_FALSE(b.mgr->is_leader());
    CHECK(a.counter.writes > 0);
    CHECK(b.counter.writes == 0);
    CHECK(b.handle.ctl->stats().reconciles == 0);
    CHECK(h.registrations() == 1);

    // The leader stops (and releases the lease): the standby takes over and
    // repairs what drifts from then on.
    a.mgr->request_stop();
    REQUIRE(h.advance_until([&] { return a.exit_code->has_value(); }, 40s));
    CHECK(**a.exit_code == kcoro::server::exit_ok);
    const int a_writes = a.counter.writes;
    REQUIRE(h.advance_until([&] { return b.mgr->is_leader(); }, 20s));

    const auto uid = std::string(kcoro::uid_of(*gi));
    REQUIRE(h.run(h.admin->remove(kcoro::resources::services(), key, kcoro::delete_options{})));
    CHECK(h.advance_until([&] {
        auto s = h.get(kcoro::resources::services(), key);
        return s && kcoro::is_controlled_by(**s, uid);
    }, 10s));
    CHECK(b.counter.writes > 0);
    CHECK(a.counter.writes == a_writes);
    CHECK(h.registrations() == 1);  // the new leader found the registration, did not duplicate it
}
