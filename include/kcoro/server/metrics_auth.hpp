// Authentication and authorisation of /metrics scrapes (--metrics-secure),
// as controller-runtime's filters.WithAuthenticationAndAuthorization does:
//
//   1. the bearer token of the Authorization header, none: 401;
//   2. a TokenReview (authentication.k8s.io/v1) of it; not authenticated: 401;
//   3. a SubjectAccessReview (authorization.k8s.io/v1) for the reviewed user
//      with nonResourceAttributes {path, verb "get"}; not allowed: 403;
//   4. otherwise the scrape is served.
// Decisions are cached per token (allowed 1 min, denied 10 s, as the
// delegating authenticator/authorizer defaults), so a scrape every 15 s costs
// two API requests a minute. A failed review answers 500 and is not cached.
//
// The request and answer shapes are pure functions (tested without I/O);
// `metrics_authorizer` performs the reviews over the client.
//
// Lifetime: the client and clock outlive the authorizer. Thread safety: none
// (the io_context's thread).
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/server/http_answer.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::client {
class client;
}

namespace kcoro::server {

/// The token of "Bearer <token>" (scheme case-insensitive); empty otherwise.
std::string_view bearer_token(std::string_view authorization) noexcept;

/// A TokenReview asking about `token`.
boost::json::object make_token_review(std::string_view token);

/// Who a TokenReview's status names.
struct reviewed_user {
    bool authenticated = false;
    std::string username;
    std::string uid;
    std::vector<std::string> groups;
    boost::json::object extra;
    std::string error;  // status.error, when given
};
reviewed_user read_token_review(const boost::json::object& review);

/// A SubjectAccessReview: may `user` do `verb` on the non-resource `path`?
boost::json::object make_subject_access_review(const reviewed_user& user, std::string_view path,
                                               std::string_view verb);

/// status.allowed of a SubjectAccessReview (false when absent); `reason`
/// receives status.reason.
bool read_subject_access_review(const boost::json::object& review, std::string* reason = nullptr);

struct metrics_auth_options {
    std::chrono::nanoseconds allow_ttl = std::chrono::minutes(1);
    std::chrono::nanoseconds deny_ttl = std::chrono::seconds(10);
    std::size_t max_cached = 1024;
};

class metrics_authorizer {
public:
    metrics_authorizer(client::client& c, io::clock& clk, metrics_auth_options opts = {});

    /// nullopt: serve the request. Otherwise the answer to send (401, 403, 500).
    boost::asio::awaitable<std::optional<http_answer>> check(std::string authorization, std::string path);

    /// API reviews performed (TokenReviews + SubjectAccessReviews), for tests.
    std::uint64_t reviews() const noexcept { return reviews_; }

private:
    struct decision {
        std::optional<http_answer> answer;
        steady_time expires{};
    };
    client::client& c_;
    io::clock& clk_;
    metrics_auth_options opts_;
    std::map<std::string, decision, std::less<>> cache_;  // by "token\npath"
    std::uint64_t reviews_ = 0;
};

} // namespace kcoro::server
