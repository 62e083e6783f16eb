// --authorization-mode=RBAC over the stored roles and bindings (http/rbac.cpp)
// and the review APIs (http/reviews.cpp), through the handler.
#include "http/api_handler.hpp"
#include "handler_fixture.hpp"
#include "http/discovery.hpp"
#include "http/rbac.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <doctest/doctest.h>

namespace json = boost::json;
using namespace kcoro;
using namespace kcoro::apiserver;
using namespace kcoro::apiserver::http;
using namespace std::chrono_literals;

namespace {

// The handler with tokens (and RBAC, unless asked not to); requests without
// a User-Agent, so reviews carry no managedFields.
struct rbac_fixture : kcoro::apiserver::http::test::fixture {
    explicit rbac_fixture(bool rbac = true) {
        user_agent.clear();
        token_table tokens;
        tokens.add("t-admin", {"admin", {"system:masters"}});
        tokens.add("t-alice", {"alice", {"devs"}});
        tokens.add("t-sa", {"system:serviceaccount:default:robot", {"system:serviceaccounts"}});
        access.set_tokens(tokens);
        if (rbac) {
            bootstrap_rbac(store, clk.wall_now());
            access.set_rbac([this](const authz_attributes& a) { return rbac_authorize(store, a); });
        }
    }
    io::http_response call(std::string method, std::string target, std::string body, std::string token) {
        return answer(std::move(method), std::move(target), std::move(body), "application/json",
                      token.empty() ? std::string{} : "Bearer " + token);
    }
    json::object post(std::string target, std::string body, std::string token, int want = 201) {
        auto r = call("POST", std::move(target), std::move(body), std::move(token));
        CHECK_MESSAGE(r.status == want, r.body);
        return json::parse(r.body).as_object();
    }
    json::object can_i(std::string token, std::string verb, std::string resource, std::string ns = "default",
                       std::string name = {}, std::string group = {}) {
        json::object ra{{"verb", verb}, {"resource", resource}, {"namespace", ns}};
        if (!name.empty()) ra["name"] = name;
        if (!group.empty()) ra["group"] = group;
        json::object review{{"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SelfSubjectAccessReview"},
                            {"spec", json::object{{"resourceAttributes", ra}}}};
        return post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", json::serialize(review), std::move(token));
    }
};

bool allowed(const json::object& review) { return review.at("status").as_object().at("allowed").as_bool(); }
std::string reason(const json::object& review) {
    const auto* r = review.at("status").as_object().if_contains("reason");
    return r ? std::string(r->as_string()) : std::string{};
}

} // namespace

TEST_CASE("rbac: the bootstrap policy; system:masters may do anything, others what a binding grants") {
    rbac_fixture f;
    CHECK(f.store.get({"rbac.authorization.k8s.io", "v1", "clusterroles"}, "", "cluster-admin"));
    auto basic = f.store.get({"rbac.authorization.k8s.io", "v1", "clusterrolebindings"}, "", "system:basic-user");
    REQUIRE(basic);
    CHECK(json::serialize(basic->at("subjects")) == R"([{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"system:authenticated"}])");

    CHECK(f.call("GET", "/api/v1/namespaces/default/configmaps", "", "t-admin").status == 200);
    auto denied = f.call("GET", "/api/v1/namespaces/default/configmaps", "", "t-alice");
    CHECK(denied.status == 403);
    CHECK(json::parse(denied.body).at("message") ==
          "configmaps is forbidden: User \"alice\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"default\"");
    // Discovery and the review APIs are everyone's (system:discovery, system:basic-user).
    CHECK(f.call("GET", "/api", "", "t-alice").status == 200);
    auto review = f.can_i("t-alice", "list", "configmaps");
    CHECK_FALSE(allowed(review));
    CHECK(reason(review).empty());
    CHECK(review.at("metadata") == json::parse(R"({"creationTimestamp":null})"));

    // A Role and a RoleBinding grant alice's group configmaps in default.
    f.post("/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
           R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"cm-reader"},
               "rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get","list"]},
                        {"apiGroups":["apps"],"resources":["deployments/status","*/scale"],"verbs":["get"]},
                        {"apiGroups":[""],"resources":["secrets"],"resourceNames":["one"],"verbs":["get"]}]})",
           "t-admin");
    f.post("/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
           R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"devs-read"},
               "roleRef":{"kind":"Role","name":"cm-reader"},"subjects":[{"kind":"Group","name":"devs"},
               {"kind":"ServiceAccount","name":"robot"}]})",
           "t-admin");
    CHECK(f.call("GET", "/api/v1/namespaces/default/configmaps", "", "t-alice").status == 200);
    CHECK(f.call("GET", "/api/v1/namespaces/kube-system/configmaps", "", "t-alice").status == 403);
    CHECK(f.call("DELETE", "/api/v1/namespaces/default/configmaps/x", "", "t-alice").status == 403);
    review = f.can_i("t-alice", "list", "configmaps");
    CHECK(allowed(review));
    CHECK(reason(review) == "RBAC: allowed by RoleBinding \"devs-read/default\" of Role \"cm-reader\" to Group \"devs\"");
    // A ServiceAccount subject without a namespace is the binding's namespace's.
    review = f.can_i("t-sa", "get", "configmaps");
    CHECK(reason(review) ==
          "RBAC: allowed by RoleBinding \"devs-read/default\" of Role \"cm-reader\" to ServiceAccount \"robot/default\"");
    // Subresources, "*/sub", resourceNames.
    auto sub = [&](std::string res, std::string sr) {
        json::object ra{{"verb", "get"}, {"group", "apps"}, {"resource", res}, {"subresource", sr}, {"namespace", "default"}};
        json::object r{{"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SelfSubjectAccessReview"},
                       {"spec", json::object{{"resourceAttributes", ra}}}};
        return allowed(f.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", json::serialize(r), "t-alice"));
    };
    CHECK(sub("deployments", "status"));
    CHECK(sub("statefulsets", "scale"));
    CHECK_FALSE(sub("deployments", ""));
    CHECK(allowed(f.can_i("t-alice", "get", "secrets", "default", "one")));
    CHECK_FALSE(allowed(f.can_i("t-alice", "get", "secrets", "default", "two")));
    CHECK_FALSE(allowed(f.can_i("t-alice", "list", "secrets")));  // a list names no resource

    // system:masters: the privileged group, before RBAC (no reason).
    review = f.can_i("t-admin", "delete", "nodes", "");
    CHECK(allowed(review));
    CHECK(reason(review).empty());
}

