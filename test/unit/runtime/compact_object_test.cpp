#include <kcoro/runtime/compact_object.hpp>

#include <doctest/doctest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <string>
#include <vector>

using namespace kcoro::runtime;
namespace json = boost::json;

namespace {

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

const char* const sample = R"({"apiVersion":"v1","kind":"ConfigMap",
    "metadata":{"name":"a","namespace":"ns","resourceVersion":"7","labels":{"x":"y"},
                "managedFields":[{"manager":"kubectl","fieldsV1":{"f:data":{}}}]},
    "data":{"k":"v \"quoted\" \u00e9\n","n":"1"},"n":-3,"u":18446744073709551615,"d":1.5,"b":true,"z":null})";

} // namespace

TEST_CASE("make/decode round-trips the object; key and values are views into the block") {
    auto obj = parse(sample);
    std::string scratch;
    const std::vector<std::vector<std::string>> values{{"uid-1"}, {}, {"p", "q"}};
    auto c = compact_object::make(obj, compact_filter::none, values, scratch);
    REQUIRE(c);
    CHECK(c.namespace_() == "ns");
    CHECK(c.name() == "a");
    CHECK(c.key() == kcoro::object_key{"ns", "a"});
    CHECK(c.text() == json::serialize(obj));
    CHECK(*c.decode() == obj);
    CHECK(c.index_count() == 3);
    CHECK(c.values(0) == std::vector<std::string_view>{"uid-1"});
    CHECK(c.values(1).empty());
    CHECK(c.values(2) == std::vector<std::string_view>{"p", "q"});
    CHECK(c.values(3).empty());  // past the end
    // One block: the header, the text, the key and the values.
    CHECK(c.bytes() < c.text().size() + 64);
    CHECK(c.bytes() > c.text().size());
}

TEST_CASE("filters leave out managedFields, or everything but apiVersion, kind and metadata") {
    auto obj = parse(sample);
    std::string scratch;
    auto stripped = compact_object::make(obj, compact_filter::strip_managed_fields, {}, scratch);
    auto expect = obj;
    kcoro::strip_managed_fields(expect);
    CHECK(*stripped.decode() == expect);
    CHECK(stripped.text().find("managedFields") == std::string_view::npos);
    CHECK(filter_changes(obj, compact_filter::strip_managed_fields));
    CHECK_FALSE(filter_changes(expect, compact_filter::strip_managed_fields));

    auto meta = compact_object::make(obj, compact_filter::metadata_only, {}, scratch);
    auto m = meta.decode();
    CHECK(m->size() == 3);
    CHECK(kcoro::kind_of(*m) == "ConfigMap");
    CHECK(kcoro::label_of(*m, "x") == "y");
    CHECK(kcoro::managed_fields_of(*m) == nullptr);
    CHECK_FALSE(m->contains("data"));
    CHECK(filter_changes(expect, compact_filter::metadata_only));  // data would go
    CHECK_FALSE(filter_changes(*m, compact_filter::metadata_only));
    CHECK_FALSE(filter_changes(obj, compact_filter::none));
}

TEST_CASE("an unchanged object is written as the serializer writes it, whatever the filter") {
    auto obj = parse(R"({"metadata":{"name":"a"},"spec":{"x":[1,2,{"y":"z"}]}})");
    std::string out;
    write_compact_json(obj, compact_filter::strip_managed_fields, out);
    CHECK(out == json::serialize(obj));
    write_compact_json(obj, compact_filter::none, out);  // out is cleared first
    CHECK(out == json::serialize(obj));
}

TEST_CASE("with_values keeps the text and the key; moves leave the source empty") {
    auto obj = parse(R"({"metadata":{"name":"n","namespace":"s"}})");
    std::string scratch;
    auto c = compact_object::make(obj, compact_filter::none, {{"a"}}, scratch);
    auto d = c.with_values({{"b", "c"}, {"d"}});
    CHECK(d.text() == c.text());
    CHECK(d.key() == c.key());
    CHECK(d.values(0) == std::vector<std::string_view>{"b", "c"});
    CHECK(d.values(1) == std::vector<std::string_view>{"d"});
    compact_object e = std::move(d);
    CHECK_FALSE(d);  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
    CHECK(e.name() == "n");
    CHECK(d.decode() == nullptr);
    CHECK(d.text().empty());
    e = std::move(c);
    CHECK(e.values(0) == std::vector<std::string_view>{"a"});
}

TEST_CASE("deep nesting and bytes that are not UTF-8 come back as they were") {
    std::string deep;
    for (int i = 0; i < 600; ++i) deep += R"({"a":)";
    deep += "1";
    for (int i = 0; i < 600; ++i) deep += "}";
    json::parse_options po;
    po.max_depth = 1000;
    auto nested = json::parse(deep, {}, po);
    json::object obj{{"metadata", json::object{{"name", "x"}}}, {"spec", nested}};
    obj["bytes"] = json::string("\xff\xfe", 2);
    std::string scratch;
    auto c = compact_object::make(obj, compact_filter::strip_managed_fields, {}, scratch);
    CHECK(*c.decode() == obj);
}
