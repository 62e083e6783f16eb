// Type classification for the codec and the schema writer.
#pragma once

#include <kcoro/typed/unknown_fields.hpp>

#include <boost/describe/enum.hpp>
#include <boost/describe/members.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <concepts>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kcoro::typed::detail {

template <class T> inline constexpr bool always_false = false;

template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};

template <class T> struct is_vector : std::false_type {};
template <class T, class A> struct is_vector<std::vector<T, A>> : std::true_type {};

template <class T> struct is_string_map : std::false_type {};
template <class V, class C, class A> struct is_string_map<std::map<std::string, V, C, A>> : std::true_type {};

/// A small type that maps to one JSON value by itself (quantity, timestamp, ...).
template <class T>
concept typed_scalar = requires(T& t, const T& ct, const boost::json::value& v, boost::json::object& s) {
    { t.assign(v) } -> std::same_as<bool>;
    { ct.to_json() } -> std::convertible_to<boost::json::value>;
    { ct.empty() } -> std::same_as<bool>;
    { T::expected } -> std::convertible_to<std::string_view>;
    T::schema(s);
};

/// A struct described with BOOST_DESCRIBE_STRUCT.
template <class T>
concept described_struct = std::is_class_v<T> && boost::describe::has_describe_members<T>::value;

template <class T>
concept described_enum = std::is_enum_v<T> && boost::describe::has_describe_enumerators<T>::value;

template <class T>
concept has_unknown_fields = requires(T& t) {
    { t.unknown } -> std::same_as<unknown_fields&>;
};

/// A described struct that is a resource (KCORO_RESOURCE).
template <class T>
concept resource_type = described_struct<T> && requires {
    kcoro_resource(static_cast<T*>(nullptr));
};

template <class T>
concept raw_json = std::same_as<T, boost::json::value> || std::same_as<T, boost::json::object> ||
    std::same_as<T, boost::json::array>;

} // namespace kcoro::typed::detail
