// What a pure endpoint handler answers: status, content type, body and any
// extra headers. The HTTP session (kcoro/io/http_server.hpp) only copies it
// onto the wire, so the handlers are tested without sockets.
//
// Thread safety: a value.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kcoro::server {

struct http_answer {
    int status = 200;
    std::string content_type;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;  // beyond Content-Type
    friend bool operator==(const http_answer&, const http_answer&) = default;
};

/// Go's http.NotFound: 404, "404 page not found\n", text/plain.
http_answer not_found_answer();

} // namespace kcoro::server
