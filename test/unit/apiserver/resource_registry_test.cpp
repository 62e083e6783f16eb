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
    CHECK(core.size() == 6);
    CHECK(r.resources("apps", "v1").size() == 1);
    CHECK(r.resources("apps", "v2").empty());
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
