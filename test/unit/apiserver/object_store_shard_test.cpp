// object_store with KEP-5866's shardSelector: list (every page, the
// shardInfo echo), the watch feed, the 400 for a bad selector, and the gate
// (store_config::sharded_list_and_watch) off: the parameter ignored.
#include "store/object_store.hpp"

#include "store_test_support.hpp"

#include <doctest/doctest.h>

#include <map>
#include <set>

using namespace kcoro;
using namespace kcoro::apiserver;
using namespace kcoro::apiserver::test;
namespace json = boost::json;

namespace {

store_config gate_on() {
    store_config c;
    c.sharded_list_and_watch = true;
    return c;
}

std::string hex(std::uint64_t v) {
    static const char* d = "0123456789abcdef";
    std::string s = "0x";
    for (int i = 60; i >= 0; i -= 4) s.push_back(d[(v >> i) & 0xf]);
    return s;
}

/// floor(2^64 / n), computed in 64 bits.
std::uint64_t span_of(int n) {
    const auto un = static_cast<std::uint64_t>(n);
    const std::uint64_t max = ~std::uint64_t{0};
    return max / un + (max % un == un - 1 ? 1 : 0);
}

/// Shard i of n over object.metadata.uid, as the e2e test's
/// NewShardRangeSelector splits the space (the last one ends at 2^64).
std::string shard_of(int i, int n, std::string_view field = "object.metadata.uid") {
    const std::uint64_t span = span_of(n);
    const std::uint64_t start = span * static_cast<std::uint64_t>(i);
    const std::string end = i == n - 1 ? std::string("0x10000000000000000") : hex(span * static_cast<std::uint64_t>(i + 1));
    return "shardRange(" + std::string(field) + ", '" + hex(start) + "', '" + end + "')";
}

bool in_shard(std::string_view value, int i, int n) {
    const std::uint64_t span = span_of(n);
    const std::uint64_t h = fnv1a64(value);
    return h / span == static_cast<std::uint64_t>(i) || (i == n - 1 && h / span >= static_cast<std::uint64_t>(i));
}

std::map<std::string, std::string> fill(object_store& s, int count) {
    std::map<std::string, std::string> uid_by_name;
    for (int i = 0; i < count; ++i) {
        auto o = s.create(ctx_at(), resources::configmaps(), "default", configmap("cm-" + std::to_string(i)));
        REQUIRE(o);
        uid_by_name[std::string(name_of(*o))] = std::string(uid_of(*o));
    }
    return uid_by_name;
}

} // namespace

TEST_CASE("sharded list: each shard gets its objects, every object one shard, on every page") {
    object_store s(gate_on(), t0());
    auto uids = fill(s, 24);
    const int n = 4;
    std::map<std::string, int> seen_whole, seen_paged;
    for (int i = 0; i < n; ++i) {
        list_options o;
        o.shard_selector = shard_of(i, n);
        auto whole = s.list(resources::configmaps(), "default", o);
        REQUIRE(whole);
        CHECK(str_at(*whole, {"metadata", "shardInfo", "selector"}) == o.shard_selector);
        for (const auto& item : whole->at("items").as_array()) {
            std::string uid(uid_of(item.as_object()));
            CHECK(in_shard(uid, i, n));
            CHECK(seen_whole.emplace(uid, i).second);
        }
        // Pages of 2: every page echoes shardInfo; the continue token keeps
        // going through this shard only; no remainingItemCount.
        o.limit = 2;
        for (int pages = 0;; ++pages) {
            REQUIRE(pages < 30);
            auto page = s.list(resources::configmaps(), "default", o);
            REQUIRE(page);
            const auto& meta = page->at("metadata").as_object();
            CHECK(str_at(*page, {"metadata", "shardInfo", "selector"}) == o.shard_selector);
            CHECK_FALSE(meta.contains("remainingItemCount"));
            CHECK(page->at("items").as_array().size() <= 2);
            for (const auto& item : page->at("items").as_array()) {
                std::string uid(uid_of(item.as_object()));
                CHECK(in_shard(uid, i, n));
                CHECK(seen_paged.emplace(uid, i).second);
            }
            if (!meta.contains("continue")) break;
            o.continue_token = std::string(meta.at("continue").as_string());
        }
    }
    CHECK(seen_whole.size() == uids.size());
    CHECK(seen_paged == seen_whole);
}

