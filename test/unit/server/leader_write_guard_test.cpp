#include <kcoro/server/leader_write_guard.hpp>

#include <doctest/doctest.h>

using kcoro::api_request;
using kcoro::http_method;
using kcoro::server::leader_write_exempt;

namespace {

api_request req(http_method m, std::string target) {
    api_request r;
    r.method = m;
    r.target = std::move(target);
    return r;
}

bool exempt(http_method m, std::string target) { return leader_write_exempt(req(m, std::move(target)), "ops", "gw-lock"); }

} // namespace

TEST_CASE("the manager's own Lease, Events and authentication reviews pass; everything else is guarded") {
    const std::string lease = "/apis/coordination.k8s.io/v1/namespaces/ops/leases/gw-lock";
    CHECK(exempt(http_method::put, lease));
    CHECK(exempt(http_method::put, lease + "?fieldManager=m"));
    CHECK(exempt(http_method::post, "/apis/coordination.k8s.io/v1/namespaces/ops/leases"));
    CHECK(exempt(http_method::post, "/api/v1/namespaces/default/events"));
    CHECK(exempt(http_method::patch, "/api/v1/namespaces/default/events/web.17f3"));
    CHECK(exempt(http_method::post, "/apis/events.k8s.io/v1/namespaces/default/events"));
    CHECK(exempt(http_method::post, "/apis/authentication.k8s.io/v1/tokenreviews"));
    CHECK(exempt(http_method::post, "/apis/authorization.k8s.io/v1/subjectaccessreviews"));

    // Another Lease (a controller may manage Leases), another namespace's, the collection but a DELETE.
    CHECK_FALSE(exempt(http_method::put, "/apis/coordination.k8s.io/v1/namespaces/ops/leases/other"));
    CHECK_FALSE(exempt(http_method::put, "/apis/coordination.k8s.io/v1/namespaces/dev/leases/gw-lock"));
    CHECK_FALSE(exempt(http_method::delete_, "/apis/coordination.k8s.io/v1/namespaces/ops/leases"));
    CHECK_FALSE(exempt(http_method::put, lease + "x"));
    // The controllers' writes.
    CHECK_FALSE(exempt(http_method::post, "/api/v1/namespaces/default/configmaps"));
    CHECK_FALSE(exempt(http_method::patch, "/apis/apps/v1/namespaces/default/deployments/web"));
    CHECK_FALSE(exempt(http_method::put, "/apis/gateway.kcoro.dev/v1alpha1/namespaces/default/gatewayinstances/gw/status"));
    CHECK_FALSE(exempt(http_method::post, "/api/v1/namespaces/events/configmaps"));  // a namespace named "events"
    CHECK_FALSE(exempt(http_method::post, "/api/v1/namespaces/default/eventsx"));
}

TEST_CASE("sharding: the ring member's Lease writes pass; other Leases and the controllers' writes are guarded") {
    using kcoro::server::shard_write_exempt;
    const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/ops/leases";
    auto ex = [](http_method m, const std::string& t) { return shard_write_exempt(req(m, t), "ops", "mirror"); };
    CHECK(ex(http_method::post, leases));                                  // the create of its Lease
    CHECK(ex(http_method::put, leases + "/mirror-0123456789abcdef"));      // renewal
    CHECK(ex(http_method::put, leases + "/mirror-fedcba9876543210?x=1"));  // a reap of another member
    CHECK_FALSE(ex(http_method::put, leases + "/mirrorx-0123456789abcdef"));
    CHECK_FALSE(ex(http_method::put, leases + "/gw-lock"));
    CHECK_FALSE(ex(http_method::put, "/apis/coordination.k8s.io/v1/namespaces/dev/leases/mirror-0123456789abcdef"));
    CHECK_FALSE(ex(http_method::delete_, leases));
    CHECK_FALSE(ex(http_method::put, leases + "/mirror-01/status"));
    CHECK_FALSE(ex(http_method::post, "/api/v1/namespaces/default/configmaps"));
    CHECK_FALSE(shard_write_exempt(req(http_method::post, leases), "ops", ""));  // no ring
}

TEST_CASE("write_allowed: a controller's write by its own Lease only; a write of unknown origin by either") {
    using kcoro::client::write_gate;
    using kcoro::client::write_origin;
    using kcoro::server::write_allowed;
    using kcoro::server::write_guard_state;
    const write_origin sharded("mirror", write_gate::shard);
    const write_origin singleton("census", write_gate::leader);
    const auto cm = req(http_method::post, "/api/v1/namespaces/default/configmaps");
    const auto event = req(http_method::post, "/api/v1/namespaces/default/events");
    const auto renewal = req(http_method::put, "/apis/coordination.k8s.io/v1/namespaces/ops/leases/mirror-0123456789abcdef");
    auto state = [](bool leader_elect, bool leader_valid, bool sharding, bool shard_valid) {
        write_guard_state s;
        s.leader_elect = leader_elect;
        s.leader_valid = leader_valid;
        s.sharding = sharding;
        s.shard_valid = shard_valid;
        s.lease_namespace = "ops";
        s.lease_name = "gw-lock";
        s.ring = sharding ? "mirror" : "";
        return s;
    };

    // Neither Lease: nothing is guarded.
    CHECK(write_allowed(cm, nullptr, state(false, false, false, false)));
    CHECK(write_allowed(cm, &singleton, state(false, false, false, false)));

    // Both Leases, the leader's valid, the shard's passed: the sharded
    // reconcile is refused (the hole a single "either" rule left), the
    // singleton's and an unknown writer's pass.
    const auto leader_only = state(true, true, true, false);
    CHECK_FALSE(write_allowed(cm, &sharded, leader_only));
    CHECK(write_allowed(cm, &singleton, leader_only));
    CHECK(write_allowed(cm, nullptr, leader_only));
    // The reverse.
    const auto shard_only = state(true, false, true, true);
    CHECK(write_allowed(cm, &sharded, shard_only));
    CHECK_FALSE(write_allowed(cm, &singleton, shard_only));
    CHECK(write_allowed(cm, nullptr, shard_only));
    // Neither valid: only the exempt writes, whoever sends them.
    const auto none = state(true, false, true, false);
    CHECK_FALSE(write_allowed(cm, &sharded, none));
    CHECK_FALSE(write_allowed(cm, &singleton, none));
    CHECK_FALSE(write_allowed(cm, nullptr, none));
    CHECK(write_allowed(event, &sharded, none));
    CHECK(write_allowed(renewal, nullptr, none));

    // Sharding without leader election: a singleton is not leader-gated.
    CHECK(write_allowed(cm, &singleton, state(false, false, true, false)));
    CHECK_FALSE(write_allowed(cm, &sharded, state(false, false, true, false)));
    CHECK_FALSE(write_allowed(cm, nullptr, state(false, false, true, false)));
    // Leader election alone: as before sharding existed.
    CHECK(write_allowed(cm, &singleton, state(true, true, false, false)));
    CHECK_FALSE(write_allowed(cm, &singleton, state(true, false, false, false)));
    CHECK_FALSE(write_allowed(cm, nullptr, state(true, false, false, false)));
    CHECK(write_allowed(event, nullptr, state(true, false, false, false)));
}
