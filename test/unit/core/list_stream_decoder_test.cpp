// list_stream_decoder against decode_list_body: the same answer for every
// body, whatever the chunks the body arrives in, and items handed out before
// the body ends.
#include <kcoro/core/list_stream_decoder.hpp>

#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace kcoro;

namespace {

struct streamed {
    result<list_result> meta = error(kcoro_errc::decode_error, "not run");
    std::vector<object_ptr> items;
};

// Feeds `body` in chunks of `chunk` bytes (0: whole).
streamed stream(std::string_view body, std::size_t chunk) {
    streamed out;
    list_stream_decoder d([&](object_ptr o) { out.items.push_back(std::move(o)); });
    const std::size_t step = chunk == 0 ? std::max<std::size_t>(body.size(), 1) : chunk;
    for (std::size_t at = 0; at < body.size(); at += step) {
        if (auto w = d.write(body.substr(at, step)); !w) {
            out.meta = w.error();
            return out;
        }
    }
    out.meta = d.finish();
    return out;
}

// The streamed answer equals the whole-body one: same error code, or the
// same metadata and the same items in the same order.
void check_same(std::string_view body, std::size_t chunk) {
    CAPTURE(body);
    CAPTURE(chunk);
    auto whole = decode_list_body(body);
    auto s = stream(body, chunk);
    REQUIRE(static_cast<bool>(whole) == static_cast<bool>(s.meta));
    if (!whole) {
        CHECK(s.meta.error().code() == whole.error().code());
        CHECK(s.meta.error().message() == whole.error().message());
        return;
    }
    CHECK(s.meta->items.empty());
    CHECK(s.meta->kind == whole->kind);
    CHECK(s.meta->api_version == whole->api_version);
    CHECK(s.meta->resource_version == whole->resource_version);
    CHECK(s.meta->continue_token == whole->continue_token);
    CHECK(s.meta->remaining_item_count == whole->remaining_item_count);
    REQUIRE(s.items.size() == whole->items.size());
    for (std::size_t i = 0; i < s.items.size(); ++i) {
        CHECK(boost::json::serialize(*s.items[i]) == boost::json::serialize(*whole->items[i]));
    }
}

const std::vector<std::string> bodies = {
    R"({"kind":"ConfigMapList","apiVersion":"v1",
      "metadata":{"resourceVersion":"2001","continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEi","remainingItemCount":3},
      "items":[
        {"metadata":{"name":"a","namespace":"default","uid":"u1","resourceVersion":"1990",
          "managedFields":[{"manager":"m","fieldsV1":{"f:data":{"f:x":{}}}}]},"data":{"x":"1 \u00e9\n"}},
        {"metadata":{"name":"b","namespace":"default","uid":"u2","resourceVersion":"1995"},"n":[1,-2,3.5,true,null,{"k":[]}]}
      ]})",
    R"({"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"7"},
      "items":[{"kind":"Deployment","apiVersion":"apps/v1beta9","metadata":{"name":"x"}},{"metadata":{"name":"y"}}]})",
    R"({"kind":"SecretList","apiVersion":"v1","items":[{"kind":"","metadata":{"name":"s"}}]})",
    // items before kind and apiVersion: held, then filled in
    R"({"items":[{"metadata":{"name":"early"}}],"kind":"PodList","metadata":{"resourceVersion":"9"},"apiVersion":"v1"})",
    // no kind at all: items as they are
    R"({"metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"bare"}}]})",
    R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]})",
    R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":null})",
    R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"}})",
    // a nested "items" key inside an item is the item's own
    R"({"kind":"FooList","apiVersion":"x/v1","items":[{"spec":{"items":[{"a":1}],"kind":"Inner"}}]})",
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
      "message":"The provided continue parameter is too old to display a consistent list result.","reason":"Expired","code":410})",
    "",
    "nope",
    "[]",
    R"({"kind":"PodList","items":{}})",
    R"({"kind":"PodList","items":[1]})",
    R"({"kind":"PodList","items":[{}, "x"]})",
    R"({"kind":"PodList","items":[[]]})",
    R"({"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a"}}]} trailing)",
    R"({"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a"})",
};

} // namespace

TEST_CASE("the streamed answer is decode_list_body's, in any chunks") {
    for (const auto& body : bodies) {
        for (std::size_t chunk : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7},
                                  std::size_t{64}}) {
            check_same(body, chunk);
        }
    }
}

TEST_CASE("every split point of a body") {
    const std::string body = bodies[0];
    for (std::size_t cut = 0; cut <= body.size(); ++cut) {
        CAPTURE(cut);
        std::vector<object_ptr> items;
        list_stream_decoder d([&](object_ptr o) { items.push_back(std::move(o)); });
        REQUIRE(d.write(std::string_view(body).substr(0, cut)));
        REQUIRE(d.write(std::string_view(body).substr(cut)));
        auto meta = d.finish();
        REQUIRE(meta);
        CHECK(meta->resource_version == "2001");
        REQUIRE(items.size() == 2);
        CHECK(name_of(*items[1]) == "b");
        CHECK(kind_of(*items[0]) == "ConfigMap");
    }
}

TEST_CASE("an item is handed out as soon as it closes, before the body ends") {
    std::vector<std::string> seen;
    list_stream_decoder d([&](object_ptr o) { seen.emplace_back(name_of(*o)); });
    REQUIRE(d.write(R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"3"},"items":[)"));
    CHECK(seen.empty());
    REQUIRE(d.write(R"({"metadata":{"name":"one"}},{"metadata":{"na)"));
    REQUIRE(seen.size() == 1);
    CHECK(seen[0] == "one");
    CHECK(d.items() == 1);
    REQUIRE(d.write(R"(me":"two"}})"));
    REQUIRE(seen.size() == 2);
    REQUIRE(d.write("]}"));
    auto meta = d.finish();
    REQUIRE(meta);
    CHECK(meta->resource_version == "3");
    CHECK(meta->items.empty());
}

TEST_CASE("after an error the decoder repeats it") {
    std::size_t n = 0;
    list_stream_decoder d([&](object_ptr) { ++n; });
    REQUIRE(d.write(R"({"kind":"PodList","apiVersion":"v1","items":[{"metadata":{}},)"));
    CHECK(n == 1);
    auto bad = d.write("7]}");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message() == "list: item 1 is not an object");
    CHECK_FALSE(d.write("{}"));
    auto f = d.finish();
    REQUIRE_FALSE(f);
    CHECK(f.error().code() == make_error_code(kcoro_errc::decode_error));
    CHECK(n == 1);
}

TEST_CASE("a large list: every item, in order") {
    std::string body = R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[)";
    for (int i = 0; i < 2000; ++i) {
        if (i) {
            body += ',';
        }
        body += R"({"metadata":{"name":"cm-)" + std::to_string(i) + R"(","namespace":"ns"},"data":{"v":")" +
                std::string(static_cast<std::size_t>(i % 97), 'x') + "\"}}";
    }
    body += "]}";
    auto s = stream(body, 4096);
    REQUIRE(s.meta);
    REQUIRE(s.items.size() == 2000);
    CHECK(name_of(*s.items[1999]) == "cm-1999");
    CHECK(s.items[96]->at("data").at("v").as_string().size() == 96);
}