TEST_CASE("sharded list: by namespace, across namespaces; a watch-cache list at rv 0 is filtered too") {
    object_store s(gate_on(), t0());
    for (std::string ns : {"team-a", "team-b", "team-c", "team-d"}) {
        REQUIRE(s.create(ctx_at(), resources::namespaces(), "", obj(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + ns + R"("}})")));
        REQUIRE(s.create(ctx_at(), resources::configmaps(), ns, configmap("one")));
        REQUIRE(s.create(ctx_at(), resources::configmaps(), ns, configmap("two")));
    }
    std::set<std::string> all;
    for (int i = 0; i < 2; ++i) {
        list_options o;
        o.shard_selector = shard_of(i, 2, "object.metadata.namespace");
        o.resource_version = "0";
        auto l = s.list(resources::configmaps(), "", o);
        REQUIRE(l);
        CHECK(str_at(*l, {"metadata", "shardInfo", "selector"}) == o.shard_selector);
        for (const auto& item : l->at("items").as_array()) {
            std::string ns(namespace_of(item.as_object()));
            CHECK(in_shard(ns, i, 2));
            CHECK(all.insert(ns + "/" + std::string(name_of(item.as_object()))).second);
        }
    }
    auto everything = s.list(resources::configmaps(), "", {});
    REQUIRE(everything);
    CHECK(all.size() == everything->at("items").as_array().size());
    CHECK_FALSE(everything->at("metadata").as_object().contains("shardInfo"));
}

TEST_CASE("sharded list: a bad selector is 400 'invalid shard selector: <parser.go's text>'") {
    object_store s(gate_on(), t0());
    list_options o;
    o.shard_selector = "shardRange(object.metadata.name, '0x00', '0x80')";
    auto l = s.list(resources::configmaps(), "default", o);
    REQUIRE_FALSE(l);
    CHECK(l.error().http_code() == 400);
    CHECK(l.error().api_status()->reason == "BadRequest");
    CHECK(status_message(l.error()) ==
          R"(invalid shard selector: unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace)");
    o.shard_selector = "   ";
    l = s.list(resources::configmaps(), "default", o);
    REQUIRE_FALSE(l);
    CHECK(status_message(l.error()) ==
          "invalid shard selector: empty shard selector is not allowed; omit the parameter for unfiltered lists");
    // "" is no selector at all (ListOptions.ShardSelector == "").
    o.shard_selector = "";
    l = s.list(resources::configmaps(), "default", o);
    REQUIRE(l);
    CHECK_FALSE(l->at("metadata").as_object().contains("shardInfo"));
}

TEST_CASE("gate off: shardSelector ignored, whatever it says; no shardInfo; remainingItemCount as usual") {
    object_store s;  // store_config{}: ShardedListAndWatch off, as by default
    auto uids = fill(s, 6);
    for (std::string sel : {shard_of(0, 2), std::string("shardRange(object.metadata.name, 'bad')")}) {
        list_options o;
        o.shard_selector = sel;
        auto l = s.list(resources::configmaps(), "default", o);
        REQUIRE(l);
        CHECK(l->at("items").as_array().size() == uids.size());
        CHECK_FALSE(l->at("metadata").as_object().contains("shardInfo"));
        o.limit = 2;
        auto page = s.list(resources::configmaps(), "default", o);
        REQUIRE(page);
        CHECK(page->at("metadata").as_object().at("remainingItemCount") == 4);
        CHECK_FALSE(page->at("metadata").as_object().contains("shardInfo"));
    }
}

TEST_CASE("sharded watch: events of objects outside the selector are not sent; initial events filtered") {
    object_store s(gate_on(), t0());
    fill(s, 8);  // before the watch starts: initial events only
    const revision_t start = s.current_revision();
    std::map<std::string, std::string> later;
    for (int i = 0; i < 10; ++i) {
        auto o = s.create(ctx_at(), resources::configmaps(), "default", configmap("w-" + std::to_string(i)));
        REQUIRE(o);
        later[std::string(name_of(*o))] = std::string(uid_of(*o));
    }
    for (const auto& [name, uid] : later) {
        REQUIRE(s.patch(ctx_at(), resources::configmaps(), "default", name, patch_type::merge, R"({"data":{"k":"2"}})"));
    }
    for (const auto& [name, uid] : later) {
        REQUIRE(s.remove(ctx_at(), resources::configmaps(), "default", name));
    }
    std::map<std::string, int> shard_seen;
    for (int i = 0; i < 2; ++i) {
        auto f = watch_filter::make(resources::configmaps(), "default", "", "");
        REQUIRE(f);
        REQUIRE(f->set_shard_selector(shard_of(i, 2)));
        auto evs = s.events_since(start, *f);
        REQUIRE(evs);
        std::map<std::string, std::vector<std::string>> by_uid;
        for (const auto& e : *evs) by_uid[std::string(uid_of(*e.object))].push_back(to_string(e.type));
        for (const auto& [name, uid] : later) {
            if (in_shard(uid, i, 2)) {
                CHECK(by_uid[uid] == std::vector<std::string>{"ADDED", "MODIFIED", "DELETED"});
                shard_seen[uid] = i;
            } else {
                CHECK_FALSE(by_uid.contains(uid));
            }
        }
        for (const auto& e : s.initial_events(*f)) CHECK(in_shard(uid_of(*e.object), i, 2));
    }
    CHECK(shard_seen.size() == later.size());
}
