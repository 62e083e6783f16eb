// Validation in one place. What an OpenAPI schema can say (bounds, enums,
// patterns, required) is said in the annotations and enforced by the API
// server at admission; what it cannot (cross-field and cross-item rules) is
// a `field_errors validate(const T&)` beside the type, found by
// argument-dependent lookup. Its errors carry paths (field_path builds them),
// so a reconciler reports them as they are: describe(errors) is the message
// of an InvalidSpec condition.
#pragma once

#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/field_error.hpp>

#include <concepts>

namespace kcoro::typed {

template <class T>
concept validatable = requires(const T& t) {
    { validate(t) } -> std::same_as<field_errors>;
};

/// The type's own rules (none when it declares no validate()).
template <class T> field_errors check(const T& v) {
    if constexpr (validatable<T>) {
        return validate(v);
    } else {
        (void)v;
        return {};
    }
}

/// Decodes, then (when decoding succeeded) validates.
template <class T> decode_result<T> decode_valid(const boost::json::value& v) {
    T out;
    auto errors = decode(v, out);
    if (errors.empty())
        errors = check(out);
    if (!errors.empty())
        return errors;
    return out;
}

} // namespace kcoro::typed
