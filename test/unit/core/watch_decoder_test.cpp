#include <kcoro/core/watch_decoder.hpp>

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

using namespace kcoro;

namespace {

// As kube-apiserver streams it: one JSON object per line.
const std::string sample_stream =
    R"({"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"u-a","resourceVersion":"100","creationTimestamp":"2026-11-29T10:00:00Z"},"data":{"k":"v with \"quotes\" and \u00e9"}}})"
    "\n"
    R"({"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"u-a","resourceVersion":"101"},"data":{"k":"v2","n":[1,2.5,-3e2,true,false,null]}}})"
    "\n"
    R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"102","annotations":{"k8s.io/initial-events-end":"true"}}}})"
    "\n"
    R"({"type":"DELETED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"u-a","resourceVersion":"103"}}})"
    "\n"
    R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 100 (103)","reason":"Expired","code":410}})j"
    "\n";

std::vector<result<watch_event>> drain(watch_decoder& d) {
    std::vector<result<watch_event>> out;
    while (auto e = d.next()) {
        out.push_back(std::move(*e));
    }
    return out;
}

// Checks the five events of sample_stream.
void check_sample(const std::vector<result<watch_event>>& evs) {
    REQUIRE(evs.size() == 5);
    for (const auto& e : evs) {
        REQUIRE(e.has_value());
    }
    CHECK(evs[0]->type == watch_event_type::added);
    CHECK(name_of(*evs[0]->object) == "a");
    CHECK(evs[0]->resource_version == "100");
    CHECK(evs[0]->object->at("data").at("k") == "v with \"quotes\" and \xc3\xa9");
    CHECK(evs[1]->type == watch_event_type::modified);
    CHECK(evs[1]->resource_version == "101");
    CHECK(evs[1]->object->at("data").at("n").as_array().size() == 6);
    CHECK(evs[2]->type == watch_event_type::bookmark);
    CHECK(evs[2]->resource_version == "102");
    CHECK(evs[2]->initial_events_end);
    CHECK(evs[3]->type == watch_event_type::deleted);
    CHECK(evs[3]->resource_version == "103");
    CHECK(evs[4]->type == watch_event_type::error);
    REQUIRE(evs[4]->status);
    CHECK(evs[4]->status->code == 410);
    auto err = evs[4]->to_error();
    CHECK(needs_relist(err));
    CHECK(err.code() == make_error_code(api_errc::expired));
}

} // namespace

TEST_CASE("the whole stream in one chunk: several events per chunk") {
    watch_decoder d;
    d.feed(sample_stream);
    check_sample(drain(d));
    CHECK(d.finish());
    CHECK(d.events_decoded() == 5);
    CHECK(d.bytes_consumed() == sample_stream.size());
}

TEST_CASE("every split point into two chunks gives the same events") {
    for (std::size_t i = 0; i <= sample_stream.size(); ++i) {
        CAPTURE(i);
        watch_decoder d;
        std::vector<result<watch_event>> evs;
        d.feed(std::string_view(sample_stream).substr(0, i));
        for (auto& e : drain(d)) evs.push_back(std::move(e));
        d.feed(std::string_view(sample_stream).substr(i));
        for (auto& e : drain(d)) evs.push_back(std::move(e));
        check_sample(evs);
        REQUIRE(d.finish());
    }
}

TEST_CASE("one byte at a time, and random three-way splits") {
    {
        watch_decoder d;
        std::vector<result<watch_event>> evs;
        for (char c : sample_stream) {
            d.feed(std::string_view(&c, 1));
            for (auto& e : drain(d)) evs.push_back(std::move(e));
        }
        check_sample(evs);
        CHECK(d.finish());
    }
    std::mt19937 rng(42);
    std::uniform_int_distribution<std::size_t> pos(0, sample_stream.size());
    for (int round = 0; round < 500; ++round) {
        auto a = pos(rng), b = pos(rng);
        if (a > b) std::swap(a, b);
        CAPTURE(a);
        CAPTURE(b);
        watch_decoder d;
        std::string_view s(sample_stream);
        d.feed(s.substr(0, a));
        d.feed(s.substr(a, b - a));
        d.feed(s.substr(b));
        check_sample(drain(d));
        CHECK(d.finish());
    }
}

TEST_CASE("whitespace between events, none at all, and CRLF are accepted") {
    watch_decoder d;
    d.feed("  \r\n{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"1\"}}}");
    d.feed("{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"2\"}}}\r\n\t \n");
    auto evs = drain(d);
    REQUIRE(evs.size() == 2);
    CHECK(evs[0]->type == watch_event_type::added);
    CHECK(evs[1]->resource_version == "2");
    CHECK(d.finish());
}

TEST_CASE("an empty body and a body of whitespace are clean ends") {
    watch_decoder a;
    CHECK(a.finish());
    watch_decoder b;
    b.feed("\n\n  ");
    CHECK_FALSE(b.next());
    CHECK(b.finish());
}

