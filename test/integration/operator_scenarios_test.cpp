// gateway-operator's scenarios (issue 6) against kcoro-apiserver in process,
// driving reconcile passes directly as the reference's R1..R4 sequence does.
// Assertions are on the server's final state and on the number of writes.
#include "reconciler.hpp"

#include "desired_state.hpp"
#include "harness.hpp"
#include "recorders.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/json_patch.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/yaml.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/conditions.hpp>
#include <kcoro/typed/validation.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using kcoro::object_key;

namespace {

using kcoro::test::read_file;

using kcoro::test::write_counter;  // the operator's client's writes (every attempt)

// Every write the server answered, as "verb resource[/subresource] name code"
// (the server's request log; the simulation and the GC are not HTTP writes).
struct server_writes {
    std::vector<std::string> lines;
    int registration_gets = 0;  // GETs of one ConfigMap in kcoro-system
    void observe(const json::object& line) {
        const auto* msg = line.if_contains("msg");
        const auto* verb = line.if_contains("verb");
        if (!msg || *msg != "request" || !verb) return;
        const std::string v(verb->as_string());
        if (v == "get" && std::string_view(line.at("path").as_string()).starts_with("/api/v1/namespaces/kcoro-system/configmaps/")) {
            ++registration_gets;
        }
        if (v != "create" && v != "update" && v != "patch" && v != "delete") return;
        // path: /api/v1/namespaces/<ns>/<resource>[/<name>[/<sub>]]
        std::string path(line.at("path").as_string());
        std::vector<std::string> parts;
        for (std::size_t i = 0; i < path.size();) {
            auto j = path.find('/', i + 1);
            parts.push_back(path.substr(i + 1, j == std::string::npos ? std::string::npos : j - i - 1));
            if (j == std::string::npos) break;
            i = j;
        }
        std::string rest;
        for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
            if (parts[i] == "namespaces") {
                for (std::size_t k = i + 2; k < parts.size(); ++k) rest += (rest.empty() ? "" : " ") + parts[k];
                break;
            }
        }
        if (rest.empty()) rest = path;
        lines.push_back(v + " " + rest + " " + std::to_string(line.at("code").to_number<int>()));
    }
    /// How many lines start with `prefix` ("create deployments", "update gatewayinstances demo status").
    int count(std::string_view prefix, std::size_t from = 0) const {
        int n = 0;
        for (std::size_t i = from; i < lines.size(); ++i) n += lines[i].starts_with(prefix) ? 1 : 0;
        return n;
    }
};

// The shared harness on a manual clock (memory transport); waits advance
// virtual time in 10 ms steps (the server's workload simulation and GC run
// every 20 ms of it).
struct log_holder {
    server_writes swrites;  // before the harness, whose server writes to it
};
struct harness : log_holder, kcoro::test::harness {
    kcoro::io::manual_clock& clk = manual_clock();
    kcoro::apiserver::server& srv = server();
    std::vector<gateway::gateway_event> events;  // through the reconciler's on_event hook
    kcoro::client::client* admin = &kcoro::test::harness::admin();  // the test's own client (not counted)
    write_counter counter;
    std::unique_ptr<kcoro::client::client> op;     // the operator's client
    std::unique_ptr<gateway::reconciler> rec;

    static kcoro::test::harness_options options(server_writes* w) {
        kcoro::test::harness_options o;
        o.server.log = [w](const json::object& line) { w->observe(line); };
        o.server.store.simulate_workloads = true;
        o.server.store.simulate_delay = 0ms;
        o.server.gc_interval = 20ms;
        o.server.simulate_interval = 20ms;
        return o;
    }

    /// The CRD's spec schema as it is generated, or stripped to a free-form
    /// object (a cluster whose CRD enforces nothing about the spec).
    enum class spec_schema { enforced, free_form };

