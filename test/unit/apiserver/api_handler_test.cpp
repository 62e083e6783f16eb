#include "http/api_handler.hpp"
#include "handler_fixture.hpp"
#include "http/table.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace kcoro;
using namespace kcoro::apiserver;
using namespace kcoro::apiserver::http;
using namespace std::chrono_literals;

namespace {

using kcoro::apiserver::http::test::fixture;

struct collecting_writer final : io::http_stream_writer {
    std::vector<std::string> chunks;
    bool open = true;
    asio::awaitable<bool> write(std::string c) override {
        if (!open) co_return false;
        chunks.push_back(std::move(c));
        co_return true;
    }
    /// Every event line written so far, parsed.
    std::vector<json::object> events() const {
        std::vector<json::object> out;
        std::string all;
        for (const auto& c : chunks) all += c;
        std::size_t i = 0;
        while (i < all.size()) {
            auto nl = all.find('\n', i);
            out.push_back(json::parse(all.substr(i, nl - i)).as_object());
            i = nl + 1;
        }
        return out;
    }
};

json::object body_of(const io::http_response& r) { return json::parse(r.body).as_object(); }

std::string cm(std::string name, std::string value = "1") {
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"("},"data":{"k":")" + value + R"("}})";
}

} // namespace

TEST_CASE("api_handler: discovery documents") {
    fixture f;
    auto api = body_of(f.answer("GET", "/api"));
    CHECK(api["kind"] == "APIVersions");
    CHECK(api["versions"].as_array().at(0) == "v1");
    auto v1 = body_of(f.answer("GET", "/api/v1"));
    CHECK(v1["kind"] == "APIResourceList");
    bool has_cm = false;
    for (const auto& r : v1["resources"].as_array()) {
        if (r.as_object().at("name") == "configmaps") {
            has_cm = true;
            CHECK(r.as_object().at("kind") == "ConfigMap");
            CHECK(r.as_object().at("namespaced") == true);
        }
    }
    CHECK(has_cm);
    auto apis = body_of(f.answer("GET", "/apis"));
    CHECK(apis["kind"] == "APIGroupList");
    bool has_apps = false;
    for (const auto& g : apis["groups"].as_array()) {
        has_apps = has_apps || g.as_object().at("name") == "apps";
    }
    CHECK(has_apps);
    CHECK(body_of(f.answer("GET", "/apis/apps"))["preferredVersion"].as_object()["groupVersion"] == "apps/v1");
    CHECK(f.answer("GET", "/apis/apps/v1").status == 200);
    CHECK(f.answer("GET", "/apis/nope.example.com/v1").status == 404);
    CHECK(body_of(f.answer("GET", "/version"))["major"] == "1");
    CHECK(body_of(f.answer("GET", "/openapi/v2"))["swagger"] == "2.0");
    // OpenAPI v3: the index and a PATCH operation per kind with fieldValidation.
    auto index = body_of(f.answer("GET", "/openapi/v3"));
    REQUIRE(index["paths"].as_object().contains("apis/apps/v1"));
    std::string url(index["paths"].as_object()["apis/apps/v1"].as_object()["serverRelativeURL"].as_string());
    auto doc = body_of(f.answer("GET", url));
    auto& op = doc["paths"].as_object()["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"].as_object()["patch"].as_object();
    CHECK(op["x-kubernetes-group-version-kind"].as_object()["kind"] == "Deployment");
    CHECK(op["parameters"].as_array().at(0).as_object().at("name") == "fieldValidation");
    CHECK(f.answer("GET", "/openapi/v3/apis/nope/v1").status == 404);
}

TEST_CASE("api_handler: CRUD maps onto the store with the real codes and bodies") {
    fixture f;
    auto created = f.answer("POST", "/api/v1/namespaces/default/configmaps", cm("a"));
    CHECK(created.status == 201);
    CHECK(created.content_type == "application/json");
    auto obj = body_of(created);
    CHECK(obj["metadata"].as_object()["name"] == "a");
    std::string rv(obj["metadata"].as_object()["resourceVersion"].as_string());
    CHECK(!rv.empty());

    auto dup = f.answer("POST", "/api/v1/namespaces/default/configmaps", cm("a"));
    CHECK(dup.status == 409);
    CHECK(body_of(dup)["reason"] == "AlreadyExists");

    CHECK(f.answer("GET", "/api/v1/namespaces/default/configmaps/a").status == 200);
    auto missing = f.answer("GET", "/api/v1/namespaces/default/configmaps/zz");
    CHECK(missing.status == 404);
    auto st = body_of(missing);
    CHECK(st["kind"] == "Status");
    CHECK(st["message"] == "configmaps \"zz\" not found");

    auto list = body_of(f.answer("GET", "/api/v1/namespaces/default/configmaps"));
    CHECK(list["kind"] == "ConfigMapList");
    CHECK(list["items"].as_array().size() == 1);

    auto patched = f.answer("PATCH", "/api/v1/namespaces/default/configmaps/a", R"({"data":{"k":"2"}})",
                            "application/merge-patch+json");
    CHECK(patched.status == 200);
    CHECK(body_of(patched)["data"].as_object()["k"] == "2");
    auto bad_type = f.answer("PATCH", "/api/v1/namespaces/default/configmaps/a", "{}", "text/plain");
    CHECK(bad_type.status == 415);

    // A stale update is a 409 Conflict.
    auto stale = json::parse(cm("a", "3")).as_object();
    stale["metadata"].as_object()["resourceVersion"] = rv;
    auto conflict = f.answer("PUT", "/api/v1/namespaces/default/configmaps/a", json::serialize(stale));
    CHECK(conflict.status == 409);
    CHECK(body_of(conflict)["reason"] == "Conflict");

    auto dry = f.answer("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", cm("b"));
    CHECK(dry.status == 201);
    CHECK(f.answer("GET", "/api/v1/namespaces/default/configmaps/b").status == 404);

    auto bad_body = f.answer("POST", "/api/v1/namespaces/default/configmaps", "not json");
    CHECK(bad_body.status == 400);

    CHECK(f.answer("DELETE", "/api/v1/namespaces/default/configmaps/a").status == 200);
    CHECK(f.answer("GET", "/api/v1/namespaces/default/configmaps/a").status == 404);
    CHECK(f.answer("GET", "/api/v1/namespaces/default/widgets").status == 404);
    CHECK(f.answer("GET", "/api/v1/namespaces/default/configmaps/a/scale").status == 404);
}

TEST_CASE("api_handler: 401 and 403 with the real Status bodies; policy reload") {
    fixture f;
    token_table tokens;
    tokens.add("t-alice", {"alice", {"devs"}});
    f.access.set_tokens(tokens);
    auto p = policy::parse(R"({"rules":[{"users":["alice"],"verbs":["get"],"resources":["configmaps"],"namespaces":["default"]}]})");
    REQUIRE(p.has_value());
    f.access.set_policy(*p);

    // No credentials: system:anonymous, not 401 (--anonymous-auth is on by default).
    auto anon = f.answer("GET", "/api/v1/namespaces/default/configmaps");
    CHECK(anon.status == 403);
    CHECK(body_of(anon)["message"] ==
          "configmaps is forbidden: User \"system:anonymous\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"default\"");
    auto wrong = f.answer("GET", "/api", {}, "application/json", "Bearer nope");
    CHECK(wrong.status == 401);

    auto denied = f.answer("GET", "/api/v1/namespaces/default/configmaps", {}, "application/json", "Bearer t-alice");
    CHECK(denied.status == 403);
    auto d = body_of(denied);
    CHECK(d["reason"] == "Forbidden");
    CHECK(d["message"] ==
          "configmaps is forbidden: User \"alice\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"default\"");
    auto named = f.answer("GET", "/api/v1/namespaces/other/configmaps/x", {}, "application/json", "Bearer t-alice");
    CHECK(body_of(named)["message"] ==
          "configmaps \"x\" is forbidden: User \"alice\" cannot get resource \"configmaps\" in API group \"\" in the namespace \"other\"");
    CHECK(f.answer("GET", "/api/v1/namespaces/default/configmaps/x", {}, "application/json", "Bearer t-alice").status == 404);

    // Reload: grant list; then revoke everything.
    auto p2 = policy::parse("rules:\n- groups: [devs]\n  verbs: [get, list]\n  resources: ['*']\n");
    REQUIRE(p2.has_value());
    f.access.set_policy(*p2);
    CHECK(f.answer("GET", "/api/v1/namespaces/default/configmaps", {}, "application/json", "Bearer t-alice").status == 200);
    f.access.set_policy(policy{});
    CHECK(f.answer("GET", "/api/v1/namespaces/default/configmaps", {}, "application/json", "Bearer t-alice").status == 403);
    auto cluster = f.answer("GET", "/api/v1/namespaces", {}, "application/json", "Bearer t-alice");
    CHECK(body_of(cluster)["message"] ==
          "namespaces is forbidden: User \"alice\" cannot list resource \"namespaces\" in API group \"\" at the cluster scope");
}

