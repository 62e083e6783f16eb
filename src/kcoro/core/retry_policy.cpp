#include <kcoro/core/retry_policy.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <ostream>

namespace kcoro {

namespace {

std::string_view trim(std::string_view s) noexcept {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

template <class Int>
bool parse_digits(std::string_view s, Int& out) noexcept {
    if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return false;
    }
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

bool category_is(const boost::system::error_code& ec, const char* name) noexcept {
    return std::strcmp(ec.category().name(), name) == 0;
}

} // namespace

std::optional<wall_time> parse_http_date(std::string_view v) {
    // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT" (29 characters).
    v = trim(v);
    if (v.size() != 29 || v[3] != ',' || v[4] != ' ' || v[7] != ' ' || v[11] != ' ' || v[16] != ' ' ||
        v[19] != ':' || v[22] != ':' || v[25] != ' ' || v.substr(26) != "GMT") {
        return std::nullopt;
    }
    static constexpr std::array<std::string_view, 12> months = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                                "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    auto m = std::find(months.begin(), months.end(), v.substr(8, 3));
    unsigned day = 0, hour = 0, minute = 0, second = 0;
    int year = 0;
    if (m == months.end() || !parse_digits(v.substr(5, 2), day) || !parse_digits(v.substr(12, 4), year) ||
        !parse_digits(v.substr(17, 2), hour) || !parse_digits(v.substr(20, 2), minute) ||
        !parse_digits(v.substr(23, 2), second) || hour > 23 || minute > 59 || second > 60) {
        return std::nullopt;
    }
    using namespace std::chrono;
    year_month_day ymd{std::chrono::year{year}, month{static_cast<unsigned>(m - months.begin() + 1)}, std::chrono::day{day}};
    if (!ymd.ok()) {
        return std::nullopt;
    }
    return time_point_cast<wall_time::duration>(sys_days{ymd} + hours{hour} + minutes{minute} + seconds{second});
}

std::optional<std::chrono::seconds> parse_retry_after(std::string_view value, wall_time now) {
    value = trim(value);
    std::int64_t secs = 0;
    if (parse_digits(value, secs)) {
        return std::chrono::seconds{secs};
    }
    if (auto at = parse_http_date(value)) {
        auto d = std::chrono::ceil<std::chrono::seconds>(*at - now);
        return std::max(d, std::chrono::seconds{0});
    }
    return std::nullopt;
}

bool is_connection_reset_or_eof(const boost::system::error_code& ec) noexcept {
    namespace errc = boost::system::errc;
    if (!ec) {
        return false;
    }
    if (ec == errc::connection_reset || ec == errc::connection_aborted || ec == errc::broken_pipe) {
        return true;
    }
    // By category name: asio::error::eof, beast::http::error::end_of_stream
    // and partial_message, asio::ssl::error::stream_truncated.
    return (category_is(ec, "asio.misc") && ec.value() == 2) ||
           (category_is(ec, "beast.http") && (ec.value() == 1 || ec.value() == 2)) ||
           (category_is(ec, "asio.ssl.stream") && ec.value() == 1);
}

std::ostream& operator<<(std::ostream& os, const retry_decision& d) {
    if (!d.retry) {
        return os << "no retry";
    }
    return os << "retry after " << d.delay.count() << "ms (" << d.reason << ')';
}

retry_decision retry_policy::step(const attempt_outcome& o, wall_time now) {
    if (retries_ >= max_retries_) {
        return {};
    }
    std::chrono::seconds wait{0};
    std::string why;
    if (o.http_code == 0) {
        // Only an idempotent read may be resent after losing the connection:
        // client-go answers such errors with an artificial "Retry-After: 1".
        if (method_ != http_method::get || is_watch_ || !is_connection_reset_or_eof(o.transport_error)) {
            return {};
        }
        wait = std::chrono::seconds{1};
        why = "due to retryable error, error: " + o.transport_error.message();
    } else {
        if (o.http_code != 429 && o.http_code < 500) {
            return {};
        }
        if (o.retry_after.empty()) {
            return {};
        }
        auto ra = parse_retry_after(o.retry_after, now);
        if (!ra) {
            return {};
        }
        wait = std::min(*ra, max_delay_);
        why = o.http_code == 429 ? std::string("due to server-side throttling") : std::to_string(o.http_code);
    }
    ++retries_;
    return {true, wait,
            "retries: " + std::to_string(retries_) + ", retry-after: " + std::to_string(wait.count()) +
                "s - retry-reason: " + why};
}

} // namespace kcoro
