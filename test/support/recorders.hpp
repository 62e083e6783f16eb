// What the integration tests record: the writes a client sends, the log
// lines a manager writes, a file's text. Header-only, no I/O but read_file.
#pragma once

#include <kcoro/core/log.hpp>
#include <kcoro/core/metrics_hooks.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::test {

/// Counts the writes (POST, PUT, PATCH, DELETE) one client sends, every
/// attempt, as request_metrics sees them; `log` has "METHOD code" each.
struct write_counter final : request_metrics {
    int writes = 0;
    std::vector<std::string> log;
    void observe(std::string_view, std::string_view method, std::string_view, std::string_view code,
                 double) override {
        if (method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE") {
            ++writes;
            log.push_back(std::string(method) + " " + std::string(code));
        }
    }
};

/// Keeps log lines (to check messages without printing them).
struct line_sink final : log_sink {
    std::vector<std::string> lines;
    void write(std::string_view line) override { lines.emplace_back(line); }
    /// Lines that contain `text`.
    int count(std::string_view text) const {
        int n = 0;
        for (const auto& l : lines) n += l.find(text) != std::string::npos;
        return n;
    }
};

/// The whole file ("" when it cannot be read).
inline std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace kcoro::test
