#include <kcoro/core/error.hpp>

#include <boost/throw_exception.hpp>

#include <ostream>
#include <stdexcept>

namespace kcoro {
namespace {

class api_category_impl final : public boost::system::error_category {
public:
    const char* name() const noexcept override { return "kcoro.api"; }
    std::string message(int ev) const override {
        switch (static_cast<api_errc>(ev)) {
        case api_errc::bad_request: return "bad request";
        case api_errc::unauthorized: return "unauthorized";
        case api_errc::forbidden: return "forbidden";
        case api_errc::not_found: return "not found";
        case api_errc::method_not_allowed: return "method not allowed";
        case api_errc::not_acceptable: return "not acceptable";
        case api_errc::already_exists: return "already exists";
        case api_errc::conflict: return "conflict";
        case api_errc::gone: return "gone";
        case api_errc::expired: return "expired";
        case api_errc::request_entity_too_large: return "request entity too large";
        case api_errc::unsupported_media_type: return "unsupported media type";
        case api_errc::invalid: return "invalid";
        case api_errc::too_many_requests: return "too many requests";
        case api_errc::internal_error: return "internal error";
        case api_errc::service_unavailable: return "service unavailable";
        case api_errc::server_timeout: return "server timeout";
        case api_errc::timeout: return "timeout";
        case api_errc::unknown: return "unknown API error";
        }
        return "unrecognised API error";
    }
};

class kcoro_category_impl final : public boost::system::error_category {
public:
    const char* name() const noexcept override { return "kcoro"; }
    std::string message(int ev) const override {
        switch (static_cast<kcoro_errc>(ev)) {
        case kcoro_errc::invalid_config: return "invalid configuration";
        case kcoro_errc::decode_error: return "undecodable response";
        case kcoro_errc::stream_truncated: return "stream truncated";
        case kcoro_errc::not_synced: return "cache not synced";
        case kcoro_errc::cancelled: return "cancelled";
        case kcoro_errc::deadline_exceeded: return "deadline exceeded";
        case kcoro_errc::unsupported: return "unsupported by the server";
        case kcoro_errc::io_error: return "local I/O error";
        case kcoro_errc::terminal: return "terminal error";
        case kcoro_errc::invalid_argument: return "invalid argument";
        case kcoro_errc::not_leader: return "not the leader";
        }
        return "unrecognised kcoro error";
    }
};

bool api_is(const error& e, api_errc c) noexcept {
    return e.code() == make_error_code(c);
}

} // namespace

const boost::system::error_category& api_category() noexcept {
    static const api_category_impl cat;
    return cat;
}

const boost::system::error_category& kcoro_category() noexcept {
    static const kcoro_category_impl cat;
    return cat;
}

api_errc api_errc_from(std::string_view reason, int http_code) noexcept {
    struct entry {
        std::string_view reason;
        api_errc code;
    };
    static constexpr entry table[] = {
        {"BadRequest", api_errc::bad_request},
        {"Unauthorized", api_errc::unauthorized},
        {"Forbidden", api_errc::forbidden},
        {"NotFound", api_errc::not_found},
        {"MethodNotAllowed", api_errc::method_not_allowed},
        {"NotAcceptable", api_errc::not_acceptable},
        {"AlreadyExists", api_errc::already_exists},
        {"Conflict", api_errc::conflict},
        {"Gone", api_errc::gone},
        {"Expired", api_errc::expired},
        {"RequestEntityTooLarge", api_errc::request_entity_too_large},
        {"UnsupportedMediaType", api_errc::unsupported_media_type},
        {"Invalid", api_errc::invalid},
        {"TooManyRequests", api_errc::too_many_requests},
        {"InternalError", api_errc::internal_error},
        {"ServiceUnavailable", api_errc::service_unavailable},
        {"ServerTimeout", api_errc::server_timeout},
        {"Timeout", api_errc::timeout},
    };
    for (const auto& e : table) {
        if (e.reason == reason) {
            return e.code;
        }
    }
    switch (http_code) {
    case 400: return api_errc::bad_request;
    case 401: return api_errc::unauthorized;
    case 403: return api_errc::forbidden;
    case 404: return api_errc::not_found;
    case 405: return api_errc::method_not_allowed;
    case 406: return api_errc::not_acceptable;
    case 409: return api_errc::conflict;
    case 410: return api_errc::gone;
    case 413: return api_errc::request_entity_too_large;
    case 415: return api_errc::unsupported_media_type;
    case 422: return api_errc::invalid;
    case 429: return api_errc::too_many_requests;
    case 500: return api_errc::internal_error;
    case 503: return api_errc::service_unavailable;
    case 504: return api_errc::timeout;
    default: return api_errc::unknown;
    }
}

error::error(boost::system::error_code code, std::string message)
    : code_(code), message_(std::move(message)) {}

error error::from_status(status s) {
    error e(make_error_code(api_errc_from(s.reason, s.code)));
    e.status_ = std::make_shared<const status>(std::move(s));
    return e;
}

std::string error::message() const {
    if (!message_.empty()) {
        return message_;
    }
    if (status_ && !status_->message.empty()) {
        return status_->message;
    }
    return code_.message();
}

error error::with_context(std::string_view what) const {
    error e = *this;
    e.message_ = std::string(what) + ": " + message();
    return e;
}

std::ostream& operator<<(std::ostream& os, const error& e) {
    os << e.code().category().name() << ':' << e.code().value() << " (" << e.message() << ')';
    return os;
}

void throw_exception_from_error(const error& e, const boost::source_location& loc) {
    boost::throw_exception(boost::system::system_error(e.code(), e.message()), loc);
}

bool is_api_error(const error& e) noexcept { return e.code().category() == api_category(); }
bool is_not_found(const error& e) noexcept { return api_is(e, api_errc::not_found); }
bool is_already_exists(const error& e) noexcept { return api_is(e, api_errc::already_exists); }
bool is_conflict(const error& e) noexcept { return api_is(e, api_errc::conflict); }
bool is_invalid(const error& e) noexcept { return api_is(e, api_errc::invalid); }
bool is_forbidden(const error& e) noexcept { return api_is(e, api_errc::forbidden); }
bool is_unauthorized(const error& e) noexcept { return api_is(e, api_errc::unauthorized); }
bool is_too_many_requests(const error& e) noexcept { return api_is(e, api_errc::too_many_requests); }
bool is_gone_or_expired(const error& e) noexcept {
    return api_is(e, api_errc::gone) || api_is(e, api_errc::expired);
}

bool is_resource_version_too_large(const error& e) noexcept {
    const auto* s = e.api_status();
    if (!s) {
        return false;
    }
    if (s->details) {
        for (const auto& c : s->details->causes) {
            if (c.type == "ResourceVersionTooLarge") {
                return true;
            }
        }
    }
    return s->message.find("Too large resource version") != std::string::npos ||
           s->message.find("too large resource version") != std::string::npos;
}

bool needs_relist(const error& e) noexcept {
    return is_gone_or_expired(e) || is_resource_version_too_large(e);
}

bool is_cancelled(const error& e) noexcept {
    return e.code() == make_error_code(kcoro_errc::cancelled) ||
           e.code() == boost::system::errc::operation_canceled;
}

bool is_transport_error(const error& e) noexcept {
    return e && e.code().category() != api_category() && e.code().category() != kcoro_category() &&
           !is_cancelled(e);
}

bool is_retryable(const error& e) noexcept {
    if (is_transport_error(e)) {
        return true;
    }
    return api_is(e, api_errc::too_many_requests) || api_is(e, api_errc::server_timeout) ||
           api_is(e, api_errc::timeout) || api_is(e, api_errc::service_unavailable) ||
           api_is(e, api_errc::internal_error) ||
           e.code() == make_error_code(kcoro_errc::deadline_exceeded);
}

} // namespace kcoro
