// Fuzz target: the probe and metrics handlers over arbitrary request targets,
// and the /proc parsers over arbitrary text. Answers are always 200, 404 or
// 500 with a body; the reason of a failing check never leaks into the
// aggregated listing.
#include <kcoro/server/health.hpp>
#include <kcoro/server/metrics_handler.hpp>
#include <kcoro/server/process_metrics.hpp>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace {

void check_answer(const kcoro::server::http_answer& a, bool may_be_empty = false) {
    if (a.status != 200 && a.status != 404 && a.status != 500) std::abort();
    if ((a.body.empty() && !may_be_empty) || a.content_type.empty()) std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view in(reinterpret_cast<const char*>(data), size);

    kcoro::server::health_handler h;
    h.readyz().add("informers", [] { return std::optional<std::string>("SECRET-REASON"); });
    h.readyz().add("ping", [] { return std::optional<std::string>(); });
    for (std::string target : {std::string(in), "/readyz" + std::string(in), "/healthz?" + std::string(in)}) {
        auto a = h.handle(target);
        check_answer(a);
        auto q = target.find('?');
        auto path = std::string_view(target).substr(0, q);
        // Only the single-check path may show a reason.
        if (a.body.find("SECRET-REASON") != std::string::npos && path.find("informers") == std::string_view::npos)
            std::abort();
    }

    kcoro::server::metrics_registry reg(false);
    kcoro::server::metrics_handler m(reg);
    check_answer(m.handle(in), true);  // an empty registry exposes nothing
    (void)kcoro::server::query_values(in, "exclude");
    (void)kcoro::server::query_unescape(in);

    (void)kcoro::server::parse_proc_stat(in);
    (void)kcoro::server::parse_boot_time(in);
    (void)kcoro::server::parse_max_open_files(in);
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput, 20000); }
#endif
