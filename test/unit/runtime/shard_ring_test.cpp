#include <kcoro/runtime/shard_ring.hpp>

#include <kcoro/core/label_selector.hpp>
#include <kcoro/runtime/shard_bucket.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <random>

using namespace kcoro::runtime;

namespace {

constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();

// A random version-4 UUID as the API server writes metadata.uid.
std::string random_uid(std::mt19937_64& rng) {
    const auto a = rng(), b = rng();
    char buf[37];
    std::snprintf(buf, sizeof buf, "%08llx-%04llx-4%03llx-%04llx-%012llx",
                  static_cast<unsigned long long>(a >> 32), static_cast<unsigned long long>((a >> 16) & 0xffff),
                  static_cast<unsigned long long>(a & 0xfff),
                  static_cast<unsigned long long>(0x8000 | ((b >> 48) & 0x3fff)),
                  static_cast<unsigned long long>(b & 0xffffffffffffULL));
    return buf;
}

std::vector<std::string> replicas(int n) {
    // Identities as make_leader_identity makes them: "<hostname>_<uuid>".
    static const char* ids[] = {"configmap-mirror-7d9f-abcde_3f2b8c1e-5a44-4e0b-9c1d-2a7e6f1b9d01",
                                "configmap-mirror-7d9f-fghij_a81c0d52-7e19-4c3a-b6f2-93d5e8a4c7b2",
                                "configmap-mirror-7d9f-klmno_5d6e7f80-1a2b-4c3d-8e4f-a1b2c3d4e5f6",
                                "configmap-mirror-7d9f-pqrst_c0ffee00-1234-4567-89ab-cdef01234567"};
    return {ids, ids + n};
}

} // namespace

TEST_CASE("fnv1a64 is Go's hash/fnv New64a (its golden vectors)") {
    CHECK(fnv1a64("") == 0xcbf29ce484222325ULL);
    CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
    CHECK(fnv1a64("ab") == 0x089c4407b545986aULL);
    CHECK(fnv1a64("abc") == 0xe71fa2190541574bULL);
    CHECK(fnv1a64("foobar") == 0x85944171f73967e8ULL);
}

TEST_CASE("bounds and selectors are written as KEP-5866 writes them") {
    CHECK(hash_hex(0) == "0x0000000000000000");
    CHECK(hash_hex(0xabcULL) == "0x0000000000000abc");
    CHECK(hash_hex(top) == "0xffffffffffffffff");
    CHECK(end_hex({0, 0x7fffffffffffffffULL}) == "0x8000000000000000");
    CHECK(end_hex({5, top}) == "0x10000000000000000");

    const hash_ranges halves{{0, 0x7fffffffffffffffULL}};
    CHECK(shard_selector(halves) ==
          "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')");
    const hash_ranges two{{0, 0xf}, {0x8000000000000000ULL, top}};
    CHECK(shard_selector(two, shard_field::namespace_) ==
          "shardRange(object.metadata.namespace, '0x0000000000000000', '0x0000000000000010') || "
          "shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')");
    // No ranges: no selector (an empty one is refused, an omitted one selects all).
    CHECK_FALSE(shard_selector(hash_ranges{}).has_value());
}

TEST_CASE("range sets: normalize, unite, intersect, subtract") {
    CHECK(normalize({{10, 20}, {0, 4}, {5, 9}, {30, 40}, {35, 50}}) == hash_ranges{{0, 20}, {30, 50}});
    CHECK(normalize({{top - 1, top}, {5, top - 2}}) == hash_ranges{{5, top}});
    const hash_ranges a{{0, 100}, {200, top}};
    const hash_ranges b{{50, 250}};
    CHECK(unite(a, b) == hash_ranges{{0, top}});
    CHECK(intersect(a, b) == hash_ranges{{50, 100}, {200, 250}});
    CHECK(subtract(a, b) == hash_ranges{{0, 49}, {251, top}});
    CHECK(subtract(b, a) == hash_ranges{{101, 199}});
    CHECK(subtract(a, hash_ranges{{0, top}}).empty());
    CHECK(subtract(hash_ranges{{0, top}}, hash_ranges{{0, 0}, {top, top}}) == hash_ranges{{1, top - 1}});
    CHECK(contains(a, 0));
    CHECK(contains(a, top));
    CHECK_FALSE(contains(a, 150));
    CHECK(overlaps(a, b));
    CHECK_FALSE(overlaps(hash_ranges{{101, 199}}, a));
    CHECK(fraction_of_space(hash_ranges{{0, top}}) == doctest::Approx(1.0));
    CHECK(fraction_of_space(hash_ranges{{0, 0x7fffffffffffffffULL}}) == doctest::Approx(0.5));
}

