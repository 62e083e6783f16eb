// Fuzz target: the workqueue under any sequence of add, add_after,
// add_rate_limited, get, done, forget and shutdown (each byte picks an
// operation and a key). Checked against a model: a key is never handed out
// while it is processing, done of a key not handed out changes nothing, and
// (without shutdown) every key added is handed out after its last add once
// time runs far enough.
#include <kcoro/runtime/work_queue.hpp>

#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace std::chrono_literals;
    kcoro::runtime::work_queue q;
    kcoro::steady_time now{};
    std::set<kcoro::object_key> processing;  // model
    std::set<kcoro::object_key> owed;        // added since last handed out
    bool shut = false;
    auto key = [](std::uint8_t b) { return kcoro::object_key{"ns", "k" + std::to_string(b % 16)}; };
    for (std::size_t i = 0; i + 1 < size; i += 2) {
        std::uint8_t op = data[i];
        auto k = key(data[i + 1]);
        now += std::chrono::milliseconds(op >> 3);
        switch (op % 9) {
        case 0:
        case 1:
            q.add(k, now);
            if (!shut) owed.insert(k);
            break;
        case 2:
            q.add_after(k, std::chrono::milliseconds(data[i + 1] * 10), now);
            if (!shut) owed.insert(k);
            break;
        case 3:
            q.add_rate_limited(k, now);
            if (!shut) owed.insert(k);
            break;
        case 4:
        case 5:
            if (auto got = q.get(now)) {
                if (processing.contains(*got)) std::abort();  // never two at once
                processing.insert(*got);
                owed.erase(*got);
            }
            break;
        case 6:
            if (!processing.empty()) {
                auto it = processing.begin();
                std::advance(it, data[i + 1] % processing.size());
                q.done(*it, now);
                processing.erase(it);
            } else {
                auto len = q.len();
                q.done(k, now);  // not handed out: no effect
                if (q.len() != len) std::abort();
            }
            break;
        case 7:
            q.forget(k);
            if (q.num_requeues(k) != 0) std::abort();
            break;
        default:
            if (data[i + 1] == 0xff) {
                q.shut_down();
                shut = true;
            }
            break;
        }
        if (q.num_processing() != processing.size()) std::abort();
    }
    if (shut) {
        return 0;
    }
    // Finish everything and let time run: every owed key must come out.
    for (const auto& k : processing) q.done(k, now);
    processing.clear();
    now += std::chrono::hours(24 * 365);
    for (int guard = 0; guard < 1000; ++guard) {
        auto got = q.get(now);
        if (!got) break;
        owed.erase(*got);
        q.done(*got, now);
    }
    if (!owed.empty() || q.len() != 0 || q.num_waiting() != 0) std::abort();
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput, 4000); }
#endif
