#include <kcoro/typed/field_error.hpp>

#include <boost/throw_exception.hpp>

#include <ostream>
#include <stdexcept>

namespace kcoro::typed {

std::string_view cause_type(field_error_type t) noexcept {
    switch (t) {
    case field_error_type::invalid:
        return "FieldValueInvalid";
    case field_error_type::required:
        return "FieldValueRequired";
    case field_error_type::duplicate:
        return "FieldValueDuplicate";
    case field_error_type::not_supported:
        return "FieldValueNotSupported";
    case field_error_type::too_long:
        return "FieldValueTooLong";
    case field_error_type::too_many:
        return "FieldValueTooMany";
    case field_error_type::forbidden:
        return "FieldValueForbidden";
    }
    return "FieldValueInvalid";
}

std::string field_error::str() const {
    return path.empty() ? message : path + ": " + message;
}

std::string describe(const field_errors& errors) {
    std::string out;
    for (const auto& e : errors) {
        if (!out.empty()) {
            out += "; ";
        }
        out += e.str();
    }
    return out;
}

error to_error(const field_errors& errors, std::string_view context) {
    std::string msg(context);
    if (!msg.empty()) {
        msg += ": ";
    }
    msg += describe(errors);
    return error(kcoro_errc::decode_error, std::move(msg));
}

std::ostream& operator<<(std::ostream& os, const field_error& e) {
    return os << e.str();
}

void throw_exception_from_error(const field_errors& e, const boost::source_location& loc) {
    boost::throw_exception(std::invalid_argument(describe(e)), loc);
}

field_path field_path::child(std::string_view name) const {
    field_path p = *this;
    if (!p.text_.empty()) {
        p.text_ += '.';
    }
    p.text_ += name;
    return p;
}

field_path field_path::index(std::size_t i) const {
    field_path p = *this;
    p.text_ += '[' + std::to_string(i) + ']';
    return p;
}

field_path field_path::key(std::string_view k) const {
    field_path p = *this;
    p.text_ += '[';
    p.text_ += k;
    p.text_ += ']';
    return p;
}

} // namespace kcoro::typed
