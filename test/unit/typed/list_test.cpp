#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/list.hpp>
#include <kcoro/typed/object_meta.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

namespace typed = kcoro::typed;
namespace json = boost::json;

namespace list_sample {
struct thing {
    typed::object_meta metadata;
    std::string data;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(thing, (), (metadata, data))
KCORO_RESOURCE(thing, resource("example.com", "v1", "Thing", "things"))
} // namespace list_sample

TEST_CASE("a list answer decodes: items without kind, the list's own kind kept") {
    constexpr std::string_view text = R"({"apiVersion":"example.com/v1","kind":"ThingList",
      "metadata":{"resourceVersion":"77","continue":"tok","remainingItemCount":3},
      "items":[{"metadata":{"name":"a"},"data":"x"},{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"b"}}]})";
    auto v = json::parse(text);
    auto l = typed::from_json<typed::list<list_sample::thing>>(v);
    REQUIRE_MESSAGE(l.has_value(), (l ? "" : typed::describe(l.error())));
    CHECK(l->metadata.resource_version == "77");
    CHECK(l->metadata.continue_ == "tok");
    CHECK(l->metadata.remaining_item_count == 3);
    REQUIRE(l->items.size() == 2);
    CHECK(l->items[0].data == "x");
    CHECK(l->items[1].metadata.name == "b");
    CHECK(l->unknown.at("kind") == "ThingList");
    // Items get apiVersion and kind when encoded again.
    auto back = typed::to_object(*l);
    CHECK(back.at("items").at(0).at("kind") == "Thing");
    CHECK(back.at("kind") == "ThingList");
}

TEST_CASE("an item of the wrong kind is an error with its index") {
    auto l = typed::from_json<typed::list<list_sample::thing>>(json::parse(R"({"items":[{},{"kind":"Other"}]})"));
    REQUIRE_FALSE(l.has_value());
    CHECK(typed::describe(l.error()) == "items[1].kind: expected \"Thing\", got \"Other\"");
}