TEST_CASE("api_handler: anonymous requests read the public-info paths only") {
    fixture f;
    token_table tokens;
    tokens.add("t-alice", {"alice", {}});
    f.access.set_tokens(tokens);  // authentication on, no policy
    CHECK(f.answer("GET", "/version").status == 200);
    // /version is always indented (routes/version.go WriteRawJSON).
    auto version = f.answer("GET", "/version");
    CHECK(version.body.starts_with("{\n  \"major\": \"1\",\n  \"minor\": \"32\","));
    CHECK(version.body.back() == '}');
    auto health = f.answer("GET", "/healthz");
    CHECK(health.status == 200);
    CHECK(health.body == "ok");
    CHECK(health.content_type == "text/plain; charset=utf-8");
    CHECK(f.answer("GET", "/readyz").status == 200);
    CHECK(f.answer("GET", "/livez").status == 200);
    auto api = f.answer("GET", "/api");
    CHECK(api.status == 403);
    CHECK(body_of(api)["reason"] == "Forbidden");
    CHECK(body_of(api)["message"] == "forbidden: User \"system:anonymous\" cannot get path \"/api\"");
    CHECK(body_of(f.answer("POST", "/version"))["message"] ==
          "forbidden: User \"system:anonymous\" cannot post path \"/version\"");
    CHECK(f.answer("GET", "/apis").status == 403);
    auto ns = f.answer("GET", "/api/v1/namespaces");
    CHECK(ns.status == 403);
    CHECK(body_of(ns)["message"] ==
          "namespaces is forbidden: User \"system:anonymous\" cannot list resource \"namespaces\" in API group \"\" at the cluster scope");
    // An authenticated user may still do everything without a policy.
    CHECK(f.answer("GET", "/api", {}, "application/json", "Bearer t-alice").status == 200);
    // A policy can grant the anonymous user something.
    auto p = policy::parse("rules:\n- groups: [system:unauthenticated]\n  verbs: [list]\n  resources: [configmaps]\n");
    REQUIRE(p.has_value());
    f.access.set_policy(*p);
    CHECK(f.answer("GET", "/api/v1/namespaces/default/configmaps").status == 200);
}

TEST_CASE("api_handler: Impersonate-User runs the request as that user, after the impersonate check") {
    fixture f;
    token_table tokens;
    tokens.add("t-admin", {"admin", {"system:masters"}});
    tokens.add("t-alice", {"alice", {}});
    f.access.set_tokens(tokens);
    auto p = policy::parse(R"({"rules":[{"groups":["system:masters"],"verbs":["*"],"resources":["*"]},)"
                           R"({"users":["bob"],"verbs":["get"],"resources":["configmaps"]},)"
                           R"({"groups":["devs"],"verbs":["list"],"resources":["configmaps"]}]})");
    REQUIRE(p.has_value());
    f.access.set_policy(*p);
    REQUIRE(f.answer("POST", "/api/v1/namespaces/default/configmaps", cm("a"), "application/json", "Bearer t-admin").status == 201);

    f.extra = {{"Impersonate-User", "bob"}};
    auto list = f.answer("GET", "/api/v1/namespaces/default/configmaps", {}, "application/json", "Bearer t-admin");
    CHECK(list.status == 403);
    CHECK(body_of(list)["message"] ==
          "configmaps is forbidden: User \"bob\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"default\"");
    CHECK(f.answer("GET", "/api/v1/namespaces/default/configmaps/a", {}, "application/json", "Bearer t-admin").status == 200);

    // Groups given replace the defaults; each one is checked.
    f.extra = {{"Impersonate-User", "bob"}, {"Impersonate-Group", "devs"}};
    CHECK(f.answer("GET", "/api/v1/namespaces/default/configmaps", {}, "application/json", "Bearer t-admin").status == 200);

    // alice may not impersonate: 403 naming the users resource.
    f.extra = {{"Impersonate-User", "bob"}};
    auto denied = f.answer("GET", "/api/v1/namespaces/default/configmaps/a", {}, "application/json", "Bearer t-alice");
    CHECK(denied.status == 403);
    CHECK(body_of(denied)["message"] ==
          "users \"bob\" is forbidden: User \"alice\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope");
    // Groups without a user: the filter's 500 in plain text.
    f.extra = {{"Impersonate-Group", "devs"}, {"Impersonate-Group", "ops"}};
    auto nouser = f.answer("GET", "/api/v1/namespaces/default/configmaps?limit=1", {}, "application/json", "Bearer t-admin");
    CHECK(nouser.status == 500);
    CHECK(nouser.content_type == "text/plain; charset=utf-8");
    CHECK(nouser.body == "Internal Server Error: \"/api/v1/namespaces/default/configmaps?limit=1\": requested "
                         "[{Group  devs    } {Group  ops    }] without impersonating a user\n");
    f.extra = {{"Impersonate-User", "system:serviceaccount:default:sa"}};
    CHECK(body_of(f.answer("GET", "/api", {}, "application/json", "Bearer t-alice"))["message"] ==
          "serviceaccounts \"sa\" is forbidden: User \"alice\" cannot impersonate resource \"serviceaccounts\" in API group \"\" in the namespace \"default\"");
}

