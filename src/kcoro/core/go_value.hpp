// Go's value semantics for JSON decoded as apimachinery's util/json decodes
// it into interface{} (integers int64, other numbers float64, objects
// map[string]interface{}): the type identity, `==` and fmt's %v / %s, which
// the strategic merge patch needs to compare values and word its errors as
// the real server does. Private to the core; pure.
#pragma once

#include <boost/json/value.hpp>

#include <string>

namespace kcoro::detail {

enum class go_kind { nil, boolean, integer, floating, string, map, slice };

/// reflect.TypeOf(v).Kind() in Go's terms.
go_kind kind_of_value(const boost::json::value& v);
/// Go's `==` on two interface{} values holding scalars (maps and slices,
/// not comparable in Go, compare unequal).
bool go_equal(const boost::json::value& a, const boost::json::value& b);
/// fmt's %v: map[k:v ...] with sorted keys, [a b], shortest floats, <nil>.
std::string go_v(const boost::json::value& v);
/// reflect.TypeOf(v).String(): "map[string]interface {}", "[]interface {}", "int64", ...
std::string go_type(const boost::json::value& v);
/// fmt's %s: strings as they are, other values as "%!s(T=v)".
std::string go_s(const boost::json::value& v);

} // namespace kcoro::detail