    harness() : harness(spec_schema::enforced) {}
    explicit harness(spec_schema schema) : kcoro::test::harness(options(&swrites)) {
        kcoro::test::client_spec spec;
        spec.user = "gateway-operator";
        spec.metrics = &counter;
        op = make_client(spec);
        make_reconciler();
        auto crd = kcoro::parse_yaml(read_file(KCORO_SOURCE_DIR "/deploy/crd/gateway.kcoro.dev_gatewayinstances.yaml"));
        REQUIRE(crd);
        if (schema == spec_schema::free_form) {
            auto& props = crd->at_pointer("/spec/versions/0/schema/openAPIV3Schema/properties").as_object();
            props["spec"] = json::object{{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
        }
        auto created = run(admin->create(kcoro::resources::customresourcedefinitions(), "", crd->as_object()));
        REQUIRE_MESSAGE(created, (created ? "" : created.error().message()));
    }

    // A fresh reconciler (no memory of earlier passes), its events recorded.
    void make_reconciler() {
        rec = std::make_unique<gateway::reconciler>(*op, clk, gateway::reconciler_options{});
        rec->on_event([this](const json::object& gi, const gateway::gateway_event& e) {
            CHECK(kcoro::kind_of(gi) == "GatewayInstance");
            events.push_back(e);
        });
    }
    int events_with(std::string_view type, std::string_view reason) const {
        return static_cast<int>(std::count_if(events.begin(), events.end(),
                                              [&](const auto& e) { return e.type == type && e.reason == reason; }));
    }

    // Runs `aw` to completion on the io_context (the server runs alongside).
    template <class T>
    T run(asio::awaitable<T> aw) {
        return kcoro::test::harness::run(std::move(aw));
    }

    // Waits for a condition on the server's state, checked at settled
    // points, within `bound` of virtual time.
    template <class Pred>
    bool wait_for(Pred pred, std::chrono::milliseconds bound = 5s) {
        return advance_until(pred, bound, 10ms);
    }

    // One pass, as the controller runs it: a context with the field manager
    // and write hooks (children read from the API: no cache here).
    std::vector<std::string> reported;  // the writes the passes reported through the hooks
    kcoro::result<kcoro::runtime::reconcile_result> pass(const object_key& key) {
        kcoro::runtime::reconcile_context ctx;
        ctx.key = key;
        ctx.field_manager = "gateway-operator";
        ctx.helpers.on_write = [this](const kcoro::runtime::write_record& w) { reported.push_back(describe(w)); };
        return run(rec->reconcile(std::move(ctx)));
    }

    kcoro::result<kcoro::object_ptr> get(const kcoro::group_version_resource& gvr, const object_key& key) {
        return run(admin->get(gvr, key));
    }

    int writes_of_pass(const object_key& key) {
        int before = counter.writes;
        auto r = pass(key);
        CHECK_MESSAGE(r.has_value(), (r ? "" : r.error().message()));
        return counter.writes - before;
    }

    kcoro::object_ptr create_instance(std::string_view name, std::string_view spec = R"({"image":"nginx:1.27","replicas":2})") {
        auto obj = json::parse(std::string(R"({"apiVersion":"gateway.kcoro.dev/v1alpha1","kind":"GatewayInstance",
          "metadata":{"name":")") + std::string(name) + R"(","namespace":"default"},"spec":)" + std::string(spec) + "}");
        auto r = run(admin->create(gateway::gateway_instances(), "default", obj.as_object()));
        REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
        return *r;
    }

    bool deployment_available(const object_key& key) {
        auto d = get(kcoro::resources::deployments(), key);
        return d && gateway::deployment_available(kcoro::typed::from_json<kcoro::k8s::deployment>(**d).value());
    }

    // Passes until the instance reports Ready=True (bounded).
    void converge(const object_key& key) {
        for (int i = 0; i < 20; ++i) {
            auto r = pass(key);
            REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
            auto gi = get(gateway::gateway_instances(), key);
            REQUIRE(gi);
            if (auto* c = kcoro::runtime::conditions_of(**gi); c && kcoro::runtime::is_condition_true(*c, "Ready")) {
                return;
            }
            wait_for([&] { return deployment_available(key); });
        }
        FAIL("instance never became Ready");
    }

    std::size_t registrations() {
        kcoro::list_options registered;
        registered.label_selector = std::string(gateway::uid_label);
        auto l = run(admin->list(kcoro::resources::configmaps(), "kcoro-system", registered));
        REQUIRE(l);
        return l->items.size();
    }
};

const object_key key{"default", "demo"};

std::string condition_reason(const json::object& gi, std::string_view type) {
    const auto* cs = kcoro::runtime::conditions_of(gi);
    if (!cs) return "";
    const auto* c = kcoro::runtime::find_condition(*cs, type);
    return c ? std::string(c->at("status").as_string()) + "/" + std::string(c->at("reason").as_string()) : "";
}

} // namespace