TEST_CASE("access_control::impersonate adds the groups impersonation.go adds") {
    access_control ac;
    token_table tokens;
    tokens.add("t", {"admin", {}});
    ac.set_tokens(tokens);
    user_info admin{"admin", {"system:authenticated"}};
    auto bob = ac.impersonate(admin, "bob", {});
    REQUIRE(bob.has_value());
    CHECK(bob->groups == std::vector<std::string>{"system:authenticated"});
    auto sa = ac.impersonate(admin, "system:serviceaccount:ns1:x", {});
    REQUIRE(sa.has_value());
    CHECK(sa->groups ==
          std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:ns1", "system:authenticated"});
    auto given = ac.impersonate(admin, "system:serviceaccount:ns1:x", {"g", "system:unauthenticated"});
    REQUIRE(given.has_value());
    CHECK(given->groups == std::vector<std::string>{"g", "system:unauthenticated"});
    auto anon = ac.impersonate(admin, "system:anonymous", {});
    REQUIRE(anon.has_value());
    CHECK(anon->groups == std::vector<std::string>{"system:unauthenticated"});
}

TEST_CASE("api_handler: fault table fails, delays and drops after commit") {
    fixture f;
    fault_rule fail;
    fail.verb = "create";
    fail.resource = "configmaps";
    fail.count = 2;
    fail.code = 503;
    fail.retry_after_seconds = 2;
    f.faults.add(fail);
    for (int i = 0; i < 2; ++i) {
        auto r = f.answer("POST", "/api/v1/namespaces/default/configmaps", cm("a"));
        CHECK(r.status == 503);
        CHECK(io::find_header(r.headers, "Retry-After") == "2");
        CHECK(body_of(r)["reason"] == "ServiceUnavailable");
    }
    CHECK(f.answer("POST", "/api/v1/namespaces/default/configmaps", cm("a")).status == 201);

    fault_rule drop;
    drop.action = fault_action::drop_after_commit;
    drop.verb = "create";
    f.faults.add(drop);
    auto dropped = f.call("POST", "/api/v1/namespaces/default/configmaps", cm("b"));
    CHECK(std::holds_alternative<io::http_drop>(dropped));
    CHECK(f.answer("GET", "/api/v1/namespaces/default/configmaps/b").status == 200);  // committed

    fault_rule delay;
    delay.action = fault_action::delay;
    delay.verb = "get";
    delay.delay = 5s;
    f.faults.add(delay);
    std::optional<io::http_reply> out;
    io::http_request req;
    req.method = "GET";
    req.target = "/api/v1/namespaces/default/configmaps/b";
    auto run = [&]() -> asio::awaitable<void> { out = co_await f.handler(std::move(req)); };
    asio::co_spawn(f.io, run(), asio::detached);
    f.io.restart();
    f.io.poll();
    CHECK_FALSE(out.has_value());
    CHECK(f.clk.sleepers() == 1);
    f.clk.advance(5s);
    f.io.restart();
    f.io.poll();
    CHECK(out.has_value());
    CHECK(f.faults.entries().size() >= 6);  // added/fired lines

    // Over HTTP: add a rule, list, clear.
    auto added = f.answer("POST", "/kcoro/faults", R"({"action":"fail","verb":"get","code":500,"count":1})");
    CHECK(added.status == 200);
    CHECK(body_of(added)["rules"].as_array().size() == 1);
    CHECK(f.answer("GET", "/api/v1/namespaces/default/configmaps/b").status == 500);
    CHECK(f.answer("POST", "/kcoro/faults", R"({"action":"explode"})").status == 400);
}

namespace {

struct watch_run {
    fixture& f;
    collecting_writer w;
    bool done = false;
    explicit watch_run(fixture& fx, const std::string& target) : f(fx) {
        auto reply = f.call("GET", target);
        REQUIRE(std::holds_alternative<io::http_stream>(reply));
        auto s = std::get<io::http_stream>(std::move(reply));
        auto run = [this, s = std::move(s)]() -> asio::awaitable<void> {
            co_await s.body(w);
            done = true;
        };
        // co_spawn with the callable keeps its captures alive (docs/toolchain.md).
        asio::co_spawn(f.io, std::move(run), asio::detached);
        pump();
    }
    void pump() {
        f.io.restart();
        f.io.poll();
    }
};

} // namespace

TEST_CASE("api_handler: watch from 0 sends current state, then changes, bookmarks and ends on timeout") {
    fixture f;
    f.answer("POST", "/api/v1/namespaces/default/configmaps", cm("a"));
    watch_run w(f, "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=30");
    auto ev = w.w.events();
    REQUIRE(ev.size() == 1);
    CHECK(ev[0]["type"] == "ADDED");
    f.answer("PATCH", "/api/v1/namespaces/default/configmaps/a", R"({"data":{"k":"2"}})", "application/merge-patch+json");
    f.answer("POST", "/api/v1/namespaces/kube-system/configmaps", cm("other"));  // other namespace: filtered
    w.pump();
    ev = w.w.events();
    REQUIRE(ev.size() == 2);
    CHECK(ev[1]["type"] == "MODIFIED");
    f.clk.advance(10s);
    w.pump();
    ev = w.w.events();
    REQUIRE(ev.size() == 3);
    CHECK(ev[2]["type"] == "BOOKMARK");
    CHECK(ev[2]["object"].as_object()["kind"] == "ConfigMap");
    CHECK(ev[2]["object"].as_object()["metadata"].as_object()["resourceVersion"].as_string() ==
          std::to_string(f.store.current_revision()));
    CHECK_FALSE(w.done);
    f.clk.advance(20s);
    w.pump();
    CHECK(w.done);
}

TEST_CASE("api_handler: watch from a revision, 410 after compaction, sendInitialEvents bookmark") {
    fixture f;
    auto a = body_of(f.answer("POST", "/api/v1/namespaces/default/configmaps", cm("a")));
    std::string rv(a["metadata"].as_object()["resourceVersion"].as_string());
    f.answer("POST", "/api/v1/namespaces/default/configmaps", cm("b"));
    {
        watch_run w(f, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=" + rv + "&timeoutSeconds=1");
        auto ev = w.w.events();
        REQUIRE(ev.size() == 1);
        CHECK(ev[0]["type"] == "ADDED");
        CHECK(ev[0]["object"].as_object()["metadata"].as_object()["name"] == "b");
        f.clk.advance(1s);
        w.pump();
        CHECK(w.done);
    }
    f.store.compact();
    {
        watch_run w(f, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=" + rv);
        auto ev = w.w.events();
        REQUIRE(ev.size() == 1);
        CHECK(ev[0]["type"] == "ERROR");
        CHECK(ev[0]["object"].as_object()["code"] == 410);
        CHECK(w.done);
    }
    {
        watch_run w(f, "/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&allowWatchBookmarks=true"
                       "&resourceVersionMatch=NotOlderThan&timeoutSeconds=5");
        auto ev = w.w.events();
        REQUIRE(ev.size() == 3);
        CHECK(ev[0]["type"] == "ADDED");
        CHECK(ev[1]["type"] == "ADDED");
        CHECK(ev[2]["type"] == "BOOKMARK");
        CHECK(ev[2]["object"].as_object()["metadata"].as_object()["annotations"].as_object()["k8s.io/initial-events-end"] == "true");
        // Stalled delivery holds events back; resuming delivers them.
        f.faults.set_watch_stall(true);
        f.answer("DELETE", "/api/v1/namespaces/default/configmaps/a");
        w.pump();
        CHECK(w.w.events().size() == 3);
        f.faults.set_watch_stall(false);
        f.hub.notify();
        w.pump();
        ev = w.w.events();
        REQUIRE(ev.size() == 4);
        CHECK(ev[3]["type"] == "DELETED");
    }
    // validateWatchOptions (v0.32): every error together.
    auto bad = f.answer("GET", "/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=Exact");
    CHECK(bad.status == 422);
    CHECK(body_of(bad)["message"] ==
          "ListOptions.meta.k8s.io \"\" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting "
          "resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: \"Exact\": supported values: "
          "\"NotOlderThan\"]");
    auto no_sie = f.answer("GET", "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1&resourceVersionMatch=NotOlderThan");
    CHECK(no_sie.status == 422);
    CHECK(body_of(no_sie)["message"] ==
          "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden "
          "for watch unless sendInitialEvents is provided");
    {
        // 1.32 does not require allowWatchBookmarks: the state comes without the end bookmark.
        watch_run w(f, "/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true"
                       "&resourceVersionMatch=NotOlderThan&timeoutSeconds=5");
        auto ev = w.w.events();
        REQUIRE_FALSE(ev.empty());
        for (const auto& e : ev) CHECK(e.at("type") == "ADDED");
    }
}

namespace {

/// Starts a request with extra headers; the reply is filled when it completes.
std::shared_ptr<std::optional<io::http_reply>> start(fixture& f, std::string target,
                                                     std::vector<std::pair<std::string, std::string>> headers) {
    io::http_request req;
    req.method = "GET";
    req.target = std::move(target);
    req.headers = std::move(headers);
    auto out = std::make_shared<std::optional<io::http_reply>>();
    auto run = [&f, out, req = std::move(req)]() mutable -> asio::awaitable<void> {
        auto r = co_await f.handler(std::move(req));
        out->emplace(std::move(r));
    };
    asio::co_spawn(f.io, std::move(run), asio::detached);
    f.io.restart();
    f.io.poll();
    return out;
}

io::http_response response_of(const std::shared_ptr<std::optional<io::http_reply>>& r) {
    REQUIRE(r->has_value());
    REQUIRE(std::holds_alternative<io::http_response>(**r));
    return std::get<io::http_response>(**r);
}

constexpr const char* kubectl_table_accept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

} // namespace

TEST_CASE("api_handler: Accept negotiation: Table for kubectl get, 406 for protobuf only") {
    fixture f;
    f.answer("POST", "/api/v1/namespaces/default/configmaps", cm("a"));
    auto t = response_of(start(f, "/api/v1/namespaces/default/configmaps", {{"Accept", kubectl_table_accept}}));
    CHECK(t.status == 200);
    auto table = body_of(t);
    CHECK(table["kind"] == "Table");
    CHECK(table["apiVersion"] == "meta.k8s.io/v1");
    const auto& cols = table["columnDefinitions"].as_array();
    REQUIRE(cols.size() == 3);
    CHECK(cols[0].as_object().at("name") == "Name");
    CHECK(cols[0].as_object().at("format") == "name");
    CHECK(cols[1].as_object().at("name") == "Data");
    CHECK(cols[2].as_object().at("name") == "Age");
    const auto& rows = table["rows"].as_array();
    REQUIRE(rows.size() == 1);
    const auto& cells = rows[0].as_object().at("cells").as_array();
    CHECK(cells[0] == "a");
    CHECK(cells[1] == 1);
    CHECK(cells[2] == "0s");
    CHECK(rows[0].as_object().at("object").as_object().at("kind") == "PartialObjectMetadata");
    CHECK(table["metadata"].as_object().contains("resourceVersion"));
    // A single object is a one-row Table; includeObject=Object embeds it.
    auto one = body_of(response_of(start(f, "/api/v1/namespaces/default/configmaps/a?includeObject=Object",
                                         {{"Accept", kubectl_table_accept}})));
    REQUIRE(one["rows"].as_array().size() == 1);
    CHECK(one["rows"].as_array()[0].as_object().at("object").as_object().at("kind") == "ConfigMap");
    // Plain JSON when asked; protobuf only is 406 NotAcceptable.
    auto plain = body_of(response_of(start(f, "/api/v1/namespaces/default/configmaps",
                                           {{"Accept", "application/vnd.kubernetes.protobuf, application/json"}})));
    CHECK(plain["kind"] == "ConfigMapList");
    auto pb = response_of(start(f, "/api/v1/namespaces/default/configmaps", {{"Accept", "application/vnd.kubernetes.protobuf"}}));
    CHECK(pb.status == 406);
    auto st = body_of(pb);
    CHECK(st["reason"] == "NotAcceptable");
    CHECK(st["message"] ==
          "only the following media types are accepted: application/json, application/yaml, "
          "application/vnd.kubernetes.protobuf");
    // A protobuf body is decoded (store/protobuf_decoder.hpp); one without
    // the k8s\0 magic is the decoder's 400, as on a real server.
    auto body400 = f.answer("POST", "/api/v1/namespaces/default/configmaps", "x", "application/vnd.kubernetes.protobuf");
    CHECK(body400.status == 400);
    CHECK(body_of(body400)["message"] ==
          "the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a "
          "protobuf message, expected prefix [107 56 115 0] (78)");
}

TEST_CASE("api_handler: Table columns of a custom resource are its additionalPrinterColumns") {
    fixture f;
    auto crd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
      "metadata":{"name":"widgets.example.com"},
      "spec":{"group":"example.com","scope":"Namespaced",
        "names":{"plural":"widgets","singular":"widget","kind":"Widget"},
        "versions":[{"name":"v1","served":true,"storage":true,
          "additionalPrinterColumns":[{"name":"Size","type":"integer","jsonPath":".spec.size"},
                                      {"name":"Color","type":"string","jsonPath":".spec.color","priority":1},
                                      {"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}],
          "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})";
    REQUIRE(f.answer("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd).status == 201);
    REQUIRE(f.answer("POST", "/apis/example.com/v1/namespaces/default/widgets",
                     R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":3,"color":"red"}})")
                .status == 201);
    auto table = body_of(response_of(start(f, "/apis/example.com/v1/namespaces/default/widgets", {{"Accept", kubectl_table_accept}})));
    const auto& cols = table["columnDefinitions"].as_array();
    REQUIRE(cols.size() == 4);
    CHECK(cols[1].as_object().at("name") == "Size");
    CHECK(cols[2].as_object().at("priority") == 1);
    const auto& cells = table["rows"].as_array()[0].as_object().at("cells").as_array();
    CHECK(cells[0] == "w");
    CHECK(cells[1] == 3);
    CHECK(cells[2] == "red");
    CHECK(cells[3] == "0s");
    // The v1beta1 Table when that is the first acceptable form.
    auto beta = body_of(response_of(start(f, "/apis/example.com/v1/namespaces/default/widgets",
                                          {{"Accept", "application/json;as=Table;v=v1beta1;g=meta.k8s.io"}})));
    CHECK(beta["apiVersion"] == "meta.k8s.io/v1beta1");
}

TEST_CASE("api_handler: events field selectors (kubectl describe) and unsupported labels") {
    fixture f;
    auto ev = R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"e1"},
        "involvedObject":{"kind":"ConfigMap","name":"cm1","namespace":"default","uid":"u-1"},
        "reason":"Created","type":"Normal","message":"m"})";
    REQUIRE(f.answer("POST", "/api/v1/namespaces/default/events", ev).status == 201);
    auto l = f.answer("GET", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dcm1%2CinvolvedObject.namespace%3Ddefault%2CinvolvedObject.uid%3Du-1");
    CHECK(l.status == 200);
    CHECK(body_of(l)["items"].as_array().size() == 1);
    auto none = f.answer("GET", "/api/v1/namespaces/default/events?fieldSelector=type%3DWarning");
    CHECK(body_of(none)["items"].as_array().empty());
    // kubectl get events: the event printer's columns.
    auto t = body_of(response_of(start(f, "/api/v1/namespaces/default/events", {{"Accept", kubectl_table_accept}})));
    const auto& cols = t["columnDefinitions"].as_array();
    REQUIRE(cols.size() == 10);
    CHECK(cols[0].as_object().at("name") == "Last Seen");
    CHECK(cols[9].as_object().at("name") == "Name");
    CHECK(cols[9].as_object().at("priority") == 1);
    const auto& cells = t["rows"].as_array()[0].as_object().at("cells").as_array();
    CHECK(cells[0] == "<unknown>");
    CHECK(cells[1] == "Normal");
    CHECK(cells[2] == "Created");
    CHECK(cells[3] == "configmap/cm1");
    CHECK(cells[6] == "m");
    CHECK(cells[8] == 1);
    CHECK(cells[9] == "e1");
    auto bad = f.answer("GET", "/api/v1/namespaces/default/events?fieldSelector=spec.nodeName%3Dn1");
    CHECK(bad.status == 400);
    CHECK(body_of(bad)["message"] == "field label not supported: spec.nodeName");
}

TEST_CASE("api_handler: a list ahead of the store waits, then 504 Too large resource version") {
    fixture f;
    f.handler.options().too_large_wait = 3s;
    auto now = f.store.current_revision();
    auto ahead = std::to_string(now + 1);
    auto r = start(f, "/api/v1/namespaces/default/configmaps?resourceVersion=" + ahead + "&resourceVersionMatch=NotOlderThan", {});
    CHECK_FALSE(r->has_value());  // waiting for the revision
    // The revision arrives: the list is served.
    f.answer("POST", "/api/v1/namespaces/default/configmaps", cm("a"));
    f.io.restart();
    f.io.poll();
    CHECK(response_of(r).status == 200);
    // Never arrives: 504 after the wait.
    auto far = std::to_string(f.store.current_revision() + 100);
    auto r2 = start(f, "/api/v1/namespaces/default/configmaps?resourceVersion=" + far, {});
    CHECK_FALSE(r2->has_value());
    f.clk.advance(3s);
    f.io.restart();
    f.io.poll();
    auto resp = response_of(r2);
    CHECK(resp.status == 504);
    auto st = body_of(resp);
    CHECK(st["reason"] == "Timeout");
    CHECK(std::string(st["message"].as_string()).starts_with("Timeout: Too large resource version: " + far));
    CHECK(st["details"].as_object()["causes"].as_array()[0].as_object()["reason"] == "ResourceVersionTooLarge");
    // sendInitialEvents at a future revision: the ERROR event after the wait.
    auto w = start(f, "/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&allowWatchBookmarks=true"
                      "&resourceVersionMatch=NotOlderThan&resourceVersion=" + far, {});
    REQUIRE(w->has_value());
    REQUIRE(std::holds_alternative<io::http_stream>(**w));
    auto s = std::get<io::http_stream>(std::move(**w));
    collecting_writer out;
    bool done = false;
    auto run = [&, s = std::move(s)]() -> asio::awaitable<void> {
        co_await s.body(out);
        done = true;
    };
    asio::co_spawn(f.io, std::move(run), asio::detached);
    f.io.restart();
    f.io.poll();
    CHECK_FALSE(done);
    f.clk.advance(3s);
    f.io.restart();
    f.io.poll();
    CHECK(done);
    auto evs = out.events();
    REQUIRE(evs.size() == 1);
    CHECK(evs[0]["type"] == "ERROR");
    CHECK(evs[0]["object"].as_object()["code"] == 504);
}

TEST_CASE("table: human durations as kubectl prints them") {
    CHECK(human_duration(0s) == "0s");
    CHECK(human_duration(-1s) == "0s");
    CHECK(human_duration(-5s) == "<invalid>");
    CHECK(human_duration(119s) == "119s");
    CHECK(human_duration(150s) == "2m30s");
    CHECK(human_duration(600s) == "10m");
    CHECK(human_duration(std::chrono::hours(5) + std::chrono::minutes(7)) == "5h7m");
    CHECK(human_duration(std::chrono::hours(30)) == "30h");
    CHECK(human_duration(std::chrono::hours(24 * 3 + 2)) == "3d2h");
    CHECK(human_duration(std::chrono::hours(24 * 400)) == "400d");
    CHECK(negotiate("") == media_choice::json);
    CHECK(negotiate("*/*") == media_choice::json);
    CHECK(negotiate("application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json") ==
          media_choice::partial_v1);
    CHECK(negotiate("application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io,application/json") ==
          media_choice::json);
    CHECK(negotiate("application/vnd.kubernetes.protobuf") == media_choice::not_acceptable);
}

// --- kube-apiserver's printers for more built-in kinds (builtin_printers.cpp) --

namespace {

/// A one-row Table of `obj` at 2025-01-01T01:00:00Z, as the server makes it.
json::object printed(std::string_view group, std::string_view resource, std::string_view obj) {
    auto o = json::parse(obj).as_object();
    table_options opts;
    opts.now = *parse_rfc3339("2025-01-01T01:00:00Z");
    std::vector<const json::object*> items{&o};
    return make_table(table_columns(group, resource, nullptr, false), group, resource, items, {}, opts);
}

/// "Name:type:priority" of each column, space separated.
std::string columns_of(const json::object& t) {
    std::string out;
    for (const auto& c : t.at("columnDefinitions").as_array()) {
        const auto& o = c.as_object();
        if (!out.empty()) out += ", ";
        out += std::string(o.at("name").as_string()) + ":" + std::string(o.at("type").as_string()) + ":" +
               std::to_string(o.at("priority").as_int64());
    }
    return out;
}

std::string cells_of(const json::object& t) {
    return json::serialize(t.at("rows").as_array().at(0).as_object().at("cells"));
}

} // namespace

TEST_CASE("table: pods as printPod prints them") {
    // As `kubectl run nginx --image=nginx` stores it: no kubelet, no container statuses.
    auto run = printed("", "pods", R"({"apiVersion":"v1","kind":"Pod",
        "metadata":{"name":"nginx","namespace":"default","creationTimestamp":"2025-01-01T00:00:00Z","labels":{"run":"nginx"}},
        "spec":{"containers":[{"name":"nginx","image":"nginx"}],"restartPolicy":"Always","dnsPolicy":"ClusterFirst"},
        "status":{"phase":"Pending","qosClass":"BestEffort"}})");
    CHECK(columns_of(run) == "Name:string:0, Ready:string:0, Status:string:0, Restarts:string:0, Age:string:0, "
                             "IP:string:1, Node:string:1, Nominated Node:string:1, Readiness Gates:string:1");
    const auto& name = run.at("columnDefinitions").as_array()[0].as_object();
    CHECK(name.at("format") == "name");
    CHECK(std::string(run.at("columnDefinitions").as_array()[5].as_object().at("description").as_string())
              .starts_with("podIP address allocated to the pod."));
    CHECK(cells_of(run) == R"(["nginx","0/1","Pending","0","60m","<none>","<none>","<none>","<none>"])");

    // Running: a completed init container, two ready containers, restarts.
    auto running = printed("", "pods", R"({"apiVersion":"v1","kind":"Pod",
        "metadata":{"name":"web","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"nodeName":"node-1","initContainers":[{"name":"init","image":"busybox"}],
                "containers":[{"name":"a","image":"nginx"},{"name":"b","image":"redis"}],
                "readinessGates":[{"conditionType":"example.com/gate"}]},
        "status":{"phase":"Running","podIP":"10.1.0.5","podIPs":[{"ip":"10.1.0.5"}],
          "conditions":[{"type":"Initialized","status":"True"},{"type":"Ready","status":"True"},
                        {"type":"example.com/gate","status":"True"}],
          "initContainerStatuses":[{"name":"init","ready":false,"restartCount":0,
             "state":{"terminated":{"exitCode":0,"reason":"Completed"}}}],
          "containerStatuses":[
            {"name":"a","ready":true,"restartCount":2,"state":{"running":{"startedAt":"2025-01-01T00:50:00Z"}},
             "lastState":{"terminated":{"exitCode":1,"reason":"Error","finishedAt":"2025-01-01T00:50:00Z"}}},
            {"name":"b","ready":true,"restartCount":1,"state":{"running":{}}}]}})");
    CHECK(cells_of(running) == R"j(["web","2/2","Running","3 (10m ago)","60m","10.1.0.5","node-1","<none>","1/1"])j");

    // A waiting container's reason; an init container still to run; terminating.
    auto crash = printed("", "pods", R"({"metadata":{"name":"c","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"containers":[{"name":"a","image":"x"}]},
        "status":{"phase":"Running","containerStatuses":[{"name":"a","ready":false,"restartCount":4,
          "state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}})");
    CHECK(cells_of(crash) == R"(["c","0/1","CrashLoopBackOff","4","60m","<none>","<none>","<none>","<none>"])");
    auto init = printed("", "pods", R"({"metadata":{"name":"i","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"initContainers":[{"name":"i1","image":"x"},{"name":"i2","image":"x"}],"containers":[{"name":"a","image":"x"}]},
        "status":{"phase":"Pending","initContainerStatuses":[
          {"name":"i1","restartCount":0,"state":{"terminated":{"exitCode":0}}},
          {"name":"i2","restartCount":0,"state":{"waiting":{"reason":"PodInitializing"}}}]}})");
    CHECK(cells_of(init) == R"(["i","0/1","Init:1/2","0","60m","<none>","<none>","<none>","<none>"])");
    auto del = printed("", "pods", R"({"metadata":{"name":"d","creationTimestamp":"2025-01-01T00:00:00Z",
        "deletionTimestamp":"2025-01-01T00:59:00Z"},"spec":{"containers":[{"name":"a","image":"x"}]},
        "status":{"phase":"Running"}})");
    CHECK(cells_of(del) == R"(["d","0/1","Terminating","0","60m","<none>","<none>","<none>","<none>"])");
}

TEST_CASE("table: jobs and cronjobs as printJob and printCronJob print them") {
    auto running = printed("batch", "jobs", R"({"metadata":{"name":"pi","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"completions":3,"parallelism":1,
          "selector":{"matchLabels":{"batch.kubernetes.io/controller-uid":"abc"}},
          "template":{"spec":{"containers":[{"name":"pi","image":"perl"}]}}},
        "status":{"startTime":"2025-01-01T00:30:00Z","succeeded":1,"active":1}})");
    CHECK(columns_of(running) == "Name:string:0, Status:string:0, Completions:string:0, Duration:string:0, Age:string:0, "
                                 "Containers:string:1, Images:string:1, Selector:string:1");
    CHECK(cells_of(running) == R"(["pi","Running","1/3","30m","60m","pi","perl","batch.kubernetes.io/controller-uid=abc"])");
    auto done = printed("batch", "jobs", R"({"metadata":{"name":"j","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"parallelism":2,"template":{"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}}},
        "status":{"startTime":"2025-01-01T00:00:00Z","completionTime":"2025-01-01T00:00:42Z","succeeded":1,
          "conditions":[{"type":"SuccessCriteriaMet","status":"True"},{"type":"Complete","status":"True"}]}})");
    CHECK(cells_of(done) == R"(["j","Complete","1/1 of 2","42s","60m","a,b","x,y","<none>"])");
    auto fresh = printed("batch", "jobs", R"({"metadata":{"name":"n","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"completions":1,"template":{"spec":{"containers":[]}}}})");
    CHECK(cells_of(fresh) == R"(["n","Running","0/1","","60m","","","<none>"])");

    auto cj = printed("batch", "cronjobs", R"({"metadata":{"name":"hello","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"schedule":"*/1 * * * *","suspend":false,"concurrencyPolicy":"Allow",
          "jobTemplate":{"spec":{"template":{"spec":{"containers":[{"name":"hello","image":"busybox"}]}}}}},
        "status":{"active":[{"kind":"Job","name":"hello-1"}],"lastScheduleTime":"2025-01-01T00:59:00Z"}})");
    CHECK(columns_of(cj) == "Name:string:0, Schedule:string:0, Timezone:string:0, Suspend:boolean:0, Active:integer:0, "
                            "Last Schedule:string:0, Age:string:0, Containers:string:1, Images:string:1, Selector:string:1");
    CHECK(cells_of(cj) == R"(["hello","*/1 * * * *","<none>","False",1,"60s","60m","hello","busybox","<none>"])");
    auto cj2 = printed("batch", "cronjobs", R"({"metadata":{"name":"tz","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"schedule":"0 0 * * *","timeZone":"Etc/UTC","jobTemplate":{"spec":{"template":{"spec":{"containers":[]}}}}}})");
    CHECK(cells_of(cj2) == R"(["tz","0 0 * * *","Etc/UTC","<unset>",0,"<none>","60m","","","<none>"])");
}

