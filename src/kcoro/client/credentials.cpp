#include <kcoro/client/credentials.hpp>

#include "exec_plugin.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <cctype>

namespace kcoro::client {
namespace asio = boost::asio;

namespace {

std::string trim(std::string s) {
    auto not_space = [](unsigned char c) { return !std::isspace(c); };
    s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
    s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
    return s;
}

} // namespace

credentials::credentials(const client_config& cfg, io::clock& clk, const environment& env)
    : cfg_(cfg), clk_(clk), env_(env) {}

void credentials::invalidate() {
    file_fresh_ = false;
    exec_token_.reset();
    exec_expiry_.reset();
}

result<std::string> credentials::file_token() {
    auto now = clk_.now();
    if (file_fresh_ && file_token_ && now - file_read_at_ < token_file_refresh) {
        return *file_token_;
    }
    auto contents = env_.read_file(cfg_.token_file);
    std::optional<error> failure;
    if (!contents) {
        failure = error(kcoro_errc::io_error, "token file: " + contents.error().message());
    } else if (auto t = trim(std::move(*contents)); t.empty()) {
        failure = error(kcoro_errc::io_error, "token file " + cfg_.token_file + " is empty");
    } else {
        file_token_ = std::move(t);
    }
    // After a failed re-read the last good token is used until the next period
    // (client-go's cached file token source does the same).
    file_read_at_ = now;
    file_fresh_ = true;
    if (file_token_) {
        return *file_token_;
    }
    file_fresh_ = false;
    return *failure;
}

asio::awaitable<result<std::string>> credentials::exec_token() {
    auto ex = co_await asio::this_coro::executor;
    for (;;) {
        if (exec_token_ && (!exec_expiry_ || clk_.wall_now() < *exec_expiry_)) {
            co_return *exec_token_;
        }
        if (!exec_running_) {
            break;
        }
        // Another caller is running the plugin: share its result.
        auto generation = exec_generation_;
        auto waiter = std::make_shared<asio::steady_timer>(ex, asio::steady_timer::time_point::max());
        exec_waiters_.push_back(waiter);
        co_await waiter->async_wait(asio::as_tuple(asio::use_awaitable));
        if ((co_await asio::this_coro::cancellation_state).cancelled() != asio::cancellation_type::none) {
            co_return error(kcoro_errc::cancelled, "waiting for the exec plugin");
        }
        if (exec_generation_ != generation && exec_error_) {
            co_return *exec_error_;
        }
    }
    exec_running_ = true;
    ++exec_runs_;
    std::string request = detail::exec_request_json(*cfg_.exec, cfg_);
    auto run = detail::run_exec_plugin(*cfg_.exec, request, env_, clk_, exec_timeout);
    auto output = co_await std::move(run);
    result<std::string> token = std::string();
    if (!output) {
        token = output.error();
    } else if (auto cred = detail::parse_exec_credential(*output, *cfg_.exec); !cred) {
        token = cred.error();
    } else {
        exec_token_ = cred->token;
        exec_expiry_ = cred->expiration;
        token = cred->token;
    }
    exec_running_ = false;
    ++exec_generation_;
    exec_error_ = token ? std::nullopt : std::optional<error>(token.error());
    for (auto& w : exec_waiters_) {
        w->cancel();
    }
    exec_waiters_.clear();
    co_return token;
}

asio::awaitable<result<std::string>> credentials::bearer_token() {
    if (!cfg_.token_file.empty()) {
        auto t = file_token();
        if (t || cfg_.token.empty()) {
            co_return t;
        }
        co_return cfg_.token; // never read the file successfully: the static token
    }
    if (!cfg_.token.empty()) {
        co_return cfg_.token;
    }
    if (cfg_.exec) {
        co_return co_await exec_token();
    }
    co_return std::string();
}

} // namespace kcoro::client
