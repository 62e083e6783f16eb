// Runtime benchmarks: no-op reconcile throughput of the pure workqueue
// (add/get/done cycles over many keys, with and without the async driver's
// bookkeeping), and the object cache's memory per cached ConfigMap.
// Prints figures; asserts nothing. Build with -Dbuildtype=release.
#include <kcoro/runtime/object_cache.hpp>
#include <kcoro/runtime/work_queue.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

using clk = std::chrono::steady_clock;

long rss_bytes() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * 4096;
}

void bench_work_queue(int cycles, int keys) {
    std::vector<kcoro::object_key> ks;
    ks.reserve(keys);
    for (int i = 0; i < keys; ++i) {
        ks.push_back({"default", "configmap-" + std::to_string(i)});
    }
    kcoro::runtime::work_queue q;
    kcoro::steady_time now{};
    auto t0 = clk::now();
    long handled = 0;
    // Adds arrive in bursts of `keys` (every key once), as after a relist;
    // each burst is drained by get/done with a no-op reconcile.
    for (int done = 0; done < cycles;) {
        for (int i = 0; i < keys && done + i < cycles; ++i) {
            q.add(ks[i], now);
        }
        while (auto k = q.get(now)) {
            q.forget(*k);
            q.done(*k, now);
            ++handled;
        }
        done += keys;
    }
    double s = std::chrono::duration<double>(clk::now() - t0).count();
    std::printf("work_queue: %ld add/get/forget/done cycles over %d keys in %.3f s = %.0f keys/s\n", handled, keys,
                s, handled / s);

    // Re-adds while processing (dirty path) and delayed adds.
    t0 = clk::now();
    handled = 0;
    for (int round = 0; round < cycles / keys; ++round) {
        for (int i = 0; i < keys; ++i) {
            q.add_after(ks[i], std::chrono::milliseconds(1 + i % 100), now);
        }
        now += std::chrono::milliseconds(200);
        while (auto k = q.get(now)) {
            q.add(*k, now);  // an event during the reconcile: dirty, requeued at done
            q.done(*k, now);
            auto again = q.get(now);
            q.done(*again, now);
            handled += 2;
        }
    }
    s = std::chrono::duration<double>(clk::now() - t0).count();
    std::printf("work_queue: %ld gets with add_after + re-add-while-processing in %.3f s = %.0f keys/s\n", handled,
                s, handled / s);
}

void bench_cache(int objects) {
    std::string payload(700, 'x');
    std::vector<kcoro::object_ptr> objs;
    objs.reserve(objects);
    std::size_t json_bytes = 0;
    std::size_t stripped_bytes = 0;
    for (int i = 0; i < objects; ++i) {
        std::string text = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"configmap-)" +
                           std::to_string(i) +
                           R"(","namespace":"default","uid":"3f2a1c9e-0000-4000-8000-)" + std::to_string(100000000000 + i) +
                           R"(","resourceVersion":")" + std::to_string(1000 + i) +
                           R"(","creationTimestamp":"2026-11-29T10:00:00Z","labels":{"app.example.io/managed":"true"},)"
                           R"("managedFields":[{"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":"2026-11-29T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:payload":{}},"f:metadata":{"f:labels":{"f:app.example.io/managed":{}}}}}]},)"
                           R"("data":{"payload":")" + payload + R"("}})";
        json_bytes += text.size();
        auto v = boost::json::parse(text);
        objs.push_back(std::make_shared<const boost::json::object>(std::move(v.as_object())));
    }
    auto t0 = clk::now();
    kcoro::runtime::object_cache cache;  // default transform: strip managedFields
    cache.handle({kcoro::runtime::watcher_event_type::init_start, nullptr});
    for (auto& o : objs) {
        cache.handle({kcoro::runtime::watcher_event_type::init_apply, o});
    }
    objs.clear();  // the cache now holds the only (stripped) copies
    objs.shrink_to_fit();
    cache.handle({kcoro::runtime::watcher_event_type::init_done, nullptr});
    double s = std::chrono::duration<double>(clk::now() - t0).count();
    for (const auto& o : cache.list()) {
        stripped_bytes += boost::json::serialize(*o).size();
    }
    std::printf("object_cache: %zu ConfigMaps, JSON %.0f B/object (%.0f B without managedFields), "
                "init_apply..init_done (strip + index) %.3f s\n",
                cache.size(), double(json_bytes) / objects, double(stripped_bytes) / objects, s);
}

void bench_cache_rss(int objects) {
    // RSS from before parsing to after the cache holds everything: what an
    // informer costs per object (parsed JSON + index entries + key).
    long before = rss_bytes();
    kcoro::runtime::object_cache cache;
    cache.handle({kcoro::runtime::watcher_event_type::init_start, nullptr});
    std::string payload(700, 'x');
    for (int i = 0; i < objects; ++i) {
        std::string text = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"configmap-)" +
                           std::to_string(i) +
                           R"(","namespace":"default","uid":"3f2a1c9e-0000-4000-8000-)" + std::to_string(100000000000 + i) +
                           R"(","resourceVersion":")" + std::to_string(1000 + i) +
                           R"(","creationTimestamp":"2026-11-29T10:00:00Z","labels":{"app.example.io/managed":"true"}},)"
                           R"("data":{"payload":")" + payload + R"("}})";
        auto v = boost::json::parse(text);
        cache.handle({kcoro::runtime::watcher_event_type::init_apply,
                      std::make_shared<const boost::json::object>(std::move(v.as_object()))});
    }
    cache.handle({kcoro::runtime::watcher_event_type::init_done, nullptr});
    long after = rss_bytes();
    std::printf("object_cache: %zu ConfigMaps (~1 KiB JSON each): RSS growth %.0f B/object\n", cache.size(),
                double(after - before) / objects);
}

} // namespace

int main() {
    bench_work_queue(1'000'000, 10'000);
    bench_cache_rss(10'000);
    bench_cache(10'000);
    return 0;
}
