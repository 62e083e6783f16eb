// The small scalar types: quantity, int_or_string, bytes.
#include <kcoro/core/base64.hpp>
#include <kcoro/typed/bytes.hpp>
#include <kcoro/typed/detail/values.hpp>
#include <kcoro/typed/int_or_string.hpp>
#include <kcoro/typed/quantity.hpp>

#include <array>
#include <charconv>
#include <cstdint>
#include <limits>

namespace kcoro::typed {
namespace json = boost::json;

using detail::integral;

namespace {

bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}

} // namespace

// --- quantity ------------------------------------------------------------
// k8s.io/apimachinery/pkg/api/resource/quantity.go (parseQuantityString).
bool is_quantity(std::string_view s) noexcept {
    std::size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-'))
        ++i;
    std::size_t int_digits = 0, frac_digits = 0;
    while (i < s.size() && is_digit(s[i]))
        ++i, ++int_digits;
    if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && is_digit(s[i]))
            ++i, ++frac_digits;
    }
    if (int_digits + frac_digits == 0)
        return false;
    std::string_view suffix = s.substr(i);
    if (suffix.empty())
        return true;
    for (std::string_view known : {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "m", "k", "M", "G", "T", "P", "E"}) {
        if (suffix == known)
            return true;
    }
    if (suffix[0] == 'e' || suffix[0] == 'E') {
        std::size_t j = 1;
        if (j < suffix.size() && (suffix[j] == '+' || suffix[j] == '-'))
            ++j;
        if (j == suffix.size())
            return false;
        for (; j < suffix.size(); ++j) {
            if (!is_digit(suffix[j]))
                return false;
        }
        return true;
    }
    return false;
}

quantity::quantity(std::string_view text) {
    if (is_quantity(text))
        text_ = std::string(text);
}

bool quantity::assign(const json::value& v) {
    if (const auto* s = v.if_string()) {
        if (!is_quantity(*s))
            return false;
        text_.assign(s->data(), s->size());
        number_ = false;
        return true;
    }
    std::int64_t i = 0;
    if (integral(v, i)) {
        text_ = std::to_string(i);
        number_ = true;
        return true;
    }
    if (v.is_double()) {
        std::array<char, 64> buf{};
        auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v.get_double());
        text_.assign(buf.data(), r.ptr);
        if (!is_quantity(text_)) { // nan, inf
            text_.clear();
            return false;
        }
        number_ = true;
        return true;
    }
    return false;
}

json::value quantity::to_json() const {
    if (empty())
        return nullptr; // unset (a required one); "" would not read back
    if (number_) {
        std::int64_t i = 0;
        auto r = std::from_chars(text_.data(), text_.data() + text_.size(), i);
        if (r.ec == std::errc() && r.ptr == text_.data() + text_.size())
            return json::value(i);
        double d = 0;
        auto rd = std::from_chars(text_.data(), text_.data() + text_.size(), d);
        if (rd.ec == std::errc() && rd.ptr == text_.data() + text_.size())
            return json::value(d);
    }
    return json::value(text_);
}

void quantity::schema(json::object& s) {
    s["x-kubernetes-int-or-string"] = true;
}

// --- int_or_string --------------------------------------------------------
bool int_or_string::assign(const json::value& v) {
    if (const auto* s = v.if_string()) {
        v_ = std::string(*s);
        return true;
    }
    std::int64_t i = 0;
    if (integral(v, i) && i >= std::numeric_limits<std::int32_t>::min() &&
        i <= std::numeric_limits<std::int32_t>::max()) {
        v_ = static_cast<std::int32_t>(i);
        return true;
    }
    return false;
}

json::value int_or_string::to_json() const {
    if (is_int())
        return json::value(static_cast<std::int64_t>(int_value()));
    if (is_string())
        return json::value(string_value());
    return nullptr;
}

void int_or_string::schema(json::object& s) {
    s["x-kubernetes-int-or-string"] = true;
}

// --- bytes ------------------------------------------------------------------
bool bytes::assign(const json::value& v) {
    const auto* s = v.if_string();
    if (!s)
        return false;
    auto raw = base64_decode(*s);
    if (!raw)
        return false;
    raw_ = std::move(*raw);
    return true;
}

json::value bytes::to_json() const {
    return json::value(base64_encode(raw_));
}

void bytes::schema(json::object& s) {
    s["type"] = "string";
    s["format"] = "byte";
}

} // namespace kcoro::typed
