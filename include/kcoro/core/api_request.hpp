// One HTTP request to the API server, as the pure request builders produce it
// and the transport sends it. Pure value; no I/O.
#pragma once

#include <chrono>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kcoro {

enum class http_method { get, post, put, patch, delete_ };

const char* to_string(http_method m) noexcept;

/// Not an aggregate (a constructor is declared): see request_options.hpp.
struct api_request {
    api_request() = default;
    http_method method = http_method::get;
    /// Path and encoded query: "/api/v1/namespaces/default/configmaps?limit=500".
    std::string target;
    std::string body;
    /// Content-Type of the body (patch types differ); empty when there is no body.
    std::string content_type;
    /// Extra headers (Authorization is added by the transport, never here).
    std::vector<std::pair<std::string, std::string>> headers;
    /// A watch: the response is an endless chunked stream on a dedicated connection.
    bool is_watch = false;
    /// Per-request deadline; nullopt means the client's default.
    std::optional<std::chrono::milliseconds> timeout;
    /// The `verb` label of rest_client_request_duration_seconds. client-go labels
    /// it with the HTTP method in upper case ("GET" for get, list and watch,
    /// "POST", "PUT", "PATCH", "DELETE"), so the builders set exactly that.
    std::string verb;
};

/// "GET /api/v1/..." plus the content type and body size, for test failures and logs.
std::ostream& operator<<(std::ostream& os, const api_request& r);

} // namespace kcoro