TEST_CASE("create converges to Ready; a second pass and a resync write nothing") {
    harness h;
    auto gi = h.create_instance("demo");
    h.converge(key);
    auto now = h.get(gateway::gateway_instances(), key).value();
    CHECK(kcoro::has_finalizer(*now, gateway::finalizer));
    CHECK(condition_reason(*now, "Ready") == "True/Reconciled");
    CHECK(condition_reason(*now, "Registered") == "True/Reconciled");
    CHECK(condition_reason(*now, "Degraded") == "False/Reconciled");
    CHECK(now->at("status").at("endpoint") == "demo.default.svc:8080");
    CHECK(now->at("status").at("observedGeneration") == kcoro::generation_of(*now));
    auto reg = h.get(kcoro::resources::configmaps(), {"kcoro-system", gateway::registration_name(kcoro::uid_of(*gi))});
    REQUIRE(reg);
    CHECK(kcoro::owner_references_of(**reg).empty());
    CHECK(h.registrations() == 1);
    auto svc = h.get(kcoro::resources::services(), key).value();
    CHECK(kcoro::is_controlled_by(*svc, kcoro::uid_of(*gi)));
    // Each write happened once: the finalizer, the registration, the children.
    CHECK(h.swrites.count("patch gatewayinstances demo ") == 1);
    CHECK(h.swrites.count("create configmaps") == 1);
    CHECK(h.swrites.count("create deployments") == 1);
    CHECK(h.swrites.count("create services") == 1);
    CHECK(h.swrites.count("update gatewayinstances demo status") >= 1);
    CHECK(h.swrites.count("delete") == 0);
    CHECK(h.events_with("Normal", "Registered") == 1);
    CHECK(h.events_with("Normal", "CreatedDeployment") == 1);
    CHECK(h.events_with("Normal", "CreatedService") == 1);
    CHECK(h.events_with("Warning", "NameConflict") == 0);

    CHECK(h.writes_of_pass(key) == 0);
    CHECK(h.writes_of_pass(key) == 0);  // a resync is one more pass
    CHECK(h.get(gateway::gateway_instances(), key).value()->at("metadata").at("resourceVersion") ==
          now->at("metadata").at("resourceVersion"));
}

TEST_CASE("drift is repaired: replicas restored, Service and registration recreated") {
    harness h;
    auto gi = h.create_instance("demo");
    h.converge(key);

    auto patched = h.run(h.admin->patch(kcoro::resources::deployments(), key, R"({"spec":{"replicas":7}})",
                                        kcoro::patch_options{kcoro::patch_type::merge}));
    REQUIRE(patched);
    // One pass repairs with one patch; the status may follow the rollout (at most one write).
    auto mark = h.swrites.lines.size();
    CHECK(h.writes_of_pass(key) >= 1);
    CHECK(h.swrites.count("patch deployments demo", mark) == 1);
    CHECK(h.swrites.count("create", mark) == 0);
    CHECK(h.swrites.count("update gatewayinstances demo status", mark) <= 1);
    CHECK(h.get(kcoro::resources::deployments(), key).value()->at("spec").at("replicas") == 2);
    CHECK(h.events_with("Normal", "RepairedDeployment") == 1);

    REQUIRE(h.run(h.admin->remove(kcoro::resources::services(), key)));
    mark = h.swrites.lines.size();
    CHECK(h.writes_of_pass(key) >= 1);
    CHECK(h.swrites.count("create services", mark) == 1);
    CHECK(h.swrites.count("create deployments", mark) == 0);
    CHECK(h.swrites.count("patch deployments", mark) == 0);
    CHECK(h.get(kcoro::resources::services(), key));
    CHECK(h.events_with("Normal", "CreatedService") == 2);

    object_key reg{"kcoro-system", gateway::registration_name(kcoro::uid_of(*gi))};
    REQUIRE(h.run(h.admin->remove(kcoro::resources::configmaps(), reg)));
    mark = h.swrites.lines.size();
    CHECK(h.writes_of_pass(key) >= 1);
    CHECK(h.swrites.count("create configmaps", mark) == 1);
    CHECK(h.swrites.count("create services", mark) == 0);
    CHECK(h.get(kcoro::resources::configmaps(), reg));
    CHECK(h.registrations() == 1);
    CHECK(h.events_with("Normal", "Registered") == 2);
    h.converge(key);
    CHECK(h.writes_of_pass(key) == 0);
}

