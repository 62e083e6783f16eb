// Follows gogo-protobuf's generated Unmarshal/skipGenerated (the shape every
// k8s.io/api generated.pb.go shares) and protobuf.Serializer.Decode.
#include "store/proto_wire.hpp"

namespace kcoro::apiserver::proto {

namespace {
constexpr const char* unexpected_eof = "unexpected EOF";  // io.ErrUnexpectedEOF
constexpr const char* int_overflow = "proto: integer overflow";
constexpr const char* negative_length = "proto: negative length found during unmarshaling";
} // namespace

bool wire_reader::read_varint(std::uint64_t& out) {
    out = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (shift >= 64) return fail(int_overflow);
        if (pos_ >= data_.size()) return fail(unexpected_eof);
        const auto b = static_cast<unsigned char>(data_[pos_++]);
        out |= static_cast<std::uint64_t>(b & 0x7f) << shift;
        if (b < 0x80) return true;
    }
}

bool wire_reader::read_bytes(std::string_view& out) {
    std::uint64_t n = 0;
    if (!read_varint(n)) return false;
    // Go reads the length into an int: a length with the top bit set is negative.
    if (static_cast<std::int64_t>(n) < 0) return fail(negative_length);
    if (n > data_.size() - pos_) return fail(unexpected_eof);
    out = data_.substr(pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return true;
}

bool wire_reader::read_tag(std::string_view message, std::uint64_t& field, int& wire) {
    std::uint64_t tag = 0;
    if (!read_varint(tag)) return false;
    field = tag >> 3;
    wire = static_cast<int>(tag & 7);
    if (wire == group_end) {
        return fail("proto: " + std::string(message) + ": wiretype end group for non-group");
    }
    // Go converts the tag to int32 first: numbers beyond it are negative.
    if (field == 0 || static_cast<std::int32_t>(tag >> 3) <= 0) {
        return fail("proto: " + std::string(message) + ": illegal tag " +
                    std::to_string(static_cast<std::int32_t>(tag >> 3)) + " (wire type " + std::to_string(wire) + ")");
    }
    return true;
}

bool wire_reader::skip(int wire) {
    int depth = 0;
    for (;;) {
        switch (wire) {
        case varint: {
            std::uint64_t v = 0;
            if (!read_varint(v)) return false;
            break;
        }
        case fixed64:
            if (data_.size() - pos_ < 8) return fail(unexpected_eof);
            pos_ += 8;
            break;
        case length_delimited: {
            std::string_view v;
            if (!read_bytes(v)) return false;
            break;
        }
        case group_start:
            ++depth;
            break;
        case group_end:
            if (depth == 0) return fail("proto: unexpected end of group");
            --depth;
            break;
        case fixed32:
            if (data_.size() - pos_ < 4) return fail(unexpected_eof);
            pos_ += 4;
            break;
        default:
            return fail("proto: illegal wireType " + std::to_string(wire));
        }
        if (depth == 0) return true;
        std::uint64_t tag = 0;
        if (!read_varint(tag)) return false;
        wire = static_cast<int>(tag & 7);
    }
}

std::variant<unknown_envelope, std::string> parse_envelope(std::string_view body) {
    if (body.empty()) return std::string("empty data");
    if (body.size() < envelope_magic.size() || body.substr(0, envelope_magic.size()) != envelope_magic) {
        return std::string("provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
    }
    if (body.size() == envelope_magic.size()) return std::string("empty body");
    unknown_envelope env;
    wire_reader r(body.substr(envelope_magic.size()));
    auto text = [](std::string_view v) { return std::string(v); };
    while (!r.at_end()) {
        std::uint64_t field = 0;
        int wire = 0;
        if (!r.read_tag("Unknown", field, wire)) return r.error();
        if (field >= 1 && field <= 4) {
            if (wire != length_delimited) {
                static constexpr const char* names[] = {"", "TypeMeta", "Raw", "ContentEncoding", "ContentType"};
                return "proto: wrong wireType = " + std::to_string(wire) + " for field " + names[field];
            }
            std::string_view v;
            if (!r.read_bytes(v)) return r.error();
            if (field == 1) {
                wire_reader t(v);
                while (!t.at_end()) {
                    std::uint64_t tf = 0;
                    int tw = 0;
                    if (!t.read_tag("TypeMeta", tf, tw)) return t.error();
                    if ((tf == 1 || tf == 2) && tw == length_delimited) {
                        std::string_view s;
                        if (!t.read_bytes(s)) return t.error();
                        (tf == 1 ? env.api_version : env.kind) = text(s);
                    } else if (tf == 1 || tf == 2) {
                        return "proto: wrong wireType = " + std::to_string(tw) + " for field " +
                               (tf == 1 ? "APIVersion" : "Kind");
                    } else if (!t.skip(tw)) {
                        return t.error();
                    }
                }
            } else if (field == 2) {
                env.raw = v;
            } else {
                (field == 3 ? env.content_encoding : env.content_type) = text(v);
            }
        } else if (!r.skip(wire)) {
            return r.error();
        }
    }
    return env;
}

} // namespace kcoro::apiserver::proto
