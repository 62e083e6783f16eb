// Standard base64 (RFC 4648 section 4, with padding), as kubeconfig `*-data`
// fields and Secret data use it. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kcoro {

/// Encodes bytes with the standard alphabet and `=` padding.
std::string base64_encode(std::string_view bytes);

/// Decodes standard base64. Whitespace (spaces, tabs, line breaks, as in
/// wrapped text) is ignored and missing final padding is accepted, so that
/// hand-edited kubeconfig data still decodes. Returns nullopt for any other
/// character, data after padding, wrong padding or a truncated final group.
std::optional<std::string> base64_decode(std::string_view text);

} // namespace kcoro
