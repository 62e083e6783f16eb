// core/v1 ConfigMap, typed.
#pragma once

#include <kcoro/typed/declare.hpp>
#include <kcoro/typed/object_meta.hpp>

namespace kcoro::k8s {

struct config_map {
    typed::object_meta metadata;
    std::optional<bool> immutable;
    std::map<std::string, std::string> data;
    std::map<std::string, typed::bytes> binary_data;
    typed::unknown_fields unknown;
    friend bool operator==(const config_map&, const config_map&) = default;
};
BOOST_DESCRIBE_STRUCT(config_map, (), (metadata, immutable, data, binary_data))
KCORO_RESOURCE(config_map, resource("", "v1", "ConfigMap", "configmaps"))

} // namespace kcoro::k8s
