// An injectable view of what configuration loading and credential plugins
// read from the process: environment variables, the home directory, the
// service-account directory and files. Tests build one over a temp dir, so
// they never touch the real environment or /var/run.
//
// Lifetime: a value; copy it freely. Thread safety: const use from several
// threads is safe when `read_file` is (the process reader is).
#pragma once

#include <kcoro/core/error.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace kcoro::client {

struct environment {
    /// Reads a whole file. Failures are errors in the generic category
    /// (errc::no_such_file_or_directory when it does not exist) with a
    /// message "cannot read <path>: <reason>".
    using file_reader = std::function<result<std::string>(const std::string& path)>;

    std::map<std::string, std::string, std::less<>> vars; // environment variables
    std::string home;                                     // $HOME (or the passwd entry)
    std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
    file_reader read_file = read_real_file;

    /// The value of a variable, nullopt when unset.
    std::optional<std::string> get(std::string_view name) const;

    /// The real process: environ, $HOME (passwd entry when unset), the
    /// default service-account directory, read_real_file.
    static environment process();
    /// Reads a file from the file system (bounded to 64 MiB).
    static result<std::string> read_real_file(const std::string& path);
};

/// Whether an error from a file_reader means "the file does not exist".
bool is_file_not_found(const error& e) noexcept;

} // namespace kcoro::client
