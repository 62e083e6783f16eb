#include <kcoro/core/json_patch.hpp>

#include <kcoro/core/object.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

using namespace kcoro;
namespace json = boost::json;

namespace {
json::value j(std::string_view s) { return json::parse(s); }
std::string patched(std::string_view doc, std::string_view patch) {
    auto r = apply_json_patch(j(doc), patch);
    if (!r) return "ERROR: " + r.error().message();
    return json::serialize(*r);
}
bool fails(std::string_view doc, std::string_view patch) { return !apply_json_patch(j(doc), patch); }
} // namespace

TEST_CASE("JSON pointer parsing and escaping (RFC 6901)") {
    auto t = parse_json_pointer("/a~1b/~0c/~01/");
    REQUIRE(t.has_value());
    CHECK(*t == std::vector<std::string>{"a/b", "~c", "~1", ""});
    CHECK(parse_json_pointer("")->empty());
    CHECK_FALSE(parse_json_pointer("a/b").has_value());
    CHECK_FALSE(parse_json_pointer("/a~2").has_value());
    CHECK_FALSE(parse_json_pointer("/a~").has_value());
    CHECK(escape_json_pointer_token("a/b~c") == "a~1b~0c");
    CHECK(make_json_pointer({"metadata", "labels", "app.kubernetes.io/name"}) ==
          "/metadata/labels/app.kubernetes.io~1name");
    auto doc = j(R"({"a/b":{"~":[10,20]}})");
    REQUIRE(find_json_pointer(doc, "/a~1b/~0/1"));
    CHECK(*find_json_pointer(doc, "/a~1b/~0/1") == 20);
    CHECK_FALSE(find_json_pointer(doc, "/a~1b/~0/2"));
    CHECK_FALSE(find_json_pointer(doc, "/a~1b/~0/01"));
    CHECK(find_json_pointer(doc, "") == &doc);
}

TEST_CASE("add, remove, replace") {
    CHECK(patched(R"({"a":1})", R"([{"op":"add","path":"/b","value":2}])") == R"({"a":1,"b":2})");
    CHECK(patched(R"({"a":1})", R"([{"op":"add","path":"/a","value":3}])") == R"({"a":3})");
    CHECK(patched(R"({"l":[1,2]})", R"([{"op":"add","path":"/l/1","value":9}])") == R"({"l":[1,9,2]})");
    CHECK(patched(R"({"l":[1,2]})", R"([{"op":"add","path":"/l/-","value":9}])") == R"({"l":[1,2,9]})");
    CHECK(patched(R"({"l":[1,2]})", R"([{"op":"add","path":"/l/2","value":9}])") == R"({"l":[1,2,9]})");
    CHECK(fails(R"({"l":[1,2]})", R"([{"op":"add","path":"/l/3","value":9}])"));
    CHECK(fails(R"({})", R"([{"op":"add","path":"/x/y","value":1}])"));
    CHECK(patched(R"({"a":1})", R"([{"op":"add","path":"","value":[1]}])") == "[1]");
    CHECK(patched(R"({"a":1,"b":2})", R"([{"op":"remove","path":"/a"}])") == R"({"b":2})");
    CHECK(patched(R"({"l":[1,2,3]})", R"([{"op":"remove","path":"/l/0"}])") == R"({"l":[2,3]})");
    CHECK(fails(R"({"a":1})", R"([{"op":"remove","path":"/b"}])"));
    CHECK(fails(R"({"l":[1]})", R"([{"op":"remove","path":"/l/-"}])"));
    CHECK(patched(R"({"a":{"b":1}})", R"([{"op":"replace","path":"/a/b","value":null}])") == R"({"a":{"b":null}})");
    CHECK(fails(R"({"a":1})", R"([{"op":"replace","path":"/b","value":1}])"));
    CHECK(fails(R"({"a":1})", R"([{"op":"replace","path":"/a"}])"));  // value required
}

TEST_CASE("negative indices count from the end, as kube-apiserver's jsonpatch does") {
    CHECK(patched(R"({"l":[1,2,3]})", R"([{"op":"remove","path":"/l/-1"}])") == R"({"l":[1,2]})");
    CHECK(patched(R"({"l":[1,2,3]})", R"([{"op":"replace","path":"/l/-3","value":0}])") == R"({"l":[0,2,3]})");
    CHECK(fails(R"({"l":[1]})", R"([{"op":"remove","path":"/l/-2"}])"));
}

