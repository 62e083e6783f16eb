// Validation in one place. What an OpenAPI schema can say (bounds, enums,
// patterns, required) is said in the annotations, enforced by the API
// server at admission and checked again on the decoded object by
// check_schema (schema_check.hpp); what it cannot (cross-field and
// cross-item rules) is a `field_errors validate(const T&)` beside the type,
// found by argument-dependent lookup. Their errors carry paths (field_path
// builds them), so a reconciler reports them as they are: describe(errors)
// is the message of an InvalidSpec condition.
#pragma once

#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/field_error.hpp>
#include <kcoro/typed/schema_check.hpp>

#include <concepts>
#include <iterator>

namespace kcoro::typed {

template <class T>
concept validatable = requires(const T& t) {
    { validate(t) } -> std::same_as<field_errors>;
};

/// Every error: the schema's rules (check_schema), then the type's own
/// (none when it declares no validate()). validate() runs on any object
/// that decoded, within the schema's bounds or not.
template <class T> field_errors check(const T& v) {
    field_errors errors;
    if constexpr (detail::described_struct<T>) {
        errors = check_schema(v);
    }
    if constexpr (validatable<T>) {
        auto own = validate(v);
        errors.insert(errors.end(), std::make_move_iterator(own.begin()), std::make_move_iterator(own.end()));
    }
    (void)v;
    return errors;
}

/// Decodes, then (when decoding succeeded) checks.
template <class T> decode_result<T> decode_valid(const boost::json::value& v) {
    T out;
    auto errors = decode(v, out);
    if (errors.empty())
        errors = check(out);
    if (!errors.empty())
        return errors;
    return out;
}
template <detail::described_struct T> decode_result<T> decode_valid(const boost::json::object& o) {
    T out;
    auto errors = decode(o, out);
    if (errors.empty())
        errors = check(out);
    if (!errors.empty())
        return errors;
    return out;
}

} // namespace kcoro::typed
