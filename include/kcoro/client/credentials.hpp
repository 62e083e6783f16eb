// The bearer-token provider the transport asks on every request.
//
// Precedence (as client-go): a token file (re-read every 60 s and after
// invalidate(); the last good token is kept when a re-read fails), else the
// static token, else the exec plugin (its ExecCredential cached until
// status.expirationTimestamp, or until invalidate() when it has none), else
// no token. Plugins run without a terminal (stdin is /dev/null), with
// KUBERNETES_EXEC_INFO set, stderr passed through and a 60 s timeout.
// Client certificates returned by plugins (clientCertificateData) are
// reported as unsupported. Tokens never appear in errors or logs.
//
// Lifetime: the clock must outlive the credentials. Thread safety: use from
// the one io_context (strand) that runs the client; concurrent
// bearer_token() calls on it share one plugin run.
#pragma once

#include <kcoro/client/config.hpp>
#include <kcoro/client/environment.hpp>
#include <kcoro/core/error.hpp>
#include <kcoro/io/clock.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kcoro::client {

class credentials {
public:
    /// How often a token file is re-read (client-go's cached file token source).
    static constexpr std::chrono::seconds token_file_refresh{60};
    /// How long an exec plugin may run.
    static constexpr std::chrono::seconds exec_timeout{60};

    credentials(const client_config& cfg, io::clock& clk, const environment& env);

    /// The Authorization bearer token to send now ("" = none). Re-reads token_file when 60 s have passed,
    /// runs the exec plugin when there is no cached ExecCredential or it expired (expirationTimestamp).
    boost::asio::awaitable<result<std::string>> bearer_token();
    /// After a 401: forget cached tokens so the next bearer_token() re-reads the file / re-runs exec.
    void invalidate();

    /// How many times the exec plugin has been started (for tests and metrics).
    std::size_t exec_runs() const noexcept { return exec_runs_; }

private:
    result<std::string> file_token();
    boost::asio::awaitable<result<std::string>> exec_token();

    client_config cfg_;
    io::clock& clk_;
    environment env_;
    std::optional<std::string> file_token_; // the last good read, kept when a re-read fails
    steady_time file_read_at_{};
    bool file_fresh_ = false;               // false: re-read on the next call
    std::optional<std::string> exec_token_;
    std::optional<wall_time> exec_expiry_;
    bool exec_running_ = false;
    std::uint64_t exec_generation_ = 0;     // completed runs, so waiters see their run's error
    std::optional<error> exec_error_;
    std::vector<std::shared_ptr<boost::asio::steady_timer>> exec_waiters_;
    std::size_t exec_runs_ = 0;
};

} // namespace kcoro::client
