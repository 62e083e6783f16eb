// coordination.k8s.io/v1 Lease, typed (leader election's lock).
#pragma once

#include <kcoro/typed/declare.hpp>
#include <kcoro/typed/object_meta.hpp>

namespace kcoro::k8s {

struct lease_spec {
    std::optional<std::string> holder_identity;
    std::optional<std::int32_t> lease_duration_seconds;
    typed::micro_timestamp acquire_time;
    typed::micro_timestamp renew_time;
    std::optional<std::int32_t> lease_transitions;
    std::optional<std::string> strategy;
    std::optional<std::string> preferred_holder;
    typed::unknown_fields unknown;
    friend bool operator==(const lease_spec&, const lease_spec&) = default;
};
BOOST_DESCRIBE_STRUCT(lease_spec, (),
                      (holder_identity, lease_duration_seconds, acquire_time, renew_time, lease_transitions,
                       strategy, preferred_holder))

struct lease {
    typed::object_meta metadata;
    lease_spec spec;
    typed::unknown_fields unknown;
    friend bool operator==(const lease&, const lease&) = default;
};
BOOST_DESCRIBE_STRUCT(lease, (), (metadata, spec))
KCORO_RESOURCE(lease, resource("coordination.k8s.io", "v1", "Lease", "leases"))

} // namespace kcoro::k8s
