#include <kcoro/core/resource.hpp>

#include <doctest/doctest.h>

using namespace kcoro;

TEST_CASE("api versions and keys") {
    CHECK(group_version::parse("v1").group.empty());
    CHECK(group_version::parse("apps/v1").group == "apps");
    CHECK(group_version_kind::from("apps/v1", "Deployment").api_version() == "apps/v1");
    CHECK(object_key::parse("ns/a") == object_key{"ns", "a"});
    CHECK(object_key::parse("a") == object_key{"", "a"});
    CHECK(object_key{"", "n"}.str() == "n");
    CHECK(resources::deployments().api_version() == "apps/v1");
}