TEST_CASE("reviews: SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectRulesReview, SelfSubjectReview") {
    rbac_fixture f;
    f.post("/apis/rbac.authorization.k8s.io/v1/clusterroles",
           R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"pod-viewer"},
               "rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list","watch"]},
                        {"nonResourceURLs":["/metrics"],"verbs":["get"]}]})",
           "t-admin");
    f.post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
           R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"bob-pods"},
               "roleRef":{"kind":"ClusterRole","name":"pod-viewer"},"subjects":[{"kind":"User","name":"bob"}]})",
           "t-admin");
    auto sar = f.post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                      R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
                          "spec":{"user":"bob","resourceAttributes":{"verb":"watch","resource":"pods","namespace":"x"}}})",
                      "t-admin");
    CHECK(allowed(sar));
    CHECK(reason(sar) == "RBAC: allowed by ClusterRoleBinding \"bob-pods\" of ClusterRole \"pod-viewer\" to User \"bob\"");
    CHECK(sar.at("spec").as_object().at("user") == "bob");  // the spec is echoed
    auto path = f.post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                       R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
                           "spec":{"user":"bob","nonResourceAttributes":{"verb":"get","path":"/metrics"}}})",
                       "t-admin");
    CHECK(allowed(path));
    auto bad = f.call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                      R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{}})", "t-admin");
    CHECK(bad.status == 422);
    CHECK(json::parse(bad.body).at("message") ==
          "SubjectAccessReview.authorization.k8s.io \"\" is invalid: [spec.resourceAttributes: Invalid value: null: exactly one "
          "of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: \"\": at least one of "
          "user or group must be specified]");
    auto local = f.post("/apis/authorization.k8s.io/v1/namespaces/x/localsubjectaccessreviews",
                        R"({"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview",
                            "spec":{"user":"bob","resourceAttributes":{"verb":"get","resource":"pods","namespace":"x"}}})",
                        "t-admin");
    CHECK(allowed(local));
    auto mismatch = f.call("POST", "/apis/authorization.k8s.io/v1/namespaces/x/localsubjectaccessreviews",
                           R"({"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview",
                               "spec":{"user":"bob","resourceAttributes":{"verb":"get","resource":"pods","namespace":"y"}}})",
                           "t-admin");
    CHECK(mismatch.status == 422);
    CHECK(mismatch.body.find("must match metadata.namespace") != std::string::npos);

    // SelfSubjectRulesReview: the rules of every binding that applies.
    auto rules = f.post("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                        R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{"namespace":"default"}})",
                        "t-alice");
    const auto& st = rules.at("status").as_object();
    CHECK(st.at("incomplete") == false);
    const auto text = json::serialize(st.at("resourceRules"));
    CHECK(text.find("selfsubjectrulesreviews") != std::string::npos);  // system:basic-user
    CHECK(json::serialize(st.at("nonResourceRules")).find("/healthz") != std::string::npos);
    auto no_ns = f.call("POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                        R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{}})", "t-alice");
    CHECK(no_ns.status == 400);
    CHECK(json::parse(no_ns.body).at("message") == "no namespace on request");

    // kubectl auth whoami.
    auto who = f.post("/apis/authentication.k8s.io/v1/selfsubjectreviews",
                      R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})", "t-alice");
    CHECK(json::serialize(who.at("status")) ==
          R"({"userInfo":{"username":"alice","groups":["devs","system:authenticated"]}})");

    // Reviews are answered, never stored: no list, no get.
    CHECK(f.call("GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "", "t-admin").status == 405);
}

TEST_CASE("reviews without RBAC: AlwaysAllow answers yes, its rules are *") {
    rbac_fixture f(false);
    CHECK(allowed(f.can_i("t-alice", "delete", "secrets")));
    auto rules = f.post("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                        R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{"namespace":"a"}})",
                        "t-alice");
    CHECK(json::serialize(rules.at("status")) ==
          R"({"resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}],"nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]}],"incomplete":false})");
}

