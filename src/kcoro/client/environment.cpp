#include <kcoro/client/environment.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

extern char** environ;

namespace kcoro::client {
namespace {

constexpr std::size_t max_file_size = 64 * 1024 * 1024;

error errno_error(int err, const std::string& path) {
    return error(boost::system::error_code(err, boost::system::generic_category()),
                 "cannot read " + path + ": " + std::strerror(err));
}

} // namespace

std::optional<std::string> environment::get(std::string_view name) const {
    auto it = vars.find(name);
    if (it == vars.end()) {
        return std::nullopt;
    }
    return it->second;
}

environment environment::process() {
    environment env;
    for (char** e = environ; e && *e; ++e) {
        std::string_view kv(*e);
        auto eq = kv.find('=');
        if (eq != std::string_view::npos) {
            env.vars.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
        }
    }
    if (auto h = env.get("HOME")) {
        env.home = *h;
    } else if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_dir) {
        env.home = pw->pw_dir; // as controller-runtime does when $HOME is unset
    }
    return env;
}

result<std::string> environment::read_real_file(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return errno_error(errno, path);
    }
    std::string out;
    char buf[16384];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            int err = errno;
            ::close(fd);
            return errno_error(err, path);
        }
        if (n == 0) {
            break;
        }
        out.append(buf, static_cast<std::size_t>(n));
        if (out.size() > max_file_size) {
            ::close(fd);
            return errno_error(EFBIG, path);
        }
    }
    ::close(fd);
    return out;
}

bool is_file_not_found(const error& e) noexcept {
    return e.code() == boost::system::errc::no_such_file_or_directory;
}

} // namespace kcoro::client
