// Fuzz target: label selector parsing. Any input parses or gives a 400 error
// (never throws); a parsed selector prints to text that parses back to the
// same selector, and matching never crashes.
#include <kcoro/core/label_selector.hpp>

#include <boost/json/object.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto s = kcoro::label_selector::parse(text);
    if (!s) {
        if (s.error().http_code() != 400) std::abort();
        return 0;
    }
    auto again = kcoro::label_selector::parse(s->str());
    if (!again || *again != *s) std::abort();
    boost::json::object labels{{"app", "web"}, {"env", "prod"}, {"a.b/c", ""}};
    (void)s->matches(&labels);
    (void)s->matches(nullptr);
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput, 20000); }
#endif
