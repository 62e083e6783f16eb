// Field-path errors: what decoding a typed object and a type's validate()
// report, and what a reconciler turns into an InvalidSpec condition. Paths are
// written as apimachinery's field.Path prints them: `spec.env[2].name`,
// `metadata.labels[app]`.
//
// Thread safety: values.
#pragma once

#include <kcoro/core/error.hpp>

#include <boost/assert/source_location.hpp>

#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::typed {

/// As apimachinery's field.ErrorType, for callers that map errors to Status
/// causes (FieldValueInvalid, FieldValueRequired, ...).
enum class field_error_type {
    invalid, // wrong type or value (every decoding error)
    required,
    duplicate,
    not_supported, // not one of the allowed values
    too_long,
    too_many,
    forbidden,
};

/// "FieldValueInvalid", "FieldValueRequired", ... (metav1.CauseType).
std::string_view cause_type(field_error_type t) noexcept;

struct field_error {
    std::string path; // "spec.replicas"; empty for the object itself
    field_error_type type = field_error_type::invalid;
    std::string message; // "expected an integer, got \"two\""
    /// "spec.replicas: expected an integer, got \"two\""
    std::string str() const;
    friend bool operator==(const field_error&, const field_error&) = default;
};

using field_errors = std::vector<field_error>;

/// Every error on one line, "; "-separated: the text of an InvalidSpec
/// condition's message.
std::string describe(const field_errors& errors);

/// A decoding failure as a kcoro::error (kcoro_errc::decode_error), for the
/// client's typed verbs: "GatewayInstance ns/x: spec.replicas: ...".
error to_error(const field_errors& errors, std::string_view context);

std::ostream& operator<<(std::ostream& os, const field_error& e);

/// boost::system::result<T, field_errors> throws this from .value() (misuse).
[[noreturn]] void throw_exception_from_error(const field_errors& e, const boost::source_location& loc);

/// Builds a path for validate(): `field_path("spec").child("env").index(2).child("name")`.
class field_path {
public:
    field_path() = default;
    explicit field_path(std::string_view root) : text_(root) {}
    field_path child(std::string_view name) const;
    field_path index(std::size_t i) const;
    field_path key(std::string_view k) const;
    const std::string& str() const noexcept { return text_; }

private:
    std::string text_;
};

} // namespace kcoro::typed
