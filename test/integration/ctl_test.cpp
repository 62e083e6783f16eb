// kcoro-ctl: argument parsing (pure) and commands run in-process against the
// scripted server (discovery, get, apply, patch, errors).
#include "commands.hpp"

#include "run_until.hpp"
#include "scripted_server.hpp"

#include <boost/asio/io_context.hpp>
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <unistd.h>

namespace asio = boost::asio;
using kcoro::ctl::command;
using kcoro::ctl::parse_args;
using kcoro::test::scripted_server;
using kcoro::test::step;

TEST_CASE("arguments: commands, flags, and clear errors") {
    auto a = parse_args({"--kubeconfig", "kc", "get", "cm", "x", "-n", "kube-system", "-o", "json"});
    REQUIRE(a.has_value());
    CHECK(a->cmd == command::get);
    CHECK(a->resource == "cm");
    CHECK(a->name == "x");
    CHECK(a->ns == "kube-system");
    CHECK(a->kubeconfig == "kc");
    CHECK(a->output_json);

    auto p = parse_args({"patch", "deployments.apps", "web", "--type=merge", "-p", "{}"});
    REQUIRE(p.has_value());
    CHECK(p->type == kcoro::patch_type::merge);
    auto ap = parse_args({"apply", "-f", "x.yaml", "--force-conflicts", "--context", "kind"});
    REQUIRE(ap.has_value());
    CHECK(ap->force_conflicts);
    CHECK(ap->context == "kind");
    CHECK(parse_args({"delete", "-f", "x.yaml"}).has_value());
    CHECK(parse_args({"list", "cm", "-l", "app=x", "-A"}).has_value());

    for (std::vector<std::string> bad : std::vector<std::vector<std::string>>{
             {}, {"frobnicate"}, {"get", "cm"}, {"apply"}, {"patch", "cm", "x"}, {"get", "cm", "x", "-o", "yaml"},
             {"patch", "cm", "x", "-p", "{}", "--type", "bogus"}, {"get", "cm", "x", "--bogus"}, {"get", "-n"}}) {
        auto r = parse_args(bad);
        CHECK_FALSE(r.has_value());
    }
}

TEST_CASE("files: YAML and JSON, multi-document, List flattened, bad documents refused") {
    auto objs = kcoro::ctl::read_objects(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n"
        "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s\"}}]}\n---\n");
    REQUIRE(objs.has_value());
    REQUIRE(objs->size() == 2);
    CHECK(kcoro::kind_of((*objs)[1]) == "Secret");
    CHECK_FALSE(kcoro::ctl::read_objects("metadata:\n  name: a\n").has_value());
    CHECK_FALSE(kcoro::ctl::read_objects("- 1\n- 2\n").has_value());
}

namespace {

step expect(std::string method, std::string path, std::string body = "{}", int status = 200) {
    step s;
    s.expect.method = std::move(method);
    s.expect.path = std::move(path);
    s.answer.status = status;
    s.answer.body = std::move(body);
    return s;
}

std::vector<step> discovery() {
    return {expect("GET", "/api", R"({"kind":"APIVersions","versions":["v1"]})"),
            expect("GET", "/api/v1", R"({"kind":"APIResourceList","groupVersion":"v1","resources":[
        {"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch","create","update","patch","delete"],"shortNames":["cm"]}]})"),
            expect("GET", "/apis", R"({"kind":"APIGroupList","groups":[]})")};
}

struct ctl_run {
    int rc = -1;
    std::string out, err;
};

ctl_run run_ctl(asio::io_context& ioc, kcoro::client::client& c, std::vector<std::string> argv) {
    auto args = parse_args(argv);
    REQUIRE(args.has_value());
    std::ostringstream out, err;
    auto rc = kcoro::test::run(ioc, kcoro::ctl::run_command(*args, c, out, err));
    REQUIRE(rc.has_value());
    return {*rc, out.str(), err.str()};
}

} // namespace

TEST_CASE("commands: get through a short name, apply a file, patch, and a NotFound error") {
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    auto script = discovery();
    script.push_back(expect("GET", "/api/v1/namespaces/team/configmaps/a",
                            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"team"}})"));
    step apply = expect("PATCH", "/api/v1/namespaces/team/configmaps/b",
                        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"team"}})");
    apply.expect.query = {{"fieldManager", "kcoro-ctl"}};
    apply.expect.query_absent = {"force"};
    apply.expect.headers = {{"Content-Type", "application/apply-patch+yaml"}};
    script.push_back(apply);
    step patch = expect("PATCH", "/api/v1/namespaces/team/configmaps/a", "{}");
    patch.expect.headers = {{"Content-Type", "application/merge-patch+json"}};
    script.push_back(patch);
    script.push_back(expect("GET", "/api/v1/namespaces/team/configmaps/zz",
                            R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","message":"configmaps \"zz\" not found","code":404})",
                            404));
    scripted_server srv(ioc, script);
    kcoro::client::client_config cfg;
    cfg.server = srv.url();
    cfg.ns = "team";
    auto c = kcoro::client::client::create(cfg, clk);
    REQUIRE(c.has_value());

    auto got = run_ctl(ioc, **c, {"get", "cm", "a", "-o", "json"});
    CHECK(got.rc == 0);
    CHECK(got.out.find(R"("name":"a")") != std::string::npos);

    std::string file = "/tmp/kcoro-ctl-test-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(file) << "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  k: v\n";
    auto applied = run_ctl(ioc, **c, {"apply", "-f", file});
    std::remove(file.c_str());
    CHECK(applied.rc == 0);
    CHECK(applied.out == "configmap/b serverside-applied\n");

    auto patched = run_ctl(ioc, **c, {"patch", "configmaps", "a", "--type", "merge", "-p", R"({"data":{"x":"1"}})"});
    CHECK(patched.rc == 0);
    CHECK(patched.out == "configmap/a patched\n");

    auto missing = run_ctl(ioc, **c, {"get", "configmap", "zz"});
    CHECK(missing.rc == 1);
    CHECK(missing.err == "Error from server (NotFound): configmaps \"zz\" not found\n");

    auto unknown = run_ctl(ioc, **c, {"get", "widgets", "w"});
    CHECK(unknown.rc == 1);
    CHECK(unknown.err.find("doesn't have a resource type") != std::string::npos);
    CHECK(srv.failures().empty());
}
