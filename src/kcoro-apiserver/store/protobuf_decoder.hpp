// Request bodies in `application/vnd.kubernetes.protobuf` (what client-go
// sends for built-in kinds when a program, kubectl among them, sets
// ContentType to protobuf): the `k8s\0` envelope, runtime.Unknown, then the
// object's message, decoded with the tables of proto_schema.hpp into the JSON
// object the same Go value would have been as a JSON body (Go's
// encoding/json rules: omitempty, nil pointers, nil slices and maps as null,
// structs always written, maps sorted, []byte as base64, metav1.Time as
// RFC 3339 seconds or null). The store then treats it as any JSON body.
//
// Decode failures are the 400s of kube-apiserver's handlers
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go
// transformDecodeError) around the decoder's own error texts
// (runtime/serializer/protobuf/protobuf.go, gogo-protobuf's generated
// Unmarshal).
//
// Pure; thread safety: values.
#pragma once

#include "store/proto_schema.hpp"

#include <kcoro/core/error.hpp>

#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kcoro::apiserver {

struct protobuf_body {
    boost::json::object object;
    /// Fields on the wire that kcoro's tables do not decode, as
    /// "spec.template.spec: PodSpec field 14": dropped, the caller warns.
    std::vector<std::string> skipped;
};

/// Decodes one message's bytes with its table. The string is the Go error
/// text on failure ("unexpected EOF", "proto: wrong wireType = 0 for field
/// Name", ...). `path` prefixes the entries added to `skipped`.
std::variant<boost::json::object, std::string> decode_proto_message(std::string_view bytes,
                                                                    const proto::message_desc& message,
                                                                    std::vector<std::string>& skipped,
                                                                    std::string_view path = {});

/// True when kcoro decodes `kind` of `group` from protobuf.
bool protobuf_decodable(std::string_view group, std::string_view kind);

/// A whole request body for an endpoint serving group/version/kind: the
/// envelope (whose apiVersion and kind win, as copyKindDefaults lets them),
/// then the message. Errors: 400 `the object provided is unrecognized (must
/// be of type ConfigMap): unexpected EOF (6b38730a...)` when the envelope
/// does not decode, 400 `ConfigMap in version "v1" cannot be handled as a
/// ConfigMap: ...` when the object does not.
result<protobuf_body> decode_protobuf_body(std::string_view body, std::string_view group, std::string_view version,
                                           std::string_view kind);

/// Go's encoding/json writes invalid UTF-8 as U+FFFD; so does this (for
/// strings from the wire, which proto2 does not check).
std::string valid_utf8(std::string_view s);

/// transformDecodeError's summary of a body: up to 30 bytes, as text when it
/// starts with `{`, else in hex, with " ..." when cut.
std::string summarize_body(std::string_view body);

} // namespace kcoro::apiserver
