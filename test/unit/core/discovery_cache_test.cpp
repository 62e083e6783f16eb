#include <kcoro/core/discovery_cache.hpp>

#include <doctest/doctest.h>

using namespace kcoro;

namespace {

resource_info make(std::string group, std::string version, std::string plural, std::string kind, bool namespaced,
                   std::vector<std::string> shorts = {}) {
    resource_info r;
    r.gvr = {std::move(group), std::move(version), std::move(plural)};
    r.kind = std::move(kind);
    r.namespaced = namespaced;
    r.short_names = std::move(shorts);
    return r;
}

discovery_cache sample() {
    discovery_cache c;
    c.set_group_version({"", "v1"}, {make("", "v1", "configmaps", "ConfigMap", true, {"cm"}),
                                     make("", "v1", "namespaces", "Namespace", false, {"ns"}),
                                     make("", "v1", "events", "Event", true, {"ev"})});
    c.set_group_version({"apps", "v1"}, {make("apps", "v1", "deployments", "Deployment", true, {"deploy"})});
    c.set_group_version({"events.k8s.io", "v1"}, {make("events.k8s.io", "v1", "events", "Event", true, {"ev"})});
    c.set_group_version({"gateway.kcoro.dev", "v1alpha1"},
                        {make("gateway.kcoro.dev", "v1alpha1", "gatewayinstances", "GatewayInstance", true, {"gi"})});
    c.set_group_version({"gateway.kcoro.dev", "v1beta1"},
                        {make("gateway.kcoro.dev", "v1beta1", "gatewayinstances", "GatewayInstance", true, {"gi"})});
    return c;
}

} // namespace

TEST_CASE("lookup by GVK and GVR; misses are nullopt") {
    auto c = sample();
    auto d = c.find(group_version_kind{"apps", "v1", "Deployment"});
    REQUIRE(d);
    CHECK(d->gvr.resource == "deployments");
    auto ns = c.find(group_version_resource{"", "v1", "namespaces"});
    REQUIRE(ns);
    CHECK_FALSE(ns->namespaced);
    CHECK_FALSE(c.find(group_version_kind{"apps", "v2", "Deployment"}));
    CHECK_FALSE(c.find(group_version_kind{"apps", "v1", "deployment"}));  // kinds are exact
    CHECK_FALSE(c.find(group_version_resource{"apps", "v1", "statefulsets"}));
}

TEST_CASE("kubectl-style names, case-insensitive") {
    auto c = sample();
    // "configmaps." and "configmaps.v1." name the core group explicitly, as in kubectl
    for (std::string n : {"cm", "CM", "configmap", "configmaps", "ConfigMap", "configmaps.", "configmaps.v1."}) {
        CAPTURE(n);
        auto r = c.resolve(n);
        REQUIRE(r);
        CHECK(r->gvr.resource == "configmaps");
    }
    CHECK(c.resolve("deploy")->gvr.group == "apps");
    CHECK(c.resolve("Deployments")->kind == "Deployment");
    CHECK(c.resolve("deployments.apps")->gvr.resource == "deployments");
    CHECK(c.resolve("deployments.v1.apps")->gvr.version == "v1");
    CHECK_FALSE(c.resolve("deployments.v2.apps"));
    CHECK_FALSE(c.resolve("statefulsets"));
    CHECK_FALSE(c.resolve(""));
}

TEST_CASE("ambiguous names resolve in insertion order; qualification picks the other") {
    auto c = sample();
    CHECK(c.resolve("events")->gvr.group == "");
    CHECK(c.resolve("ev")->gvr.group == "");
    CHECK(c.resolve("events.events.k8s.io")->gvr.group == "events.k8s.io");
    CHECK(c.resolve("gi")->gvr.version == "v1alpha1");
    CHECK(c.resolve("gi.v1beta1.gateway.kcoro.dev")->gvr.version == "v1beta1");
    CHECK(c.resolve("gatewayinstance.gateway.kcoro.dev")->gvr.version == "v1alpha1");
}

TEST_CASE("refreshing a group version replaces it in place") {
    auto c = sample();
    auto before = c.size();
    c.set_group_version({"", "v1"}, {make("", "v1", "configmaps", "ConfigMap", true, {"cm"}),
                                     make("", "v1", "secrets", "Secret", true)});
    CHECK(c.size() == before - 1);
    CHECK(c.resolve("secret"));
    CHECK_FALSE(c.find(group_version_resource{"", "v1", "namespaces"}));
    // still first: the core group keeps priority for "events"... which is gone now
    CHECK(c.resolve("events")->gvr.group == "events.k8s.io");
    CHECK(c.resources().front().gvr.resource == "configmaps");
    c.clear();
    CHECK(c.empty());
    CHECK_FALSE(c.resolve("cm"));
}
