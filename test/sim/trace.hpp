// The trace of one simulated run: every request, response, fault, timer
// jump and log line, in order, each stamped with virtual time. Always
// hashed (FNV-1a, 64 bits), printed only when asked: the same seed must give
// the same hash (the determinism test), and --trace prints what was hashed.
#pragma once

#include <kcoro/core/time.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace kcoro::sim {

class trace {
public:
    explicit trace(bool print) : print_(print) {}

    /// One line: "<seconds.micros> <kind> <text>".
    void line(steady_time now, std::string_view kind, std::string_view text) {
        const auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
        char stamp[32];
        std::snprintf(stamp, sizeof stamp, "%lld.%06lld ", static_cast<long long>(us / 1000000),
                      static_cast<long long>(us % 1000000));
        mix(stamp);
        mix(kind);
        mix(" ");
        mix(text);
        mix("\n");
        ++lines_;
        if (print_) {
            std::fwrite(stamp, 1, std::char_traits<char>::length(stamp), stdout);
            std::fwrite(kind.data(), 1, kind.size(), stdout);
            std::fputc(' ', stdout);
            std::fwrite(text.data(), 1, text.size(), stdout);
            std::fputc('\n', stdout);
        }
    }
    /// Adds bytes to the hash without printing them (watch chunk bodies).
    void mix(std::string_view bytes) noexcept {
        for (unsigned char c : bytes) {
            hash_ ^= c;
            hash_ *= 0x100000001b3ULL;
        }
    }
    std::uint64_t hash() const noexcept { return hash_; }
    std::uint64_t lines() const noexcept { return lines_; }
    bool printing() const noexcept { return print_; }

private:
    bool print_;
    std::uint64_t hash_ = 0xcbf29ce484222325ULL;
    std::uint64_t lines_ = 0;
};

} // namespace kcoro::sim