TEST_CASE("table: rbac, replicasets, ingresses, pdbs and others as printers.go prints them") {
    auto rb = printed("rbac.authorization.k8s.io", "rolebindings", R"({"metadata":{"name":"read-pods",
        "creationTimestamp":"2025-01-01T00:00:00Z"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"pod-reader"},
        "subjects":[{"kind":"User","name":"jane"},{"kind":"Group","name":"devs"},
                    {"kind":"ServiceAccount","name":"sa1","namespace":"default"},
                    {"kind":"ServiceAccount","name":"sa2","namespace":"ns2"}]})");
    CHECK(columns_of(rb) == "Name:string:0, Role:string:0, Age:string:0, Users:string:1, Groups:string:1, "
                            "ServiceAccounts:string:1");
    CHECK(cells_of(rb) == R"(["read-pods","Role/pod-reader","60m","jane","devs","default/sa1, ns2/sa2"])");
    auto crb = printed("rbac.authorization.k8s.io", "clusterrolebindings", R"({"metadata":{"name":"admin",
        "creationTimestamp":"2025-01-01T00:00:00Z"},"roleRef":{"kind":"ClusterRole","name":"cluster-admin"}})");
    CHECK(cells_of(crb) == R"(["admin","ClusterRole/cluster-admin","60m","","",""])");
    // Roles, clusterroles and limitranges have no printer: the default table convertor.
    auto role = printed("rbac.authorization.k8s.io", "clusterroles",
                        R"({"metadata":{"name":"view","creationTimestamp":"2025-01-01T00:00:00Z"},"rules":[]})");
    CHECK(columns_of(role) == "Name:string:0, Created At:date:0");
    CHECK(cells_of(role) == R"(["view","2025-01-01T00:00:00Z"])");
    CHECK(columns_of(printed("", "limitranges", R"({"metadata":{"name":"l"}})")) == "Name:string:0, Created At:date:0");

    auto rs = printed("apps", "replicasets", R"({"metadata":{"name":"web-abc","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"replicas":3,"selector":{"matchLabels":{"tier":"fe","app":"web"},
            "matchExpressions":[{"key":"env","operator":"In","values":["prod","dev"]}]},
          "template":{"spec":{"containers":[{"name":"web","image":"nginx"}]}}},
        "status":{"replicas":3,"readyReplicas":2}})");
    CHECK(columns_of(rs) == "Name:string:0, Desired:integer:0, Current:integer:0, Ready:integer:0, Age:string:0, "
                            "Containers:string:1, Images:string:1, Selector:string:1");
    CHECK(cells_of(rs) == R"(["web-abc",3,3,2,"60m","web","nginx","app=web,env in (dev,prod),tier=fe"])");
    auto ss = printed("apps", "statefulsets", R"({"metadata":{"name":"db","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"pg","image":"postgres"}]}}},"status":{"readyReplicas":1}})");
    CHECK(cells_of(ss) == R"(["db","1/2","60m","pg","postgres"])");
    auto ds = printed("apps", "daemonsets", R"({"metadata":{"name":"agent","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"selector":{"matchLabels":{"app":"agent"}},"template":{"spec":{"nodeSelector":{"os":"linux"},
          "containers":[{"name":"a","image":"agent"}]}}},
        "status":{"desiredNumberScheduled":2,"currentNumberScheduled":2,"numberReady":1,"updatedNumberScheduled":2,"numberAvailable":1}})");
    CHECK(cells_of(ds) == R"(["agent",2,2,1,2,1,"os=linux","60m","a","agent","app=agent"])");

    auto ing = printed("networking.k8s.io", "ingresses", R"({"metadata":{"name":"ing","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"ingressClassName":"nginx","rules":[{"host":"foo.com"},{"host":"bar.com"},{}],
          "tls":[{"hosts":["foo.com"],"secretName":"tls"}]},
        "status":{"loadBalancer":{"ingress":[{"ip":"10.0.0.2"},{"hostname":"lb.example.com"},{"ip":"10.0.0.1"}]}}})");
    CHECK(columns_of(ing) == "Name:string:0, Class:string:0, Hosts:string:0, Address:string:0, Ports:string:0, Age:string:0");
    CHECK(cells_of(ing) == R"(["ing","nginx","foo.com,bar.com","10.0.0.1,10.0.0.2,lb.example.com","80, 443","60m"])");
    auto bare = printed("networking.k8s.io", "ingresses", R"({"metadata":{"name":"b","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"defaultBackend":{"service":{"name":"s","port":{"number":80}}}}})");
    CHECK(cells_of(bare) == R"(["b","<none>","*","","80","60m"])");
    auto np = printed("networking.k8s.io", "networkpolicies", R"({"metadata":{"name":"deny","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"podSelector":{}}})");
    CHECK(cells_of(np) == R"(["deny","<none>","60m"])");

    auto pdb = printed("policy", "poddisruptionbudgets", R"({"metadata":{"name":"pdb","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"minAvailable":2,"selector":{"matchLabels":{"app":"web"}}},"status":{"disruptionsAllowed":1}})");
    CHECK(columns_of(pdb) == "Name:string:0, Min Available:string:0, Max Unavailable:string:0, "
                             "Allowed Disruptions:integer:0, Age:string:0");
    CHECK(cells_of(pdb) == R"(["pdb","2","N/A",1,"60m"])");
    auto pdb2 = printed("policy", "poddisruptionbudgets", R"({"metadata":{"name":"p2","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"maxUnavailable":"25%"}})");
    CHECK(cells_of(pdb2) == R"(["p2","N/A","25%",0,"60m"])");

    auto sa = printed("", "serviceaccounts", R"({"metadata":{"name":"default","creationTimestamp":"2025-01-01T00:00:00Z"}})");
    CHECK(columns_of(sa) == "Name:string:0, Secrets:string:0, Age:string:0");
    CHECK(cells_of(sa) == R"(["default",0,"60m"])");
    auto node = printed("", "nodes", R"({"metadata":{"name":"n1","creationTimestamp":"2025-01-01T00:00:00Z",
        "labels":{"node-role.kubernetes.io/control-plane":"","kubernetes.io/role":"master"}},
        "spec":{"unschedulable":true},"status":{"conditions":[{"type":"Ready","status":"True"}],
        "addresses":[{"type":"InternalIP","address":"192.168.0.2"}],"nodeInfo":{"kubeletVersion":"v1.32.0"}}})");
    CHECK(cells_of(node) == R"(["n1","Ready,SchedulingDisabled","control-plane,master","60m","v1.32.0","192.168.0.2",)"
                            R"("<none>","<unknown>","<unknown>","<unknown>"])");
    auto pvc = printed("", "persistentvolumeclaims", R"({"metadata":{"name":"data","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"storageClassName":"standard",
          "volumeMode":"Filesystem"},"status":{"phase":"Pending"}})");
    CHECK(cells_of(pvc) == R"(["data","Pending","","","","standard","<unset>","60m","Filesystem"])");
    auto ep = printed("", "endpoints", R"({"metadata":{"name":"svc","creationTimestamp":"2025-01-01T00:00:00Z"},
        "subsets":[{"addresses":[{"ip":"10.0.0.1"},{"ip":"10.0.0.2"}],"ports":[{"port":80},{"port":443}]}]})");
    CHECK(cells_of(ep) == R"(["svc","10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...","60m"])");
    auto eps = printed("discovery.k8s.io", "endpointslices", R"({"metadata":{"name":"svc-x","creationTimestamp":"2025-01-01T00:00:00Z"},
        "addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}],"ports":[{"name":"http","port":80},{"name":"any"}]})");
    CHECK(cells_of(eps) == R"(["svc-x","IPv4","80,any","10.0.0.1","60m"])");
    auto rq = printed("", "resourcequotas", R"({"metadata":{"name":"q","creationTimestamp":"2025-01-01T00:00:00Z"},
        "status":{"hard":{"pods":"10","requests.cpu":"1","limits.memory":"2Gi"},"used":{"pods":"3","requests.cpu":"500m"}}})");
    CHECK(cells_of(rq) == R"(["q","pods: 3/10, requests.cpu: 500m/1","limits.memory: 0/2Gi","60m"])");
}

