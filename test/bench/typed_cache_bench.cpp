// Typed cache reads: what a read of an informer cache costs as JSON, as a
// decode on every read, and through typed_memo (decoded once per object
// version), on real-server-shaped objects (test/support/typed_samples.hpp)
// in a cache of 1,000. Prints figures; asserts only that every read found
// its object.
//   meson test -C build-release --suite bench typed_cache_bench --verbose
#include <kcoro/runtime/typed_memo.hpp>

#include <kcoro/core/object.hpp>
#include <kcoro/typed/k8s/deployment.hpp>

#include <boost/json/parse.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "api/gateway_instance_types.hpp"
#include "typed_samples.hpp"

namespace json = boost::json;
namespace typed = kcoro::typed;
using kcoro::object_key;
using kcoro::object_ptr;

namespace {

std::size_t sink = 0;

template <class Op> void measure(const char* kind, const char* what, Op op) {
    using clock = std::chrono::steady_clock;
    for (int i = 0; i < 200; ++i)
        op();
    const auto budget = std::chrono::milliseconds(400);
    std::size_t n = 0;
    auto start = clock::now();
    clock::duration took{};
    do {
        for (int i = 0; i < 100; ++i)
            op();
        n += 100;
        took = clock::now() - start;
    } while (took < budget);
    const double per = std::chrono::duration<double>(took).count() / static_cast<double>(n);
    std::printf("%-16s %-44s %8.3f us/read %10.0f reads/s\n", kind, what, per * 1e6, 1.0 / per);
}

template <class T> int bench(const char* kind, std::string_view sample) {
    constexpr int objects = 1000;
    kcoro::runtime::object_cache cache;
    std::vector<object_key> keys;
    auto base = json::parse(sample).as_object();
    for (int i = 0; i < objects; ++i) {
        auto o = base;
        auto& m = kcoro::mutable_metadata(o);
        m["name"] = "obj-" + std::to_string(i);
        cache.apply(std::make_shared<const json::object>(std::move(o)));
        keys.push_back({std::string(kcoro::namespace_of(base)), "obj-" + std::to_string(i)});
    }
    std::size_t next = 0;
    bool missing = false;
    auto key = [&]() -> const object_key& { return keys[next++ % keys.size()]; };

    measure(kind, "json: cache.get (parse the stored text)", [&] {
        auto o = cache.get(key());
        missing = missing || !o;
        sink += o ? o->size() : 0;
    });
    measure(kind, "typed: cache.get + decode on every read", [&] {
        auto o = cache.get(key());
        T out;
        missing = missing || !o;
        sink += o ? typed::decode(*o, out).size() + out.metadata.name.size() : 0;
    });
    kcoro::runtime::typed_memo<T> memo(4096);
    measure(kind, "typed: typed_memo, every read a hit", [&] {
        auto o = memo.get(cache, key());
        missing = missing || !o || !*o;
        sink += (o && *o) ? (*o)->metadata.name.size() : 0;
    });
    // Each object changed since the last read: the memo decodes again.
    measure(kind, "typed: typed_memo, every read a new version", [&] {
        const auto& k = key();
        cache.apply(cache.get(k));  // a new stamp: what an update event does (plus its own cost)
        auto o = memo.get(cache, k);
        missing = missing || !o || !*o;
        sink += (o && *o) ? (*o)->metadata.name.size() : 0;
    });
    measure(kind, "  (the update alone: cache.apply of a read)", [&] {
        const auto& k = key();
        cache.apply(cache.get(k));
        sink += cache.size();
    });
    std::printf("%s: memo %zu entries, %llu decodes, %llu hits\n", kind, memo.size(),
                static_cast<unsigned long long>(memo.decodes()), static_cast<unsigned long long>(memo.hits()));
    if (missing) {
        std::fprintf(stderr, "%s: a read missed its object\n", kind);
        return 1;
    }
    return 0;
}

} // namespace

int main() {
    int status = 0;
    status |= bench<kcoro::k8s::deployment>("Deployment", kcoro::test::samples::deployment);
    status |= bench<gateway::v1alpha1::gateway_instance>("GatewayInstance", kcoro::test::samples::gateway_instance);
    std::printf("(sink %zu)\n", sink % 10);
    return status;
}