TEST_CASE("the reference's worked case: Service creation Forbidden, then permission restored") {
    harness h;
    auto gi = h.create_instance("demo");
    kcoro::apiserver::http::fault_rule deny;
    deny.verb = "create";
    deny.resource = "services";
    deny.count = 0;  // until cleared
    deny.code = 403;
    deny.message = "services is forbidden: User \"system:serviceaccount:kcoro-system:gateway-operator\" cannot "
                   "create resource \"services\" in API group \"\" in the namespace \"default\"";
    h.srv.faults().add(deny);

    auto r = h.pass(key);
    REQUIRE_FALSE(r);
    CHECK(kcoro::is_forbidden(r.error()));
    auto now = h.get(gateway::gateway_instances(), key).value();
    CHECK(kcoro::has_finalizer(*now, gateway::finalizer));
    CHECK(condition_reason(*now, "Degraded") == "True/Forbidden");
    CHECK(condition_reason(*now, "Ready") == "False/Forbidden");
    CHECK(h.registrations() == 1);
    CHECK(h.get(kcoro::resources::deployments(), key));   // kept, not rolled back
    CHECK_FALSE(h.get(kcoro::resources::services(), key));
    CHECK(h.swrites.count("create services 403") == 1);
    CHECK(h.swrites.count("update gatewayinstances demo status") == 1);
    CHECK(h.events_with("Warning", "Forbidden") == 1);

    h.srv.faults().clear();
    h.converge(key);
    CHECK(h.get(kcoro::resources::services(), key));
    CHECK(h.swrites.count("create services 201") == 1);
    CHECK(h.swrites.count("create deployments") == 1);  // never deleted, never recreated
    CHECK(h.swrites.count("delete") == 0);
    now = h.get(gateway::gateway_instances(), key).value();
    CHECK(condition_reason(*now, "Degraded") == "False/Reconciled");
}

TEST_CASE("killed between registration and status: exactly one registration after restart") {
    harness h;
    h.create_instance("demo");
    // The status write fails as if the process died right before it.
    kcoro::apiserver::http::fault_rule crash;
    crash.verb = "update";
    crash.resource = "gatewayinstances";
    crash.count = 1;
    crash.code = 500;
    h.srv.faults().add(crash);
    CHECK_FALSE(h.pass(key));
    CHECK(h.registrations() == 1);
    // A fresh reconciler: no memory of the first pass.
    h.make_reconciler();
    h.converge(key);
    CHECK(h.registrations() == 1);
    CHECK(h.swrites.count("create configmaps") == 1);  // found again by name + uid, not created twice
    auto now = h.get(gateway::gateway_instances(), key).value();
    CHECK(now->at("status").at("registration").as_string() == gateway::registration_name(kcoro::uid_of(*now)));
    CHECK(condition_reason(*now, "Registered") == "True/Reconciled");
}

TEST_CASE("lost acknowledgement on Deployment create: no duplicate, no error loop") {
    harness h;
    h.create_instance("demo");
    kcoro::apiserver::http::fault_rule lost;
    lost.action = kcoro::apiserver::http::fault_action::drop_after_commit;
    lost.verb = "create";
    lost.resource = "deployments";
    lost.count = 1;
    h.srv.faults().add(lost);
    // The response is lost after the commit. Whether the pass then fails or
    // the transport's replay meets AlreadyExists and reads the object back,
    // the next passes must find it by name + owner and never duplicate it.
    (void)h.pass(key);
    CHECK_FALSE(h.srv.faults().entries().empty());       // the fault fired
    CHECK(h.get(kcoro::resources::deployments(), key));  // and the write committed
    h.converge(key);
    auto l = h.run(h.admin->list(kcoro::resources::deployments(), "default"));
    REQUIRE(l);
    CHECK(l->items.size() == 1);
    CHECK(h.swrites.count("create deployments 201") <= 1);  // a replayed POST meets 409, never a second object
    CHECK(h.events_with("Warning", "NameConflict") == 0);   // our own object is recognised by its owner uid
    CHECK(h.writes_of_pass(key) == 0);
}

TEST_CASE("delete while the Service was removed by hand: deletion completes, nothing recreated") {
    harness h;
    auto gi = h.create_instance("demo");
    h.converge(key);
    REQUIRE(h.run(h.admin->remove(gateway::gateway_instances(), key)));
    REQUIRE(h.run(h.admin->remove(kcoro::resources::services(), key)));
    auto mark = h.swrites.lines.size();
    auto r = h.pass(key);
    REQUIRE(r);
    CHECK(h.registrations() == 0);
    CHECK_FALSE(h.get(kcoro::resources::services(), key));
    // Exactly the registration delete and the finalizer removal; nothing created or repaired.
    CHECK(h.swrites.count("delete configmaps", mark) == 1);
    CHECK(h.swrites.count("patch gatewayinstances demo ", mark) == 1);
    CHECK(h.swrites.lines.size() - mark == 2);
    CHECK(h.events_with("Normal", "Deregistered") == 1);
    CHECK(h.wait_for([&] { return !h.get(gateway::gateway_instances(), key); }));
    CHECK(h.wait_for([&] { return !h.get(kcoro::resources::deployments(), key); }));  // garbage collected
    CHECK(h.writes_of_pass(key) == 0);  // NotFound ends the pass
}

