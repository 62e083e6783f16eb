#include "store/status_errors.hpp"

#include <doctest/doctest.h>

using namespace kcoro;
using namespace kcoro::apiserver;

TEST_CASE("qualified resource names") {
    CHECK(errors::qualified_resource(resources::configmaps()) == "configmaps");
    CHECK(errors::qualified_resource(resources::deployments()) == "deployments.apps");
}

TEST_CASE("Status bodies as kube-apiserver sends them") {
    auto nf = errors::not_found(resources::deployments(), "web");
    CHECK(is_not_found(nf));
    CHECK(nf.api_status()->message == "deployments.apps \"web\" not found");
    CHECK(nf.api_status()->details->group == "apps");
    CHECK(nf.api_status()->details->kind == "deployments");
    auto inv = errors::invalid("apps", "Deployment", "web",
                               {errors::field_required("spec.selector"),
                                errors::field_invalid("spec.replicas", "-1", "must be greater than or equal to 0")});
    CHECK(is_invalid(inv));
    CHECK(inv.api_status()->message ==
          "Deployment.apps \"web\" is invalid: [spec.selector: Required value, spec.replicas: Invalid value: -1: must "
          "be greater than or equal to 0]");
    CHECK(inv.api_status()->details->causes.size() == 2);
    auto big = errors::too_large_resource_version(10, 5);
    CHECK(is_resource_version_too_large(big));
    CHECK(needs_relist(big));
    CHECK(big.http_code() == 504);
    auto gone = errors::expired("too old resource version: 1 (2)");
    CHECK(is_gone_or_expired(gone));
    CHECK(gone.http_code() == 410);
    auto term = errors::namespace_terminating(resources::configmaps(), "x", "ns");
    CHECK(is_forbidden(term));
    CHECK(term.api_status()->details->causes.at(0).field == "metadata.namespace");
    CHECK(errors::unsupported_media_type("x").http_code() == 415);
    CHECK(errors::method_not_allowed(resources::configmaps(), "create").http_code() == 405);
    CHECK(errors::internal("boom").api_status()->message == "Internal error occurred: boom");
}
