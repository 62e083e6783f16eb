#include "exec_plugin.hpp"

#include <kcoro/core/base64.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cerrno>
#include <map>
#include <vector>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kcoro::client::detail {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;

constexpr std::size_t max_output = 1024 * 1024;

std::string who(const exec_config& x) { return "exec plugin \"" + x.command + "\""; }

error plugin_error(const exec_config& x, std::string what) {
    std::string msg = who(x) + ": " + what;
    if (!x.install_hint.empty()) {
        msg += "; install hint: " + x.install_hint;
    }
    return error(kcoro_errc::io_error, std::move(msg));
}

// posix_spawnp would search the PATH of this process; the plugin is looked up
// in the (injectable) environment's PATH instead.
std::optional<std::string> find_executable(const std::string& command, const environment& env) {
    if (command.find('/') != std::string::npos) {
        return ::access(command.c_str(), X_OK) == 0 ? std::optional(command) : std::nullopt;
    }
    std::string path = env.get("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t colon = path.find(':', start);
        std::string dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
        std::string candidate = (dir.empty() ? "." : dir) + "/" + command;
        if (::access(candidate.c_str(), X_OK) == 0) {
            return candidate;
        }
        if (colon == std::string::npos) {
            break;
        }
        start = colon + 1;
    }
    return std::nullopt;
}

struct child_process {
    pid_t pid = -1;
    int stdout_fd = -1;
};

result<child_process> spawn(const std::string& path, const exec_config& exec, const std::string& request_json,
                            const environment& env) {
    std::vector<std::string> args{exec.command};
    args.insert(args.end(), exec.args.begin(), exec.args.end());
    std::map<std::string, std::string, std::less<>> vars = env.vars;
    for (const auto& [k, v] : exec.env) {
        vars[k] = v;
    }
    vars["KUBERNETES_EXEC_INFO"] = request_json;
    std::vector<std::string> env_strings;
    for (const auto& [k, v] : vars) {
        env_strings.push_back(k + "=" + v);
    }
    std::vector<char*> argv, envp;
    for (auto& a : args) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    for (auto& e : env_strings) {
        envp.push_back(e.data());
    }
    envp.push_back(nullptr);

    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        return plugin_error(exec, std::string("cannot create a pipe: ") + std::strerror(errno));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0); // never interactive
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE); // an ignored SIGPIPE would be inherited across exec
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    int rc = ::posix_spawn(&pid, path.c_str(), &actions, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        return plugin_error(exec, std::string("cannot start: ") + std::strerror(rc));
    }
    return child_process{pid, fds[0]};
}

struct plugin_outcome {
    std::string output;
    int status = 0;
};

// Reads stdout to EOF, then waits (without blocking the thread, through a
// pidfd) for the exit status.
asio::awaitable<result<plugin_outcome>> read_and_wait(child_process child, const exec_config& exec) {
    auto ex = co_await asio::this_coro::executor;
    asio::posix::stream_descriptor out(ex, child.stdout_fd);
    plugin_outcome r;
    char buf[4096];
    for (;;) {
        auto [ec, n] = co_await out.async_read_some(asio::buffer(buf), asio::as_tuple(asio::use_awaitable));
        r.output.append(buf, n);
        if (ec == asio::error::eof) {
            break;
        }
        if (ec) {
            co_return error(ec, who(exec) + ": reading its output: " + ec.message());
        }
        if (r.output.size() > max_output) {
            co_return plugin_error(exec, "output larger than 1 MiB");
        }
    }
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child.pid, 0));
    if (pidfd >= 0) {
        asio::posix::stream_descriptor exit_watch(ex, pidfd);
        auto [ec] = co_await exit_watch.async_wait(asio::posix::stream_descriptor::wait_read,
                                                   asio::as_tuple(asio::use_awaitable));
        if (ec) {
            co_return error(ec, who(exec) + ": waiting for it to exit: " + ec.message());
        }
    } // else (no pidfd): the blocking waitpid below; stdout closed, so it is exiting
    while (::waitpid(child.pid, &r.status, 0) < 0 && errno == EINTR) {
    }
    co_return r;
}

} // namespace

