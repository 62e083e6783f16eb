#include "store/resource_registry.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace kcoro;
using namespace kcoro::apiserver;

TEST_CASE("built-in resources and their flags") {
    auto r = resource_registry::with_builtins();
    for (const auto& gvr : {resources::namespaces(), resources::configmaps(), resources::secrets(), resources::services(),
                            resources::serviceaccounts(), resources::events(), resources::events_v1(),
                            resources::deployments(), resources::leases(), resources::customresourcedefinitions()}) {
        CHECK_MESSAGE(r.find(gvr) != nullptr, gvr);
    }
    const auto* ns = r.find(resources::namespaces());
    CHECK_FALSE(ns->namespaced);
    CHECK(ns->name_is_label);
    CHECK(ns->kind == "Namespace");
    CHECK(ns->list_kind == "NamespaceList");
    const auto* cm = r.find(resources::configmaps());
    CHECK(cm->short_names == std::vector<std::string>{"cm"});
    CHECK_FALSE(cm->has_status);
    CHECK(cm->allow_unconditional_update);
    CHECK_FALSE(cm->allow_create_on_update);
    CHECK(r.find(resources::deployments())->has_status);
    CHECK(r.find(resources::leases())->allow_create_on_update);
    CHECK(r.find_kind("apps/v1", "Deployment") == r.find(resources::deployments()));
    CHECK(r.find_kind("v1", "Nope") == nullptr);
}

TEST_CASE("discovery: groups, core first, and resources per group/version") {
    auto r = resource_registry::with_builtins();
    auto groups = r.groups();
    REQUIRE_FALSE(groups.empty());
    CHECK(groups.front().name.empty());
    CHECK(groups.front().preferred_version() == "v1");
    auto apps = std::find_if(groups.begin(), groups.end(), [](const auto& g) { return g.name == "apps"; });
    REQUIRE(apps != groups.end());
    auto core = r.resources("", "v1");
    CHECK(core.size() == 12);
    CHECK(r.resources("apps", "v1").size() == 4);
    CHECK(r.resources("apps", "v2").empty());
    for (const char* g : {"batch", "discovery.k8s.io", "networking.k8s.io", "rbac.authorization.k8s.io", "policy"}) {
        CHECK_MESSAGE(!r.resources(g, "v1").empty(), g);
    }
}

TEST_CASE("the workload, RBAC and policy kinds carry their strategies' flags (v1.32 pkg/registry)") {
    auto r = resource_registry::with_builtins();
    const auto* pods = r.find({"", "v1", "pods"});
    REQUIRE(pods);
    CHECK(pods->has_status);
    CHECK(pods->return_deleted_object);
    CHECK_FALSE(pods->allow_create_on_update);
    CHECK(pods->short_names == std::vector<std::string>{"po"});
    CHECK(pods->categories == std::vector<std::string>{"all"});
    const auto* sa = r.find(resources::serviceaccounts());
    CHECK(sa->return_deleted_object);
    CHECK_FALSE(sa->allow_create_on_update);
    const auto* ep = r.find({"", "v1", "endpoints"});
    CHECK(ep->singular == "endpoints");
    CHECK(ep->allow_create_on_update);
    CHECK_FALSE(r.find({"", "v1", "nodes"})->namespaced);
    const auto* roles = r.find({"rbac.authorization.k8s.io", "v1", "roles"});
    CHECK(roles->allow_create_on_update);
    CHECK(roles->name_check == name_rule::path_segment);
    CHECK_FALSE(r.find({"rbac.authorization.k8s.io", "v1", "clusterrolebindings"})->namespaced);
    CHECK(r.find({"batch", "v1", "cronjobs"})->short_names == std::vector<std::string>{"cj"});
    CHECK(r.find({"policy", "v1", "poddisruptionbudgets"})->has_status);
    CHECK_FALSE(r.find({"networking.k8s.io", "v1", "networkpolicies"})->has_status);
}

TEST_CASE("CRD-registered resources come and go together") {
    auto r = resource_registry::with_builtins();
    for (const char* v : {"v1", "v2"}) {
        resource_def d;
        d.gvr = {"example.com", v, "widgets"};
        d.kind = "Widget";
        d.crd_name = "widgets.example.com";
        d.storage = std::string(v) == "v2";
        r.add(d);
    }
    auto groups = r.groups();
    auto g = std::find_if(groups.begin(), groups.end(), [](const auto& x) { return x.name == "example.com"; });
    REQUIRE(g != groups.end());
    CHECK(g->versions == std::vector<std::string>{"v2", "v1"});  // storage version preferred
    r.remove_crd("widgets.example.com");
    CHECK(r.find({"example.com", "v1", "widgets"}) == nullptr);
    groups = r.groups();
    CHECK(std::none_of(groups.begin(), groups.end(), [](const auto& x) { return x.name == "example.com"; }));
}
