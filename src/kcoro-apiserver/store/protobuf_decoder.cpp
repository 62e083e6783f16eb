// The JSON a decoded message becomes follows Go's encoding/json on the
// k8s.io/api structs (types.go tags), which is what the JSON path of
// kube-apiserver would have received from the same client; see
// proto_schema.hpp for the tables.
#include "store/protobuf_decoder.hpp"

#include "store/proto_wire.hpp"
#include "store/status_errors.hpp"

#include <kcoro/core/base64.hpp>

#include <boost/json/parse.hpp>

#include <cstdio>
#include <map>

namespace kcoro::apiserver {
namespace json = boost::json;
using proto::field_desc;
using proto::field_kind;
using proto::message_desc;
using proto::wire_reader;

std::string valid_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
        bool ok = n > 0 && i + n <= s.size();
        for (std::size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
        if (ok && n > 1) {
            // Overlong forms, surrogates and values beyond U+10FFFF are invalid too.
            std::uint32_t cp = c & (0x7f >> n);
            for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
            static constexpr std::uint32_t min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
            ok = cp >= min_cp[n] && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff);
        }
        if (ok) {
            out.append(s.substr(i, n));
            i += n;
        } else {
            out += "\xef\xbf\xbd";
            ++i;
        }
    }
    return out;
}

namespace {

json::value string_value(std::string_view s) { return json::value(json::string(valid_utf8(s))); }

bool expects_varint(field_kind k) {
    return k == field_kind::int32 || k == field_kind::int64 || k == field_kind::boolean;
}

json::value scalar_value(field_kind k, std::uint64_t v) {
    switch (k) {
    case field_kind::int32:
        return json::value(static_cast<std::int64_t>(static_cast<std::int32_t>(v)));
    case field_kind::int64:
        return json::value(static_cast<std::int64_t>(v));
    default:
        return json::value(v != 0);
    }
}

json::value zero_value(field_kind k) {
    switch (k) {
    case field_kind::int32:
    case field_kind::int64:
        return json::value(std::int64_t{0});
    case field_kind::boolean:
        return json::value(false);
    default:
        return json::value(json::string());
    }
}

bool is_zero(const json::value& v) {
    if (v.is_string()) return v.get_string().empty();
    if (v.is_int64()) return v.get_int64() == 0;
    if (v.is_bool()) return !v.get_bool();
    return false;
}

// Days from 1970-01-01 to a civil date and back (Howard Hinnant's algorithm),
// for the whole range a Timestamp can carry.
void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
    z += 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const auto doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    y = static_cast<std::int64_t>(yoe) + era * 400;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2) ++y;
}

