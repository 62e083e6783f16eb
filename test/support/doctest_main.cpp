// The main of every doctest executable. The test files of one layer share an
// executable (test/unit/meson.build), and meson runs one test per file with
// doctest's --source-file filter; a filter that selects nothing (a renamed
// file, a typo) must fail, not pass with zero tests, so a listener counts
// the test cases that started.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <string_view>

namespace {

int test_cases_started = 0;

struct started_counter final : doctest::IReporter {
    explicit started_counter(const doctest::ContextOptions&) {}
    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats&) override {}
    void test_case_start(const doctest::TestCaseData&) override { ++test_cases_started; }
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats&) override {}
    void test_case_exception(const doctest::TestCaseException&) override {}
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData&) override {}
    void log_message(const doctest::MessageData&) override {}
    void test_case_skipped(const doctest::TestCaseData&) override {}
};

} // namespace

DOCTEST_REGISTER_LISTENER("started_counter", 1, started_counter);

int main(int argc, char** argv) {
    doctest::Context ctx(argc, argv);
    const int rc = ctx.run();
    if (ctx.shouldExit()) {
        return rc;  // --help, --list-test-cases, ...
    }
    bool filtered = false;
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        if (a.starts_with("--source-file=") || a.starts_with("-sf=") || a.starts_with("--test-case=") ||
            a.starts_with("-tc=")) {
            filtered = true;
        }
    }
    if (rc == 0 && filtered && test_cases_started == 0) {
        std::fprintf(stderr, "doctest_main: the filter selected no test case\n");
        return 1;
    }
    return rc;
}
