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
