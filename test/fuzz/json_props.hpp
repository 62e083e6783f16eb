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

/// An infinity from a number beyond the double range (Boost.JSON parses
/// 1e999 so and serializes it as `Infinity`, not JSON); the store refuses
/// objects holding one (object_store.cpp), as Go's decoder refuses the number.
inline bool has_non_finite(const boost::json::value& v) {
    if (v.is_double()) return !std::isfinite(v.get_double());
    if (const auto* o = v.if_object()) {
        for (const auto& kv : *o) {
            if (has_non_finite(kv.value())) return true;
        }
    }
    if (const auto* a = v.if_array()) {
        for (const auto& x : *a) {
            if (has_non_finite(x)) return true;
        }
    }
    return false;
}

/// serialize then parse gives the value back (see same_json); vacuous for
/// values holding an infinity (see has_non_finite).
inline bool round_trips(const boost::json::value& v) {
    return has_non_finite(v) || same_json(boost::json::parse(boost::json::serialize(v)), v);
}

} // namespace kcoro::fuzz
