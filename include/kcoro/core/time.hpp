// Time values for the pure core. Pure code is handed time points; it never
// reads a clock (see kcoro/io/clock.hpp).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kcoro {

using steady_time = std::chrono::steady_clock::time_point;
using wall_time = std::chrono::system_clock::time_point;

/// RFC 3339 with second precision ("2026-11-29T11:23:22Z"), as metav1.Time.
std::string format_rfc3339(wall_time t);
/// RFC 3339 with microseconds, as metav1.MicroTime (leases, events.k8s.io).
std::string format_rfc3339_micro(wall_time t);
/// Parses "YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)"; nullopt when malformed, or
/// outside the years 1678 to 2261 that a wall_time (nanoseconds) can hold.
std::optional<wall_time> parse_rfc3339(std::string_view s);

} // namespace kcoro
