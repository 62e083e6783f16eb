// Typed objects against the JSON-only path, on real-server-shaped objects
// (test/support/typed_samples.hpp: a Deployment of 3.7 KB and a
// GatewayInstance of 2.7 KB, compact): per object and per MB of compact
// JSON text. Prints figures; asserts only that every run decoded.
//   meson test -C build-release --suite bench typed_bench --verbose
// (scripts/kcoro-dev bench configures build-release with -Dbuildtype=release)
#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/k8s/deployment.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <chrono>
#include <cstdio>
#include <string>

#include "api/gateway_instance_types.hpp"
#include "typed_samples.hpp"

namespace json = boost::json;
namespace typed = kcoro::typed;

namespace {

std::size_t sink = 0; // keeps the optimizer from dropping the work

// Runs `op` for about `budget`, after a short warm-up; prints us/object,
// objects/s and MB/s of `bytes` per object.
template <class Op> void measure(const char* kind, const char* what, std::size_t bytes, Op op) {
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
    double secs = std::chrono::duration<double>(took).count();
    double per = secs / static_cast<double>(n);
    std::printf("%-17s %-34s %8.2f us/object %10.0f objects/s %8.1f MB/s\n", kind, what, per * 1e6, 1.0 / per,
                static_cast<double>(bytes) / per / 1e6);
}

template <class T> int bench(const char* kind, std::string_view sample) {
    const json::value value = json::parse(sample);
    const std::string text = json::serialize(value); // compact, as servers send it
    auto decoded = typed::from_json<T>(value);
    if (!decoded) {
        std::fprintf(stderr, "%s: %s\n", kind, typed::describe(decoded.error()).c_str());
        return 1;
    }
    const T object = *decoded;
    if (typed::to_json(object) != value) {
        std::fprintf(stderr, "%s: the round trip is not exact\n", kind);
        return 1;
    }
    const std::size_t bytes = text.size();
    std::printf("%s: %zu bytes of compact JSON\n", kind, bytes);

    // The JSON-only path.
    measure(kind, "json: parse (text -> value)", bytes,
            [&] { sink += json::parse(text).as_object().size(); });
    measure(kind, "json: serialize (value -> text)", bytes, [&] { sink += json::serialize(value).size(); });
    measure(kind, "json: copy a value (deep)", bytes, [&] {
        json::value copy = value;
        sink += copy.as_object().size();
    });
    // The typed path on top of it.
    measure(kind, "typed: decode (value -> T)", bytes, [&] {
        T out;
        sink += typed::decode(value, out).size() + out.metadata.name.size();
    });
    measure(kind, "typed: encode (T -> value)", bytes, [&] { sink += typed::to_object(object).size(); });
    measure(kind, "typed: parse + decode (text -> T)", bytes, [&] {
        T out;
        sink += typed::decode(json::parse(text), out).size() + out.metadata.name.size();
    });
    measure(kind, "typed: encode + serialize (T -> text)", bytes,
            [&] { sink += json::serialize(typed::to_object(object)).size(); });
    return 0;
}

} // namespace

int main() {
    int status = 0;
    status |= bench<kcoro::k8s::deployment>("Deployment", kcoro::test::samples::deployment);
    status |=
        bench<gateway::v1alpha1::gateway_instance>("GatewayInstance", kcoro::test::samples::gateway_instance);
    std::printf("(sink %zu)\n", sink % 10);
    return status;
}
