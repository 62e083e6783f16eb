// Fuzz target: Status decoding of arbitrary response bodies. A decoded
// Status must survive encode/decode with its code, reason and message, and
// turn into an error value whose predicates can be asked without crashing.
#include <kcoro/core/error.hpp>
#include <kcoro/core/status.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view body(reinterpret_cast<const char*>(data), size);
    auto s = kcoro::decode_status_body(body);
    if (!s) {
        auto fallback = kcoro::status_from_http(500, body);
        if (fallback.code != 500) std::abort();
        return 0;
    }
    auto again = kcoro::decode_status(kcoro::encode_status(*s));
    if (!again || again->code != s->code || again->reason != s->reason || again->message != s->message) {
        std::abort();
    }
    auto e = kcoro::error::from_status(*s);
    if (!kcoro::is_api_error(e)) std::abort();
    (void)kcoro::needs_relist(e);
    (void)kcoro::is_retryable(e);
    (void)e.message();
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput, 20000); }
#endif
