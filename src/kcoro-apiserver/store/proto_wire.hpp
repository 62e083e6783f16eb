// The protobuf wire format (varints, length-delimited fields) as the Go
// decoders kube-apiserver uses read it: gogo-protobuf's generated Unmarshal
// methods (k8s.io/api/*/generated.pb.go, skipGenerated) and the `k8s\0`
// envelope of runtime.Unknown (k8s.io/apimachinery/pkg/runtime/serializer/
// protobuf/protobuf.go). Errors carry the Go texts ("unexpected EOF",
// "proto: integer overflow", ...), since the server's 400 quotes them.
//
// Pure; thread safety: values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace kcoro::apiserver::proto {

/// The wire types of protobuf (encoding spec): 0 varint, 1 fixed64,
/// 2 length-delimited, 3/4 group start/end (deprecated), 5 fixed32.
enum wire_type : int { varint = 0, fixed64 = 1, length_delimited = 2, group_start = 3, group_end = 4, fixed32 = 5 };

/// Reads one message's bytes. Each call returns false on error and leaves
/// the Go text in error(); nothing reads past the end.
class wire_reader {
public:
    explicit wire_reader(std::string_view data) noexcept : data_(data) {}

    bool at_end() const noexcept { return pos_ >= data_.size(); }
    const std::string& error() const noexcept { return error_; }

    /// A base-128 varint of at most 64 bits (10 bytes).
    bool read_varint(std::uint64_t& out);
    /// A length prefix and that many bytes.
    bool read_bytes(std::string_view& out);
    /// A tag: field number and wire type. Refuses number 0 and end-group as
    /// the generated Unmarshal of `message` does.
    bool read_tag(std::string_view message, std::uint64_t& field, int& wire);
    /// Skips one field's value (skipGenerated, including nested groups).
    bool skip(int wire);

private:
    bool fail(std::string text) {
        error_ = std::move(text);
        return false;
    }
    std::string_view data_;
    std::size_t pos_ = 0;
    std::string error_;
};

/// The `k8s\0` magic of protobuf.Serializer.
inline constexpr std::string_view envelope_magic{"k8s\0", 4};

/// runtime.Unknown (k8s.io/apimachinery/pkg/runtime/generated.proto):
/// typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2, contentEncoding = 3,
/// contentType = 4.
struct unknown_envelope {
    std::string api_version;
    std::string kind;
    std::string_view raw;  // the object's message, into the body
    std::string content_encoding;
    std::string content_type;
};

/// Parses a request body: the magic, then runtime.Unknown. On failure the
/// string is the error protobuf.Serializer.Decode returns ("empty body",
/// "provided data does not appear to be a protobuf message, expected prefix
/// [107 56 115 0]", or the Unknown's Unmarshal error).
std::variant<unknown_envelope, std::string> parse_envelope(std::string_view body);

} // namespace kcoro::apiserver::proto
