// Pretty-printed JSON answers, as kube-apiserver writes them.
//
// The serializer negotiation (apimachinery runtime/serializer/negotiated_codec
// isPrettyPrint in apiserver/pkg/endpoints/handlers/negotiation) answers with
// json.MarshalIndent(obj, "", "  ") and no trailing newline when the query has
// `pretty` parsing as true (strconv.ParseBool) or, without `pretty`, when the
// User-Agent starts with "curl", "Wget" or "Mozilla/5.0" (negotiate.go
// isPrettyPrint). Watch streams and /openapi are never indented. /version is always indented
// (routes/version.go, responsewriters.WriteRawJSON with MarshalIndent).
//
// Pure; values only.
#pragma once

#include <string>
#include <string_view>

namespace kcoro::apiserver::http {

/// json.Indent(prefix "", indent "  ") of a compact JSON text (a trailing
/// newline is dropped): `{}` and `[]` stay on one line, `"k": v`.
std::string indent_json(std::string_view compact);

/// Whether the request asks for pretty output (see the file comment).
/// `query` is the raw query string (after '?').
bool wants_pretty(std::string_view query, std::string_view user_agent);

} // namespace kcoro::apiserver::http
