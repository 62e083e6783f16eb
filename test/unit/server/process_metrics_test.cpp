#include <kcoro/server/process_metrics.hpp>

#include <doctest/doctest.h>

#include <limits>

using namespace kcoro::server;

// A real /proc/self/stat line, with a command name holding spaces and ')'.
constexpr const char* stat_fixture =
    "4242 (my (odd) proc) S 1 4242 4242 0 -1 4194560 1234 0 0 0 150 50 0 0 20 0 3 0 "
    "98765 123456789 2048 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";

TEST_CASE("parse_proc_stat counts fields after the last ')'") {
    auto s = parse_proc_stat(stat_fixture);
    REQUIRE(s);
    CHECK(s->utime_ticks == 150);
    CHECK(s->stime_ticks == 50);
    CHECK(s->starttime_ticks == 98765);
    CHECK(s->vsize_bytes == 123456789);
    CHECK(s->rss_pages == 2048);
}

TEST_CASE("parse_proc_stat rejects malformed text") {
    CHECK_FALSE(parse_proc_stat(""));
    CHECK_FALSE(parse_proc_stat("4242 (x S 1 2 3"));
    CHECK_FALSE(parse_proc_stat("4242 (x) S 1 2 3"));
    CHECK_FALSE(parse_proc_stat("4242 (x) S 1 4242 4242 0 -1 4194560 1234 0 0 0 abc 50 0 0 20 0 3 0 98765 1 2"));
    CHECK_FALSE(parse_proc_stat(")("));
}

TEST_CASE("parse_boot_time and parse_max_open_files") {
    CHECK(parse_boot_time("cpu  1 2 3\nintr 5\nbtime 1764400000\nprocesses 9\n") == 1764400000u);
    CHECK_FALSE(parse_boot_time("cpu 1 2 3\n"));
    CHECK_FALSE(parse_boot_time("btime x\n"));

    constexpr const char* limits =
        "Limit                     Soft Limit           Hard Limit           Units     \n"
        "Max cpu time              unlimited            unlimited            seconds   \n"
        "Max open files            1024                 524288               files     \n";
    CHECK(parse_max_open_files(limits) == 1024.0);
    CHECK(parse_max_open_files("Max open files            unlimited            unlimited            files\n") ==
          static_cast<double>(std::numeric_limits<std::uint64_t>::max()));
    CHECK_FALSE(parse_max_open_files("Max cpu time unlimited unlimited seconds\n"));
    CHECK_FALSE(parse_max_open_files("Max open files  lots\n"));
}

TEST_CASE("make_process_sample converts ticks and pages") {
    auto s = make_process_sample(*parse_proc_stat(stat_fixture), 1764400000, 100.0, 4096.0, 7, 1024);
    CHECK(s.cpu_seconds_total == doctest::Approx(2.0));
    CHECK(s.resident_memory_bytes == 2048.0 * 4096.0);
    CHECK(s.virtual_memory_bytes == 123456789.0);
    CHECK(s.start_time_seconds == doctest::Approx(1764400000.0 + 987.65));
    CHECK(s.open_fds == 7);
    CHECK(s.max_fds == 1024);
}

TEST_CASE("read_process_sample reads this process") {
    auto s = read_process_sample();
    REQUIRE(s);
    CHECK(s->open_fds >= 3);
    CHECK(s->max_fds >= s->open_fds);
    CHECK(s->resident_memory_bytes > 0);
    CHECK(s->virtual_memory_bytes >= s->resident_memory_bytes);
}
