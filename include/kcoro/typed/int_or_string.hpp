// intstr.IntOrString: a port number or a name ("http"), a count or a
// percentage ("25%"). Empty when unset (omitted when encoded).
//
// Thread safety: a value.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace kcoro::typed {

class int_or_string {
public:
    int_or_string() = default;
    int_or_string(std::int32_t i) : v_(i) {}             // NOLINT: implicit, as intstr.FromInt
    int_or_string(std::string s) : v_(std::move(s)) {}   // NOLINT
    int_or_string(const char* s) : v_(std::string(s)) {} // NOLINT

    bool empty() const noexcept { return std::holds_alternative<std::monostate>(v_); }
    bool is_int() const noexcept { return std::holds_alternative<std::int32_t>(v_); }
    bool is_string() const noexcept { return std::holds_alternative<std::string>(v_); }
    /// 0 unless is_int().
    std::int32_t int_value() const noexcept { return is_int() ? std::get<std::int32_t>(v_) : 0; }
    /// Empty unless is_string().
    std::string_view string_value() const noexcept {
        return is_string() ? std::string_view(std::get<std::string>(v_)) : std::string_view();
    }

    static constexpr std::string_view expected = "an integer or a string";
    bool assign(const boost::json::value& v);
    boost::json::value to_json() const;
    static void schema(boost::json::object& s);

    friend bool operator==(const int_or_string&, const int_or_string&) = default;

private:
    std::variant<std::monostate, std::int32_t, std::string> v_;
};

} // namespace kcoro::typed