TEST_CASE("every hash has exactly one owner, and the members' ranges partition the space") {
    const shard_ring ring(replicas(3));
    REQUIRE(ring.members().size() == 3);
    hash_ranges all;
    double total = 0;
    for (const auto& m : ring.members()) {
        auto rs = ring.ranges_of(m);
        CHECK(rs == normalize(rs));
        for (const auto& other : ring.members()) {
            if (other != m) CHECK_FALSE(overlaps(rs, ring.ranges_of(other)));
        }
        total += fraction_of_space(rs);
        all = unite(all, rs);
    }
    CHECK(all == hash_ranges{{0, top}});
    CHECK(total == doctest::Approx(1.0));

    // The owner of a hash is the one member whose ranges hold it: at random
    // hashes, at the ends of the space and on both sides of every point.
    std::vector<std::uint64_t> probes{0, 1, top - 1, top};
    for (const auto& m : ring.members()) {
        for (int i = 0; i < ring.virtual_nodes(); ++i) {
            const auto p = shard_ring::point_of(m, i);
            probes.push_back(p);
            probes.push_back(p + 1);
        }
    }
    std::mt19937_64 rng(24);
    for (int i = 0; i < 20000; ++i) probes.push_back(rng());
    std::map<std::string, hash_ranges> ranges;
    for (const auto& m : ring.members()) ranges[m] = ring.ranges_of(m);
    for (auto h : probes) {
        int holders = 0;
        for (const auto& [m, rs] : ranges) holders += contains(rs, h) ? 1 : 0;
        REQUIRE(holders == 1);
        CHECK(contains(ranges[std::string(ring.owner_of(h))], h));
    }
}

TEST_CASE("a ring of 3 is balanced within 15% over 100k uids") {
    const shard_ring ring(replicas(3));
    std::mt19937_64 rng(5866);
    std::map<std::string, int, std::less<>> count;
    const int n = 100000;
    for (int i = 0; i < n; ++i) ++count[std::string(ring.owner_of(fnv1a64(random_uid(rng))))];
    REQUIRE(count.size() == 3);
    for (const auto& [m, c] : count) MESSAGE("ring of 3: " << c << " of " << n << " uids");
    for (const auto& [m, c] : count) {
        INFO(m << ": " << c);
        CHECK(c > 0.85 * n / 3);
        CHECK(c < 1.15 * n / 3);
    }
    // The keys agree with the ranges (what a selector would select).
    for (const auto& m : ring.members()) CHECK(fraction_of_space(ring.ranges_of(m)) == doctest::Approx(1.0 / 3).epsilon(0.15));
}

TEST_CASE("adding a 4th member moves about a quarter of the keys, all to it") {
    const auto ids = replicas(4);
    const shard_ring three({ids[0], ids[1], ids[2]});
    const shard_ring four(ids);
    std::mt19937_64 rng(36);
    const int n = 100000;
    int moved = 0;
    for (int i = 0; i < n; ++i) {
        const auto h = fnv1a64(random_uid(rng));
        const auto before = three.owner_of(h), after = four.owner_of(h);
        if (before != after) {
            ++moved;
            REQUIRE(after == ids[3]);
        }
    }
    MESSAGE("3 -> 4 members: moved " << moved << " of " << n << " uids");
    CHECK(moved > 0.18 * n);
    CHECK(moved < 0.32 * n);
    // Range-wise: the new member's ranges are exactly what the others lost.
    hash_ranges lost;
    for (int i = 0; i < 3; ++i) lost = unite(lost, subtract(three.ranges_of(ids[i]), four.ranges_of(ids[i])));
    CHECK(lost == four.ranges_of(ids[3]));
    // And removing it again gives the ring of 3 back.
    CHECK(shard_ring({ids[0], ids[1], ids[2]}).ranges_of(ids[1]) == three.ranges_of(ids[1]));
}

TEST_CASE("the assignment depends on the member set, not on the order given") {
    auto ids = replicas(4);
    const shard_ring a(ids);
    std::reverse(ids.begin(), ids.end());
    ids.push_back(ids[1]);  // a duplicate counts once
    const shard_ring b(ids);
    CHECK(a.members() == b.members());
    for (const auto& m : a.members()) CHECK(a.ranges_of(m) == b.ranges_of(m));
    std::mt19937_64 rng(7);
    for (int i = 0; i < 1000; ++i) {
        const auto h = rng();
        CHECK(a.owner_of(h) == b.owner_of(h));
    }
    CHECK(a.selector_of(a.members()[0]) == b.selector_of(a.members()[0]));
}