TEST_CASE("delete and recreate with the same name: old registration cleaned, a new one exists") {
    harness h;
    auto old = h.create_instance("demo");
    h.converge(key);
    REQUIRE(h.run(h.admin->remove(gateway::gateway_instances(), key)));
    REQUIRE(h.pass(key));
    REQUIRE(h.wait_for([&] { return !h.get(gateway::gateway_instances(), key); }));
    auto fresh = h.create_instance("demo");
    CHECK(kcoro::uid_of(*fresh) != kcoro::uid_of(*old));
    // The garbage collector removes the old instance's Deployment.
    REQUIRE(h.wait_for([&] {
        auto d = h.get(kcoro::resources::deployments(), key);
        return !d || !kcoro::is_controlled_by(**d, kcoro::uid_of(*old));
    }));
    h.converge(key);
    CHECK(h.registrations() == 1);
    CHECK(h.swrites.count("delete configmaps gatewayinstance-" + std::string(kcoro::uid_of(*old))) == 1);
    CHECK(h.swrites.count("create configmaps") == 2);
    CHECK_FALSE(h.get(kcoro::resources::configmaps(), {"kcoro-system", gateway::registration_name(kcoro::uid_of(*old))}));
    CHECK(h.get(kcoro::resources::configmaps(), {"kcoro-system", gateway::registration_name(kcoro::uid_of(*fresh))}));
}

// The operator's cached reads as the store has them right now (an up-to-date
// cache), or with the registration never cached (a ConfigMap without the uid
// label is not in the registrations informer).
gateway::cached_reads store_view(kcoro::apiserver::server& srv, bool registrations_cached = true) {
    gateway::cached_reads c;
    auto registrations = [&srv] {
        kcoro::apiserver::list_options lo;
        lo.label_selector = std::string(gateway::uid_label);
        std::vector<kcoro::k8s::config_map> out;
        auto l = srv.store().list(kcoro::resources::configmaps(), "kcoro-system", lo);
        for (const auto& v : l->at("items").as_array()) {
            out.push_back(kcoro::typed::from_json<kcoro::k8s::config_map>(v.as_object()).value());
        }
        return out;
    };
    c.registration = [registrations, registrations_cached](const object_key& k) -> std::optional<kcoro::k8s::config_map> {
        if (!registrations_cached) return std::nullopt;
        for (auto& cm : registrations()) {
            if (cm.metadata.name == k.name) return cm;
        }
        return std::nullopt;
    };
    c.registrations_of = [registrations](const object_key& k) {
        std::vector<kcoro::k8s::config_map> out;
        for (auto& cm : registrations()) {
            if (gateway::registration_instance(cm) == std::optional<object_key>(k)) out.push_back(cm);
        }
        return out;
    };
    c.instance_cached = [&srv](std::string_view uid) {
        auto l = srv.store().list(gateway::gateway_instances(), "default", {});
        for (const auto& v : l->at("items").as_array()) {
            if (kcoro::uid_of(v.as_object()) == uid) return true;
        }
        return false;
    };
    return c;
}

TEST_CASE("with the cache: a converged pass reads no registration from the API") {
    harness h;
    h.rec->use_cache(store_view(h.srv));
    h.create_instance("demo");
    h.converge(key);
    CHECK(h.registrations() == 1);
    CHECK(h.swrites.registration_gets == 0);  // created on a cache miss, never read back
    CHECK(h.writes_of_pass(key) == 0);
    CHECK(h.swrites.registration_gets == 0);
}

TEST_CASE("a foreign ConfigMap under the registration's name: AlreadyExists, read back, NameConflict, untouched") {
    harness h;
    h.rec->use_cache(store_view(h.srv, false));  // the foreign object has no uid label: never cached
    auto gi = h.create_instance("demo");
    auto foreign = json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"kcoro-system"},
      "data":{"owner":"someone else"}})").as_object();
    foreign["metadata"].as_object()["name"] = gateway::registration_name(kcoro::uid_of(*gi));
    auto created = h.run(h.admin->create(kcoro::resources::configmaps(), "kcoro-system", foreign));
    REQUIRE(created);

    REQUIRE(h.pass(key));
    auto now = h.get(gateway::gateway_instances(), key).value();
    CHECK(condition_reason(*now, "Registered") == "False/NameConflict");
    CHECK(condition_reason(*now, "Ready") == "False/NameConflict");
    CHECK(h.events_with("Warning", "NameConflict") == 1);
    CHECK(h.swrites.count("create configmaps 409") == 1);  // the operator's attempt (the 201 is the test's)
    CHECK(h.swrites.registration_gets == 1);  // the read back
    CHECK(h.swrites.count("patch configmaps") + h.swrites.count("delete configmaps") == 0);
    auto cm = h.get(kcoro::resources::configmaps(), {"kcoro-system", gateway::registration_name(kcoro::uid_of(*gi))});
    REQUIRE(cm);
    CHECK((*cm)->at("metadata").at("resourceVersion") == (*created)->at("metadata").at("resourceVersion"));

    // Deleting the instance leaves the foreign object alone.
    REQUIRE(h.run(h.admin->remove(gateway::gateway_instances(), key)));
    REQUIRE(h.pass(key));
    REQUIRE(h.wait_for([&] { return !h.get(gateway::gateway_instances(), key); }));
    CHECK(h.swrites.count("patch configmaps") + h.swrites.count("delete configmaps") == 0);
}

