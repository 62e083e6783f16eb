// Errors as values: the error model of every kcoro operation (ADR 0002).
//
// An `error` carries an error_code and, for errors the API server answered,
// the decoded metav1.Status beside it. Codes from the API live in
// `api_category()` (mapped from Status.reason first, HTTP code as fallback);
// kcoro's own failures (bad config, undecodable stream) in `kcoro_category()`;
// transport failures keep their Asio/Beast/SSL codes so they stay distinct
// from API errors.
//
// Thread safety: values; `error` is cheap to copy (the Status is shared and
// immutable).
#pragma once

#include <kcoro/core/status.hpp>

#include <boost/assert/source_location.hpp>
#include <boost/system/error_code.hpp>
#include <boost/system/result.hpp>

#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

namespace kcoro {

/// Errors the Kubernetes API reports (metav1.StatusReason).
enum class api_errc {
    bad_request = 1,         // 400 BadRequest
    unauthorized,            // 401 Unauthorized
    forbidden,               // 403 Forbidden
    not_found,               // 404 NotFound
    method_not_allowed,      // 405 MethodNotAllowed
    not_acceptable,          // 406 NotAcceptable
    already_exists,          // 409 AlreadyExists
    conflict,                // 409 Conflict
    gone,                    // 410 Gone
    expired,                 // 410 Expired (too old resourceVersion, expired continue)
    request_entity_too_large,// 413
    unsupported_media_type,  // 415
    invalid,                 // 422 Invalid (with causes)
    too_many_requests,       // 429 TooManyRequests
    internal_error,          // 500 InternalError
    service_unavailable,     // 503 ServiceUnavailable
    server_timeout,          // 504 / reason ServerTimeout
    timeout,                 // 504 / reason Timeout
    unknown,                 // any other non-2xx answer
};

/// Failures of kcoro itself, not of the API or the transport.
enum class kcoro_errc {
    invalid_config = 1,   // kubeconfig / in-cluster configuration unusable
    decode_error,         // a body or event that is not what the API sends
    stream_truncated,     // a watch stream that ended mid-event
    not_synced,           // informer did not sync within its bound
    cancelled,            // operation cancelled by the caller or by shutdown
    deadline_exceeded,    // per-request deadline passed
    unsupported,          // the server lacks a feature we asked for
    io_error,             // local I/O (files, exec plugins)
    terminal,             // a reconcile error that must not be retried
    invalid_argument,     // a request the caller built wrongly (empty name, apply without fieldManager)
    not_leader,           // a write refused: this process's lease may have been taken over
};

const boost::system::error_category& api_category() noexcept;
const boost::system::error_category& kcoro_category() noexcept;

inline boost::system::error_code make_error_code(api_errc e) noexcept {
    return {static_cast<int>(e), api_category()};
}
inline boost::system::error_code make_error_code(kcoro_errc e) noexcept {
    return {static_cast<int>(e), kcoro_category()};
}

/// The code for a Status (reason first, HTTP code as fallback).
api_errc api_errc_from(std::string_view reason, int http_code) noexcept;

/// An error value: a code, the API's Status if it answered, and a message
/// naming what failed (the phase, the file, the field...).
class error {
public:
    error() = default;
    error(boost::system::error_code code, std::string message = {});
    error(api_errc code, std::string message = {}) : error(make_error_code(code), std::move(message)) {}
    error(kcoro_errc code, std::string message = {}) : error(make_error_code(code), std::move(message)) {}
    /// An error answered by the API server.
    static error from_status(status s);

    const boost::system::error_code& code() const noexcept { return code_; }
    /// The decoded Status, or nullptr for transport and local errors.
    const status* api_status() const noexcept { return status_.get(); }
    /// Human-readable text: the message, else the Status message, else the code's.
    std::string message() const;
    /// HTTP code of the answer (0 when the server did not answer).
    int http_code() const noexcept { return status_ ? status_->code : 0; }

    explicit operator bool() const noexcept { return static_cast<bool>(code_); }

    /// Prefix context ("get configmaps default/x: ...") keeping code and Status.
    error with_context(std::string_view what) const;

    friend bool operator==(const error& a, const error& b) noexcept { return a.code_ == b.code_; }

private:
    boost::system::error_code code_;
    std::shared_ptr<const status> status_;
    std::string message_;
};

std::ostream& operator<<(std::ostream& os, const error& e);

/// boost::system::result needs this to throw from .value(); it is only reached
/// by misuse (reading the value of a failed result).
[[noreturn]] void throw_exception_from_error(const error& e, const boost::source_location& loc);

template <class T>
using result = boost::system::result<T, error>;

// Predicates, as apimachinery's errors package has them.
bool is_api_error(const error& e) noexcept;
bool is_not_found(const error& e) noexcept;
bool is_already_exists(const error& e) noexcept;
bool is_conflict(const error& e) noexcept;
bool is_invalid(const error& e) noexcept;
bool is_forbidden(const error& e) noexcept;
bool is_unauthorized(const error& e) noexcept;
bool is_gone_or_expired(const error& e) noexcept;
bool is_too_many_requests(const error& e) noexcept;
/// 410 Gone/Expired, or the server's "too large resource version" (a list or
/// watch that must restart from a fresh list).
bool needs_relist(const error& e) noexcept;
/// "Too large resource version" (504 with cause ResourceVersionTooLarge).
bool is_resource_version_too_large(const error& e) noexcept;
/// Worth retrying the same request later: 429, 5xx timeouts/unavailable/internal,
/// and transport failures (refused, reset, EOF, timeouts).
bool is_retryable(const error& e) noexcept;
bool is_cancelled(const error& e) noexcept;
/// A transport-level failure (no HTTP answer was decoded).
bool is_transport_error(const error& e) noexcept;

} // namespace kcoro

namespace boost::system {
template <>
struct is_error_code_enum<kcoro::api_errc> : std::true_type {};
template <>
struct is_error_code_enum<kcoro::kcoro_errc> : std::true_type {};
} // namespace boost::system
