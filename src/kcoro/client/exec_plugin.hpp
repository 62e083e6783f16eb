// Private to credentials.cpp: running an exec credential plugin and decoding
// its ExecCredential. Kept apart so the process handling can be read (and
// tested through credentials) on its own.
#pragma once

#include <kcoro/client/config.hpp>
#include <kcoro/client/environment.hpp>
#include <kcoro/core/error.hpp>
#include <kcoro/core/time.hpp>
#include <kcoro/io/clock.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace kcoro::client::detail {

/// What a plugin returned (status of an ExecCredential).
struct exec_credential {
    std::string token;
    std::optional<wall_time> expiration; // nullopt: valid until a 401
};

/// The KUBERNETES_EXEC_INFO request: apiVersion, kind, spec.interactive=false
/// and, with provideClusterInfo, spec.cluster (server, CA data, ...).
std::string exec_request_json(const exec_config& exec, const client_config& cfg);

/// Decodes the plugin's stdout. Errors never quote the output (it holds the
/// token); they name the command.
result<exec_credential> parse_exec_credential(std::string_view output, const exec_config& exec);

/// Runs the plugin: `command args...` with env.vars + exec.env +
/// KUBERNETES_EXEC_INFO, stdin from /dev/null, stderr inherited, stdout read
/// on the current executor. Killed when `timeout` passes on `clk`. Returns
/// stdout when it exits with 0, else an error naming the command, the exit
/// code and the install hint.
boost::asio::awaitable<result<std::string>> run_exec_plugin(const exec_config& exec, const std::string& request_json,
                                                            const environment& env, io::clock& clk,
                                                            std::chrono::nanoseconds timeout);

} // namespace kcoro::client::detail