TEST_CASE("service account tokens: TokenRequest, the token as a bearer credential, TokenReview, expiry and deletion") {
    rbac_fixture f;
    f.post("/api/v1/namespaces/default/serviceaccounts",
           R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"robot"}})", "t-admin");
    auto tr = f.post("/api/v1/namespaces/default/serviceaccounts/robot/token",
                     R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}})", "t-admin");
    CHECK(tr.at("kind") == "TokenRequest");
    CHECK(json::serialize(tr.at("spec")) ==
          R"({"audiences":["https://kubernetes.default.svc.cluster.local"],"expirationSeconds":3600,"boundObjectRef":null})");
    const std::string token(tr.at("status").as_object().at("token").as_string());
    CHECK(std::count(token.begin(), token.end(), '.') == 2);
    CHECK(tr.at("metadata").as_object().at("name") == "robot");

    // The token authenticates as the account; RBAC then decides.
    auto who = f.post("/apis/authentication.k8s.io/v1/selfsubjectreviews",
                      R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})", token);
    const auto& info = who.at("status").as_object().at("userInfo").as_object();
    CHECK(info.at("username") == "system:serviceaccount:default:robot");
    CHECK(json::serialize(info.at("groups")) ==
          R"(["system:serviceaccounts","system:serviceaccounts:default","system:authenticated"])");
    CHECK(std::string(info.at("extra").as_object().at("authentication.kubernetes.io/credential-id").as_array()[0].as_string())
              .starts_with("JTI="));
    CHECK(f.call("GET", "/api/v1/namespaces/default/pods", "", token).status == 403);

    auto review = f.post("/apis/authentication.k8s.io/v1/tokenreviews",
                         R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":")" + token + R"("}})",
                         "t-admin");
    CHECK(review.at("status").as_object().at("authenticated") == true);
    auto garbage = f.post("/apis/authentication.k8s.io/v1/tokenreviews",
                          R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"a.b.c"}})",
                          "t-admin");
    CHECK(json::serialize(garbage.at("status")) == R"({"user":{},"error":"invalid bearer token"})");
    // A token altered in its claims fails its signature.
    std::string forged = token;
    forged[token.find('.') + 5] = forged[token.find('.') + 5] == 'A' ? 'B' : 'A';
    CHECK(f.call("GET", "/api", "", forged).status == 401);

    auto short_lived = f.call("POST", "/api/v1/namespaces/default/serviceaccounts/robot/token",
                              R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":60}})",
                              "t-admin");
    CHECK(short_lived.status == 422);
    CHECK(json::parse(short_lived.body).at("message") ==
          "TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a "
          "duration less than 10 minutes");
    CHECK(f.call("POST", "/api/v1/namespaces/default/serviceaccounts/nobody/token",
                 R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}})", "t-admin")
              .status == 404);
    CHECK(f.call("GET", "/api/v1/namespaces/default/serviceaccounts/robot/token", "", "t-admin").status == 405);

    // Expired (past the minute of leeway): 401. Then a fresh token, and the account deleted: 401.
    f.clk.advance(std::chrono::seconds(3600 + 61));
    CHECK(f.call("GET", "/api", "", token).status == 401);
    auto fresh = f.post("/api/v1/namespaces/default/serviceaccounts/robot/token",
                        R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}})", "t-admin");
    const std::string token2(fresh.at("status").as_object().at("token").as_string());
    CHECK(f.call("GET", "/api", "", token2).status == 200);
    CHECK(f.call("DELETE", "/api/v1/namespaces/default/serviceaccounts/robot", "", "t-admin").status == 200);
    CHECK(f.call("GET", "/api", "", token2).status == 401);
}

TEST_CASE("aggregated discovery: the Accept header's first acceptable form decides") {
    CHECK(aggregated_discovery_version("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json") == "v2");
    CHECK(aggregated_discovery_version("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList") == "v2beta1");
    CHECK(aggregated_discovery_version("application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
              .empty());
    CHECK(aggregated_discovery_version("").empty());
    CHECK(aggregated_discovery_version("*/*").empty());
    rbac_fixture f(false);
    f.extra.emplace_back("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    auto resp = f.call("GET", "/apis", "", "t-alice");
    CHECK(resp.content_type == "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    auto doc = json::parse(resp.body).as_object();
    bool rbac = false;
    for (const auto& it : doc.at("items").as_array()) {
        rbac = rbac || it.at("metadata").as_object().at("name") == "rbac.authorization.k8s.io";
    }
    CHECK(rbac);
}