TEST_CASE("a registration left by a late create, or by an earlier instance of the name, is deleted") {
    harness h;
    h.rec->use_cache(store_view(h.srv));
    auto old = h.create_instance("demo");
    h.converge(key);
    REQUIRE(h.run(h.admin->remove(gateway::gateway_instances(), key)));
    REQUIRE(h.pass(key));
    REQUIRE(h.wait_for([&] { return !h.get(gateway::gateway_instances(), key); }));
    REQUIRE(h.registrations() == 0);

    // The create of a pass that gave up on it commits now, after the cleanup.
    const auto late = gateway::desired_registration(kcoro::typed::decode_valid<gateway::gateway_instance>(*old).value(),
                                                    "kcoro-system");
    REQUIRE(h.run(h.admin->create(kcoro::resources::configmaps(), "kcoro-system", kcoro::typed::to_object(late))));
    REQUIRE(h.registrations() == 1);
    REQUIRE(h.pass(key));  // the pass its watch event maps to (the instance its data names)
    CHECK(h.registrations() == 0);
    const std::string old_reg = "delete configmaps " + gateway::registration_name(kcoro::uid_of(*old));
    CHECK(h.swrites.count(old_reg) == 2);  // the cleanup's, the orphan's

    // A new instance of the name (once the garbage collector removed the old
    // one's Deployment); the old one's registration appears again.
    REQUIRE(h.wait_for([&] {
        auto d = h.get(kcoro::resources::deployments(), key);
        return !d || !kcoro::is_controlled_by(**d, kcoro::uid_of(*old));
    }));
    auto fresh = h.create_instance("demo");
    h.converge(key);
    REQUIRE(h.run(h.admin->create(kcoro::resources::configmaps(), "kcoro-system", kcoro::typed::to_object(late))));
    REQUIRE(h.registrations() == 2);
    REQUIRE(h.pass(key));
    CHECK(h.registrations() == 1);
    CHECK(h.get(kcoro::resources::configmaps(), {"kcoro-system", gateway::registration_name(kcoro::uid_of(*fresh))}));
    CHECK(h.swrites.count(old_reg) == 3);

    // While a cache still holds an instance of that uid, it is not judged.
    REQUIRE(h.run(h.admin->create(kcoro::resources::configmaps(), "kcoro-system", kcoro::typed::to_object(late))));
    auto view = store_view(h.srv);
    const std::string old_uid(kcoro::uid_of(*old));
    view.instance_cached = [old_uid](std::string_view uid) { return uid == old_uid; };
    h.rec->use_cache(std::move(view));
    REQUIRE(h.pass(key));
    CHECK(h.registrations() == 2);
    CHECK(h.swrites.count(old_reg) == 3);
}

TEST_CASE("a foreign Service with the instance's name: NameConflict, the foreign object untouched") {
    harness h;
    auto foreign = json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"demo","namespace":"default"},
      "spec":{"ports":[{"port":80}],"selector":{"app":"someone-else"}}})");
    auto created = h.run(h.admin->create(kcoro::resources::services(), "default", foreign.as_object()));
    REQUIRE(created);
    h.create_instance("demo");
    auto r = h.pass(key);
    REQUIRE(r);
    auto now = h.get(gateway::gateway_instances(), key).value();
    CHECK(condition_reason(*now, "Degraded") == "True/NameConflict");
    CHECK(condition_reason(*now, "Ready") == "False/NameConflict");
    auto svc = h.get(kcoro::resources::services(), key).value();
    CHECK(svc->at("metadata").at("resourceVersion") == (*created)->at("metadata").at("resourceVersion"));
    CHECK(h.swrites.count("patch services") + h.swrites.count("update services") + h.swrites.count("delete services") == 0);
    CHECK(h.events_with("Warning", "NameConflict") >= 1);
    // Once the Deployment's rollout is reflected (readyReplicas), passes write nothing.
    REQUIRE(h.wait_for([&] { return h.deployment_available(key); }));
    CHECK(h.writes_of_pass(key) <= 1);
    CHECK(h.writes_of_pass(key) == 0);  // no retry storm, no status churn
    CHECK(h.swrites.count("patch services") + h.swrites.count("update services") + h.swrites.count("delete services") == 0);
}