// --- issue 13: the real server's answers ------------------------------------

namespace {

std::string deployment(std::string name, int replicas) {
    return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":")" + name +
           R"("},"spec":{"replicas":)" + std::to_string(replicas) +
           R"(,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},)"
           R"("spec":{"containers":[{"name":"web","image":"nginx"}]}}}})";
}

/// A watch started with extra headers, its events collected.
struct header_watch {
    fixture& f;
    collecting_writer w;
    bool done = false;
    header_watch(fixture& fx, std::string target, std::vector<std::pair<std::string, std::string>> headers) : f(fx) {
        auto r = start(f, std::move(target), std::move(headers));
        REQUIRE(r->has_value());
        REQUIRE(std::holds_alternative<io::http_stream>(**r));
        auto s = std::get<io::http_stream>(std::move(**r));
        auto run = [this, s = std::move(s)]() -> asio::awaitable<void> {
            co_await s.body(w);
            done = true;
        };
        asio::co_spawn(f.io, std::move(run), asio::detached);
        pump();
    }
    void pump() {
        f.io.restart();
        f.io.poll();
    }
};

} // namespace

TEST_CASE("api_handler: 405 and the two kinds of 404") {
    fixture f;
    f.answer("POST", "/api/v1/namespaces/default/configmaps", cm("a"));
    auto post = f.answer("POST", "/api/v1/namespaces/default/configmaps/a", cm("a"));
    CHECK(post.status == 405);
    CHECK(post.content_type == "application/json");
    CHECK(post.body ==
          R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405})"
          "\n");
    CHECK(f.answer("HEAD", "/api/v1/namespaces/default/configmaps/a").status == 405);
    CHECK(f.answer("PUT", "/api/v1/namespaces/default/configmaps", cm("a")).status == 405);
    auto text = f.answer("GET", "/foo");
    CHECK(text.status == 404);
    CHECK(text.content_type == "text/plain; charset=utf-8");
    CHECK(text.body == "404 page not found\n");
    CHECK(f.answer("GET", "/apis/nope.example.com/v1").status == 404);
    CHECK(f.answer("GET", "/apis/nope.example.com/v1").content_type.starts_with("text/plain"));
    auto json404 = f.answer("GET", "/api/v1/namespaces/default/foos");
    CHECK(json404.status == 404);
    CHECK(body_of(json404)["message"] == "the server could not find the requested resource");
    CHECK(f.answer("GET", "/apis/apps/v2").content_type == "application/json");
}

