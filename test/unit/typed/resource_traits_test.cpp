#include <kcoro/typed/declare.hpp>
#include <kcoro/typed/resource_traits.hpp>

#include <doctest/doctest.h>

namespace typed = kcoro::typed;

namespace resource_traits_sample {
struct core_thing {
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(core_thing, (), ())
KCORO_RESOURCE(core_thing, resource("", "v1", "ConfigMap", "configmaps"))

struct custom {
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(custom, (), ())
KCORO_RESOURCE(custom, resource("gateway.kcoro.dev", "v1alpha1", "GatewayInstance", "gatewayinstances")
                           .cluster_scoped()
                           .list_kind("GatewayInstances")
                           .singular("gw"))

struct plain {
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(plain, (), ())
} // namespace resource_traits_sample

static_assert(typed::resource_type<resource_traits_sample::custom>);
static_assert(!typed::resource_type<resource_traits_sample::plain>);
static_assert(typed::resource_traits<resource_traits_sample::core_thing>::api_version == "v1");
static_assert(typed::resource_traits<resource_traits_sample::custom>::api_version == "gateway.kcoro.dev/v1alpha1");

TEST_CASE("a core resource") {
    using t = typed::resource_traits<resource_traits_sample::core_thing>;
    CHECK(t::namespaced);
    CHECK(t::gvk() == kcoro::group_version_kind{"", "v1", "ConfigMap"});
    CHECK(t::gvr() == kcoro::resources::configmaps());
    CHECK(t::resource_name() == "configmaps");
    CHECK(t::singular() == "configmap");
    CHECK(t::list_kind() == "ConfigMapList");
}

TEST_CASE("a custom resource with explicit names") {
    using t = typed::resource_traits<resource_traits_sample::custom>;
    CHECK_FALSE(t::namespaced);
    CHECK(t::gvr() == kcoro::group_version_resource{"gateway.kcoro.dev", "v1alpha1", "gatewayinstances"});
    CHECK(t::resource_name() == "gatewayinstances.gateway.kcoro.dev");
    CHECK(t::singular() == "gw");
    CHECK(t::list_kind() == "GatewayInstances");
    CHECK(t::kind == "GatewayInstance");
}