TEST_CASE("an invalid spec the schema cannot catch is terminal and reported") {
    harness h;
    h.create_instance("demo", R"({"image":"nginx","env":[{"name":"A"},{"name":"A"}]})");
    auto r = h.pass(key);
    REQUIRE_FALSE(r);
    CHECK(kcoro::runtime::is_terminal(r.error()));
    auto now = h.get(gateway::gateway_instances(), key).value();
    CHECK(condition_reason(*now, "Degraded") == "True/InvalidSpec");
    CHECK_FALSE(h.get(kcoro::resources::deployments(), key));
    int before = h.counter.writes;
    CHECK_FALSE(h.pass(key));
    CHECK(h.counter.writes == before);
}

TEST_CASE("a spec out of the schema's bounds on a cluster that does not enforce them: InvalidSpec with every bound") {
    harness h(harness::spec_schema::free_form);
    h.create_instance("demo", R"({"image":"nginx","replicas":51,"port":0,"env":[{"name":"1BAD"}]})");
    auto r = h.pass(key);
    REQUIRE_FALSE(r);
    CHECK(kcoro::runtime::is_terminal(r.error()));
    auto now = h.get(gateway::gateway_instances(), key).value();
    CHECK(condition_reason(*now, "Degraded") == "True/InvalidSpec");
    const auto* cs = kcoro::runtime::conditions_of(*now);
    REQUIRE(cs);
    const auto* degraded = kcoro::runtime::find_condition(*cs, "Degraded");
    REQUIRE(degraded);
    CHECK(degraded->at("message") ==
          "spec.replicas: should be less than or equal to 50; spec.port: should be greater than or equal to 1; "
          "spec.env[0].name: should match '^[-._a-zA-Z][-._a-zA-Z0-9]*$'");
    CHECK(h.events_with("Warning", "InvalidSpec") == 1);
    CHECK_FALSE(h.get(kcoro::resources::deployments(), key));
    CHECK_FALSE(h.get(kcoro::resources::services(), key));
    int before = h.counter.writes;
    CHECK_FALSE(h.pass(key));
    CHECK(h.counter.writes == before);  // terminal and quiet: no status churn

    // Mistyped (the decoder's error), then fixed: it converges.
    REQUIRE(h.run(h.admin->patch(gateway::gateway_instances(), key, R"({"spec":{"replicas":"two"}})")));
    REQUIRE_FALSE(h.pass(key));
    now = h.get(gateway::gateway_instances(), key).value();
    degraded = kcoro::runtime::find_condition(*kcoro::runtime::conditions_of(*now), "Degraded");
    CHECK(degraded->at("message") == "spec.replicas: expected an integer, got \"two\"");
    REQUIRE(h.run(h.admin->patch(gateway::gateway_instances(), key,
                                 R"({"spec":{"replicas":1,"port":8080,"env":[{"name":"GOOD"}]}})")));
    auto fixed = h.pass(key);
    REQUIRE_MESSAGE(fixed, (fixed ? "" : fixed.error().message()));
    CHECK(h.get(kcoro::resources::deployments(), key));
}

namespace {

// The gateway container of the Deployment, as the server has it.
json::object gateway_container(harness& h) {
    auto d = h.get(kcoro::resources::deployments(), key).value();
    for (const auto& c : kcoro::find_path(*d, {"spec", "template", "spec", "containers"})->as_array()) {
        if (c.at("name") == "gateway") return c.as_object();
    }
    FAIL("no gateway container");
    return {};
}

// Edits a child as a user would (a JSON patch from the admin client), then
// runs one pass: it must repair with writes to that child only, and the pass
// after it must write nothing.
void edit_then_repair(harness& h, const kcoro::group_version_resource& gvr, std::string json_patch,
                      std::string_view child) {
    REQUIRE(h.run(h.admin->patch(gvr, key, std::move(json_patch), kcoro::patch_options{kcoro::patch_type::json})));
    const auto mark = h.swrites.lines.size();
    auto r = h.pass(key);
    REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    CHECK(h.swrites.count("patch " + std::string(child) + " demo", mark) >= 1);
    CHECK(h.swrites.count("create", mark) == 0);
    CHECK(h.swrites.count("delete", mark) == 0);
    h.converge(key);  // the rollout the repair started, reflected in the status
    CHECK(h.swrites.count("patch " + std::string(child) + " demo", mark) >= 1);
    CHECK(h.writes_of_pass(key) == 0);
}

} // namespace

