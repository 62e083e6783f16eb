// Automatic retries of one request, as client-go's rest client does them
// (rest/with_retry.go), as a pure decision with time as data:
//
//  - an answer 429 or 5xx WITH a Retry-After header (integer seconds, or an
//    HTTP-date) is retried after that delay, for any verb, up to
//    max_retries (10) times;
//  - a GET that is not a watch is also retried, after 1 s, when the
//    connection was reset or closed (EOF) before any answer: it is idempotent;
//  - nothing else is retried automatically: a write that failed without an
//    answer may have been applied, so the caller decides.
//
// The delay is clamped to max_delay (default 60 s) so that a broken proxy
// cannot park a request for a day. The watch/relist backoff is the runtime's.
//
// Thread safety: none; one policy per request, used by the coroutine that
// sends it.
#pragma once

#include <kcoro/core/api_request.hpp>
#include <kcoro/core/time.hpp>

#include <boost/system/error_code.hpp>

#include <chrono>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace kcoro {

/// Parse a Retry-After value: delta-seconds ("3") or an HTTP-date
/// ("Sun, 29 Nov 2026 11:32:35 GMT", relative to `now`; a past date is 0 s).
/// nullopt for anything else (including negative numbers).
std::optional<std::chrono::seconds> parse_retry_after(std::string_view value, wall_time now);

/// Parse an IMF-fixdate (RFC 9110 preferred HTTP-date format).
std::optional<wall_time> parse_http_date(std::string_view value);

/// A connection reset, abort or EOF before an answer (client-go's
/// IsConnectionReset || IsProbableEOF). Recognises the generic errno codes and
/// Asio's/Beast's/OpenSSL-stream EOF codes by category name, so the core needs
/// no Asio headers.
bool is_connection_reset_or_eof(const boost::system::error_code& ec) noexcept;

/// What one attempt ended with.
struct attempt_outcome {
    /// HTTP status of the answer; 0 when none was received.
    int http_code = 0;
    /// The Retry-After header as received; empty when absent.
    std::string retry_after{};
    /// No answer: the transport error (e.g. connection reset, EOF).
    boost::system::error_code transport_error{};

    static attempt_outcome answered(int code, std::string retry_after = {}) {
        return {code, std::move(retry_after), {}};
    }
    static attempt_outcome failed(boost::system::error_code ec) { return {0, {}, ec}; }
};

struct retry_decision {
    bool retry = false;
    std::chrono::milliseconds delay{0};
    /// client-go's log text: "retries: 2, retry-after: 1s - retry-reason: 503".
    std::string reason{};
    friend bool operator==(const retry_decision& a, const retry_decision& b) {
        return a.retry == b.retry && a.delay == b.delay;
    }
};
std::ostream& operator<<(std::ostream& os, const retry_decision& d);

class retry_policy {
public:
    static constexpr int default_max_retries = 10;
    static constexpr std::chrono::seconds default_max_delay{60};

    retry_policy(http_method method, bool is_watch, int max_retries = default_max_retries,
                 std::chrono::seconds max_delay = default_max_delay) noexcept
        : method_(method), is_watch_(is_watch), max_retries_(max_retries), max_delay_(max_delay) {}

    explicit retry_policy(const api_request& r, int max_retries = default_max_retries) noexcept
        : retry_policy(r.method, r.is_watch, max_retries) {}

    /// Decide after an attempt. `now` only matters for an HTTP-date Retry-After.
    /// A 2xx/3xx/4xx-other answer is never retried.
    retry_decision step(const attempt_outcome& outcome, wall_time now);

    /// Retries granted so far.
    int retries() const noexcept { return retries_; }

private:
    http_method method_;
    bool is_watch_;
    int max_retries_;
    std::chrono::seconds max_delay_;
    int retries_ = 0;
};

} // namespace kcoro