TEST_CASE("move and copy") {
    CHECK(patched(R"({"a":{"b":1},"c":{}})", R"([{"op":"move","from":"/a/b","path":"/c/d"}])") ==
          R"({"a":{},"c":{"d":1}})");
    CHECK(patched(R"({"l":[1,2,3]})", R"([{"op":"move","from":"/l/0","path":"/l/-"}])") == R"({"l":[2,3,1]})");
    CHECK(patched(R"({"a":{"b":1}})", R"([{"op":"copy","from":"/a","path":"/c"}])") == R"({"a":{"b":1},"c":{"b":1}})");
    CHECK(patched(R"({"a":1})", R"([{"op":"move","from":"/a","path":"/a"}])") == R"({"a":1})");
    CHECK(fails(R"({"a":1})", R"([{"op":"copy","from":"/zz","path":"/c"}])"));
    CHECK(fails(R"({"a":1})", R"([{"op":"move","path":"/c"}])"));  // from required
}

TEST_CASE("move into its own child is rejected") {
    auto r = apply_json_patch(j(R"({"a":{"b":{}}})"), std::string_view(R"([{"op":"move","from":"/a","path":"/a/b/c"}])"));
    REQUIRE_FALSE(r);
    CHECK(r.error().message().find("own children") != std::string::npos);
}

TEST_CASE("test op: equality by value, absent-as-null") {
    CHECK(patched(R"({"n":1,"o":{"x":[1,"a"]}})",
                  R"([{"op":"test","path":"/n","value":1.0},{"op":"test","path":"/o","value":{"x":[1,"a"]}}])") ==
          R"({"n":1,"o":{"x":[1,"a"]}})");
    CHECK(fails(R"({"n":1})", R"([{"op":"test","path":"/n","value":"1"}])"));
    CHECK(fails(R"({"o":{"x":[1,2]}})", R"([{"op":"test","path":"/o/x","value":[2,1]}])"));
    // a missing member of an existing object equals null; a missing parent does not
    CHECK_FALSE(fails(R"({"metadata":{}})", R"([{"op":"test","path":"/metadata/finalizers","value":null}])"));
    CHECK(fails(R"({})", R"([{"op":"test","path":"/metadata/finalizers","value":null}])"));
    CHECK(fails(R"({"metadata":{}})", R"([{"op":"test","path":"/metadata/finalizers","value":[]}])"));
}

TEST_CASE("a failed test leaves the input unchanged and answers the real 422") {
    const auto doc = j(R"({"metadata":{"resourceVersion":"5","labels":{"a":"1"}}})");
    const auto before = doc;
    auto r = apply_json_patch(doc, std::string_view(R"([
        {"op":"add","path":"/metadata/labels/b","value":"2"},
        {"op":"test","path":"/metadata/resourceVersion","value":"4"},
        {"op":"remove","path":"/metadata/labels/a"}])"));
    REQUIRE_FALSE(r);
    CHECK(doc == before);
    const auto& e = r.error();
    CHECK(is_invalid(e));
    REQUIRE(e.api_status());
    CHECK(e.api_status()->code == 422);
    CHECK(e.api_status()->reason == "Invalid");
    CHECK(e.api_status()->message == "the server rejected our request due to an error in our request");
    // our message names the index, the op and the path
    CHECK(e.message().find("json patch operation 1 (test /metadata/resourceVersion)") == 0);
}

TEST_CASE("malformed patches") {
    auto r = apply_json_patch(j("{}"), std::string_view("not json"));
    REQUIRE_FALSE(r);
    CHECK(r.error().api_status()->code == 400);
    r = apply_json_patch(j("{}"), std::string_view(R"({"op":"add"})"));
    REQUIRE_FALSE(r);
    CHECK(r.error().api_status()->code == 400);
    CHECK(r.error().message() == "json: cannot unmarshal object into Go value of type jsonpatch.Patch");
    r = apply_json_patch(j("{}"), std::string_view("[1]"));
    REQUIRE_FALSE(r);
    CHECK(r.error().api_status()->code == 400);
    CHECK(fails("{}", R"([{"op":"frobnicate","path":"/a"}])"));
    CHECK(fails("{}", R"([{"path":"/a","value":1}])"));
    CHECK(fails("{}", R"([{"op":"add","value":1}])"));
    CHECK(fails("{}", R"([{"op":"add","path":"a","value":1}])"));
    CHECK(patched(R"({"a":1})", "[]") == R"({"a":1})");
    CHECK(patched(R"({"a":1})", "null") == R"({"a":1})");
}

