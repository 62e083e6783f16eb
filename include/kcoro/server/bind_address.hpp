// The text of a bind-address flag (--metrics-bind-address,
// --health-probe-bind-address): "0" (the server is off), ":port" (every
// address), "host:port" or "[v6]:port". One pure parser for the flag check
// (flags.cpp) and the manager, which turns the host into an IP address.
//
// Thread safety: pure functions.
#pragma once

#include <kcoro/core/error.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace kcoro::server {

struct bind_address {
    std::string host;  // without IPv6 brackets; "" means every address
    std::uint16_t port = 0;
};

/// "0": the server this flag configures is disabled.
constexpr bool is_disabled_bind_address(std::string_view text) noexcept { return text == "0"; }

/// Splits "host:port" at the last ':' (the host may be empty, an IPv6
/// address in brackets, a name or an IPv4 address; it is not resolved). The
/// port is 1 to 5 digits, at most 65535. The error (kcoro_errc::invalid_config)
/// says only what is wrong: "want \":port\" or \"host:port\"", "bad port",
/// "port out of range"; callers name the flag.
result<bind_address> split_bind_address(std::string_view text);

} // namespace kcoro::server
