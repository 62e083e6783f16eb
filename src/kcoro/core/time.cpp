#include <kcoro/core/time.hpp>

#include <cstdio>
#include <ctime>

namespace kcoro {
namespace {

std::tm to_utc(wall_time t) {
    auto secs = std::chrono::system_clock::to_time_t(t);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    return tm;
}

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
    if (pos + n > s.size()) {
        return false;
    }
    int v = 0;
    for (std::size_t i = pos; i < pos + n; ++i) {
        if (s[i] < '0' || s[i] > '9') {
            return false;
        }
        v = v * 10 + (s[i] - '0');
    }
    out = v;
    return true;
}

} // namespace

std::string format_rfc3339(wall_time t) {
    auto tm = to_utc(t);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    return buf;
}

std::string format_rfc3339_micro(wall_time t) {
    auto tm = to_utc(t);
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count() % 1000000;
    if (us < 0) {
        us += 1000000;
    }
    char buf[80];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(us));
    return buf;
}

std::optional<wall_time> parse_rfc3339(std::string_view s) {
    int y, mo, d, h, mi, sec;
    if (!digits(s, 0, 4, y) || s.size() < 19 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
        !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !digits(s, 11, 2, h) ||
        s[13] != ':' || !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, sec)) {
        return std::nullopt;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) {
        return std::nullopt;
    }
    // system_clock counts nanoseconds in 64 bits: 1677-09-21 to 2262-04-11.
    // Outside that the conversion below would overflow (undefined behaviour).
    if (y < 1678 || y > 2261) {
        return std::nullopt;
    }
    std::size_t pos = 19;
    std::chrono::nanoseconds frac{0};
    if (pos < s.size() && s[pos] == '.') {
        ++pos;
        long long ns = 0;
        int n = 0;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
            if (n < 9) {
                ns = ns * 10 + (s[pos] - '0');
                ++n;
            }
            ++pos;
        }
        if (n == 0) {
            return std::nullopt;
        }
        for (; n < 9; ++n) {
            ns *= 10;
        }
        frac = std::chrono::nanoseconds(ns);
    }
    int offset_min = 0;
    if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
        ++pos;
    } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
        int oh, om;
        if (!digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' || !digits(s, pos + 4, 2, om)) {
            return std::nullopt;
        }
        offset_min = (oh * 60 + om) * (s[pos] == '-' ? -1 : 1);
        pos += 6;
    } else {
        return std::nullopt;
    }
    if (pos != s.size()) {
        return std::nullopt;
    }
    std::chrono::year_month_day ymd{std::chrono::year(y), std::chrono::month(static_cast<unsigned>(mo)),
                                    std::chrono::day(static_cast<unsigned>(d))};
    if (!ymd.ok()) {
        return std::nullopt;
    }
    auto days = std::chrono::sys_days(ymd);
    auto t = std::chrono::time_point_cast<std::chrono::system_clock::duration>(
        days + std::chrono::hours(h) + std::chrono::minutes(mi) + std::chrono::seconds(sec) -
        std::chrono::minutes(offset_min));
    return t + std::chrono::duration_cast<std::chrono::system_clock::duration>(frac);
}

} // namespace kcoro
