#include <kcoro/testing/request_log.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

namespace json = boost::json;
using kcoro::testing::request_log;
using kcoro::testing::request_record;

namespace {

json::object line(std::string_view verb, std::string_view resource, int code, std::string_view user = "admin") {
    json::object o;
    o["level"] = "info";
    o["msg"] = "request";
    o["method"] = verb == "create" ? "POST" : verb == "patch" ? "PATCH" : "GET";
    o["path"] = "/api/v1/namespaces/default/" + std::string(resource);
    o["verb"] = verb;
    o["group"] = "";
    o["resource"] = resource;
    o["subresource"] = "";
    o["namespace"] = "default";
    o["name"] = "";
    o["user"] = user;
    o["userAgent"] = "kcoro/0.1.0";
    o["code"] = code;
    return o;
}

} // namespace

TEST_CASE("a request line becomes a record; other lines and the fault endpoint do not") {
    auto r = request_record::from_log_line(line("patch", "configmaps", 409, "stamper"));
    REQUIRE(r);
    CHECK(r->method == "PATCH");
    CHECK(r->verb == "patch");
    CHECK(r->resource == "configmaps");
    CHECK(r->namespace_ == "default");
    CHECK(r->user == "stamper");
    CHECK(r->code == 409);
    CHECK(r->is_write());
    CHECK_FALSE(request_record::from_log_line(json::parse(R"({"msg":"listening","url":"x"})").as_object()));
    auto faults = line("create", "x", 200);
    faults["path"] = "/kcoro/faults";
    CHECK_FALSE(request_record::from_log_line(faults));
    // Fields missing (an older server's line): empty, not a crash.
    auto bare = request_record::from_log_line(json::parse(R"({"msg":"request","code":"x"})").as_object());
    REQUIRE(bare);
    CHECK(bare->code == 0);
    CHECK_FALSE(bare->is_write());
}

TEST_CASE("counts by filter, writes per resource and code") {
    request_log log;
    for (auto l : {line("get", "configmaps", 200), line("create", "configmaps", 201), line("patch", "configmaps", 409),
                   line("patch", "configmaps", 200, "op"), line("create", "secrets", 201)}) {
        log.add(*request_record::from_log_line(l));
    }
    CHECK(log.writes("") == 4);
    CHECK(log.writes("configmaps") == 3);
    CHECK(log.writes("configmaps", 409) == 1);
    CHECK(log.writes("secrets", 201) == 1);
    CHECK(log.count(kcoro::testing::match().verb("get")) == 1);
    CHECK(log.count(kcoro::testing::match().user("op")) == 1);
    CHECK(log.count(kcoro::testing::match().resource("configmaps").code(200)) == 2);
    CHECK(log.count(kcoro::testing::match().writes()) == 4);
    auto by = log.writes_by_resource_and_code();
    CHECK(by.size() == 4);
    CHECK(by[{"configmaps", 201}] == 1);
    CHECK(by[{"configmaps", 409}] == 1);
    CHECK(by[{"secrets", 201}] == 1);
    CHECK(log.describe().find("PATCH /api/v1/namespaces/default/configmaps 409 admin\n") != std::string::npos);
    log.clear();
    CHECK(log.records().empty());
}
