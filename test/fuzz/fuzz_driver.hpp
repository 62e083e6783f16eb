// Stand-alone driver for a libFuzzer target, used when the target is built
// without libFuzzer (KCORO_LIBFUZZER undefined), as the `fuzz` test suite
// does: run every file of the seed corpus directory given as argv[1], then a
// few thousand deterministic mutations of them (bit flips, byte insertions and
// deletions, truncations, splices). A crash, sanitizer report or trap fails
// the test; the exit code is 0 otherwise.
//
// Include it from exactly one translation unit per target, after declaring
// LLVMFuzzerTestOneInput.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace kcoro_fuzz {

inline std::uint64_t next_random(std::uint64_t& s) {
    // xorshift64*: deterministic, so a failure reproduces from the seed list.
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ULL;
}

inline void run(const std::string& input) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

inline std::string mutate(const std::vector<std::string>& seeds, std::uint64_t& rng) {
    std::string s = seeds[next_random(rng) % seeds.size()];
    int rounds = 1 + static_cast<int>(next_random(rng) % 4);
    for (int r = 0; r < rounds; ++r) {
        auto pos = s.empty() ? 0 : next_random(rng) % (s.size() + 1);
        switch (next_random(rng) % 6) {
        case 0:  // flip a bit
            if (!s.empty()) s[pos % s.size()] ^= static_cast<char>(1u << (next_random(rng) % 8));
            break;
        case 1:  // insert a byte, biased towards JSON punctuation
        {
            static const char interesting[] = "{}[]\":,\\ \n0-eE.tfnu\x00\xff";
            s.insert(s.begin() + static_cast<std::ptrdiff_t>(pos),
                     interesting[next_random(rng) % (sizeof(interesting) - 1)]);
            break;
        }
        case 2:  // delete a range
            if (!s.empty()) s.erase(pos % s.size(), 1 + next_random(rng) % 16);
            break;
        case 3:  // truncate
            s.resize(pos);
            break;
        case 4:  // splice in part of another seed
        {
            const auto& o = seeds[next_random(rng) % seeds.size()];
            if (!o.empty()) {
                auto from = next_random(rng) % o.size();
                s.insert(pos, o.substr(from, 1 + next_random(rng) % 64));
            }
            break;
        }
        case 5:  // duplicate a range
            if (!s.empty()) {
                auto from = pos % s.size();
                s.insert(from, s.substr(from, 1 + next_random(rng) % 64));
            }
            break;
        }
    }
    return s;
}

inline int main(int argc, char** argv, int mutations = 4000) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <corpus-dir>\n", argv[0]);
        return 2;
    }
    std::vector<std::string> seeds;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(argv[1], ec)) {
        if (!entry.is_regular_file()) continue;
        std::ifstream in(entry.path(), std::ios::binary);
        seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    if (ec || seeds.empty()) {
        std::fprintf(stderr, "no seeds in %s\n", argv[1]);
        return 2;
    }
    for (const auto& s : seeds) run(s);
    run({});
    std::uint64_t rng = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < mutations; ++i) run(mutate(seeds, rng));
    std::printf("%zu seeds and %d mutations ran clean\n", seeds.size(), mutations);
    return 0;
}

} // namespace kcoro_fuzz
