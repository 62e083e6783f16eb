// Fuzz target: the manager's flag parser and Go durations. Input lines are
// the arguments. Parsing never throws or crashes; a failure is an
// invalid_config error naming what was wrong; a parsed duration survives
// format -> parse unchanged.
#include <kcoro/server/flags.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view in(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> args;
    std::size_t i = 0;
    while (i <= in.size()) {
        auto j = in.find('\n', i);
        if (j == std::string_view::npos) j = in.size();
        args.emplace_back(in.substr(i, j - i));
        i = j + 1;
    }

    kcoro::server::manager_options opts;
    std::string extra;
    kcoro::server::flag_set flags("fuzz");
    kcoro::server::add_manager_flags(flags, opts);
    flags.add_string("registry-namespace", &extra, "extra");
    auto r = flags.parse(args);
    if (!r) {
        if (r.error().code() != kcoro::make_error_code(kcoro::kcoro_errc::invalid_config)) std::abort();
        if (r.error().message().empty()) std::abort();
    } else {
        (void)kcoro::server::validate(opts);
    }

    for (auto& a : args) {
        auto d = kcoro::server::parse_go_duration(a);
        if (!d) continue;
        auto text = kcoro::server::format_go_duration(*d);
        auto again = kcoro::server::parse_go_duration(text);
        if (!again || *again != *d) std::abort();
    }
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput, 20000); }
#endif
