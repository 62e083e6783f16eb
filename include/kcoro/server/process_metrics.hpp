// The standard process_* metrics (as Go's process collector exports them),
// read from /proc/self at scrape time. The parsing is pure and takes the file
// texts, so it is tested with fixture text; `read_process_sample` does the I/O.
//
// Thread safety: functions only; no shared state.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kcoro::server {

/// The fields of /proc/<pid>/stat that the metrics need.
struct proc_stat {
    std::uint64_t utime_ticks = 0;      // field 14
    std::uint64_t stime_ticks = 0;      // field 15
    std::uint64_t starttime_ticks = 0;  // field 22, ticks after boot
    std::uint64_t vsize_bytes = 0;      // field 23
    std::int64_t rss_pages = 0;         // field 24
    friend bool operator==(const proc_stat&, const proc_stat&) = default;
};

/// Parses /proc/<pid>/stat. The command name (field 2) may hold spaces and
/// parentheses, so fields are counted from its last ')'. nullopt if malformed.
std::optional<proc_stat> parse_proc_stat(std::string_view text);

/// The `btime` line of /proc/stat (boot time, seconds since the epoch).
std::optional<std::uint64_t> parse_boot_time(std::string_view proc_stat_text);

/// The soft "Max open files" limit of /proc/<pid>/limits; "unlimited" reads
/// as 2^64-1, as Go's procfs reports it.
std::optional<double> parse_max_open_files(std::string_view limits_text);

/// One reading of the process metrics.
struct process_sample {
    double cpu_seconds_total = 0;
    double resident_memory_bytes = 0;
    double virtual_memory_bytes = 0;
    double start_time_seconds = 0;
    double open_fds = 0;
    double max_fds = 0;
};

/// Combines parsed values (pure).
process_sample make_process_sample(const proc_stat& stat, std::uint64_t boot_time_seconds,
                                   double ticks_per_second, double page_size, double open_fds,
                                   double max_fds);

/// Reads /proc/self/{stat,limits,fd} and /proc/stat; nullopt when /proc is
/// unavailable or unreadable (the families are then left out of the scrape).
std::optional<process_sample> read_process_sample();

} // namespace kcoro::server
