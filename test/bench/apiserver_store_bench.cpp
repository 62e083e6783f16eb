// Throughput of the pure object store: 10,000 ConfigMaps created, updated,
// listed, and the events_since fan-out to 100 filtered watchers.
// Prints figures; asserts nothing.
#include "store/object_store.hpp"

#include <kcoro/core/object.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace kcoro;
using namespace kcoro::apiserver;
namespace json = boost::json;
using clock_type = std::chrono::steady_clock;

namespace {

constexpr int objects = 10'000;
constexpr int watchers = 100;

double seconds_since(clock_type::time_point t) {
    return std::chrono::duration<double>(clock_type::now() - t).count();
}

json::object configmap(int i, int version) {
    json::object o{{"apiVersion", "v1"},
                   {"kind", "ConfigMap"},
                   {"metadata", json::object{{"name", "cm-" + std::to_string(i)},
                                             {"labels", json::object{{"shard", std::to_string(i % watchers)},
                                                                     {"app", "bench"}}}}},
                   {"data", json::object{{"key", "value-" + std::to_string(version)},
                                         {"payload", std::string(200, 'x')}}}};
    return o;
}

} // namespace

int main() {
    store_config cfg;
    cfg.history_size = 3 * objects;
    object_store s(cfg, wall_time{std::chrono::seconds(1'800'000'000)});
    request_context ctx;
    ctx.now = wall_time{std::chrono::seconds(1'800'000'000)};
    ctx.field_manager = "bench";

    auto start_rev = s.current_revision();
    auto t = clock_type::now();
    for (int i = 0; i < objects; ++i) {
        if (!s.create(ctx, resources::configmaps(), "default", configmap(i, 0))) return 1;
    }
    double create_s = seconds_since(t);
    std::printf("create:          %6d objects in %.3f s = %8.0f/s\n", objects, create_s, objects / create_s);

    t = clock_type::now();
    for (int i = 0; i < objects; ++i) {
        if (!s.update(ctx, resources::configmaps(), "default", "cm-" + std::to_string(i), configmap(i, 1))) return 1;
    }
    double update_s = seconds_since(t);
    std::printf("update:          %6d objects in %.3f s = %8.0f/s\n", objects, update_s, objects / update_s);

    // The same with managedFields tracking off (no field manager).
    ctx.field_manager.clear();
    t = clock_type::now();
    for (int i = 0; i < objects; ++i) {
        if (!s.update(ctx, resources::configmaps(), "default", "cm-" + std::to_string(i), configmap(i, 2))) return 1;
    }
    double update_nomf_s = seconds_since(t);
    std::printf("update (no mf):  %6d objects in %.3f s = %8.0f/s\n", objects, update_nomf_s, objects / update_nomf_s);

    constexpr int lists = 10;
    t = clock_type::now();
    std::size_t items = 0;
    for (int i = 0; i < lists; ++i) {
        auto l = s.list(resources::configmaps(), "default", {});
        if (!l) return 1;
        items = l->at("items").as_array().size();
    }
    double list_s = seconds_since(t) / lists;
    std::printf("list:            %6zu items in %.4f s (mean of %d)\n", items, list_s, lists);

    list_options paged;
    paged.limit = 500;
    t = clock_type::now();
    std::size_t paged_items = 0;
    do {
        auto l = s.list(resources::configmaps(), "default", paged);
        if (!l) return 1;
        paged_items += l->at("items").as_array().size();
        const auto* c = find_path(*l, {"metadata", "continue"});
        paged.continue_token = c ? std::string(c->as_string()) : std::string{};
    } while (!paged.continue_token.empty());
    std::printf("list limit=500:  %6zu items in %.4f s (all pages)\n", paged_items, seconds_since(t));

    // 100 watchers, each selecting one shard by label, catching up on all
    // 30,000 events (creates and two rounds of updates).
    std::vector<watch_filter> filters;
    for (int w = 0; w < watchers; ++w) {
        auto f = watch_filter::make(resources::configmaps(), "default", "shard=" + std::to_string(w), "");
        if (!f) return 1;
        filters.push_back(std::move(*f));
    }
    t = clock_type::now();
    std::size_t delivered = 0;
    for (const auto& f : filters) {
        auto evs = s.events_since(start_rev, f);
        if (!evs) return 1;
        delivered += evs->size();
    }
    double fan_s = seconds_since(t);
    std::size_t history = s.current_revision() - start_rev;
    std::printf("events_since:    %d watchers x %zu history events -> %zu delivered in %.3f s (%.2f ms/watcher)\n",
                watchers, history, delivered, fan_s, fan_s * 1000 / watchers);

    // Incremental fan-out: one write, every watcher asks for what is new.
    constexpr int writes = 1000;
    t = clock_type::now();
    std::size_t incremental = 0;
    for (int i = 0; i < writes; ++i) {
        auto before = s.current_revision();
        if (!s.update(ctx, resources::configmaps(), "default", "cm-" + std::to_string(i), configmap(i, 3))) return 1;
        for (const auto& f : filters) {
            auto evs = s.events_since(before, f);
            if (!evs) return 1;
            incremental += evs->size();
        }
    }
    double inc_s = seconds_since(t);
    std::printf("write+fan-out:   %d writes x %d watchers in %.3f s = %.1f us per write (%zu delivered)\n", writes,
                watchers, inc_s, inc_s * 1e6 / writes, incremental);
    return 0;
}