TEST_CASE("api_handler: bad dryRun is 422 on CreateOptions; wrong kind is 400") {
    fixture f;
    auto dry = f.answer("POST", "/api/v1/namespaces/default/configmaps?dryRun=Nope", cm("a"));
    CHECK(dry.status == 422);
    CHECK(body_of(dry)["message"] ==
          "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"Nope\"}: supported values: \"All\"");
    CHECK(f.answer("GET", "/api/v1/namespaces/default/configmaps?dryRun=Nope").status == 200);  // not a ListOption
    auto secret = f.answer("POST", "/api/v1/namespaces/default/configmaps",
                           R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}})");
    CHECK(secret.status == 400);
    CHECK(body_of(secret)["message"].as_string().starts_with("Secret in version \"v1\" cannot be handled as a ConfigMap"));
    CHECK(f.answer("GET", "/api/v1/namespaces/default/secrets/s").status == 404);
    auto force = f.answer("PATCH", "/api/v1/namespaces/default/configmaps/a?force=true", "{}", "application/merge-patch+json");
    CHECK(force.status == 422);
    auto apply = f.answer("PATCH", "/api/v1/namespaces/default/configmaps/a", cm("a"), "application/apply-patch+yaml");
    CHECK(apply.status == 422);
    CHECK(body_of(apply)["message"] ==
          "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");
    auto ct = f.answer("PATCH", "/api/v1/namespaces/default/configmaps/a", "{}", "application/json");
    CHECK(ct.status == 415);
    CHECK(body_of(ct)["message"] == "415: Unsupported Media Type");
}

