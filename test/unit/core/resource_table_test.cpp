#include <kcoro/core/resource_table.hpp>

#include <doctest/doctest.h>

using namespace kcoro;

TEST_CASE("the built-in table names the kinds of the resources kcoro offers") {
    const auto t = resource_table::builtin();
    for (const auto& gvr : {resources::configmaps(), resources::secrets(), resources::namespaces(), resources::services(),
                            resources::serviceaccounts(), resources::events(), resources::events_v1(),
                            resources::deployments(), resources::leases(), resources::customresourcedefinitions()}) {
        const auto* r = t.find(gvr);
        REQUIRE_MESSAGE(r, gvr.resource);
        CHECK_FALSE(r->kind.empty());
    }
    CHECK(t.find(resources::deployments())->kind == "Deployment");
    CHECK(t.find(resources::deployments())->has_scale);
    CHECK_FALSE(t.find(resources::namespaces())->namespaced);
    CHECK(t.find(group_version_kind{"apps", "v1", "Deployment"})->gvr == resources::deployments());
    CHECK(t.find(group_version_resource{"example.com", "v1", "widgets"}) == nullptr);
}

TEST_CASE("custom resources are added once; an entry for the same resource is replaced") {
    auto t = resource_table::builtin();
    resource_info w;
    w.gvr = {"example.com", "v1", "widgets"};
    w.kind = "Widget";
    t.add(w);
    const auto n = t.entries().size();
    w.kind = "Gadget";
    t.add(w);
    CHECK(t.entries().size() == n);
    CHECK(t.find(w.gvr)->kind == "Gadget");
    CHECK(t.find(group_version_kind{"example.com", "v1", "Gadget"}) != nullptr);
}
