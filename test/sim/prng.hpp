// The simulation's one source of choices: xoshiro256** seeded through
// splitmix64 (Vigna's recommendation), so seed N always gives the same
// stream on every platform (no std::uniform_*_distribution, whose output
// the standard leaves to the library).
#pragma once

#include <chrono>
#include <cstdint>

namespace kcoro::sim {

class prng {
public:
    explicit prng(std::uint64_t seed) {
        std::uint64_t x = seed;
        for (auto& s : s_) s = splitmix64(x);
    }

    std::uint64_t next() noexcept {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    /// [0, 1) with 53 random bits.
    double real() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    /// [0, n), n > 0 (modulo: the bias is below n / 2^64, irrelevant here).
    std::uint64_t below(std::uint64_t n) noexcept { return n ? next() % n : 0; }
    /// [lo, hi]
    std::int64_t between(std::int64_t lo, std::int64_t hi) noexcept {
        return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo) + 1));
    }
    bool chance(double p) noexcept { return real() < p; }
    /// A duration uniformly in [lo, hi], in milliseconds.
    std::chrono::milliseconds millis(std::chrono::milliseconds lo, std::chrono::milliseconds hi) noexcept {
        return std::chrono::milliseconds(between(lo.count(), hi.count()));
    }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
    static std::uint64_t splitmix64(std::uint64_t& x) noexcept {
        std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    std::uint64_t s_[4];
};

} // namespace kcoro::sim