TEST_CASE("api_handler: PartialObjectMetadata get, list and watch; 406 for the wrong form") {
    fixture f;
    f.answer("POST", "/api/v1/namespaces/default/configmaps", cm("a"));
    const std::string one = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
    const std::string list = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
    auto g = body_of(response_of(start(f, "/api/v1/namespaces/default/configmaps/a", {{"Accept", one}})));
    CHECK(g["kind"] == "PartialObjectMetadata");
    CHECK(g["apiVersion"] == "meta.k8s.io/v1");
    CHECK(g["metadata"].as_object()["name"] == "a");
    CHECK_FALSE(g.contains("data"));
    auto l = body_of(response_of(start(f, "/api/v1/namespaces/default/configmaps", {{"Accept", list}})));
    CHECK(l["kind"] == "PartialObjectMetadataList");
    CHECK(l["items"].as_array().size() == 1);
    CHECK(l["metadata"].as_object().contains("resourceVersion"));
    auto wrong = response_of(start(f, "/api/v1/namespaces/default/configmaps", {{"Accept", one}}));
    CHECK(wrong.status == 406);
    CHECK(body_of(wrong)["message"] ==
          "you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)");
    auto wrong2 = response_of(start(f, "/api/v1/namespaces/default/configmaps/a", {{"Accept", list}}));
    CHECK(body_of(wrong2)["message"] ==
          "you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)");
    // Watch: events (and bookmarks) carry PartialObjectMetadata.
    auto rv = std::to_string(f.store.current_revision());
    header_watch w(f, "/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=30&resourceVersion=" + rv,
                   {{"Accept", one}});
    f.answer("PATCH", "/api/v1/namespaces/default/configmaps/a", R"({"data":{"k":"2"}})", "application/merge-patch+json");
    w.pump();
    f.clk.advance(10s);
    w.pump();
    auto ev = w.w.events();
    REQUIRE(ev.size() == 2);
    CHECK(ev[0]["type"] == "MODIFIED");
    CHECK(ev[0]["object"].as_object()["kind"] == "PartialObjectMetadata");
    CHECK_FALSE(ev[0]["object"].as_object().contains("data"));
    CHECK(ev[1]["type"] == "BOOKMARK");
    CHECK(ev[1]["object"].as_object()["kind"] == "PartialObjectMetadata");
}

TEST_CASE("api_handler: deployments/scale get, put, patch") {
    fixture f;
    REQUIRE(f.answer("POST", "/apis/apps/v1/namespaces/default/deployments", deployment("web", 1)).status == 201);
    const std::string path = "/apis/apps/v1/namespaces/default/deployments/web/scale";
    auto s = body_of(f.answer("GET", path));
    CHECK(s["kind"] == "Scale");
    CHECK(s["apiVersion"] == "autoscaling/v1");
    CHECK(s["spec"].as_object()["replicas"] == 1);
    CHECK(s["status"].as_object()["selector"] == "app=web");
    const std::string rv(s["metadata"].as_object()["resourceVersion"].as_string());
    auto put = f.answer("PUT", path,
                        R"({"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","resourceVersion":")" + rv +
                            R"("},"spec":{"replicas":4}})");
    REQUIRE(put.status == 200);
    CHECK(body_of(put)["spec"].as_object()["replicas"] == 4);
    auto d = body_of(f.answer("GET", "/apis/apps/v1/namespaces/default/deployments/web"));
    CHECK(d["spec"].as_object()["replicas"] == 4);
    CHECK(d["metadata"].as_object()["generation"] == 2);  // like a spec change
    auto stale = f.answer("PUT", path,
                          R"({"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","resourceVersion":")" + rv +
                              R"("},"spec":{"replicas":5}})");
    CHECK(stale.status == 409);
    CHECK(body_of(stale)["message"].as_string().starts_with("Operation cannot be fulfilled on deployments.apps \"web\""));
    auto patch = f.answer("PATCH", path, R"({"spec":{"replicas":2}})", "application/merge-patch+json");
    REQUIRE(patch.status == 200);
    CHECK(body_of(patch)["spec"].as_object()["replicas"] == 2);
    auto neg = f.answer("PATCH", path, R"({"spec":{"replicas":-1}})", "application/merge-patch+json");
    CHECK(neg.status == 422);
    CHECK(f.answer("GET", "/apis/apps/v1/namespaces/default/deployments/nope/scale").status == 404);
    CHECK(f.answer("POST", path, "{}").status == 405);
}

