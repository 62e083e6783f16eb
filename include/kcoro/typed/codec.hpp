// Typed objects <-> Boost.JSON, both ways, for described structs.
//
// Mapping (member type -> JSON):
//   std::string            string
//   bool                   boolean
//   integers               number (integral; range-checked: an int32 member refuses 3000000000)
//   double, float          number
//   described enum         string, one of the enumerators' wire names (annotations.hpp)
//   std::optional<T>       T, or absent/null
//   std::vector<T>         array
//   std::map<std::string,T> object
//   described struct       object; unknown members kept in its `unknown`
//   boost::json::value / object / array    kept as is
//   typed scalars          quantity, int_or_string, timestamp, micro_timestamp, bytes (their own files)
//
// Decoding is tolerant: a missing or null member keeps its default (its
// initializer, an empty optional/list/map); members the struct does not
// declare are kept in `unknown` and written back after the declared ones, so
// an object read, changed and written loses nothing another writer set. A
// resource's apiVersion and kind are checked when present (list items often
// lack them) and written from resource_traits. Errors name the field path and
// what was expected: `spec.replicas: expected an integer, got "two"`; every
// error is reported (up to max_decode_errors), not only the first.
//
// Encoding omits what Go's `omitempty` would: empty strings, lists, maps,
// structs that encode to {}, unset optionals and scalars. Numbers, booleans
// and enums are written (0 is a value: replicas 0), unless the field says
// omit_empty(). A required() or emit_empty() field is always written. A
// member that was present but empty when decoded ("resources": {},
// "creationTimestamp": null) is kept in `unknown` as it was, so the round
// trip of a server's object is exact (up to member order).
//
// Pure; thread-safe (no state). Templates: each conversion is instantiated
// where it is used.
#pragma once

#include <kcoro/typed/annotations.hpp>
#include <kcoro/typed/detail/names.hpp>
#include <kcoro/typed/detail/traits.hpp>
#include <kcoro/typed/detail/values.hpp>
#include <kcoro/typed/field_error.hpp>
#include <kcoro/typed/resource_traits.hpp>
#include <kcoro/typed/unknown_fields.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/system/result.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

