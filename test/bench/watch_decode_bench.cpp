// Benchmark: watch-stream decoding and List decoding (suite `bench`).
//
//  1. 100,000 ConfigMap watch events of about 1 KiB each, generated in
//     memory, fed to kcoro::watch_decoder in 16 KiB chunks: events/s, MB/s,
//     and the ratio to boost::json::parse of each event's bytes alone (the
//     lower bound for any decoder that builds a DOM).
//  2. A 10,000-ConfigMap List body through kcoro::decode_list_body, against
//     boost::json::parse of the same body.
//
// Times are thread CPU time, best of several runs. Prints figures; asserts
// nothing about speed. Build with
// -Dbuildtype=release for numbers worth reporting.
#include <kcoro/core/list_decoder.hpp>
#include <kcoro/core/watch_decoder.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

namespace json = boost::json;

namespace {

json::object make_configmap(int i) {
    json::object cm;
    cm["kind"] = "ConfigMap";
    cm["apiVersion"] = "v1";
    json::object meta;
    meta["name"] = "cm-" + std::to_string(i);
    meta["namespace"] = "bench";
    meta["uid"] = "3f0c9b8e-1d2a-4c5b-9e7f-" + std::to_string(100000000000 + i);
    meta["resourceVersion"] = std::to_string(1000 + i);
    meta["creationTimestamp"] = "2026-11-29T11:00:00Z";
    meta["labels"] = {{"app", "bench"}, {"tier", "cache"}, {"index", std::to_string(i % 97)}};
    meta["annotations"] = {{"kcoro.dev/checksum", "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}};
    cm["metadata"] = std::move(meta);
    json::object data;
    for (int k = 0; k < 8; ++k) {
        data["key-" + std::to_string(k)] = std::string(70, static_cast<char>('a' + (i + k) % 26));
    }
    cm["data"] = std::move(data);
    return cm;
}

// Thread CPU time, not wall time: the build machines are shared and busy,
// and CPU time is what a decoder costs the process.
double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

template <class F>
double best_of(int runs, F&& f) {
    double best = 1e300;
    for (int r = 0; r < runs; ++r) {
        auto t0 = cpu_seconds();
        f();
        best = std::min(best, cpu_seconds() - t0);
    }
    return best;
}

void bench_watch() {
    constexpr int events = 100000;
    constexpr std::size_t chunk = 16 * 1024;
    std::string stream;
    std::vector<std::string_view> lines;  // each event's bytes, for the baseline
    std::vector<std::size_t> offsets;
    for (int i = 0; i < events; ++i) {
        json::object ev;
        ev["type"] = i % 3 == 0 ? "ADDED" : "MODIFIED";
        ev["object"] = make_configmap(i);
        offsets.push_back(stream.size());
        stream += json::serialize(ev);
        stream += '\n';
    }
    offsets.push_back(stream.size());
    for (int i = 0; i < events; ++i) {
        lines.emplace_back(stream.data() + offsets[i], offsets[i + 1] - offsets[i] - 1);
    }
    const double mb = static_cast<double>(stream.size()) / 1e6;

    std::size_t decoded = 0;
    double t_dec = best_of(3, [&] {
        kcoro::watch_decoder d;
        decoded = 0;
        for (std::size_t pos = 0; pos < stream.size(); pos += chunk) {
            d.feed(std::string_view(stream).substr(pos, chunk));
            while (auto e = d.next()) {
                if (!*e) {
                    std::fprintf(stderr, "decode failed: %s\n", e->error().message().c_str());
                    std::exit(1);
                }
                ++decoded;
            }
        }
        if (!d.finish()) std::exit(1);
    });
    std::size_t parsed = 0;
    double t_parse = best_of(3, [&] {
        parsed = 0;
        for (auto l : lines) {
            boost::system::error_code ec;
            auto v = json::parse(l, ec);
            if (ec) std::exit(1);
            parsed += v.is_object();
        }
    });
    std::printf("watch decode: %d ConfigMap events, %.1f MB (%.0f bytes/event), 16 KiB chunks\n", events, mb,
                static_cast<double>(stream.size()) / events);
    std::printf("  kcoro::watch_decoder   %8.3f s  %10.0f events/s  %7.1f MB/s  (%zu events)\n", t_dec,
                events / t_dec, mb / t_dec, decoded);
    std::printf("  boost::json::parse     %8.3f s  %10.0f events/s  %7.1f MB/s  (per event, pre-split)\n", t_parse,
                events / t_parse, mb / t_parse);
    std::printf("  ratio decoder/parse    %8.2f x time\n", t_dec / t_parse);
    (void)parsed;
}

void bench_list() {
    constexpr int items = 10000;
    json::object list;
    list["kind"] = "ConfigMapList";
    list["apiVersion"] = "v1";
    list["metadata"] = {{"resourceVersion", "987654"}};
    json::array arr;
    for (int i = 0; i < items; ++i) {
        auto cm = make_configmap(i);
        cm.erase("kind");  // as kube-apiserver serves typed lists
        cm.erase("apiVersion");
        arr.push_back(std::move(cm));
    }
    list["items"] = std::move(arr);
    auto body = json::serialize(list);
    const double mb = static_cast<double>(body.size()) / 1e6;
    std::size_t n = 0;
    double t_dec = best_of(5, [&] {
        auto r = kcoro::decode_list_body(body);
        if (!r) std::exit(1);
        n = r->items.size();
    });
    double t_parse = best_of(5, [&] {
        boost::system::error_code ec;
        auto v = json::parse(body, ec);
        if (ec) std::exit(1);
    });
    std::printf("list decode: %d-item ConfigMapList, %.1f MB\n", items, mb);
    std::printf("  kcoro::decode_list_body %7.2f ms  %7.1f MB/s  (%zu items)\n", t_dec * 1e3, mb / t_dec, n);
    std::printf("  boost::json::parse      %7.2f ms  %7.1f MB/s\n", t_parse * 1e3, mb / t_parse);
    std::printf("  ratio decode/parse     %8.2f x time\n", t_dec / t_parse);
}

} // namespace

int main() {
    bench_watch();
    bench_list();
    return 0;
}
