#include <kcoro/runtime/typed_memo.hpp>

#include <kcoro/typed/k8s/config_map.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

using namespace kcoro::runtime;
using kcoro::object_key;
using kcoro::object_ptr;
using kcoro::k8s::config_map;

namespace strict {
// Reads ConfigMap values as integers: "one" does not decode.
struct int_config_map {
    kcoro::typed::object_meta metadata;
    std::map<std::string, std::int32_t> data;
    kcoro::typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(int_config_map, (), (metadata, data))
KCORO_RESOURCE(int_config_map, resource("", "v1", "ConfigMap", "configmaps"))
} // namespace strict

namespace {

object_ptr cm(const std::string& name, const std::string& rv, const std::string& value) {
    auto v = boost::json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"ns","name":")" +
                                name + R"(","resourceVersion":")" + rv + R"("},"data":{"k":")" + value + R"("}})");
    return std::make_shared<const boost::json::object>(std::move(v.as_object()));
}

} // namespace

TEST_CASE("object_cache::stamp changes whenever the stored object does, and is 0 when absent") {
    object_cache c;
    CHECK(c.stamp({"ns", "a"}) == 0);
    c.apply(cm("a", "1", "x"));
    const auto s1 = c.stamp({"ns", "a"});
    CHECK(s1 != 0);
    c.apply(cm("b", "1", "x"));
    CHECK(c.stamp({"ns", "b"}) != s1);
    CHECK(c.stamp({"ns", "a"}) == s1);  // others' writes leave it alone
    c.apply(cm("a", "2", "y"));
    const auto s2 = c.stamp({"ns", "a"});
    CHECK(s2 != s1);
    c.replace_all({cm("a", "2", "y")});  // a relist stores a new block
    CHECK(c.stamp({"ns", "a"}) != s2);
    CHECK(c.stamp({"ns", "b"}) == 0);
    c.remove(cm("a", "2", "y"));
    CHECK(c.stamp({"ns", "a"}) == 0);
}

TEST_CASE("decoded once per version, shared, never stale") {
    object_cache c;
    typed_memo<config_map> memo(16);
    auto none = memo.get(c, {"ns", "a"});
    REQUIRE(none.has_value());
    CHECK(*none == nullptr);
    CHECK(memo.decodes() == 0);

    c.apply(cm("a", "1", "x"));
    auto first = memo.get(c, {"ns", "a"}).value();
    REQUIRE(first);
    CHECK(first->data.at("k") == "x");
    auto again = memo.get(c, {"ns", "a"}).value();
    CHECK(again == first);  // the same shared object
    CHECK(memo.decodes() == 1);
    CHECK(memo.hits() == 1);

    c.apply(cm("a", "2", "y"));
    auto updated = memo.get(c, {"ns", "a"}).value();
    REQUIRE(updated);
    CHECK(updated != first);
    CHECK(updated->data.at("k") == "y");
    CHECK(updated->metadata.resource_version == "2");
    CHECK(first->data.at("k") == "x");  // a reader's old object is untouched
    CHECK(memo.decodes() == 2);

    c.remove(cm("a", "2", "y"));
    CHECK(memo.get(c, {"ns", "a"}).value() == nullptr);
    CHECK(memo.size() == 0);
}

TEST_CASE("an object that does not decode is an error naming the path, remembered until it changes") {
    object_cache c;
    typed_memo<strict::int_config_map> memo(16);
    c.apply(cm("a", "1", "one"));
    auto bad = memo.get(c, {"ns", "a"});
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().code() == kcoro::make_error_code(kcoro::kcoro_errc::decode_error));
    CHECK(bad.error().message() == "ConfigMap ns/a: data[k]: expected an integer, got \"one\"");
    auto found = memo.find(c, {"ns", "a"});
    REQUIRE(found.errors);
    CHECK(found.errors->at(0).path == "data[k]");
    CHECK(found.object == nullptr);
    CHECK(memo.decodes() == 1);  // not decoded again

    auto numeric = boost::json::parse(
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"ns","name":"a","resourceVersion":"2"},"data":{"k":7}})");
    c.apply(std::make_shared<const boost::json::object>(std::move(numeric.as_object())));
    auto fixed = memo.get(c, {"ns", "a"}).value();
    REQUIRE(fixed);
    CHECK(fixed->data.at("k") == 7);
}

TEST_CASE("bounded: never more entries than the capacity, and reads stay right past it") {
    object_cache c;
    typed_memo<config_map> memo(4);
    for (int i = 0; i < 10; ++i) {
        c.apply(cm("o" + std::to_string(i), "1", std::to_string(i)));
    }
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 10; ++i) {
            auto o = memo.get(c, {"ns", "o" + std::to_string(i)}).value();
            REQUIRE(o);
            CHECK(o->data.at("k") == std::to_string(i));
            CHECK(memo.size() <= 4);
        }
    }
    // Stale entries go first: after an update of everything, room is made
    // from them without dropping the fresh ones.
    typed_memo<config_map> small(4);
    for (int i = 0; i < 4; ++i) small.get(c, {"ns", "o" + std::to_string(i)});
    c.apply(cm("o0", "2", "new"));
    c.apply(cm("o1", "2", "new"));
    small.get(c, {"ns", "o4"});
    CHECK(small.size() == 3);  // o0 and o1 dropped, o4 added
    const auto decodes = small.decodes();
    small.get(c, {"ns", "o2"});
    CHECK(small.decodes() == decodes);  // still a hit
}
