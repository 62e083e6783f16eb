#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/k8s/namespace.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

#include "typed_samples.hpp"

namespace typed = kcoro::typed;
namespace json = boost::json;

TEST_CASE("a Namespace (cluster-scoped) round-trips") {
    auto v = json::parse(kcoro::test::samples::namespace_);
    auto n = typed::from_json<kcoro::k8s::namespace_>(v);
    REQUIRE(n.has_value());
    CHECK(n->metadata.name == "kcoro-system");
    CHECK(n->spec.finalizers == std::vector<std::string>{"kubernetes"});
    CHECK(n->status.phase == "Active");
    CHECK(typed::to_json(*n) == v);
    CHECK_FALSE(typed::resource_traits<kcoro::k8s::namespace_>::namespaced);
}
