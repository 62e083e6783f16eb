// Stand-alone driver for a libFuzzer target, used when the target is built
// without libFuzzer (KCORO_LIBFUZZER undefined), as the `fuzz` test suite
// does: run every file of the seed corpus directory given as argv[1] and the
// empty input, then a fixed number of deterministic pseudo-random mutations
// of them (bit flips, inserted JSON/YAML tokens, deletions, truncations,
// duplicated ranges, splices). A crash, sanitizer report or trap fails the
// test; the exit code is 0 otherwise. Given files instead of a directory, it
// runs just those (to reproduce a crash input from libFuzzer under g++).
//
// Include it from exactly one translation unit per target, after defining
// LLVMFuzzerTestOneInput:
//   int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput); }
// (`kcoro_fuzz::main(argc, argv, n)` is the older spelling of the same.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace kcoro::fuzz {

using target_fn = int (*)(const std::uint8_t*, std::size_t);

// xorshift64*: deterministic, so a failure reproduces from the seed list.
class xorshift {
public:
    explicit xorshift(std::uint64_t seed) : s_(seed ? seed : 1) {}
    std::uint64_t next() {
        s_ ^= s_ >> 12;
        s_ ^= s_ << 25;
        s_ ^= s_ >> 27;
        return s_ * 2685821657736338717ULL;
    }
    std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }

private:
    std::uint64_t s_;
};

inline std::string mutate(const std::vector<std::string>& seeds, xorshift& rng) {
    static const char* tokens[] = {"{",  "}",   "[",    "]",    "\"",  ":",     ",",   "\\",  " ",   "\n",
                                   "0",  "-",   "e",    ".",    "true", "null", "\\u", ": ",  "- ",  "\n  ",
                                   "'",  "|",   ">-",   "|+",   "---\n", "...", "#",   "\t",  "&a",  "*a",
                                   "!!str ", "?", "~",  "0x",   "1e9",  "\xEF\xBB\xBF", "\r\n", "\x00", "\xff"};
    std::string s = seeds[rng.below(seeds.size())];
    int rounds = 1 + static_cast<int>(rng.below(4));
    for (int r = 0; r < rounds; ++r) {
        std::size_t pos = rng.below(s.size() + 1);
        switch (rng.below(7)) {
        case 0: // flip a bit
            if (!s.empty()) {
                s[rng.below(s.size())] ^= static_cast<char>(1u << rng.below(8));
            }
            break;
        case 1: { // insert a token
            const char* t = tokens[rng.below(std::size(tokens))];
            s.insert(pos, t[0] ? std::string(t) : std::string(1, '\0'));
            break;
        }
        case 2: // delete a range
            s.erase(pos, 1 + rng.below(16));
            break;
        case 3: // truncate
            s.resize(pos);
            break;
        case 4: { // splice in part of another seed
            const std::string& o = seeds[rng.below(seeds.size())];
            if (!o.empty()) {
                s.insert(pos, o.substr(rng.below(o.size()), 1 + rng.below(128)));
            }
            break;
        }
        case 5: // duplicate a range
            if (pos < s.size()) {
                s.insert(pos, s.substr(pos, 1 + rng.below(64)));
            }
            break;
        default: // indentation noise
            s.insert(pos, std::string(rng.below(8), ' '));
            break;
        }
    }
    return s;
}

inline std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline int run_driver(int argc, char** argv, target_fn target, int mutations = 4000) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <corpus-dir> | <input-file>...\n", argv[0]);
        return 2;
    }
    auto run = [&](const std::string& s) { target(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()); };
    if (std::filesystem::is_regular_file(argv[1])) {
        // Reproduce: run the given inputs only (a crash file from libFuzzer).
        for (int i = 1; i < argc; ++i) {
            std::printf("running %s\n", argv[i]);
            run(read_file(argv[i]));
        }
        return 0;
    }
    std::vector<std::string> seeds;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(argv[1], ec)) {
        if (entry.is_regular_file()) {
            seeds.push_back(read_file(entry.path()));
        }
    }
    if (ec || seeds.empty()) {
        std::fprintf(stderr, "no seeds in %s\n", argv[1]);
        return 2;
    }
    for (const auto& s : seeds) {
        run(s);
    }
    run({});
    xorshift rng(0x9e3779b97f4a7c15ULL);
    for (int i = 0; i < mutations; ++i) {
        run(mutate(seeds, rng));
    }
    std::printf("%zu seeds and %d mutations ran clean\n", seeds.size(), mutations);
    return 0;
}

} // namespace kcoro::fuzz

namespace kcoro_fuzz {
inline int main(int argc, char** argv, int mutations = 4000) {
    return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput, mutations);
}
} // namespace kcoro_fuzz
