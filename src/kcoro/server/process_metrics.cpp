#include <kcoro/server/process_metrics.hpp>

#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

namespace kcoro::server {

namespace {

template <class T>
std::optional<T> to_number(std::string_view s) {
    T v{};
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
    return v;
}

std::vector<std::string_view> split_ws(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) ++i;
        std::size_t j = i;
        while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\n') ++j;
        if (j > i) out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

std::optional<std::string> slurp(const char* path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    return std::move(ss).str();
}

} // namespace

std::optional<proc_stat> parse_proc_stat(std::string_view text) {
    auto close = text.rfind(')');
    if (close == std::string_view::npos || text.find('(') > close) return std::nullopt;
    // After ')' come fields 3 (state) onwards.
    auto fields = split_ws(text.substr(close + 1));
    // Field n (1-based) is fields[n - 3].
    auto field = [&](std::size_t n) -> std::string_view { return fields[n - 3]; };
    if (fields.size() < 24 - 2) return std::nullopt;
    auto ut = to_number<std::uint64_t>(field(14));
    auto st = to_number<std::uint64_t>(field(15));
    auto start = to_number<std::uint64_t>(field(22));
    auto vsize = to_number<std::uint64_t>(field(23));
    auto rss = to_number<std::int64_t>(field(24));
    if (!ut || !st || !start || !vsize || !rss) return std::nullopt;
    return proc_stat{*ut, *st, *start, *vsize, *rss};
}

std::optional<std::uint64_t> parse_boot_time(std::string_view text) {
    std::size_t pos = 0;
    while (pos < text.size()) {
        auto eol = text.find('\n', pos);
        auto line = text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
        auto f = split_ws(line);
        if (f.size() == 2 && f[0] == "btime") return to_number<std::uint64_t>(f[1]);
        if (eol == std::string_view::npos) break;
        pos = eol + 1;
    }
    return std::nullopt;
}

std::optional<double> parse_max_open_files(std::string_view text) {
    constexpr std::string_view key = "Max open files";
    std::size_t pos = 0;
    while (pos < text.size()) {
        auto eol = text.find('\n', pos);
        auto line = text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
        if (line.substr(0, key.size()) == key) {
            auto f = split_ws(line.substr(key.size()));
            if (f.empty()) return std::nullopt;
            if (f[0] == "unlimited") return static_cast<double>(std::numeric_limits<std::uint64_t>::max());
            auto v = to_number<std::uint64_t>(f[0]);
            if (!v) return std::nullopt;
            return static_cast<double>(*v);
        }
        if (eol == std::string_view::npos) break;
        pos = eol + 1;
    }
    return std::nullopt;
}

process_sample make_process_sample(const proc_stat& stat, std::uint64_t boot_time_seconds,
                                   double ticks_per_second, double page_size, double open_fds,
                                   double max_fds) {
    process_sample s;
    s.cpu_seconds_total = static_cast<double>(stat.utime_ticks + stat.stime_ticks) / ticks_per_second;
    s.resident_memory_bytes = static_cast<double>(stat.rss_pages) * page_size;
    s.virtual_memory_bytes = static_cast<double>(stat.vsize_bytes);
    s.start_time_seconds =
        static_cast<double>(boot_time_seconds) + static_cast<double>(stat.starttime_ticks) / ticks_per_second;
    s.open_fds = open_fds;
    s.max_fds = max_fds;
    return s;
}

std::optional<process_sample> read_process_sample() {
    auto stat_text = slurp("/proc/self/stat");
    auto sys_text = slurp("/proc/stat");
    auto limits_text = slurp("/proc/self/limits");
    if (!stat_text || !sys_text || !limits_text) return std::nullopt;
    auto stat = parse_proc_stat(*stat_text);
    auto btime = parse_boot_time(*sys_text);
    auto max_fds = parse_max_open_files(*limits_text);
    if (!stat || !btime || !max_fds) return std::nullopt;

    std::error_code ec;
    std::filesystem::directory_iterator it("/proc/self/fd", ec);
    if (ec) return std::nullopt;
    double fds = 0;
    for (auto end = std::filesystem::directory_iterator(); it != end; it.increment(ec)) {
        if (ec) return std::nullopt;
        ++fds;
    }
    // Like Go's collector, the count includes the descriptor of the listing
    // itself.

    const long hz = ::sysconf(_SC_CLK_TCK);
    const long page = ::sysconf(_SC_PAGESIZE);
    return make_process_sample(*stat, *btime, hz > 0 ? static_cast<double>(hz) : 100.0,
                               page > 0 ? static_cast<double>(page) : 4096.0, fds, *max_fds);
}

} // namespace kcoro::server