/// metav1.Time from its Timestamp bytes: Unmarshal keeps the seconds only;
/// MarshalJSON writes null for the zero time, RFC 3339 in UTC otherwise
/// (apimachinery pkg/apis/meta/v1/time.go). metav1.MicroTime (`micro`) keeps the
/// nanoseconds truncated to microseconds (micro_time_proto.go) and writes
/// RFC3339Micro.
std::variant<json::value, std::string> time_value(std::string_view bytes, bool micro = false) {
    if (bytes.empty()) return json::value(nullptr);
    wire_reader r(bytes);
    std::int64_t seconds = 0;
    std::int32_t nanos = 0;
    while (!r.at_end()) {
        std::uint64_t field = 0;
        int wire = 0;
        if (!r.read_tag("Timestamp", field, wire)) return r.error();
        if ((field == 1 || field == 2) && wire != proto::varint) {
            return "proto: wrong wireType = " + std::to_string(wire) + " for field " + (field == 1 ? "Seconds" : "Nanos");
        }
        if (field == 1 || field == 2) {
            std::uint64_t v = 0;
            if (!r.read_varint(v)) return r.error();
            if (field == 1) seconds = static_cast<std::int64_t>(v);
            else nanos = static_cast<std::int32_t>(v);
        } else if (!r.skip(wire)) {
            return r.error();
        }
    }
    std::int64_t micros = 0;
    if (micro) {
        // time.Unix normalizes nanoseconds outside [0, 1e9) into the seconds.
        std::int64_t us = nanos / 1000;  // Duration.Truncate: toward zero
        seconds += us / 1000000;
        us %= 1000000;
        if (us < 0) {
            us += 1000000;
            --seconds;
        }
        micros = us;
    }
    constexpr std::int64_t zero_time = -62135596800;  // 0001-01-01T00:00:00Z, Go's time.Time{}
    if (seconds == zero_time && micros == 0) return json::value(nullptr);
    // time.Unix's range is wider than any year a client means; beyond ±1e15
    // seconds the day arithmetic would overflow, so such times are refused.
    if (seconds < -1000000000000000LL || seconds > 1000000000000000LL) {
        return std::string("kcoro: time out of range");
    }
    const std::int64_t days = seconds >= 0 ? seconds / 86400 : -((-seconds + 86399) / 86400);
    const std::int64_t rem = seconds - days * 86400;
    std::int64_t y = 0;
    unsigned m = 0, d = 0;
    civil_from_days(days, y, m, d);
    // Time.MarshalJSON / MicroTime.MarshalJSON: UTC, RFC3339 or RFC3339Micro;
    // Go's layout writes a year outside 0..9999 as "-0044" or "12345" (the
    // store's time check then refuses it as a JSON body's would be).
    char buf[64];
    const char* sign = y < 0 ? "-" : "";
    const long long year = y < 0 ? -y : y;
    if (micro) {
        std::snprintf(buf, sizeof buf, "%s%04lld-%02u-%02uT%02d:%02d:%02d.%06dZ", sign, year, m, d,
                      static_cast<int>(rem / 3600), static_cast<int>(rem / 60 % 60), static_cast<int>(rem % 60),
                      static_cast<int>(micros));
    } else {
        std::snprintf(buf, sizeof buf, "%s%04lld-%02u-%02uT%02d:%02d:%02dZ", sign, year, m, d,
                      static_cast<int>(rem / 3600), static_cast<int>(rem / 60 % 60), static_cast<int>(rem % 60));
    }
    return json::value(json::string(buf));
}

/// intstr.IntOrString: type 0 writes intVal, type 1 strVal.
std::variant<json::value, std::string> int_or_string_value(std::string_view bytes) {
    wire_reader r(bytes);
    std::int64_t type = 0;
    std::int32_t int_val = 0;
    std::string str_val;
    while (!r.at_end()) {
        std::uint64_t field = 0;
        int wire = 0;
        if (!r.read_tag("IntOrString", field, wire)) return r.error();
        if (field == 1 || field == 2) {
            if (wire != proto::varint) {
                return "proto: wrong wireType = " + std::to_string(wire) + " for field " + (field == 1 ? "Type" : "IntVal");
            }
            std::uint64_t v = 0;
            if (!r.read_varint(v)) return r.error();
            if (field == 1) type = static_cast<std::int64_t>(v);
            else int_val = static_cast<std::int32_t>(v);
        } else if (field == 3) {
            if (wire != proto::length_delimited) return "proto: wrong wireType = " + std::to_string(wire) + " for field StrVal";
            std::string_view s;
            if (!r.read_bytes(s)) return r.error();
            str_val = std::string(s);
        } else if (!r.skip(wire)) {
            return r.error();
        }
    }
    if (type == 0) return json::value(static_cast<std::int64_t>(int_val));
    if (type == 1) return string_value(str_val);
    return std::string("impossible IntOrString.Type");
}

/// resource.Quantity {string = 1}: written back as sent (Go would write the
/// canonical form; see docs/apiserver.md).
std::variant<json::value, std::string> quantity_value(std::string_view bytes) {
    wire_reader r(bytes);
    std::string text = "0";
    while (!r.at_end()) {
        std::uint64_t field = 0;
        int wire = 0;
        if (!r.read_tag("Quantity", field, wire)) return r.error();
        if (field == 1) {
            if (wire != proto::length_delimited) return "proto: wrong wireType = " + std::to_string(wire) + " for field String_";
            std::string_view s;
            if (!r.read_bytes(s)) return r.error();
            text = std::string(s);
        } else if (!r.skip(wire)) {
            return r.error();
        }
    }
    return string_value(text);
}

