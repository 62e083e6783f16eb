#include <kcoro/core/list_decoder.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

using namespace kcoro;

TEST_CASE("decode a ConfigMapList page as kube-apiserver serves it") {
    auto r = decode_list_body(R"({"kind":"ConfigMapList","apiVersion":"v1",
      "metadata":{"resourceVersion":"2001","continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjAwMSwic3RhcnQiOiJiXHUwMDAwIn0","remainingItemCount":3},
      "items":[
        {"metadata":{"name":"a","namespace":"default","uid":"u1","resourceVersion":"1990"},"data":{"x":"1"}},
        {"metadata":{"name":"b","namespace":"default","uid":"u2","resourceVersion":"1995"}}
      ]})");
    REQUIRE(r);
    CHECK(r->kind == "ConfigMapList");
    CHECK(r->api_version == "v1");
    CHECK(r->resource_version == "2001");
    CHECK(r->continue_token.starts_with("eyJ2"));
    CHECK(r->remaining_item_count == 3);
    REQUIRE(r->items.size() == 2);
    // items get apiVersion and kind from the list, as client-go's unstructured lists
    CHECK(kind_of(*r->items[0]) == "ConfigMap");
    CHECK(api_version_of(*r->items[0]) == "v1");
    CHECK(name_of(*r->items[1]) == "b");
    CHECK(resource_version_of(*r->items[0]) == "1990");
    CHECK(r->items[0]->at("data").at("x") == "1");
}

TEST_CASE("items that carry their own kind keep it; grouped lists") {
    auto r = decode_list_body(R"({"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"7"},
      "items":[{"kind":"Deployment","apiVersion":"apps/v1beta9","metadata":{"name":"x"}},{"metadata":{"name":"y"}}]})");
    REQUIRE(r);
    CHECK(api_version_of(*r->items[0]) == "apps/v1beta9");
    CHECK(kind_of(*r->items[1]) == "Deployment");
    CHECK(api_version_of(*r->items[1]) == "apps/v1");
    CHECK(r->continue_token.empty());
    CHECK_FALSE(r->remaining_item_count);
    // an empty kind is filled like a missing one
    auto e = decode_list_body(R"({"kind":"SecretList","apiVersion":"v1","items":[{"kind":"","metadata":{"name":"s"}}]})");
    REQUIRE(e);
    CHECK(kind_of(*e->items[0]) == "Secret");
    CHECK(api_version_of(*e->items[0]) == "v1");
}

TEST_CASE("an empty list: items [] or null or absent") {
    for (const char* body : {R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]})",
                             R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":null})",
                             R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"}})"}) {
        CAPTURE(body);
        auto r = decode_list_body(body);
        REQUIRE(r);
        CHECK(r->items.empty());
        CHECK(r->resource_version == "5");
    }
}

TEST_CASE("a Status body gives the error it describes") {
    auto r = decode_list_body(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
      "message":"The provided continue parameter is too old to display a consistent list result.","reason":"Expired","code":410})");
    REQUIRE_FALSE(r);
    CHECK(needs_relist(r.error()));
    CHECK(r.error().code() == make_error_code(api_errc::expired));
}

TEST_CASE("bad lists are decode errors") {
    for (const char* body : {"", "nope", "[]", R"({"kind":"PodList","items":{}})",
                             R"({"kind":"PodList","items":[1]})", R"({"kind":"PodList","items":[{}, "x"]})"}) {
        CAPTURE(body);
        auto r = decode_list_body(body);
        REQUIRE_FALSE(r);
        CHECK(r.error().code() == make_error_code(kcoro_errc::decode_error));
        CHECK(r.error().message().starts_with("list: "));
    }
}

TEST_CASE("decode_list consumes a parsed value") {
    auto v = boost::json::parse(R"({"kind":"List","apiVersion":"v1","metadata":{},"items":[{"kind":"Pod","metadata":{"name":"p"}}]})");
    auto r = decode_list(std::move(v));
    REQUIRE(r);
    REQUIRE(r->items.size() == 1);
    // "List" alone names no item kind
    CHECK(kind_of(*r->items[0]) == "Pod");
}

TEST_CASE("metadata.shardInfo.selector: the shardSelector the server applied (KEP-5866)") {
    auto r = decode_list_body(R"J({"kind":"ConfigMapList","apiVersion":"v1",
      "metadata":{"resourceVersion":"9","shardInfo":{"selector":"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"}},
      "items":[]})J");
    REQUIRE(r);
    REQUIRE(r->shard_selector);
    CHECK(*r->shard_selector == "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')");
    // A server that ignored the parameter (before 1.36, the gate off) echoes nothing.
    auto plain = decode_list_body(R"J({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[]})J");
    REQUIRE(plain);
    CHECK_FALSE(plain->shard_selector);
    // A malformed shardInfo is not an echo.
    auto odd = decode_list_body(R"J({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"shardInfo":{"selector":3}},"items":[]})J");
    REQUIRE(odd);
    CHECK_FALSE(odd->shard_selector);
}
