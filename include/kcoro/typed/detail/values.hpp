// Small helpers over JSON values shared by the codec and the scalar types.
#pragma once

#include <boost/json/value.hpp>

#include <cstdint>
#include <string>

namespace kcoro::typed::detail {

/// A value as an error shows it: "two" quoted, numbers, `an object`, `a list`.
std::string brief(const boost::json::value& v);
/// An integral JSON number (integral doubles too) as int64.
bool integral(const boost::json::value& v, std::int64_t& out) noexcept;

} // namespace kcoro::typed::detail
