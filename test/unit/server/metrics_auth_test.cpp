// Pure parts of the /metrics authorisation: bearer tokens, TokenReview and
// SubjectAccessReview shapes. (The reviews over HTTP are tested in
// test/integration/manager_test.cpp against a scripted API server.)
#include <kcoro/server/metrics_auth.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace kcoro::server;

TEST_CASE("metrics auth: request and answer shapes") {
    CHECK(bearer_token("Bearer abc") == "abc");
    CHECK(bearer_token("bearer  abc ") == "abc");
    CHECK(bearer_token("Basic abc").empty());
    CHECK(bearer_token("Bearer").empty());
    auto tr = make_token_review("t");
    CHECK(tr.at("spec").at("token") == "t");
    auto u = read_token_review(boost::json::parse(
        R"({"status":{"authenticated":true,"user":{"username":"u","uid":"1","groups":["g1","g2"],"extra":{"k":["v"]}}}})").as_object());
    CHECK(u.authenticated);
    CHECK(u.username == "u");
    CHECK(u.groups == std::vector<std::string>{"g1", "g2"});
    auto sar = make_subject_access_review(u, "/metrics", "get");
    CHECK(sar.at("spec").at("user") == "u");
    CHECK(sar.at("spec").at("uid") == "1");
    CHECK(sar.at("spec").at("nonResourceAttributes").at("path") == "/metrics");
    CHECK(sar.at("spec").at("extra").at("k").as_array().size() == 1);
    std::string reason;
    CHECK(read_subject_access_review(boost::json::parse(R"({"status":{"allowed":true,"reason":"rbac"}})").as_object(),
                                     &reason));
    CHECK(reason == "rbac");
    CHECK_FALSE(read_subject_access_review(boost::json::parse(R"({"status":{}})").as_object()));
    CHECK_FALSE(read_token_review(boost::json::object{}).authenticated);
}