TEST_CASE("more than 10000 operations: 413") {
    json::array ops;
    for (int i = 0; i < 10001; ++i) ops.push_back(json_patch_test("/a", 1));
    auto r = apply_json_patch(j(R"({"a":1})"), json::value(ops));
    REQUIRE_FALSE(r);
    CHECK(r.error().api_status()->code == 413);
    CHECK(r.error().message() == "The allowed maximum operations in a JSON patch is 10000, got 10001");
    ops.pop_back();
    CHECK(apply_json_patch(j(R"({"a":1})"), json::value(ops)));
}

TEST_CASE("finalizer add patch never clobbers another writer's finalizers") {
    auto obj = j(R"({"metadata":{"name":"x","resourceVersion":"7","finalizers":["other/f"]}})").get_object();
    auto p = make_add_finalizer_patch(obj, "kcoro.dev/cleanup");
    REQUIRE(p);
    CHECK(json::serialize(*p) ==
          R"([{"op":"test","path":"/metadata/finalizers","value":["other/f"]},)"
          R"({"op":"add","path":"/metadata/finalizers/-","value":"kcoro.dev/cleanup"}])");
    auto applied = apply_json_patch(json::value(obj), json::value(*p));
    REQUIRE(applied);
    CHECK(finalizers_of(applied->get_object()) == std::vector<std::string>{"other/f", "kcoro.dev/cleanup"});
    // someone else added a finalizer meanwhile: the patch fails instead of losing it
    auto changed = obj;
    add_finalizer(changed, "third/f");
    CHECK_FALSE(apply_json_patch(json::value(changed), json::value(*p)));
    // already present: nothing to do
    CHECK_FALSE(make_add_finalizer_patch(applied->get_object(), "kcoro.dev/cleanup"));
}

TEST_CASE("finalizer add patch on an object without finalizers") {
    auto obj = j(R"({"metadata":{"name":"x","resourceVersion":"7"}})").get_object();
    auto p = make_add_finalizer_patch(obj, "f");
    REQUIRE(p);
    auto applied = apply_json_patch(json::value(obj), json::value(*p));
    REQUIRE(applied);
    CHECK(finalizers_of(applied->get_object()) == std::vector<std::string>{"f"});
    // a concurrent writer created the list: the null test fails
    auto changed = obj;
    add_finalizer(changed, "g");
    CHECK_FALSE(apply_json_patch(json::value(changed), json::value(*p)));
}

TEST_CASE("finalizer remove patch, and the resourceVersion guard") {
    auto obj = j(R"({"metadata":{"resourceVersion":"7","finalizers":["a","f","b"]}})").get_object();
    auto p = make_remove_finalizer_patch(obj, "f");
    REQUIRE(p);
    auto applied = apply_json_patch(json::value(obj), json::value(*p));
    REQUIRE(applied);
    CHECK(finalizers_of(applied->get_object()) == std::vector<std::string>{"a", "b"});
    CHECK_FALSE(make_remove_finalizer_patch(obj, "zz"));
    // list reordered by someone else: the index would be wrong, the test catches it
    auto reordered = j(R"({"metadata":{"finalizers":["f","a","b"]}})");
    CHECK_FALSE(apply_json_patch(reordered, json::value(*p)));

    auto rv = make_remove_finalizer_patch(obj, "f", finalizer_guard::resource_version);
    REQUIRE(rv);
    CHECK(json::serialize((*rv)[0]) == R"({"op":"test","path":"/metadata/resourceVersion","value":"7"})");
    CHECK(apply_json_patch(json::value(obj), json::value(*rv)));
    auto newer = obj;
    mutable_metadata(newer)["resourceVersion"] = "8";
    CHECK_FALSE(apply_json_patch(json::value(newer), json::value(*rv)));
}
