// core/v1 Namespace, typed (cluster-scoped). `namespace_` because
// `namespace` is a keyword.
#pragma once

#include <kcoro/typed/declare.hpp>
#include <kcoro/typed/object_meta.hpp>

namespace kcoro::k8s {

struct namespace_spec {
    std::vector<std::string> finalizers;
    typed::unknown_fields unknown;
    friend bool operator==(const namespace_spec&, const namespace_spec&) = default;
};
BOOST_DESCRIBE_STRUCT(namespace_spec, (), (finalizers))

struct namespace_status {
    std::string phase; // Active, Terminating
    std::vector<boost::json::object> conditions;
    typed::unknown_fields unknown;
    friend bool operator==(const namespace_status&, const namespace_status&) = default;
};
BOOST_DESCRIBE_STRUCT(namespace_status, (), (phase, conditions))

struct namespace_ {
    typed::object_meta metadata;
    namespace_spec spec;
    namespace_status status;
    typed::unknown_fields unknown;
    friend bool operator==(const namespace_&, const namespace_&) = default;
};
BOOST_DESCRIBE_STRUCT(namespace_, (), (metadata, spec, status))
KCORO_RESOURCE(namespace_, resource("", "v1", "Namespace", "namespaces").cluster_scoped())

} // namespace kcoro::k8s