/// metav1.FieldsV1 {Raw = 1}: the bytes are JSON, written as they are.
std::variant<json::value, std::string> fields_v1_value(std::string_view bytes) {
    wire_reader r(bytes);
    std::string_view raw;
    while (!r.at_end()) {
        std::uint64_t field = 0;
        int wire = 0;
        if (!r.read_tag("FieldsV1", field, wire)) return r.error();
        if (field == 1) {
            if (wire != proto::length_delimited) return "proto: wrong wireType = " + std::to_string(wire) + " for field Raw";
            if (!r.read_bytes(raw)) return r.error();
        } else if (!r.skip(wire)) {
            return r.error();
        }
    }
    if (raw.empty()) return json::value(nullptr);
    boost::system::error_code ec;
    auto v = json::parse(raw, ec);
    if (ec) return std::string("json: error calling MarshalJSON for type *v1.FieldsV1: invalid character in FieldsV1");
    return v;
}

/// What one field collected from the wire.
struct slot {
    bool present = false;
    json::value scalar;                          // last scalar (string, bytes, varint kinds)
    std::string nested;                          // message-like bytes, concatenated (protobuf merge)
    std::vector<std::string_view> items;         // repeated elements' bytes
    std::vector<json::value> numbers;            // repeated varint elements
    std::map<std::string, json::value> entries;  // map fields, sorted as Go writes them
};

/// One map entry {key = 1, value = 2}.
std::variant<std::monostate, std::string> read_entry(std::string_view bytes, field_kind kind, slot& s) {
    wire_reader r(bytes);
    std::string key;
    json::value value;
    std::string_view value_bytes;
    bool has_value = false;
    while (!r.at_end()) {
        std::uint64_t field = 0;
        int wire = 0;
        if (!r.read_tag("Entry", field, wire)) return r.error();
        if ((field == 1 || field == 2) && wire == proto::length_delimited) {
            std::string_view v;
            if (!r.read_bytes(v)) return r.error();
            if (field == 1) {
                key = valid_utf8(v);
            } else {
                value_bytes = v;
                has_value = true;
            }
        } else if (!r.skip(wire)) {
            return r.error();
        }
    }
    switch (kind) {
    case field_kind::string_map:
        value = string_value(value_bytes);
        break;
    case field_kind::bytes_map:
        value = json::value(json::string(base64_encode(value_bytes)));
        break;
    default: {  // quantity_map: an absent value is the zero Quantity
        auto q = quantity_value(has_value ? value_bytes : std::string_view{});
        if (auto* e = std::get_if<std::string>(&q)) return *e;
        value = std::move(std::get<json::value>(q));
    }
    }
    s.entries[key] = std::move(value);
    return std::monostate{};
}

std::string child_path(std::string_view path, std::string_view name) {
    if (path.empty()) return std::string(name);
    if (name.empty()) return std::string(path);
    return std::string(path) + "." + std::string(name);
}

} // namespace

