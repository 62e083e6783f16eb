#include <kcoro/core/api_request.hpp>

#include <ostream>

namespace kcoro {

const char* to_string(http_method m) noexcept {
    switch (m) {
    case http_method::get: return "GET";
    case http_method::post: return "POST";
    case http_method::put: return "PUT";
    case http_method::patch: return "PATCH";
    case http_method::delete_: return "DELETE";
    }
    return "GET";
}

std::ostream& operator<<(std::ostream& os, const api_request& r) {
    os << to_string(r.method) << ' ' << r.target;
    if (r.is_watch) {
        os << " (watch)";
    }
    if (!r.body.empty()) {
        os << " [" << r.content_type << ", " << r.body.size() << " bytes]";
    }
    return os;
}

} // namespace kcoro
