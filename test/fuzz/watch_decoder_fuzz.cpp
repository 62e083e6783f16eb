// Fuzz target: the incremental watch decoder. The input is decoded twice,
// once in one chunk and once split at points derived from the data itself;
// both runs must agree (events, their types, the final outcome), since the
// chunking of a body is arbitrary. Nothing may throw or crash.
#include <kcoro/core/watch_decoder.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace {

struct outcome {
    std::vector<int> events;  // event type, or -1 for an error
    bool finished_ok = false;
};

outcome decode(std::string_view input, bool split) {
    kcoro::watch_decoder d;
    outcome out;
    auto drain = [&] {
        while (auto e = d.next()) {
            out.events.push_back(e->has_value() ? static_cast<int>((*e)->type) : -1);
            if (e->has_value() && !(*e)->object) std::abort();  // a decoded event always has its object
        }
    };
    std::size_t pos = 0;
    std::size_t salt = 0;
    while (pos < input.size()) {
        std::size_t len = input.size() - pos;
        if (split) {
            // chunk lengths 1..32 chosen by the data, so every corpus entry
            // exercises different split points
            len = std::min<std::size_t>(len, 1 + (static_cast<unsigned char>(input[(pos + salt) % input.size()]) % 32));
            ++salt;
        }
        d.feed(input.substr(pos, len));
        pos += len;
        drain();
    }
    auto f = d.finish();
    drain();
    out.finished_ok = f.has_value();
    if (d.failed() && f.has_value()) std::abort();  // a failed decoder never finishes cleanly
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view input(reinterpret_cast<const char*>(data), size);
    auto whole = decode(input, false);
    auto pieces = decode(input, true);
    if (whole.events != pieces.events || whole.finished_ok != pieces.finished_ok) {
        std::abort();
    }
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput, 20000); }
#endif
