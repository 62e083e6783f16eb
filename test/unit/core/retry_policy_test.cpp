#include <kcoro/core/retry_policy.hpp>

#include <doctest/doctest.h>

#include <sstream>

using namespace kcoro;
using namespace std::chrono_literals;

namespace {

// A fixed "now", advanced by hand: the policy never reads a clock.
const wall_time now = *parse_rfc3339("2026-11-29T11:32:35Z");

// Stand-ins for the transport's codes, by the category names Asio/Beast use.
class named_category final : public boost::system::error_category {
public:
    explicit named_category(const char* n) : name_(n) {}
    const char* name() const noexcept override { return name_; }
    std::string message(int) const override { return name_; }

private:
    const char* name_;
};
const named_category asio_misc("asio.misc");
const named_category beast_http("beast.http");
const named_category ssl_stream("asio.ssl.stream");

const boost::system::error_code eof{2, asio_misc};
const boost::system::error_code reset = make_error_code(boost::system::errc::connection_reset);
const boost::system::error_code refused = make_error_code(boost::system::errc::connection_refused);

} // namespace

TEST_CASE("Retry-After values") {
    CHECK(parse_retry_after("3", now) == 3s);
    CHECK(parse_retry_after(" 0 ", now) == 0s);
    CHECK(parse_retry_after("120", now) == 120s);
    CHECK_FALSE(parse_retry_after("", now));
    CHECK_FALSE(parse_retry_after("-1", now));
    CHECK_FALSE(parse_retry_after("1.5", now));
    CHECK_FALSE(parse_retry_after("soon", now));
    CHECK_FALSE(parse_retry_after("99999999999999999999999", now));
    // HTTP-date, relative to now; a past date means "now"
    CHECK(parse_retry_after("Sun, 29 Nov 2026 11:32:45 GMT", now) == 10s);
    CHECK(parse_retry_after("Sun, 29 Nov 2026 11:00:00 GMT", now) == 0s);
    CHECK_FALSE(parse_retry_after("Sun, 31 Nov 2026 11:32:45 GMT", now));
    CHECK_FALSE(parse_retry_after("Sunday, 29-Nov-26 11:32:45 GMT", now));
}

TEST_CASE("HTTP dates") {
    auto t = parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT");
    REQUIRE(t);
    CHECK(*t == *parse_rfc3339("1994-11-06T08:49:37Z"));
    CHECK_FALSE(parse_http_date("Sun, 06 Nov 1994 08:49:37 UTC"));
    CHECK_FALSE(parse_http_date("Sun, 06 Xyz 1994 08:49:37 GMT"));
    CHECK_FALSE(parse_http_date("Sun, 06 Nov 1994 25:49:37 GMT"));
}

TEST_CASE("429 and 5xx with Retry-After are retried 10 times, for any verb") {
    for (auto m : {http_method::get, http_method::post, http_method::put, http_method::patch, http_method::delete_}) {
        retry_policy p(m, false);
        for (int i = 1; i <= 10; ++i) {
            CAPTURE(i);
            auto d = p.step(attempt_outcome::answered(i % 2 ? 429 : 503, "2"), now);
            CHECK(d.retry);
            CHECK(d.delay == 2s);
            CHECK(p.retries() == i);
        }
        CHECK_FALSE(p.step(attempt_outcome::answered(429, "2"), now).retry);
        CHECK(p.retries() == 10);
    }
}

TEST_CASE("the reason reads like client-go's") {
    retry_policy p(http_method::get, false);
    CHECK(p.step(attempt_outcome::answered(429, "1"), now).reason ==
          "retries: 1, retry-after: 1s - retry-reason: due to server-side throttling");
    CHECK(p.step(attempt_outcome::answered(503, "4"), now).reason == "retries: 2, retry-after: 4s - retry-reason: 503");
    std::ostringstream os;
    os << p.step(attempt_outcome::answered(500, "0"), now);
    CHECK(os.str() == "retry after 0ms (retries: 3, retry-after: 0s - retry-reason: 500)");
}

TEST_CASE("without Retry-After, or with other codes, nothing is retried") {
    retry_policy p(http_method::get, false);
    CHECK_FALSE(p.step(attempt_outcome::answered(503), now).retry);
    CHECK_FALSE(p.step(attempt_outcome::answered(429, "later"), now).retry);
    CHECK_FALSE(p.step(attempt_outcome::answered(409, "1"), now).retry);
    CHECK_FALSE(p.step(attempt_outcome::answered(404, "1"), now).retry);
    CHECK_FALSE(p.step(attempt_outcome::answered(200, "1"), now).retry);
    CHECK(p.retries() == 0);
}

TEST_CASE("long delays are clamped") {
    retry_policy p(http_method::get, false, 10, 30s);
    CHECK(p.step(attempt_outcome::answered(503, "86400"), now).delay == 30s);
    retry_policy q(http_method::get, false);
    CHECK(q.step(attempt_outcome::answered(503, "Mon, 30 Nov 2026 11:32:35 GMT"), now).delay ==
          retry_policy::default_max_delay);
}

TEST_CASE("a GET that lost its connection is retried after 1 s; writes and watches are not") {
    retry_policy get(http_method::get, false);
    auto d = get.step(attempt_outcome::failed(reset), now);
    CHECK(d.retry);
    CHECK(d.delay == 1s);
    CHECK(d.reason.find("due to retryable error") != std::string::npos);
    CHECK(get.step(attempt_outcome::failed(eof), now).retry);
    CHECK_FALSE(get.step(attempt_outcome::failed(refused), now).retry);

    for (auto m : {http_method::post, http_method::put, http_method::patch, http_method::delete_}) {
        retry_policy w(m, false);
        CHECK_FALSE(w.step(attempt_outcome::failed(reset), now).retry);
        CHECK_FALSE(w.step(attempt_outcome::failed(eof), now).retry);
    }
    retry_policy watch(http_method::get, true);
    CHECK_FALSE(watch.step(attempt_outcome::failed(eof), now).retry);
    // but a watch request answered 429 + Retry-After is retried like any request
    CHECK(watch.step(attempt_outcome::answered(429, "1"), now).retry);
}

TEST_CASE("the policy can be built from the request") {
    api_request r;
    r.method = http_method::post;
    retry_policy p(r);
    CHECK_FALSE(p.step(attempt_outcome::failed(reset), now).retry);
    CHECK(p.step(attempt_outcome::answered(503, "1"), now).retry);
    retry_policy zero(r, 0);
    CHECK_FALSE(zero.step(attempt_outcome::answered(503, "1"), now).retry);
}

TEST_CASE("connection reset and EOF recognition") {
    CHECK(is_connection_reset_or_eof(reset));
    CHECK(is_connection_reset_or_eof(make_error_code(boost::system::errc::broken_pipe)));
    CHECK(is_connection_reset_or_eof(eof));
    CHECK(is_connection_reset_or_eof({1, beast_http}));
    CHECK(is_connection_reset_or_eof({1, ssl_stream}));
    CHECK_FALSE(is_connection_reset_or_eof({3, asio_misc}));
    CHECK_FALSE(is_connection_reset_or_eof(refused));
    CHECK_FALSE(is_connection_reset_or_eof({}));
    CHECK_FALSE(is_connection_reset_or_eof(make_error_code(boost::system::errc::timed_out)));
}
