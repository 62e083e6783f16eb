// Fuzz target: the opaque `continue` token of paginated lists (apiserver
// store). Clients send it back as they got it, but nothing stops them from
// sending anything. Properties: decoding any text never throws or crashes and
// fails with a decode error naming the token as invalid; a decoded token
// encodes to a text that decodes to the same token; a token made from the
// input (revision and key from its bytes) survives encode/decode when it is
// one the store could have written (a clean key, revision > 0).
#include "store/continue_token.hpp"

#include <kcoro/core/error.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace {

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "property violated: %s\n", what);
        std::abort();
    }
}

// What object_key::str() produces: "ns/name" or "name", DNS-ish names.
bool store_key(std::string_view k) {
    if (k.empty() || k.size() > 200) return false;
    std::size_t slashes = 0;
    for (std::size_t i = 0; i < k.size(); ++i) {
        char c = k[i];
        if (c == '/') {
            if (i == 0 || i + 1 == k.size() || ++slashes > 1) return false;
        } else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) {
            return false;
        }
    }
    return k != "." && k != ".." && !k.starts_with("./") && !k.starts_with("../") && !k.ends_with("/.") &&
           !k.ends_with("/..");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace kcoro::apiserver;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto t = decode_continue_token(text);
    if (!t) {
        check(t.error().code() == kcoro::make_error_code(kcoro::kcoro_errc::decode_error), "not a decode error");
        check(t.error().message().find("continue key is not valid") != std::string::npos, "an unnamed failure");
    } else {
        auto again = decode_continue_token(encode_continue_token(*t));
        check(again && again->revision == t->revision && again->last_key == t->last_key, "decode/encode/decode");
    }
    if (size > 8) {
        continue_token made;
        std::memcpy(&made.revision, data, 8);
        made.last_key.assign(text.substr(8));
        if (made.revision > 0 && made.revision <= static_cast<std::uint64_t>(INT64_MAX) && store_key(made.last_key)) {
            auto back = decode_continue_token(encode_continue_token(made));
            check(back && back->revision == made.revision && back->last_key == made.last_key, "encode/decode");
        }
    }
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput); }
#endif