TEST_CASE("api_handler: a watch from before the watch cache started is 410 too old") {
    fixture f;  // the store bootstrapped its namespaces before the handler started its caches
    const auto start_rv = f.store.current_revision();
    REQUIRE(start_rv > 1);
    watch_run w(f, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1");
    auto ev = w.w.events();
    REQUIRE(ev.size() == 1);
    CHECK(ev[0]["type"] == "ERROR");
    auto st = ev[0]["object"].as_object();
    CHECK(st["code"] == 410);
    CHECK(st["reason"] == "Expired");
    CHECK(st["message"].as_string() == "too old resource version: 1 (" + std::to_string(start_rv) + ")");
    CHECK(w.done);
    watch_run ok(f, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=" + std::to_string(start_rv));
    CHECK_FALSE(ok.done);
}

TEST_CASE("api_handler: bookmarks only past the start, before the deadline; resume from one") {
    fixture f;  // bookmark interval 10 s
    f.answer("POST", "/api/v1/namespaces/default/configmaps", cm("a"));
    const auto rv = std::to_string(f.store.current_revision());
    watch_run w(f, "/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=25&"
                   "labelSelector=nothing%3Dhere&resourceVersion=" + rv);
    f.clk.advance(10s);
    w.pump();
    CHECK(w.w.events().empty());  // the resource has seen nothing newer
    f.answer("POST", "/api/v1/namespaces/default/configmaps", cm("b"));  // not selected, but newer
    w.pump();
    CHECK(w.w.events().empty());
    f.clk.advance(10s);
    w.pump();
    auto ev = w.w.events();
    REQUIRE(ev.size() == 1);
    CHECK(ev[0]["type"] == "BOOKMARK");
    auto bm = ev[0]["object"].as_object();
    const std::string brv(bm["metadata"].as_object()["resourceVersion"].as_string());
    CHECK(brv == std::to_string(f.store.current_revision()));
    CHECK(bm["metadata"].as_object()["creationTimestamp"].is_null());
    // 2 s before the 25 s deadline: one more (t = 23 s), then the end.
    f.clk.advance(3s);
    w.pump();
    CHECK(w.w.events().size() == 2);
    CHECK_FALSE(w.done);
    f.clk.advance(2s);
    w.pump();
    CHECK(w.done);
    // Resuming from the bookmark's resourceVersion delivers what came after.
    watch_run again(f, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=" + brv);
    f.answer("PATCH", "/api/v1/namespaces/default/configmaps/a", R"({"data":{"k":"3"}})", "application/merge-patch+json");
    again.pump();
    auto ev2 = again.w.events();
    REQUIRE(ev2.size() == 1);
    CHECK(ev2[0]["type"] == "MODIFIED");
}

namespace {

std::string query_escape(std::string_view v) {
    static const char* d = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : v) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_') {
            out.push_back(static_cast<char>(c));
        } else {
            out += {'%', d[c >> 4], d[c & 0xf]};
        }
    }
    return out;
}

const std::string lower_half = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";

bool lower(std::string_view uid) { return fnv1a64(uid) < 0x8000000000000000ull; }

} // namespace

TEST_CASE("api_handler: shardSelector (gate on) filters list and watch, echoes shardInfo, 400 before a stream") {
    store_config c;
    c.sharded_list_and_watch = true;
    fixture f(c);
    const std::string base = "/api/v1/namespaces/default/configmaps";
    const std::string sel = "shardSelector=" + query_escape(lower_half);
    std::string rv = std::to_string(f.store.current_revision());
    watch_run w(f, base + "?watch=true&resourceVersion=" + rv + "&" + sel + "&timeoutSeconds=60");
    std::vector<std::string> in, out;
    for (int i = 0; i < 12; ++i) {
        auto b = body_of(f.answer("POST", base, cm("c" + std::to_string(i))));
        std::string uid(b["metadata"].as_object()["uid"].as_string());
        (lower(uid) ? in : out).push_back(uid);
    }
    REQUIRE_FALSE(in.empty());
    REQUIRE_FALSE(out.empty());
    w.pump();
    auto ev = w.w.events();
    REQUIRE(ev.size() == in.size());
    for (auto& e : ev) {
        CHECK(e["type"] == "ADDED");
        CHECK(lower(e["object"].as_object()["metadata"].as_object()["uid"].as_string()));
    }

    auto list = f.answer("GET", base + "?" + sel + "&limit=5");
    CHECK(list.status == 200);
    auto l = body_of(list);
    CHECK(l["metadata"].as_object()["shardInfo"].as_object()["selector"].as_string() == lower_half);
    CHECK_FALSE(l["metadata"].as_object().contains("remainingItemCount"));
    std::size_t got = l["items"].as_array().size();
    while (l["metadata"].as_object().contains("continue")) {
        l = body_of(f.answer("GET", base + "?" + sel + "&limit=5&continue=" +
                                        query_escape(l["metadata"].as_object()["continue"].as_string())));
        CHECK(l["metadata"].as_object()["shardInfo"].as_object()["selector"].as_string() == lower_half);
        for (auto& i : l["items"].as_array()) CHECK(lower(i.as_object()["metadata"].as_object()["uid"].as_string()));
        got += l["items"].as_array().size();
    }
    CHECK(got == in.size());

    // A bad selector: 400 BadRequest for the list, and for the watch before any stream.
    const std::string bad = "shardSelector=" + query_escape("shardRange(object.metadata.uid, '0x0', '0x8000000000000000')");
    const std::string text =
        R"(invalid shard selector: hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?))";
    auto r = f.answer("GET", base + "?" + bad);
    CHECK(r.status == 400);
    CHECK(body_of(r)["reason"] == "BadRequest");
    CHECK(body_of(r)["message"].as_string() == text);
    auto wr = f.call("GET", base + "?watch=true&" + bad);
    REQUIRE(std::holds_alternative<io::http_response>(wr));
    CHECK(std::get<io::http_response>(wr).status == 400);
    CHECK(body_of(std::get<io::http_response>(wr))["message"].as_string() == text);
}

TEST_CASE("api_handler: shardSelector with the gate off is ignored for list and watch, even a bad one") {
    fixture f;  // ShardedListAndWatch off
    const std::string base = "/api/v1/namespaces/default/configmaps";
    for (int i = 0; i < 6; ++i) f.answer("POST", base, cm("c" + std::to_string(i)));
    for (std::string s : {lower_half, std::string("garbage(")}) {
        auto l = body_of(f.answer("GET", base + "?shardSelector=" + query_escape(s)));
        CHECK(l["items"].as_array().size() == 6);
        CHECK_FALSE(l["metadata"].as_object().contains("shardInfo"));
        watch_run w(f, base + "?watch=true&resourceVersion=0&timeoutSeconds=60&shardSelector=" + query_escape(s));
        CHECK(w.w.events().size() == 6);
    }
}

TEST_CASE("table: services as printService prints them (Cluster-IP, External-IP, Port(s), Selector)") {
    auto cluster = printed("", "services", R"({"metadata":{"name":"web","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"type":"ClusterIP","clusterIP":"10.96.0.10","clusterIPs":["10.96.0.10"],"selector":{"b":"2","a":"1"},
        "ports":[{"port":80,"protocol":"TCP"},{"port":53,"protocol":"UDP"}]}})");
    CHECK(columns_of(cluster) == "Name:string:0, Type:string:0, Cluster-IP:string:0, External-IP:string:0, "
                                 "Port(s):string:0, Age:string:0, Selector:string:1");
    CHECK(cells_of(cluster) == R"(["web","ClusterIP","10.96.0.10","<none>","80/TCP,53/UDP","60m","a=1,b=2"])");
    auto node_port = printed("", "services", R"({"metadata":{"name":"np","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"type":"NodePort","clusterIPs":["10.96.0.11"],"externalIPs":["1.2.3.4"],
        "ports":[{"port":80,"nodePort":30080,"protocol":"TCP"}]}})");
    CHECK(cells_of(node_port) == R"(["np","NodePort","10.96.0.11","1.2.3.4","80:30080/TCP","60m","<none>"])");
    auto lb = printed("", "services", R"({"metadata":{"name":"lb","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"type":"LoadBalancer","clusterIPs":["10.96.0.12"],"ports":[]},"status":{"loadBalancer":{}}})");
    CHECK(cells_of(lb) == R"(["lb","LoadBalancer","10.96.0.12","<pending>","<none>","60m","<none>"])");
    auto ext = printed("", "services", R"({"metadata":{"name":"ext","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"type":"ExternalName","externalName":"example.com"}})");
    CHECK(cells_of(ext) == R"(["ext","ExternalName","<none>","example.com","<none>","60m","<none>"])");
}

TEST_CASE("table: deployments' wide columns; the built-ins' Age is a string column (printers.go, v1.32.13)") {
    auto d = printed("apps", "deployments", R"({"metadata":{"name":"tbl","creationTimestamp":"2025-01-01T00:00:00Z"},
        "spec":{"replicas":1,"selector":{"matchLabels":{"app":"tbl"}},
          "template":{"spec":{"containers":[{"name":"nginx","image":"nginx"},{"name":"side","image":"busybox:1.36"}]}}},
        "status":{}})");
    CHECK(columns_of(d) == "Name:string:0, Ready:string:0, Up-to-date:string:0, Available:string:0, Age:string:0, "
                           "Containers:string:1, Images:string:1, Selector:string:1");
    CHECK(cells_of(d) == R"(["tbl","0/1",0,0,"60m","nginx,side","nginx,busybox:1.36","app=tbl"])");
    auto cm = printed("", "configmaps", R"({"metadata":{"name":"c","creationTimestamp":"2025-01-01T00:00:00Z"},"data":{"a":"1"}})");
    CHECK(columns_of(cm) == "Name:string:0, Data:string:0, Age:string:0");
    CHECK(cells_of(cm) == R"(["c",1,"60m"])");
}
