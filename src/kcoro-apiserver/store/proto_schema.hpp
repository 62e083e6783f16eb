// The message tables of the protobuf decoder: for each message kcoro decodes,
// its fields by number, with the JSON name and what Go's encoding/json does
// with the field (pointer, omitempty, inline), so a decoded body becomes the
// JSON object a Go client's JSON body would have been.
//
// Field names and numbers are the public API's (k8s.io/api/core/v1 and
// apps/v1, coordination/v1, events/v1 generated.proto and types.go,
// apimachinery meta/v1, v1.32),
// written here as tables; fields a table lists as "not decoded" are skipped
// (the caller warns).
//
// Pure; thread safety: immutable data.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace kcoro::apiserver::proto {

enum class field_kind : std::uint8_t {
    string,         // string (and named string types)
    bytes,          // []byte: base64 in JSON
    int32,          // varint, int32 in Go
    int64,          // varint, int64 in Go
    boolean,        // varint
    message,        // a nested message: field_desc::message names its table
    time,           // metav1.Time {seconds = 1, nanos = 2}: RFC 3339 (seconds) or null
    micro_time,     // metav1.MicroTime: the same message, RFC 3339 with microseconds
    int_or_string,  // intstr.IntOrString {type = 1, intVal = 2, strVal = 3}
    quantity,       // resource.Quantity {string = 1}
    fields_v1,      // metav1.FieldsV1 {Raw = 1}: its bytes are JSON
    string_map,     // map<string, string>: entries {key = 1, value = 2}
    bytes_map,      // map<string, bytes>: values base64 in JSON
    quantity_map,   // map<string, Quantity> (ResourceList)
};

/// Go-side shape of a field (struct tags and type).
enum field_flags : std::uint8_t {
    rep = 1,   // a slice (repeated)
    ptr = 2,   // a pointer (or nil-able): in JSON only when on the wire
    omit = 4,  // `omitempty`: zero values leave the field out
    inl = 8,   // an embedded struct with `json:",inline"`: its fields join the parent's
};

struct field_desc {
    std::uint32_t number;
    std::string_view json;     // JSON name ("" for inline)
    std::string_view go_name;  // Go field name, for the decoder's error texts
    field_kind kind;
    std::string_view message;  // table name for field_kind::message
    std::uint8_t flags;
};

struct message_desc {
    std::string_view name;
    std::span<const field_desc> fields;
};

/// A table by its message name ("ObjectMeta", "PodSpec"); nullptr if kcoro
/// has none.
const message_desc* find_message(std::string_view name);

/// The top-level message of a served kind (group "" for core), or nullptr
/// when kcoro does not decode that kind from protobuf.
const message_desc* message_for_kind(std::string_view group, std::string_view kind);

} // namespace kcoro::apiserver::proto
