// Fuzz target: kubeconfig parsing, merging and resolution answer every input
// with a config or an invalid_config error naming the file.
#include <kcoro/core/kubeconfig.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto cfg = kcoro::parse_kubeconfig("/fuzz/config", text);
    if (!cfg) {
        if (cfg.error().message().rfind("kubeconfig /fuzz/config: ", 0) != 0) {
            __builtin_trap();
        }
        return 0;
    }
    (void)kcoro::resolve_kubeconfig(*cfg, "");
    for (const auto& c : cfg->contexts) {
        (void)kcoro::resolve_kubeconfig(*cfg, c.origin.name);
    }
    // The same text twice in a KUBECONFIG list: first-wins merge of equal files.
    std::string s(text);
    auto merged = kcoro::load_kubeconfigs({{"/fuzz/a", s}, {"/fuzz/b", s}});
    if (!merged || merged->clusters.size() != cfg->clusters.size() || merged->users.size() != cfg->users.size()) {
        __builtin_trap();
    }
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput); }
#endif