std::variant<json::object, std::string> decode_proto_message(std::string_view bytes, const message_desc& message,
                                                              std::vector<std::string>& skipped, std::string_view path) {
    std::vector<slot> slots(message.fields.size());
    wire_reader r(bytes);
    while (!r.at_end()) {
        std::uint64_t number = 0;
        int wire = 0;
        if (!r.read_tag(message.name, number, wire)) return r.error();
        std::size_t i = 0;
        while (i < message.fields.size() && message.fields[i].number != number) ++i;
        if (i == message.fields.size()) {
            // A field kcoro's tables lack (or one newer than v1.32): skipped, as
            // gogo skips unknown numbers; the caller warns.
            skipped.push_back((path.empty() ? std::string("<root>") : std::string(path)) + ": " +
                              std::string(message.name) + " field " + std::to_string(number));
            if (!r.skip(wire)) return r.error();
            continue;
        }
        const field_desc& f = message.fields[i];
        slot& s = slots[i];
        if (expects_varint(f.kind) && (f.flags & proto::rep) &&
            (wire == proto::varint || wire == proto::length_delimited)) {
            // A repeated number (supplementalGroups): one per tag, or packed
            // in one length-delimited run; gogo's Unmarshal takes both.
            s.present = true;
            std::string_view run;
            if (wire == proto::length_delimited && !r.read_bytes(run)) return r.error();
            wire_reader packed(run);
            wire_reader& src = wire == proto::varint ? r : packed;
            do {
                std::uint64_t v = 0;
                if (!src.read_varint(v)) return src.error();
                s.numbers.push_back(scalar_value(f.kind, v));
            } while (wire == proto::length_delimited && !packed.at_end());
            continue;
        }
        const int want = expects_varint(f.kind) ? proto::varint : proto::length_delimited;
        if (wire != want) {
            return "proto: wrong wireType = " + std::to_string(wire) + " for field " + std::string(f.go_name);
        }
        s.present = true;
        if (want == proto::varint) {
            std::uint64_t v = 0;
            if (!r.read_varint(v)) return r.error();
            s.scalar = scalar_value(f.kind, v);
            continue;
        }
        std::string_view v;
        if (!r.read_bytes(v)) return r.error();
        switch (f.kind) {
        case field_kind::string:
        case field_kind::bytes:
            if (f.flags & proto::rep) {
                s.items.push_back(v);
            } else {
                s.scalar = f.kind == field_kind::string ? string_value(v)
                                                        : json::value(json::string(base64_encode(v)));
            }
            break;
        case field_kind::string_map:
        case field_kind::bytes_map:
        case field_kind::quantity_map:
            if (auto e = read_entry(v, f.kind, s); auto* err = std::get_if<std::string>(&e)) return *err;
            break;
        default:  // message-like
            if (f.flags & proto::rep) s.items.push_back(v);
            else s.nested.append(v);
        }
    }

    // Emission: what encoding/json writes for the Go struct these fields fill.
    json::object out;
    for (std::size_t i = 0; i < message.fields.size(); ++i) {
        const field_desc& f = message.fields[i];
        slot& s = slots[i];
        const bool is_ptr = f.flags & proto::ptr;
        const bool omit_empty = f.flags & proto::omit;
        const std::string sub = child_path(path, f.json);
        auto decode_nested = [&](std::string_view b, std::string_view p) -> std::variant<json::value, std::string> {
            switch (f.kind) {
            case field_kind::time:
                return time_value(b);
            case field_kind::micro_time:
                return time_value(b, true);
            case field_kind::int_or_string:
                return int_or_string_value(b);
            case field_kind::quantity:
                return quantity_value(b);
            case field_kind::fields_v1:
                return fields_v1_value(b);
            default: {
                const message_desc* m = proto::find_message(f.message);
                if (!m) return std::string("kcoro: no table for ") + std::string(f.message);
                auto o = decode_proto_message(b, *m, skipped, p);
                if (auto* e = std::get_if<std::string>(&o)) return *e;
                return json::value(std::move(std::get<json::object>(o)));
            }
            }
        };
        if ((f.flags & proto::rep) && expects_varint(f.kind)) {
            if (s.numbers.empty()) {
                if (!omit_empty) out[f.json] = nullptr;
                continue;
            }
            out[f.json] = json::array(s.numbers.begin(), s.numbers.end());
            continue;
        }
        if (f.flags & proto::rep) {
            if (s.items.empty()) {
                // A nil slice: left out with omitempty, else null.
                if (!omit_empty) out[f.json] = nullptr;
                continue;
            }
            json::array a;
            for (std::size_t k = 0; k < s.items.size(); ++k) {
                if (f.kind == field_kind::string) {
                    a.push_back(string_value(s.items[k]));
                } else if (f.kind == field_kind::bytes) {
                    a.push_back(json::value(json::string(base64_encode(s.items[k]))));
                } else {
                    auto v = decode_nested(s.items[k], sub + "[" + std::to_string(k) + "]");
                    if (auto* e = std::get_if<std::string>(&v)) return *e;
                    a.push_back(std::move(std::get<json::value>(v)));
                }
            }
            out[f.json] = std::move(a);
            continue;
        }
        switch (f.kind) {
        case field_kind::string:
        case field_kind::bytes:
        case field_kind::int32:
        case field_kind::int64:
        case field_kind::boolean: {
            if (is_ptr) {
                if (s.present) out[f.json] = s.scalar;
                break;
            }
            json::value v = s.present ? s.scalar : zero_value(f.kind);
            if (f.kind == field_kind::bytes && !s.present) v = nullptr;  // a nil []byte
            if (omit_empty && (v.is_null() || is_zero(v))) break;
            out[f.json] = std::move(v);
            break;
        }
        case field_kind::string_map:
        case field_kind::bytes_map:
        case field_kind::quantity_map: {
            if (s.entries.empty()) {
                if (!omit_empty) out[f.json] = nullptr;  // a nil map
                break;
            }
            json::object m;
            for (auto& [k, v] : s.entries) m[k] = std::move(v);
            out[f.json] = std::move(m);
            break;
        }
        default: {
            // Pointers appear when sent; structs (omitempty or not) always.
            if (is_ptr && !s.present) break;
            auto v = decode_nested(s.nested, sub);
            if (auto* e = std::get_if<std::string>(&v)) return *e;
            auto& value = std::get<json::value>(v);
            if (f.flags & proto::inl) {
                if (value.is_object()) {
                    for (auto& [k, x] : value.get_object()) out[k] = std::move(x);
                }
            } else {
                out[f.json] = std::move(value);
            }
        }
        }
    }
    return out;
}

