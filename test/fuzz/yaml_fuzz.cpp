// Fuzz target: the YAML reader must answer every input with a value or a
// decode_error, never a crash, an exception or unbounded recursion.
#include <kcoro/core/yaml.hpp>

#include <boost/json/serialize.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto docs = kcoro::parse_yaml_documents(text);
    auto one = kcoro::parse_yaml(text);
    if (docs) {
        for (const auto& d : *docs) {
            (void)boost::json::serialize(d);
        }
        // parse_yaml agrees with parse_yaml_documents (compared as text: NaN != NaN).
        if (docs->size() <= 1 &&
            (!one || (docs->empty() ? !one->is_null()
                                    : boost::json::serialize(*one) != boost::json::serialize(docs->front())))) {
            __builtin_trap();
        }
    } else if (one || docs.error().message().rfind("yaml: ", 0) != 0) {
        __builtin_trap();
    }
    (void)kcoro::parse_yaml(text, kcoro::yaml_options{.plain_scalars_as_strings = true});
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput); }
#endif
