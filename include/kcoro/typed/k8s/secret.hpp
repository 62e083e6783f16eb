// core/v1 Secret, typed: `data` values are the decoded bytes (base64 on the
// wire); `string_data` is write-only (the server merges it into data).
#pragma once

#include <kcoro/typed/declare.hpp>
#include <kcoro/typed/object_meta.hpp>

namespace kcoro::k8s {

struct secret {
    typed::object_meta metadata;
    std::optional<bool> immutable;
    std::map<std::string, typed::bytes> data;
    std::map<std::string, std::string> string_data;
    std::string type; // Opaque, kubernetes.io/tls, ...: open
    typed::unknown_fields unknown;
    friend bool operator==(const secret&, const secret&) = default;
};
BOOST_DESCRIBE_STRUCT(secret, (), (metadata, immutable, data, string_data, type))
KCORO_RESOURCE(secret, resource("", "v1", "Secret", "secrets"))

} // namespace kcoro::k8s