TEST_CASE("a truncated stream reports stream_truncated after the complete events") {
    auto cut = sample_stream.find("DELETED");
    REQUIRE(cut != std::string::npos);
    watch_decoder d;
    d.feed(std::string_view(sample_stream).substr(0, cut));
    auto evs = drain(d);
    CHECK(evs.size() == 3);
    auto r = d.finish();
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == make_error_code(kcoro_errc::stream_truncated));
    CHECK(d.failed());
    // a lone number cannot be an event even when complete
    watch_decoder n;
    n.feed("42");
    auto rn = n.finish();
    REQUIRE_FALSE(rn);
    CHECK(rn.error().code() == make_error_code(kcoro_errc::decode_error));
}

TEST_CASE("garbage is a decode error, and the decoder stays failed") {
    const char* bad[] = {
        "<html><body>502 Bad Gateway</body></html>",
        "{\"type\":\"ADDED\"}",
        "{\"type\":\"ADDED\",\"object\":\"x\"}",
        "{\"type\":7,\"object\":{}}",
        "{\"object\":{}}",
        "{\"type\":\"RENAMED\",\"object\":{}}",
        "[{\"type\":\"ADDED\",\"object\":{}}]",
        "\"ADDED\"",
        "{\"type\":\"ERROR\",\"object\":{\"kind\":\"ConfigMap\"}}",
        "{\"type\":\"ADDED\",\"object\":{},}",
        "{\"type\":\"ADDED\",\"object\":{]}",
    };
    for (const char* b : bad) {
        CAPTURE(b);
        watch_decoder d;
        d.feed(b);
        d.feed("\n{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"later\"}}}\n");
        auto evs = drain(d);
        REQUIRE(evs.size() == 1);
        REQUIRE_FALSE(evs[0]);
        CHECK(evs[0].error().code() == make_error_code(kcoro_errc::decode_error));
        CHECK_FALSE(evs[0].error().message().empty());
        CHECK(d.failed());
        CHECK_FALSE(d.next());  // reported once
        auto f = d.finish();
        REQUIRE_FALSE(f);
        CHECK(f.error().code() == make_error_code(kcoro_errc::decode_error));
    }
}

TEST_CASE("events before the garbage are still delivered, in order") {
    watch_decoder d;
    d.feed("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\nnot json\n");
    auto first = d.next();
    REQUIRE(first);
    REQUIRE(first->has_value());
    CHECK(name_of(*(*first)->object) == "a");
    auto second = d.next();
    REQUIRE(second);
    CHECK_FALSE(second->has_value());
}

TEST_CASE("an event larger than the limit is refused before it is complete") {
    watch_decoder d(1024);
    d.feed("{\"type\":\"ADDED\",\"object\":{\"data\":{\"k\":\"");
    std::string big(600, 'x');
    d.feed(big);
    CHECK_FALSE(d.failed());
    d.feed(big);
    CHECK(d.failed());
    auto e = d.next();
    REQUIRE(e);
    REQUIRE_FALSE(*e);
    CHECK(e->error().message().find("larger than 1024") != std::string::npos);
    // whitespace between events does not count
    watch_decoder w(64);
    w.feed(std::string(1000, '\n'));
    w.feed("{\"type\":\"ADDED\",\"object\":{}}");
    auto ok = w.next();
    REQUIRE(ok);
    CHECK(ok->has_value());
}

TEST_CASE("deep nesting as in managedFields is accepted") {
    std::string deep = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"d\"},\"x\":";
    for (int i = 0; i < 100; ++i) deep += "{\"f\":";
    deep += "1";
    for (int i = 0; i < 100; ++i) deep += "}";
    deep += "}}";
    watch_decoder d;
    d.feed(deep);
    auto e = d.next();
    REQUIRE(e);
    CHECK(e->has_value());
}

TEST_CASE("a BOOKMARK without the annotation is not the end of initial events") {
    watch_decoder d;
    d.feed(R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"55","annotations":{"k8s.io/initial-events-end":"false"}}}})");
    d.feed(R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"56"}}})");
    auto evs = drain(d);
    REQUIRE(evs.size() == 2);
    CHECK_FALSE(evs[0]->initial_events_end);
    CHECK(evs[0]->resource_version == "55");
    CHECK_FALSE(evs[1]->initial_events_end);
    CHECK(evs[1]->to_error() == error{});
}

TEST_CASE("an ERROR event with 500 is retryable, not a relist") {
    watch_decoder d;
    d.feed(R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"etcd down","reason":"InternalError","code":500}})");
    auto e = d.next();
    REQUIRE(e);
    REQUIRE(e->has_value());
    auto err = (*e)->to_error();
    CHECK_FALSE(needs_relist(err));
    CHECK(is_retryable(err));
    CHECK(err.http_code() == 500);
}
