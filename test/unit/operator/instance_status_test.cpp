#include "instance_status.hpp"

#include <kcoro/core/time.hpp>
#include <kcoro/runtime/conditions.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

using namespace gateway;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {
json::object instance() {
    return json::parse(R"({"metadata":{"name":"g","namespace":"ns","uid":"U","generation":3},
      "spec":{"image":"x","replicas":2}})").as_object();
}
json::object deployment(int ready, int available, int observed_gen = 1) {
    return json::parse(R"({"metadata":{"generation":1},"spec":{"replicas":2},"status":{"observedGeneration":)" +
                       std::to_string(observed_gen) + R"(,"replicas":2,"updatedReplicas":2,"readyReplicas":)" +
                       std::to_string(ready) + R"(,"availableReplicas":)" + std::to_string(available) + "}}")
        .as_object();
}
observed_facts facts(const json::object* d) {
    observed_facts f;
    f.generation = 3;
    gateway_spec spec;
    spec.image = "x";
    spec.replicas = 2;
    f.spec = spec;
    f.registered = true;
    f.registration_name = "gatewayinstance-U";
    f.endpoint = "g.ns.svc:8080";
    f.deployment = d;
    f.service_ready = true;
    return f;
}
std::string cond(const json::object& status, std::string_view type) {
    const auto& cs = status.at("conditions").as_array();
    const auto* c = kcoro::runtime::find_condition(cs, type);
    return c ? std::string(c->at("status").as_string()) + "/" + std::string(c->at("reason").as_string()) : "";
}
const kcoro::wall_time t0 = *kcoro::parse_rfc3339("2026-11-29T10:00:00Z");
} // namespace

TEST_CASE("deployment availability") {
    CHECK(deployment_available(deployment(2, 2)));
    CHECK_FALSE(deployment_available(deployment(1, 1)));
    CHECK_FALSE(deployment_available(deployment(2, 2, 0)));  // not yet observed
}

TEST_CASE("waiting, then ready; lastTransitionTime moves only on a real change") {
    auto gi = instance();
    auto waiting_d = deployment(0, 0);
    auto w = compute_status(gi, facts(&waiting_d), t0);
    CHECK(w.changed);
    CHECK(w.waiting);
    CHECK_FALSE(w.ready);
    CHECK(cond(w.status, "Ready") == "False/WaitingForDeployment");
    CHECK(cond(w.status, "Progressing") == "True/WaitingForDeployment");
    CHECK(w.status.at("observedGeneration") == 3);

    gi["status"] = w.status;
    auto again = compute_status(gi, facts(&waiting_d), t0 + 1h);
    CHECK_FALSE(again.changed);  // same facts, later time: nothing to write

    auto ready_d = deployment(2, 2);
    auto r = compute_status(gi, facts(&ready_d), t0 + 2h);
    CHECK(r.changed);
    CHECK(r.ready);
    CHECK(cond(r.status, "Ready") == "True/Reconciled");
    const auto* ready = kcoro::runtime::find_condition(r.status.at("conditions").as_array(), "Ready");
    CHECK(ready->at("lastTransitionTime") == "2026-11-29T12:00:00Z");
    const auto* reg = kcoro::runtime::find_condition(r.status.at("conditions").as_array(), "Registered");
    CHECK(reg->at("lastTransitionTime") == "2026-11-29T10:00:00Z");  // unchanged since the first pass
    CHECK(r.status.at("readyReplicas") == 2);
    CHECK(r.status.at("endpoint") == "g.ns.svc:8080");
    CHECK(r.status.at("registration") == "gatewayinstance-U");
}

TEST_CASE("a problem makes the instance Degraded and not Ready") {
    auto gi = instance();
    auto d = deployment(2, 2);
    auto f = facts(&d);
    f.service_ready = false;
    f.degraded = problem{"Forbidden", "services is forbidden"};
    auto s = compute_status(gi, f, t0);
    CHECK_FALSE(s.ready);
    CHECK(cond(s.status, "Degraded") == "True/Forbidden");
    CHECK(cond(s.status, "Ready") == "False/Forbidden");
}