namespace kcoro::typed {

inline constexpr std::size_t max_decode_errors = 64;

template <class T> using decode_result = boost::system::result<T, field_errors>;

namespace detail {

/// A field path, built on the stack as the decoder descends; rendered only
/// when an error is reported.
struct path {
    enum class kind : unsigned char { root, field, index, key };
    const path* parent = nullptr;
    std::string_view name;
    std::size_t index = 0;
    kind k = kind::root;
};
std::string render(const path& p);

class decode_context {
public:
    explicit decode_context(field_errors& errors) noexcept : errors_(errors) {}
    void fail(const path& p, std::string message);
    void expected(const path& p, std::string_view what, const boost::json::value& got);
    /// Appends "and N more errors" when errors were dropped.
    void finish();

private:
    field_errors& errors_;
    std::size_t dropped_ = 0;
};

std::string one_of_message(const std::string_view* names, std::size_t n, const boost::json::value& got);

template <class I> constexpr std::string_view integer_name() noexcept {
    if constexpr (std::is_signed_v<I>) {
        if constexpr (sizeof(I) == 1)
            return "an 8-bit integer";
        else if constexpr (sizeof(I) == 2)
            return "a 16-bit integer";
        else if constexpr (sizeof(I) == 4)
            return "a 32-bit integer";
        else
            return "an integer";
    } else {
        if constexpr (sizeof(I) == 1)
            return "an unsigned 8-bit integer";
        else if constexpr (sizeof(I) == 2)
            return "an unsigned 16-bit integer";
        else if constexpr (sizeof(I) == 4)
            return "an unsigned 32-bit integer";
        else
            return "an unsigned integer";
    }
}

template <class T> void decode_value(const boost::json::value& v, T& out, const path& p, decode_context& c);
template <class T> void decode_struct(const boost::json::object& o, T& out, const path& p, decode_context& c);
template <class T> boost::json::value encode_value(const T& v);
template <class T> boost::json::object encode_struct(const T& in);

template <class T> void check_struct() {
    static_assert(
        has_unknown_fields<T>,
        "kcoro::typed: a described struct needs `kcoro::typed::unknown_fields unknown;` (not listed in "
        "BOOST_DESCRIBE_STRUCT) to keep the members it does not declare");
    static_assert(
        annotations_valid<T>(),
        "kcoro::typed: KCORO_FIELDS names a member that BOOST_DESCRIBE_STRUCT does not list, or two "
        "members have the same JSON name");
}

template <class T> void decode_value(const boost::json::value& v, T& out, const path& p, decode_context& c) {
    namespace json = boost::json;
    if (v.is_null()) {
        // Absent and null are the same: the member keeps its default (its
        // initializer: decoding starts from a value-initialized struct).
        if constexpr (is_optional<T>::value)
            out.reset();
        return;
    }
    if constexpr (std::is_same_v<T, bool>) {
        if (v.is_bool())
            out = v.get_bool();
        else
            c.expected(p, "a boolean", v);
    } else if constexpr (std::is_integral_v<T>) {
        if constexpr (std::is_same_v<T, std::uint64_t>) {
            if (v.is_uint64()) {
                out = v.get_uint64();
                return;
            }
        }
        std::int64_t i = 0;
        if (!integral(v, i)) {
            c.expected(p, "an integer", v);
        } else if ((std::is_unsigned_v<T> && i < 0) ||
                   (sizeof(T) < sizeof(std::int64_t) &&
                    (i < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
                     i > static_cast<std::int64_t>(std::numeric_limits<T>::max())))) {
            c.expected(p, integer_name<T>(), v);
        } else {
            out = static_cast<T>(i);
        }
    } else if constexpr (std::is_floating_point_v<T>) {
        if (v.is_number())
            out = static_cast<T>(v.to_number<double>());
        else
            c.expected(p, "a number", v);
    } else if constexpr (std::is_same_v<T, std::string>) {
        if (const auto* s = v.if_string())
            out.assign(s->data(), s->size());
        else
            c.expected(p, "a string", v);
    } else if constexpr (described_enum<T>) {
        using names = enum_names<T>;
        static_assert(names::renames_valid,
                      "kcoro::typed: KCORO_ENUM_NAMES names an enumerator the enum lacks");
        if (const auto* s = v.if_string()) {
            for (std::size_t i = 0; i < names::size; ++i) {
                if (*s == names::names[i]) {
                    out = names::values[i];
                    return;
                }
            }
        }
        c.fail(p, one_of_message(names::names.data(), names::size, v));
    } else if constexpr (std::is_enum_v<T>) {
        static_assert(always_false<T>, "kcoro::typed: describe the enum with BOOST_DESCRIBE_ENUM");
    } else if constexpr (is_optional<T>::value) {
        if (!out)
            out.emplace();
        decode_value(v, *out, p, c);
    } else if constexpr (is_vector<T>::value) {
        const auto* a = v.if_array();
        if (!a) {
            c.expected(p, "a list", v);
            return;
        }
        out.clear();
        out.resize(a->size());
        for (std::size_t i = 0; i < a->size(); ++i) {
            path child{&p, {}, i, path::kind::index};
            decode_value((*a)[i], out[i], child, c);
        }
    } else if constexpr (is_string_map<T>::value) {
        const auto* o = v.if_object();
        if (!o) {
            c.expected(p, "an object", v);
            return;
        }
        out.clear();
        for (const auto& kv : *o) {
            auto it = out.emplace_hint(out.end(), std::string(kv.key()), typename T::mapped_type{});
            path child{&p, kv.key(), 0, path::kind::key};
            decode_value(kv.value(), it->second, child, c);
        }
    } else if constexpr (std::is_same_v<T, json::value>) {
        out = v;
    } else if constexpr (std::is_same_v<T, json::object>) {
        if (const auto* o = v.if_object())
            out = *o;
        else
            c.expected(p, "an object", v);
    } else if constexpr (std::is_same_v<T, json::array>) {
        if (const auto* a = v.if_array())
            out = *a;
        else
            c.expected(p, "a list", v);
    } else if constexpr (typed_scalar<T>) {
        if (!out.assign(v))
            c.expected(p, T::expected, v);
    } else if constexpr (described_struct<T>) {
        if (const auto* o = v.if_object())
            decode_struct(*o, out, p, c);
        else
            c.expected(p, "an object", v);
    } else {
        static_assert(always_false<T>, "kcoro::typed: no JSON mapping for this member type (see codec.hpp)");
    }
}

template <class T> bool is_empty_member(const T& v, bool omit_zero) {
    if constexpr (is_optional<T>::value) {
        return !v.has_value();
    } else if constexpr (std::is_same_v<T, boost::json::value>) {
        return v.is_null();
    } else if constexpr (std::is_same_v<T, std::string> || is_vector<T>::value || is_string_map<T>::value ||
                         std::is_same_v<T, boost::json::object> || std::is_same_v<T, boost::json::array> ||
                         typed_scalar<T>) {
        return v.empty();
    } else {
        return omit_zero && v == T{};
    }
}

// Whether encoding leaves out member D (of type M) of T holding `m`; for a
// struct, whether the JSON it came from encodes to nothing.
template <class T, class D, class M> bool omitted(const M& m, const boost::json::value& raw) {
    using meta = member_meta<T, D>;
    constexpr bool keep = meta::annotation.emit_empty || meta::annotation.required;
    if constexpr (described_struct<M>) {
        return !keep && (raw.is_null() || (raw.is_object() && raw.get_object().empty()));
    } else {
        return is_empty_member(m, meta::annotation.omit_empty) && (!keep || is_optional<M>::value);
    }
}

template <class T>
void decode_struct(const boost::json::object& o, T& out, const path& p, decode_context& c) {
    check_struct<T>();
    using L = members_of<T>;
    constexpr std::size_t n = boost::mp11::mp_size<L>::value;
    const auto& names = member_names<T>::value;
    std::size_t cursor = 0; // servers write members in declaration order: try the next one first
    for (const auto& kv : o) {
        const std::string_view key = kv.key();
        std::size_t i = n;
        if constexpr (n > 0) {
            if (cursor < n && names[cursor] == key) {
                i = cursor;
            } else {
                for (std::size_t j = 0; j < n; ++j) {
                    if (names[j] == key) {
                        i = j;
                        break;
                    }
                }
            }
        }
        if (i == n) {
            if constexpr (resource_type<T>) {
                using traits = resource_traits<T>;
                if (key == "apiVersion" || key == "kind") {
                    std::string_view want = key == "kind" ? traits::kind : traits::api_version;
                    const auto* s = kv.value().if_string();
                    if (!s || *s != want) {
                        path child{&p, key, 0, path::kind::field};
                        c.fail(child, "expected \"" + std::string(want) + "\", got " + brief(kv.value()));
                    }
                    continue;
                }
            }
            out.unknown.emplace(key, kv.value());
            continue;
        }
        cursor = i + 1;
        if constexpr (n > 0) {
            boost::mp11::mp_with_index<n>(i, [&](auto I) {
                using D = boost::mp11::mp_at_c<L, decltype(I)::value>;
                using M = std::remove_cvref_t<decltype(out.*D::pointer)>;
                path child{&p, names[decltype(I)::value], 0, path::kind::field};
                decode_value(kv.value(), out.*D::pointer, child, c);
                // A member present but empty ("resources": {}, "creationTimestamp":
                // null) is kept as it was: encoding would drop it.
                if (omitted<T, D, M>(out.*D::pointer, kv.value())) {
                    out.unknown.emplace(key, kv.value());
                }
            });
        }
    }
}

template <class T> boost::json::value encode_value(const T& v) {
    namespace json = boost::json;
    if constexpr (std::is_same_v<T, bool>) {
        return json::value(v);
    } else if constexpr (std::is_integral_v<T>) {
        if constexpr (std::is_same_v<T, std::uint64_t>)
            return json::value(v);
        else
            return json::value(static_cast<std::int64_t>(v));
    } else if constexpr (std::is_floating_point_v<T>) {
        return json::value(static_cast<double>(v));
    } else if constexpr (std::is_same_v<T, std::string>) {
        return json::value(std::string_view(v));
    } else if constexpr (described_enum<T>) {
        using names = enum_names<T>;
        for (std::size_t i = 0; i < names::size; ++i) {
            if (names::values[i] == v)
                return json::value(names::names[i]);
        }
        return json::value(nullptr); // a value outside the enumerators: not representable
    } else if constexpr (is_optional<T>::value) {
        return v ? encode_value(*v) : json::value(nullptr);
    } else if constexpr (is_vector<T>::value) {
        json::array a;
        a.reserve(v.size());
        for (const auto& item : v)
            a.emplace_back(encode_value(item));
        return a;
    } else if constexpr (is_string_map<T>::value) {
        json::object o;
        o.reserve(v.size());
        for (const auto& [k, item] : v)
            o.emplace(k, encode_value(item));
        return o;
    } else if constexpr (raw_json<T>) {
        return json::value(v);
    } else if constexpr (typed_scalar<T>) {
        return v.to_json();
    } else if constexpr (described_struct<T>) {
        return encode_struct(v);
    } else {
        static_assert(always_false<T>, "kcoro::typed: no JSON mapping for this member type (see codec.hpp)");
    }
}

template <class T> boost::json::object encode_struct(const T& in) {
    check_struct<T>();
    using L = members_of<T>;
    boost::json::object out;
    // Reserved up to Boost.JSON's small-object size (18): past it the object
    // gets a hash index, which a struct writing few of its members never needs.
    out.reserve(std::min<std::size_t>(boost::mp11::mp_size<L>::value + in.unknown.size() + 2, 18));
    if constexpr (resource_type<T>) {
        out.emplace("apiVersion", resource_traits<T>::api_version);
        out.emplace("kind", resource_traits<T>::kind);
    }
    boost::mp11::mp_for_each<L>([&](auto d) {
        using D = decltype(d);
        using meta = member_meta<T, D>;
        using M = std::remove_cvref_t<decltype(in.*D::pointer)>;
        const M& m = in.*D::pointer;
        constexpr bool keep = meta::annotation.emit_empty || meta::annotation.required;
        if constexpr (described_struct<M>) {
            boost::json::object sub = encode_struct(m);
            if (sub.empty() && !keep)
                return;
            out.emplace(meta::json_name, std::move(sub));
        } else {
            if (is_empty_member(m, meta::annotation.omit_empty) && (!keep || is_optional<M>::value))
                return;
            out.emplace(meta::json_name, encode_value(m));
        }
    });
    for (const auto& kv : in.unknown) {
        out.emplace(kv.key(), kv.value()); // never replaces a declared member
    }
    return out;
}

template <class T> field_errors decode_root(const boost::json::value& v, T& out, const path& root) {
    field_errors errors;
    decode_context c(errors);
    out = T{};
    decode_value(v, out, root, c);
    c.finish();
    return errors;
}

} // namespace detail

/// Decodes into `out` (reset first), as far as it goes: members that fail
/// keep their defaults. The errors, empty on success. For a reconciler that
/// still wants the metadata of an object whose spec is broken; after errors
/// `out` is partial: patch what you change, never write it back whole.
template <class T> field_errors decode(const boost::json::value& v, T& out) {
    return detail::decode_root(v, out, detail::path{});
}

/// Decodes a whole object; the errors when any member failed.
template <class T> decode_result<T> from_json(const boost::json::value& v) {
    T out;
    auto errors = decode(v, out);
    if (!errors.empty())
        return errors;
    return out;
}

/// Decodes a described struct straight from an object (no copy into a
/// json::value first): what the typed client verbs and cache reads use.
template <detail::described_struct T> field_errors decode(const boost::json::object& o, T& out) {
    field_errors errors;
    detail::decode_context c(errors);
    out = T{};
    detail::decode_struct(o, out, detail::path{}, c);
    c.finish();
    return errors;
}

template <detail::described_struct T> decode_result<T> from_json(const boost::json::object& o) {
    T out;
    auto errors = decode(o, out);
    if (!errors.empty())
        return errors;
    return out;
}

/// Decodes a part of an object, paths prefixed: `from_json<gateway_spec>(obj.at("spec"), "spec")`.
template <class T> decode_result<T> from_json(const boost::json::value& v, std::string_view root_path) {
    T out;
    detail::path root{nullptr, root_path, 0,
                      root_path.empty() ? detail::path::kind::root : detail::path::kind::field};
    auto errors = detail::decode_root(v, out, root);
    if (!errors.empty())
        return errors;
    return out;
}

/// A described enumerator's wire name ("ClusterIP"); empty for a value
/// outside the enumerators.
template <detail::described_enum E> constexpr std::string_view enum_name(E v) noexcept {
    using names = detail::enum_names<E>;
    for (std::size_t i = 0; i < names::size; ++i) {
        if (names::values[i] == v)
            return names::names[i];
    }
    return {};
}

/// The JSON form of any mapped value.
template <class T> boost::json::value to_json(const T& v) {
    return detail::encode_value(v);
}

/// The JSON object of a described struct (a resource gets apiVersion and kind first).
template <detail::described_struct T> boost::json::object to_object(const T& v) {
    return detail::encode_struct(v);
}

} // namespace kcoro::typed
