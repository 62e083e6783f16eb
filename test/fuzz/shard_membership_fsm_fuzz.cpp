// Fuzz target: shard_membership_fsm in the model world of its unit test
// (test/support/shard_model.hpp): 2 to 4 replicas over one Lease store; the
// input's bytes choose, in order, every interleaving and fault (which
// replica acts and how, how far its cache moves, which write fails or
// answers late, when a replica is added, removed cleanly, killed, paused or
// its watch stalls); when they run out, a PRNG seeded from them goes on.
// Properties:
//  - after every step, no hash is held (active or draining) by two replicas
//    whose validity has not ended, and no replica has two writes in flight;
//  - once the faults stop, every running replica holds exactly its share of
//    the ring of the running replicas within 240 s of virtual time.
#include <kcoro/runtime/shard_membership_fsm.hpp>

#include "../support/shard_model.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace {

using namespace kcoro::testing_shard;

void check(bool ok, const std::string& what) {
    if (!ok) {
        std::fprintf(stderr, "property violated: %s\n", what.c_str());
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::size_t pos = 0;
    std::uint64_t seed = 1469598103934665603ULL;
    for (std::size_t i = 0; i < size; ++i) seed = (seed ^ data[i]) * 1099511628211ULL;
    std::mt19937_64 rng(seed);
    model w([&](std::size_t n) -> std::size_t {
        if (pos < size) {
            std::size_t v = data[pos++];
            if (n > 256 && pos < size) v = v << 8 | data[pos++];
            return v % n;
        }
        return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
    });

    if (std::getenv("SHARD_TRACE")) w.trace = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    const auto n = 2 + w.pick(3);
    for (std::size_t i = 0; i < n; ++i) w.add();
    for (int k = 0; k < 10 && w.violation.empty(); ++k) {
        const auto ids = w.running_ids();
        auto* r = ids.empty() ? nullptr : w.find(ids[w.pick(ids.size())]);
        switch (w.pick(8)) {
        case 0:
            if (w.replicas.size() < 8) w.add();
            break;
        case 1:
            if (r && ids.size() > 1) {
                for (std::size_t i = 0; i < w.replicas.size(); ++i) {
                    if (&w.replicas[i] == r) w.feed(i, kcoro::runtime::sm::shutdown{w.now});
                }
            }
            break;
        case 2:
            if (r && ids.size() > 1) r->m = model::mode::killed;
            break;
        case 3:
            if (r && ids.size() > 1) {
                r->m = model::mode::paused;
                r->paused_until = w.now + std::chrono::seconds(1 + w.pick(40));
            }
            break;
        case 4:
            if (r) r->watch_stalled_until = w.now + std::chrono::seconds(w.pick(40));
            break;
        case 5:
            w.slow_answers = !w.slow_answers;
            break;
        case 6:
            if (r) {
                r->next_answer_delay = std::chrono::milliseconds(w.pick(9000));
                r->pause_after_answer = std::chrono::seconds(w.pick(30));
            }
            break;
        default:
            break;
        }
        w.run(std::chrono::milliseconds(w.pick(20000)));
    }
    check(w.violation.empty(), w.violation);

    // The faults stop (armed ones disarmed); one more replica joins, so that
    // one that is not leaving surely runs.
    w.slow_answers = false;
    w.write_failures = w.lost_answers = 0;  // else a replica may lose its Lease at any time
    for (auto& r : w.replicas) {
        r.next_answer_delay = 0ms;
        r.pause_on_answer = false;
    }
    w.add();
    w.settle(240s);
    check(w.violation.empty(), w.violation);
    std::string why;
    if (!w.converged(&why)) {
        for (const auto& r : w.replicas) {
            why += "\n  " + r.id + ": mode " + std::to_string(static_cast<int>(r.m)) + " " + r.stop_reason +
                   ", active " + std::to_string(fraction_of_space(r.fsm.active())) + ", announced " +
                   to_annotation(r.fsm.announced()).substr(0, 200);
        }
    }
    check(w.converged(), "not converged within 240 s after the faults stopped: " + why);
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
// Each input runs minutes of virtual time: 50 mutations, not the parsers' 4000
// (the corpus replayed takes most of the time).
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput, 50); }
#endif
