#include <kcoro/core/json_arena.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <memory>
#include <string>

namespace json = boost::json;

namespace {
const std::string text =
    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a-name-longer-than-inline","namespace":"default",)"
    R"("labels":{"app.example.io/managed":"true"}},"data":{"key-one":"a value long enough to be allocated"}})";

std::shared_ptr<const json::object> parse_in_arena() {
    boost::system::error_code ec;
    auto v = json::parse(text, ec, kcoro::object_arena(text.size()));
    REQUIRE_FALSE(ec);
    return std::make_shared<const json::object>(std::move(v.as_object()));
}
} // namespace

TEST_CASE("a tree parsed into an arena reads as the text, and its copies outlive it") {
    auto obj = parse_in_arena();
    CHECK(json::serialize(*obj) == text);
    CHECK(obj->storage().is_shared());
    CHECK(obj->storage().is_deallocate_trivial());  // one arena: nothing freed node by node

    // A copy uses the source's storage: the shared arena, kept alive by it.
    json::object copy = *obj;
    CHECK(copy.storage().get() == obj->storage().get());
    obj.reset();
    copy["data"].as_object()["added"] = "after the original went";
    CHECK(copy.at("metadata").at("name") == "a-name-longer-than-inline");
    CHECK(copy.at("data").at("added") == "after the original went");

    // An explicit default storage hands a tree off the arena.
    json::object detached(copy, json::storage_ptr());
    CHECK_FALSE(detached.storage().is_shared());
    CHECK(json::serialize(detached) == json::serialize(copy));
}

TEST_CASE("arenas are sized from the text, within bounds") {
    // Sizes never fail: tiny, huge and zero all give a working arena.
    for (std::size_t bytes : {std::size_t{0}, std::size_t{10}, std::size_t{50'000'000}}) {
        auto sp = kcoro::object_arena(bytes);
        json::value v(json::object{{"k", "a string that does not fit inline storage"}}, sp);
        CHECK(v.at("k") == "a string that does not fit inline storage");
    }
}
