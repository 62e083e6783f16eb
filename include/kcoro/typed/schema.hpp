// The OpenAPI v3 schema of a described type, as a CRD's
// openAPIV3Schema holds it: a structural schema (every node typed) with the
// annotations of annotations.hpp. Mapping:
//   std::string -> string; bool -> boolean; int32 -> integer/int32,
//   int64 -> integer/int64; double -> number; enum -> string + enum;
//   optional<T> -> T; vector<T> -> array of T; map<string,T> -> object with
//   additionalProperties T; described struct -> object with properties and
//   required; object_meta -> object (the API server owns it);
//   boost::json::object -> object with x-kubernetes-preserve-unknown-fields;
//   boost::json::value -> x-kubernetes-preserve-unknown-fields;
//   quantity, int_or_string -> x-kubernetes-int-or-string;
//   timestamp -> string/date-time; bytes -> string/byte.
//
// Generation time only (builds JSON); pure; thread-safe.
#pragma once

#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/object_meta.hpp>

#include <boost/json/object.hpp>

#include <string_view>

namespace kcoro::typed {

namespace detail {

/// Writes the annotation's facts that apply to a scalar (string or number) schema.
void annotate_scalar(boost::json::object& s, const field_info& f);
/// The common facts: description, default, preserve-unknown.
void annotate_common(boost::json::object& s, const field_info& f, const boost::json::value* default_value);
void annotate_list(boost::json::object& s, const field_info& f);
void annotate_map(boost::json::object& s, const field_info& f);

template <class T> boost::json::object schema_of_type(const field_info& f);

template <class T> boost::json::object struct_schema() {
    check_struct<T>();
    boost::json::object s;
    s["type"] = "object";
    boost::json::object props;
    boost::json::array required;
    boost::mp11::mp_for_each<members_of<T>>([&](auto d) {
        using D = decltype(d);
        using meta = member_meta<T, D>;
        using M = std::remove_cvref_t<decltype(std::declval<T&>().*D::pointer)>;
        boost::json::object ms = schema_of_type<M>(meta::annotation);
        boost::json::value def;
        if constexpr (std::is_default_constructible_v<T>) {
            if (meta::annotation.defaulted)
                def = encode_value(T{}.*D::pointer);
        }
        annotate_common(ms, meta::annotation, meta::annotation.defaulted ? &def : nullptr);
        props[meta::json_name] = std::move(ms);
        if (meta::annotation.required)
            required.emplace_back(meta::json_name);
    });
    if (!required.empty())
        s["required"] = std::move(required);
    if (!props.empty())
        s["properties"] = std::move(props);
    return s;
}

template <class T> boost::json::object schema_of_type(const field_info& f) {
    namespace json = boost::json;
    json::object s;
    if constexpr (std::is_same_v<T, bool>) {
        s["type"] = "boolean";
    } else if constexpr (std::is_integral_v<T>) {
        s["type"] = "integer";
        if (sizeof(T) == 4 && std::is_signed_v<T>)
            s["format"] = "int32";
        else if (sizeof(T) == 8 && std::is_signed_v<T>)
            s["format"] = "int64";
        annotate_scalar(s, f);
    } else if constexpr (std::is_floating_point_v<T>) {
        s["type"] = "number";
        if (sizeof(T) == 8)
            s["format"] = "double";
        annotate_scalar(s, f);
    } else if constexpr (std::is_same_v<T, std::string>) {
        s["type"] = "string";
        annotate_scalar(s, f);
    } else if constexpr (described_enum<T>) {
        s["type"] = "string";
        json::array values;
        for (auto n : enum_names<T>::names)
            values.emplace_back(n);
        s["enum"] = std::move(values);
        annotate_scalar(s, f);
    } else if constexpr (is_optional<T>::value) {
        return schema_of_type<typename T::value_type>(f);
    } else if constexpr (is_vector<T>::value) {
        s["type"] = "array";
        annotate_list(s, f);
        field_info item = f; // the scalar bounds apply to the items
        item.description = {};
        s["items"] = schema_of_type<typename T::value_type>(item);
    } else if constexpr (is_string_map<T>::value) {
        s["type"] = "object";
        annotate_map(s, f);
        field_info value = f;
        value.description = {};
        s["additionalProperties"] = schema_of_type<typename T::mapped_type>(value);
    } else if constexpr (std::is_same_v<T, json::value>) {
        s["x-kubernetes-preserve-unknown-fields"] = true;
    } else if constexpr (std::is_same_v<T, json::object>) {
        s["type"] = "object";
        s["x-kubernetes-preserve-unknown-fields"] = true;
    } else if constexpr (std::is_same_v<T, json::array>) {
        s["type"] = "array";
        annotate_list(s, f);
        s["items"] = json::object{{"x-kubernetes-preserve-unknown-fields", true}};
    } else if constexpr (typed_scalar<T>) {
        T::schema(s);
        annotate_scalar(s, f);
    } else if constexpr (std::is_same_v<T, object_meta>) {
        s["type"] = "object"; // the API server validates metadata itself
    } else if constexpr (described_struct<T>) {
        s = struct_schema<T>();
        annotate_map(s, f);
    } else {
        static_assert(always_false<T>, "kcoro::typed: no schema for this member type");
    }
    return s;
}

} // namespace detail

/// The schema of a described struct (nested: properties and required).
template <detail::described_struct T> boost::json::object openapi_schema() {
    return detail::struct_schema<T>();
}

/// A resource's openAPIV3Schema: apiVersion, kind, metadata, then its members.
template <resource_type T> boost::json::object resource_schema() {
    namespace json = boost::json;
    json::object body = detail::struct_schema<T>();
    json::object s;
    s["type"] = "object";
    if (!resource_traits<T>::info.description.empty())
        s["description"] = resource_traits<T>::info.description;
    if (auto* r = body.if_contains("required"))
        s["required"] = std::move(*r);
    json::object props;
    props["apiVersion"] = json::object{{"type", "string"}};
    props["kind"] = json::object{{"type", "string"}};
    if (auto* p = body.if_contains("properties")) {
        for (auto& kv : p->as_object())
            props[kv.key()] = std::move(kv.value());
    }
    s["properties"] = std::move(props);
    return s;
}

} // namespace kcoro::typed