std::string exec_request_json(const exec_config& exec, const client_config& cfg) {
    json::object spec{{"interactive", false}};
    if (exec.provide_cluster_info) {
        json::object cluster{{"server", cfg.server}};
        if (!cfg.tls_server_name.empty()) {
            cluster["tls-server-name"] = cfg.tls_server_name;
        }
        if (cfg.insecure_skip_tls_verify) {
            cluster["insecure-skip-tls-verify"] = true;
        }
        if (!cfg.ca_pem.empty()) {
            cluster["certificate-authority-data"] = base64_encode(cfg.ca_pem);
        }
        spec["cluster"] = std::move(cluster);
    }
    json::object req{{"apiVersion", exec.api_version}, {"kind", "ExecCredential"}, {"spec", std::move(spec)}};
    return json::serialize(req);
}

result<exec_credential> parse_exec_credential(std::string_view output, const exec_config& exec) {
    auto bad = [&](std::string what) { return error(kcoro_errc::decode_error, who(exec) + ": " + what); };
    boost::system::error_code ec;
    json::value v = json::parse(output, ec);
    if (ec || !v.is_object()) {
        return bad("its output is not an ExecCredential JSON object");
    }
    const auto& o = v.get_object();
    auto str = [&](const json::object& obj, std::string_view key) -> std::string {
        auto* f = obj.if_contains(key);
        return (f && f->is_string()) ? std::string(f->get_string()) : std::string();
    };
    if (str(o, "kind") != "ExecCredential") {
        return bad("its output has kind \"" + str(o, "kind") + "\", not ExecCredential");
    }
    if (str(o, "apiVersion") != exec.api_version) {
        return bad("it returned apiVersion \"" + str(o, "apiVersion") + "\" but is configured for \"" +
                   exec.api_version + "\"");
    }
    auto* status = o.if_contains("status");
    if (!status || !status->is_object()) {
        return bad("its ExecCredential has no status");
    }
    exec_credential cred;
    cred.token = str(status->get_object(), "token");
    if (cred.token.empty()) {
        if (!str(status->get_object(), "clientCertificateData").empty()) {
            return error(kcoro_errc::unsupported,
                         who(exec) + ": client certificates from exec plugins (clientCertificateData) are not "
                                     "supported by kcoro yet");
        }
        return bad("its ExecCredential has no status.token");
    }
    if (auto exp = str(status->get_object(), "expirationTimestamp"); !exp.empty()) {
        cred.expiration = parse_rfc3339(exp);
        if (!cred.expiration) {
            return bad("status.expirationTimestamp \"" + exp + "\" is not an RFC 3339 time");
        }
    }
    return cred;
}

asio::awaitable<result<std::string>> run_exec_plugin(const exec_config& exec, const std::string& request_json,
                                                     const environment& env, io::clock& clk,
                                                     std::chrono::nanoseconds timeout) {
    using namespace asio::experimental::awaitable_operators;
    auto path = find_executable(exec.command, env);
    if (!path) {
        co_return plugin_error(exec, "executable not found (PATH=" + env.get("PATH").value_or("") + ")");
    }
    auto child = spawn(*path, exec, request_json, env);
    if (!child) {
        co_return child.error();
    }
    // g++ 12 (docs/toolchain.md): named first, not temporaries in the operand.
    auto reading = read_and_wait(*child, exec);
    auto deadline = clk.sleep_for(timeout);
    auto first = co_await (std::move(reading) || std::move(deadline));
    if (first.index() == 1) {
        ::kill(child->pid, SIGKILL);
        int status = 0;
        while (::waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {
        }
        auto secs = std::chrono::duration_cast<std::chrono::seconds>(timeout).count();
        co_return plugin_error(exec, "no answer within " + std::to_string(secs) + " s; killed");
    }
    auto outcome = std::get<0>(std::move(first));
    if (!outcome) { // not reaped yet
        ::kill(child->pid, SIGKILL);
        int status = 0;
        while (::waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {
        }
        co_return outcome.error();
    }
    int status = outcome->status;
    if (WIFSIGNALED(status)) {
        co_return plugin_error(exec, "killed by signal " + std::to_string(WTERMSIG(status)));
    }
    if (WEXITSTATUS(status) != 0) {
        co_return plugin_error(exec, "exit code " + std::to_string(WEXITSTATUS(status)));
    }
    co_return std::move(outcome->output);
}

} // namespace kcoro::client::detail
