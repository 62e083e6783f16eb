#include <kcoro/core/api_request.hpp>

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

} // namespace kcoro