bool protobuf_decodable(std::string_view group, std::string_view kind) {
    return proto::message_for_kind(group, kind) != nullptr;
}

std::string summarize_body(std::string_view body) {
    constexpr std::size_t max = 30;
    const bool cut = body.size() > max;
    const std::string_view head = body.substr(0, max);
    if (body.empty()) return "<empty>";
    std::string out;
    if (body.front() == '{') {
        out = std::string(head);
    } else {
        static constexpr char hex[] = "0123456789abcdef";
        for (unsigned char c : head) {
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    if (cut) out += " ...";
    return out;
}

result<protobuf_body> decode_protobuf_body(std::string_view body, std::string_view group, std::string_view version,
                                           std::string_view kind) {
    auto parsed = proto::parse_envelope(body);
    if (auto* e = std::get_if<std::string>(&parsed)) {
        // No kind known yet: transformDecodeError's second form (the
        // summary may hold any bytes: the Status's JSON carries U+FFFD).
        return errors::bad_request(valid_utf8("the object provided is unrecognized (must be of type " +
                                              std::string(kind) + "): " + *e + " (" + summarize_body(body) + ")"));
    }
    auto& env = std::get<proto::unknown_envelope>(parsed);
    // copyKindDefaults: the envelope's kind and version win, the URL's fill
    // in. They are Go strings: written to JSON with U+FFFD for bad bytes.
    std::string actual_kind = env.kind.empty() ? std::string(kind) : valid_utf8(env.kind);
    std::string actual_group(group), actual_version(version);
    if (!env.api_version.empty()) {
        const std::string api_version = valid_utf8(env.api_version);
        auto slash = api_version.find('/');
        actual_group = slash == std::string::npos ? "" : api_version.substr(0, slash);
        actual_version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
    }
    const message_desc* m = proto::message_for_kind(actual_group, actual_kind);
    if (!m) m = proto::message_for_kind(group, kind);
    if (!m) {
        return errors::bad_request(actual_kind + " in version \"" + actual_version + "\" cannot be handled as a " +
                                   std::string(kind) + ": kcoro-apiserver does not decode " + std::string(kind) +
                                   " from protobuf");
    }
    protobuf_body out;
    auto decoded = decode_proto_message(env.raw, *m, out.skipped);
    if (auto* e = std::get_if<std::string>(&decoded)) {
        return errors::bad_request(actual_kind + " in version \"" + actual_version + "\" cannot be handled as a " +
                                   std::string(kind) + ": " + *e);
    }
    // TypeMeta first, as Go writes it.
    out.object["kind"] = actual_kind;
    out.object["apiVersion"] = actual_group.empty() ? actual_version : actual_group + "/" + actual_version;
    for (auto& [k, v] : std::get<json::object>(decoded)) out.object[k] = std::move(v);
    return out;
}

} // namespace kcoro::apiserver