TEST_CASE("edge cases: empty ring, one member, non-members") {
    const shard_ring none;
    CHECK(none.empty());
    CHECK(none.owner_of(42).empty());
    CHECK(none.ranges_of("x").empty());

    const shard_ring one({"solo"});
    CHECK(one.owner_of(0) == "solo");
    CHECK(one.owner_of(top) == "solo");
    CHECK(one.ranges_of("solo") == hash_ranges{{0, top}});
    CHECK(one.selector_of("solo") ==
          "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')");
    CHECK_FALSE(one.selector_of("other").has_value());
    CHECK(one.ranges_of("other").empty());

    // A selector of a real share: every bound 16 digits (or 2^64), start < end.
    const shard_ring ring(replicas(2));
    const auto rs = ring.ranges_of(ring.members()[0]);
    const auto sel = ring.selector_of(ring.members()[0]);
    REQUIRE(sel.has_value());
    CHECK(std::count(sel->begin(), sel->end(), '|') == 2 * static_cast<long>(rs.size() - 1));
    for (const auto& r : rs) CHECK(sel->find("'" + hash_hex(r.first) + "', '" + end_hex(r) + "'") != std::string::npos);
}

// --- the owner-bucket label (shard_bucket.hpp) ---------------------------

TEST_CASE("owner buckets: the top 10 bits, written as 3 hex digits") {
    CHECK(shard_buckets == 1024);
    CHECK(shard_bucket_of(0) == 0);
    CHECK(shard_bucket_of(top) == 1023);
    CHECK(shard_bucket_of(0xa9c0000000000000ULL) == 0x2a7);
    CHECK(shard_bucket_end(0xa9c0000000000001ULL) == 0xa9ffffffffffffffULL);
    CHECK(shard_bucket_value(0) == "000");
    CHECK(shard_bucket_value(0x2a7) == "2a7");
    CHECK(shard_bucket_value(1023) == "3ff");
    CHECK_FALSE(shard_bucket_selector(hash_ranges{}).has_value());
    CHECK_FALSE(shard_bucket_selector(hash_ranges{{0, top}}).has_value());  // every bucket: no requirement
    CHECK(shard_bucket_selector(hash_ranges{{0, shard_bucket_end(0)}}) == "kcoro.io/shard-bucket in (000)");
    // A range inside one bucket, another across three: every bucket touched.
    const auto b = [](std::uint64_t n) { return n << 54; };
    CHECK(shard_bucket_selector(hash_ranges{{b(5) + 7, b(5) + 9}, {b(0x10) + 1, b(0x12) + 1}}) ==
          "kcoro.io/shard-bucket in (005,010,011,012)");
}

TEST_CASE("a ring's ranges are whole buckets: the members' bucket selectors partition the buckets and select every owned uid") {
    for (int n : {1, 2, 3, 4}) {
        CAPTURE(n);
        const shard_ring ring(replicas(n));
        std::map<std::string, kcoro::label_selector, std::less<>> selectors;
        std::vector<int> claimed(shard_buckets, 0);
        for (const auto& m : ring.members()) {
            for (const auto& r : ring.ranges_of(m)) {
                CHECK(r.first % (std::uint64_t{1} << 54) == 0);
                CHECK((r.last == top || (r.last + 1) % (std::uint64_t{1} << 54) == 0));
                for (auto bk = shard_bucket_of(r.first); bk <= shard_bucket_of(r.last); ++bk) ++claimed[bk];
            }
            const auto text = shard_bucket_selector(ring.ranges_of(m));
            CHECK(text.has_value() == (n > 1));
            auto parsed = kcoro::label_selector::parse(text.value_or(""));
            REQUIRE(parsed);
            selectors.emplace(m, *parsed);
        }
        CHECK(std::all_of(claimed.begin(), claimed.end(), [](int c) { return c == 1; }));
        // A child stamped for a random owner is selected by its owner's
        // replica only.
        std::mt19937_64 rng(24);
        for (int i = 0; i < 2000; ++i) {
            const auto owner_uid = random_uid(rng);
            boost::json::object child = boost::json::parse(R"({"metadata":{"name":"c","labels":{"role":"child"}}})").as_object();
            stamp_shard_bucket(child, owner_uid);
            const auto owner = ring.owner_of(fnv1a64(owner_uid));
            int selected_by = 0;
            for (const auto& [m, sel] : selectors) {
                if (sel.matches_object(child)) {
                    ++selected_by;
                    CHECK(m == owner);
                }
            }
            CHECK(selected_by == 1);
            CHECK(child.at("metadata").at("labels").at("role") == "child");  // the other labels stay
        }
    }
    // The label is added where the child has no labels or no metadata yet.
    boost::json::object bare;
    stamp_shard_bucket(bare, "x");
    CHECK(bare.at("metadata").at("labels").at(shard_bucket_label).as_string() ==
          shard_bucket_value(shard_bucket_of(fnv1a64("x"))));
}
