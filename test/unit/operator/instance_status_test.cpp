#include "instance_status.hpp"

#include <kcoro/core/time.hpp>
#include <kcoro/typed/condition.hpp>

#include <doctest/doctest.h>

using namespace gateway;
namespace k8s = kcoro::k8s;
using namespace std::chrono_literals;

namespace {
k8s::deployment deployment(int ready, int available, int observed_gen = 1) {
    k8s::deployment d;
    d.metadata.generation = 1;
    d.spec.replicas = 2;
    d.status.observed_generation = observed_gen;
    d.status.replicas = 2;
    d.status.updated_replicas = 2;
    d.status.ready_replicas = ready;
    d.status.available_replicas = available;
    return d;
}
observed_facts facts(std::optional<k8s::deployment> d) {
    observed_facts f;
    f.generation = 3;
    gateway_spec spec;
    spec.image = "x";
    spec.replicas = 2;
    f.spec = spec;
    f.registered = true;
    f.registration_name = "gatewayinstance-U";
    f.endpoint = "g.ns.svc:8080";
    f.deployment = std::move(d);
    f.service_ready = true;
    return f;
}
std::string cond(const v1alpha1::gateway_instance_status& status, std::string_view type) {
    const auto* c = kcoro::typed::find_condition(status.conditions, type);
    return c ? c->status + "/" + c->reason : "";
}
const kcoro::wall_time t0 = *kcoro::parse_rfc3339("2026-11-29T10:00:00Z");
} // namespace

TEST_CASE("deployment availability") {
    CHECK(deployment_available(deployment(2, 2)));
    CHECK_FALSE(deployment_available(deployment(1, 1)));
    CHECK_FALSE(deployment_available(deployment(2, 2, 0)));  // not yet observed
    auto unset = deployment(1, 1);
    unset.spec.replicas.reset();  // the server's default: 1
    unset.status.replicas = 1;
    unset.status.updated_replicas = 1;
    CHECK(deployment_available(unset));
    unset.status.replicas = 2;  // an old pod still running
    CHECK_FALSE(deployment_available(unset));
}

TEST_CASE("waiting, then ready; lastTransitionTime moves only on a real change") {
    v1alpha1::gateway_instance_status stored;
    auto w = compute_status(stored, facts(deployment(0, 0)), t0);
    CHECK(w.changed);
    CHECK(w.waiting);
    CHECK_FALSE(w.ready);
    CHECK(cond(w.status, "Ready") == "False/WaitingForDeployment");
    CHECK(cond(w.status, "Progressing") == "True/WaitingForDeployment");
    CHECK(w.status.observed_generation == 3);

    stored = w.status;
    auto again = compute_status(stored, facts(deployment(0, 0)), t0 + 1h);
    CHECK_FALSE(again.changed);  // same facts, later time: nothing to write

    auto r = compute_status(stored, facts(deployment(2, 2)), t0 + 2h);
    CHECK(r.changed);
    CHECK(r.ready);
    CHECK(cond(r.status, "Ready") == "True/Reconciled");
    const auto* ready = kcoro::typed::find_condition(r.status.conditions, "Ready");
    CHECK(ready->last_transition_time.str() == "2026-11-29T12:00:00Z");
    const auto* reg = kcoro::typed::find_condition(r.status.conditions, "Registered");
    CHECK(reg->last_transition_time.str() == "2026-11-29T10:00:00Z");  // unchanged since the first pass
    CHECK(r.status.ready_replicas == 2);
    CHECK(r.status.endpoint == "g.ns.svc:8080");
    CHECK(r.status.registration == "gatewayinstance-U");
}

TEST_CASE("a problem makes the instance Degraded and not Ready") {
    auto f = facts(deployment(2, 2));
    f.service_ready = false;
    f.degraded = problem{"Forbidden", "services is forbidden"};
    auto s = compute_status({}, f, t0);
    CHECK_FALSE(s.ready);
    CHECK(cond(s.status, "Degraded") == "True/Forbidden");
    CHECK(cond(s.status, "Ready") == "False/Forbidden");
}
