#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/k8s/lease.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

#include "typed_samples.hpp"

namespace typed = kcoro::typed;
namespace json = boost::json;

TEST_CASE("a Lease with micro times round-trips") {
    auto v = json::parse(kcoro::test::samples::lease);
    auto l = typed::from_json<kcoro::k8s::lease>(v);
    REQUIRE(l.has_value());
    CHECK(l->spec.holder_identity == "gateway-operator-7c9d8f6b5d-x2x9z_3f1c");
    CHECK(l->spec.lease_duration_seconds == 15);
    CHECK(l->spec.renew_time.str() == "2026-03-02T09:16:02.654321Z");
    CHECK(l->spec.lease_transitions == 4);
    CHECK(typed::to_json(*l) == v);
    CHECK(typed::resource_traits<kcoro::k8s::lease>::api_version == "coordination.k8s.io/v1");
}

TEST_CASE("a new renew time is written to the microsecond") {
    kcoro::k8s::lease l;
    l.spec.renew_time = typed::micro_timestamp(kcoro::parse_rfc3339("2026-03-02T09:16:02Z").value());
    CHECK(typed::to_object(l).at("spec").at("renewTime") == "2026-03-02T09:16:02.000000Z");
}
