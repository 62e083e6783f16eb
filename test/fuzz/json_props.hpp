// Properties shared by the JSON fuzz targets.
#pragma once

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace kcoro::fuzz {

namespace detail {
// Distance in units in the last place between two finite doubles.
inline std::uint64_t ulps(double a, double b) {
    auto ordered = [](double d) {
        std::int64_t i;
        std::memcpy(&i, &d, sizeof i);
        return i < 0 ? std::numeric_limits<std::int64_t>::min() - i : i;
    };
    std::int64_t x = ordered(a), y = ordered(b);
    return x > y ? static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y)
                 : static_cast<std::uint64_t>(y) - static_cast<std::uint64_t>(x);
}
} // namespace detail

/// Structural equality, with doubles equal within 4 ulps: Boost.JSON 1.81
/// parses long numbers (beyond 2^64, or with many digits) without correct
/// rounding, so parse(serialize(x)) can differ from x in the last place;
/// that is Boost's, not what the targets test.
inline bool same_json(const boost::json::value& a, const boost::json::value& b) {
    if (a.is_double() && b.is_double()) return a.get_double() == b.get_double() || detail::ulps(a.get_double(), b.get_double()) <= 4;
    if (a.kind() != b.kind()) return false;
    if (const auto* x = a.if_array()) {
        const auto& y = b.get_array();
        if (x->size() != y.size()) return false;
        for (std::size_t i = 0; i < x->size(); ++i) {
            if (!same_json((*x)[i], y[i])) return false;
        }
        return true;
    }
    if (const auto* x = a.if_object()) {
        const auto& y = b.get_object();
        if (x->size() != y.size()) return false;
        for (const auto& kv : *x) {
            const auto* w = y.if_contains(kv.key());
            if (!w || !same_json(kv.value(), *w)) return false;
        }
        return true;
    }
    return a == b;
}

/// serialize then parse gives the value back (see same_json).
inline bool round_trips(const boost::json::value& v) { return same_json(boost::json::parse(boost::json::serialize(v)), v); }

} // namespace kcoro::fuzz
