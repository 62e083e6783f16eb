// Fuzz target: the watcher state machine and the object cache under any
// sequence of inputs (each byte picks an input; following bytes pick its
// details). Whatever happens, the fsm must keep the store's event sequence
// well formed (init_apply only inside init_start..init_done), ask for watch
// timeouts in [300, 600) s and sleeps that are neither in the past nor past
// the 60 s jittered cap unless the server asked (Retry-After), and the cache
// must stay consistent with what it reports.
#include <kcoro/runtime/object_cache.hpp>
#include <kcoro/runtime/watcher_fsm.hpp>

#include <boost/json/object.hpp>
#include <boost/system/errc.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

struct reader {
    const std::uint8_t* p;
    std::size_t n;
    std::uint8_t next() {
        if (n == 0) return 0;
        --n;
        return *p++;
    }
};

kcoro::object_ptr make_obj(std::uint8_t name, std::uint32_t rv) {
    boost::json::object o;
    o["apiVersion"] = "v1";
    o["kind"] = "ConfigMap";
    boost::json::object meta;
    meta["namespace"] = "ns";
    meta["name"] = "o" + std::to_string(name % 8);
    meta["resourceVersion"] = std::to_string(rv);
    if (name & 0x80) {
        meta["managedFields"] = boost::json::array{boost::json::object{{"manager", "m"}}};
    }
    o["metadata"] = std::move(meta);
    return std::make_shared<const boost::json::object>(std::move(o));
}

kcoro::error make_error(std::uint8_t k, std::uint8_t retry_after) {
    static const int codes[] = {400, 403, 404, 410, 410, 429, 500, 503, 504};
    static const char* reasons[] = {"BadRequest", "Forbidden", "NotFound", "Expired", "Gone",
                                    "TooManyRequests", "InternalError", "ServiceUnavailable", "Timeout"};
    switch (k % 4) {
    case 0: return kcoro::error(make_error_code(boost::system::errc::connection_refused));
    case 1: return kcoro::error(make_error_code(boost::system::errc::connection_reset));
    case 2: return kcoro::error(kcoro::kcoro_errc::decode_error, "garbage");
    default: {
        kcoro::status s;
        std::size_t i = (k / 4) % 9;
        s.code = codes[i];
        s.reason = reasons[i];
        if (retry_after % 3 == 0) {
            s.details = kcoro::status_details{};
            s.details->retry_after_seconds = retry_after;
            if (s.code == 504) s.details->causes.push_back({"ResourceVersionTooLarge", "", ""});
        }
        return kcoro::error::from_status(s);
    }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace kcoro::runtime;
    reader r{data, size};
    std::uint64_t seed = 1;
    watcher_options o;
    o.streaming_list = size > 0 && (data[0] & 1);
    o.random = [&seed] {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>(seed >> 11) / 9007199254740992.0;
    };
    watcher_fsm w(o);
    object_cache cache;
    kcoro::steady_time now{};
    bool in_init = false;
    std::uint32_t rv = 1;
    int max_retry_after = 0;
    for (int steps = 0; r.n > 0 && steps < 2000; ++steps) {
        std::uint8_t op = r.next();
        now += std::chrono::milliseconds(r.next() * 37);
        watcher_input in;
        switch (op % 10) {
        case 0: in = start{}; break;
        case 1: {
            const std::uint8_t how = r.next();
            if ((how & 7) == 0) {
                // An item streamed while the list's body arrives.
                in = list_item_received{make_obj(r.next(), rv++)};
                break;
            }
            list_page_received p{std::to_string(rv++), (how & 0x18) == 0 ? "c" : "", {}};
            for (int i = r.next() % 4; i > 0; --i) p.items.push_back(make_obj(r.next(), rv++));
            in = std::move(p);
            break;
        }
        case 2: {
            std::uint8_t ra = r.next();
            max_retry_after = std::max<int>(max_retry_after, ra);
            in = list_failed{make_error(r.next(), ra)};
            break;
        }
        case 3: in = watch_started{}; break;
        case 4: case 5: {
            kcoro::watch_event e;
            std::uint8_t t = r.next();
            e.type = static_cast<kcoro::watch_event_type>(t % 5);
            e.object = make_obj(r.next(), rv++);
            e.resource_version = std::string(kcoro::resource_version_of(*e.object));
            e.initial_events_end = (t & 0x10) != 0;
            if (e.type == kcoro::watch_event_type::error) {
                e.status = kcoro::status{"Failure", "", (t & 0x20) ? "Expired" : "TooManyRequests", (t & 0x20) ? 410 : 429, std::nullopt};
            }
            in = watch_event_received{std::move(e)};
            break;
        }
        case 6: in = watch_stream_ended{}; break;
        case 7: {
            std::uint8_t ra = r.next();
            max_retry_after = std::max<int>(max_retry_after, ra);
            in = watch_failed{make_error(r.next(), ra)};
            break;
        }
        case 8: in = timer_fired{}; break;
        default: if ((r.next() & 15) == 0) in = stop{}; else in = timer_fired{}; break;
        }
        auto a = w.step(in, now);
        for (const auto& e : a.events) {
            switch (e.type) {
            case watcher_event_type::init_start: in_init = true; break;
            case watcher_event_type::init_apply: if (!in_init || !e.object) std::abort(); break;
            case watcher_event_type::init_done: if (!in_init) std::abort(); in_init = false; break;
            default: if (in_init || !e.object) std::abort(); break;
            }
            auto notes = cache.handle(e);
            for (const auto& n : notes) {
                if (!n.object) std::abort();
            }
            // A watch event's object is what the cache now holds. (In a snapshot
            // a key may repeat, as the fuzzer's lists do: the last one wins.)
            if (e.type == watcher_event_type::apply &&
                (notes.size() != 1 || !notes[0].object || *cache.get(kcoro::key_of(*e.object)) != *notes[0].object)) {
                std::abort();
            }
        }
        if (auto* wr = std::get_if<watch_request>(&a.next)) {
            if (wr->timeout_seconds < 300 || wr->timeout_seconds >= 600) std::abort();
            if (wr->send_initial_events != (wr->resource_version_match == "NotOlderThan")) std::abort();
        }
        if (auto* s = std::get_if<sleep_until>(&a.next)) {
            auto d = s->deadline - now;
            if (d <= std::chrono::nanoseconds::zero()) std::abort();
            if (d > std::chrono::seconds(60) && d > std::chrono::seconds(max_retry_after)) std::abort();
        }
        if (auto* l = std::get_if<list_request>(&a.next)) {
            if (!l->continue_token.empty() && !l->resource_version.empty()) std::abort();
        }
        if (std::holds_alternative<watcher_done>(a.next) && w.state() != watcher_state::stopped) std::abort();
    }
    for (const auto& k : cache.keys()) {
        auto obj = cache.get(k);
        if (!obj || kcoro::key_of(*obj) != k || kcoro::managed_fields_of(*obj)) std::abort();
    }
    if (cache.list_namespace("ns").size() != cache.size()) std::abort();
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput, 4000); }
#endif