TEST_CASE("drift of an instance without env: a replica change is one server-side apply, no 422") {
    harness h;
    h.create_instance("demo", R"({"image":"nginx:1.27","replicas":2})");
    h.converge(key);
    CHECK_FALSE(gateway_container(h).contains("env"));
    // kubectl scale, as a merge patch of spec.replicas.
    REQUIRE(h.run(h.admin->patch(kcoro::resources::deployments(), key, R"({"spec":{"replicas":5}})")));
    const auto mark = h.swrites.lines.size();
    auto r = h.pass(key);
    REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    CHECK(h.swrites.count("patch deployments demo 200", mark) == 1);  // the apply, accepted
    CHECK(h.get(kcoro::resources::deployments(), key).value()->at("spec").at("replicas") == 2);
    CHECK_FALSE(gateway_container(h).contains("env"));  // nothing was invented
    CHECK(std::count(h.reported.begin(), h.reported.end(), "applied deployments.apps default/demo") == 1);
    h.converge(key);
    CHECK(h.writes_of_pass(key) == 0);
}

TEST_CASE("a replica change through the deployments/scale subresource (kubectl scale) is restored") {
    harness h;
    h.create_instance("demo", R"({"image":"nginx:1.27","replicas":2})");
    h.converge(key);
    // kubectl scale deploy/demo --replicas=5: a merge patch of the Scale.
    kcoro::patch_options scale{kcoro::patch_type::merge};
    scale.subresource = "scale";
    auto scaled = h.run(h.admin->patch(kcoro::resources::deployments(), key, R"({"spec":{"replicas":5}})", scale));
    REQUIRE_MESSAGE(scaled, (scaled ? "" : scaled.error().message()));
    CHECK((*scaled)->at("kind") == "Scale");
    CHECK(h.get(kcoro::resources::deployments(), key).value()->at("spec").at("replicas") == 5);
    const auto mark = h.swrites.lines.size();
    auto r = h.pass(key);
    REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    CHECK(h.swrites.count("patch deployments demo 200", mark) == 1);
    CHECK(h.get(kcoro::resources::deployments(), key).value()->at("spec").at("replicas") == 2);
    CHECK(h.events_with("Normal", "RepairedDeployment") == 1);
    h.converge(key);
    CHECK(h.writes_of_pass(key) == 0);
}

TEST_CASE("image, container port, env and Service port edits are restored") {
    harness h;
    h.create_instance("demo", R"({"image":"nginx:1.27","replicas":2,"port":8080,"env":[{"name":"MODE","value":"prod"}]})");
    h.converge(key);

    // kubectl set image
    edit_then_repair(h, kcoro::resources::deployments(),
                     R"([{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:evil"}])",
                     "deployments");
    CHECK(gateway_container(h).at("image") == "nginx:1.27");

    // The container port number (a key of the ports list): ours again, and only ours.
    edit_then_repair(h, kcoro::resources::deployments(),
                     R"([{"op":"replace","path":"/spec/template/spec/containers/0/ports/0/containerPort","value":9090}])",
                     "deployments");
    auto ports = gateway_container(h).at("ports").as_array();
    REQUIRE(ports.size() == 1);
    CHECK(ports[0].at("containerPort") == 8080);

    // An env value, then the whole env.
    edit_then_repair(h, kcoro::resources::deployments(),
                     R"([{"op":"replace","path":"/spec/template/spec/containers/0/env/0/value","value":"debug"}])",
                     "deployments");
    CHECK(gateway_container(h).at("env") == json::parse(R"([{"name":"MODE","value":"prod"}])"));
    edit_then_repair(h, kcoro::resources::deployments(),
                     R"([{"op":"remove","path":"/spec/template/spec/containers/0/env"}])", "deployments");
    CHECK(gateway_container(h).at("env") == json::parse(R"([{"name":"MODE","value":"prod"}])"));

    // The Service port number.
    edit_then_repair(h, kcoro::resources::services(), R"([{"op":"replace","path":"/spec/ports/0/port","value":9090}])",
                     "services");
    auto sports = h.get(kcoro::resources::services(), key).value()->at("spec").at("ports").as_array();
    REQUIRE(sports.size() == 1);  // never two ports named "http" (a real server would answer 422)
    CHECK(sports[0].at("port") == 8080);

    CHECK(h.events_with("Normal", "RepairedDeployment") == 4);
    CHECK(h.events_with("Normal", "RepairedService") == 1);
    // The registration, the Deployment and the Service were created once each.
    CHECK(h.swrites.count("create configmaps") == 1);
    CHECK(h.swrites.count("create deployments") == 1);
    CHECK(h.swrites.count("create services") == 1);
}
