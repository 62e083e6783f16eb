#include <kcoro/client/config.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

using namespace kcoro;
using namespace kcoro::client;

namespace {

// A fresh directory under /tmp, removed at the end of the test.
struct temp_dir {
    std::string path;
    temp_dir() {
        char tmpl[] = "/tmp/kcoro-config-XXXXXX";
        char* p = ::mkdtemp(tmpl);
        REQUIRE(p != nullptr);
        path = p;
    }
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    std::string write(const std::string& name, const std::string& contents) const {
        std::string full = path + "/" + name;
        std::filesystem::create_directories(std::filesystem::path(full).parent_path());
        std::ofstream(full) << contents;
        return full;
    }
};

// An environment that sees only what the test gives it.
environment test_env(const temp_dir& d) {
    environment env;
    env.home = d.path + "/home";
    env.service_account_dir = d.path + "/sa";
    return env;
}

std::string kubeconfig_for(const std::string& name, const std::string& server, const std::string& extra_user = {}) {
    return "current-context: " + name + "\nclusters:\n- name: " + name + "\n  cluster:\n    server: " + server +
           "\nusers:\n- name: " + name + "\n  user:\n    token: tok-" + name + "\n" + extra_user +
           "contexts:\n- name: " + name + "\n  context:\n    cluster: " + name + "\n    user: " + name + "\n";
}

void write_service_account(const temp_dir& d) {
    d.write("sa/token", "sa-token\n");
    d.write("sa/ca.crt", "-----BEGIN CERTIFICATE-----\nIN\n-----END CERTIFICATE-----\n");
    d.write("sa/namespace", "team-b\n");
}

} // namespace

TEST_CASE("in-cluster config from the service-account directory") {
    temp_dir d;
    write_service_account(d);
    auto env = test_env(d);
    env.vars = {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}};
    auto c = in_cluster_config(env);
    REQUIRE_MESSAGE(c.has_value(), (c ? std::string() : c.error().message()));
    CHECK(c->server == "https://10.96.0.1:443");
    CHECK(c->token_file == d.path + "/sa/token");
    CHECK(c->token.empty());
    CHECK(c->ca_pem.find("IN") != std::string::npos);
    CHECK(c->ns == "team-b");
    CHECK(c->source == "in-cluster");

    env.vars["KUBERNETES_SERVICE_HOST"] = "fd00:10:96::1";
    CHECK(in_cluster_config(env)->server == "https://[fd00:10:96::1]:443");
}

TEST_CASE("in-cluster failures are clear; a missing namespace file means default") {
    temp_dir d;
    auto env = test_env(d);
    auto none = in_cluster_config(env);
    REQUIRE_FALSE(none.has_value());
    CHECK(none.error().message().find("KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set") !=
          std::string::npos);
    env.vars = {{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", "6443"}};
    auto no_token = in_cluster_config(env);
    REQUIRE_FALSE(no_token.has_value());
    CHECK(no_token.error().code() == kcoro_errc::invalid_config);
    CHECK(no_token.error().message() == "in-cluster: cannot read " + d.path + "/sa/token: No such file or directory");
    d.write("sa/token", "t");
    auto ok = in_cluster_config(env);
    REQUIRE(ok.has_value());
    CHECK(ok->ns == "default");
    CHECK(ok->ca_pem.empty());
}

TEST_CASE("loading order: --kubeconfig, in-cluster when KUBECONFIG is unset, KUBECONFIG, ~/.kube/config") {
    temp_dir d;
    write_service_account(d);
    std::string flag = d.write("flag.yaml", kubeconfig_for("flag", "https://flag:1"));
    std::string a = d.write("a.yaml", kubeconfig_for("a", "https://a:1"));
    d.write("home/.kube/config", kubeconfig_for("home", "https://home:1"));
    auto env = test_env(d);
    env.vars = {{"KUBERNETES_SERVICE_HOST", "10.0.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}, {"KUBECONFIG", a}};

    auto c = load_config({flag, ""}, env);
    REQUIRE(c.has_value());
    CHECK(c->server == "https://flag:1");
    CHECK(c->source == "kubeconfig " + flag + " (context flag)");

    c = load_config({}, env); // KUBECONFIG set: in-cluster is not tried
    REQUIRE(c.has_value());
    CHECK(c->server == "https://a:1");

    env.vars.erase("KUBECONFIG");
    c = load_config({}, env);
    REQUIRE(c.has_value());
    CHECK(c->source == "in-cluster");

    env.vars.clear();
    c = load_config({}, env);
    REQUIRE(c.has_value());
    CHECK(c->server == "https://home:1");
    CHECK(c->token == "tok-home");
    CHECK(c->ns == "default");
}

TEST_CASE("in-cluster that fails falls back to ~/.kube/config, else reports the in-cluster error") {
    temp_dir d;
    auto env = test_env(d);
    env.vars = {{"KUBERNETES_SERVICE_HOST", "10.0.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}}; // no token file
    auto c = load_config({}, env);
    REQUIRE_FALSE(c.has_value());
    CHECK(c.error().message().find("in-cluster: cannot read") == 0);
    d.write("home/.kube/config", kubeconfig_for("home", "https://home:1"));
    c = load_config({}, env);
    REQUIRE(c.has_value());
    CHECK(c->server == "https://home:1");
    env.vars.clear();
    std::filesystem::remove(d.path + "/home/.kube/config");
    c = load_config({}, env);
    REQUIRE_FALSE(c.has_value());
    CHECK(c.error().message().find("does not exist") != std::string::npos);
}

TEST_CASE("KUBECONFIG list: merged first-wins, missing files skipped, context override") {
    temp_dir d;
    std::string a = d.write("a.yaml", kubeconfig_for("a", "https://a:1"));
    // b redefines cluster "a" (ignored: a wins) and adds context "b" using it.
    std::string b = d.write("b.yaml", "current-context: b\nclusters:\n- name: a\n  cluster: {server: https://b:1}\n"
                                      "contexts:\n- name: b\n  context: {cluster: a, user: a, namespace: nb}\n");
    auto env = test_env(d);
    env.vars = {{"KUBECONFIG", d.path + "/missing.yaml:" + a + "::" + b}};
    auto c = load_config({}, env);
    REQUIRE_MESSAGE(c.has_value(), (c ? std::string() : c.error().message()));
    CHECK(c->server == "https://a:1");
    CHECK(c->source == "kubeconfig " + a + ", " + b + " (context a)");
    c = load_config({"", "b"}, env);
    REQUIRE(c.has_value());
    CHECK(c->server == "https://a:1"); // cluster "a" from the first file
    CHECK(c->token == "tok-a");
    CHECK(c->ns == "nb");
    auto missing = load_config({"", "nope"}, env);
    REQUIRE_FALSE(missing.has_value());
    CHECK(missing.error().message() ==
          "kubeconfig " + a + ", " + b + ": context \"nope\" (from --context) not found");
    env.vars = {{"KUBECONFIG", d.path + "/x:" + d.path + "/y"}};
    auto none = load_config({}, env);
    REQUIRE_FALSE(none.has_value());
    CHECK(none.error().message().find("none of the files exist") != std::string::npos);
}

TEST_CASE("files named by the kubeconfig are read relative to it; unreadable ones name file, entry and field") {
    temp_dir d;
    d.write("kube/pki/ca.crt", "CA PEM");
    d.write("kube/u.crt", "CERT PEM");
    d.write("kube/u.key", "KEY PEM");
    d.write("kube/token", "file-token");
    std::string cfg = d.write("kube/config", R"(current-context: x
clusters:
- name: c
  cluster: {server: https://h:6443, certificate-authority: pki/ca.crt, tls-server-name: api}
users:
- name: u
  user: {client-certificate: u.crt, client-key: u.key, tokenFile: token}
contexts:
- name: x
  context: {cluster: c, user: u}
- name: broken
  context: {cluster: bad, user: u}
clusters2: ignored
)");
    auto env = test_env(d);
    auto c = load_config({cfg, ""}, env);
    REQUIRE_MESSAGE(c.has_value(), (c ? std::string() : c.error().message()));
    CHECK(c->ca_pem == "CA PEM");
    CHECK(c->client_cert_pem == "CERT PEM");
    CHECK(c->client_key_pem == "KEY PEM");
    CHECK(c->token_file == d.path + "/kube/token");
    CHECK(c->tls_server_name == "api");

    std::filesystem::remove(d.path + "/kube/pki/ca.crt");
    c = load_config({cfg, ""}, env);
    REQUIRE_FALSE(c.has_value());
    CHECK(c.error().message() == "kubeconfig " + cfg + ": clusters[0] \"c\": certificate-authority: cannot read " +
                                     d.path + "/kube/pki/ca.crt: No such file or directory");
    d.write("kube/pki/ca.crt", "CA PEM");
    std::filesystem::remove(d.path + "/kube/u.key");
    c = load_config({cfg, ""}, env);
    REQUIRE_FALSE(c.has_value());
    CHECK(c.error().message().find("kubeconfig " + cfg + ": users[0] \"u\": client-key: cannot read ") == 0);
    d.write("kube/u.key", "KEY PEM");
    std::filesystem::remove(d.path + "/kube/token");
    c = load_config({cfg, ""}, env);
    REQUIRE_FALSE(c.has_value());
    CHECK(c.error().message().find("kubeconfig " + cfg + ": users[0] \"u\": tokenFile: cannot read ") == 0);

    auto broken = load_config({cfg, "broken"}, env);
    REQUIRE_FALSE(broken.has_value());
    CHECK(broken.error().message() == "kubeconfig " + cfg + ": contexts[1] \"broken\": cluster: cluster \"bad\" not found");
    auto absent = load_config({d.path + "/nope", ""}, env);
    REQUIRE_FALSE(absent.has_value());
    CHECK(absent.error().message() ==
          "kubeconfig " + d.path + "/nope: cannot read " + d.path + "/nope: No such file or directory");
}

TEST_CASE("exec users carry their plugin configuration") {
    temp_dir d;
    std::string cfg = d.write("config", kubeconfig_for("e", "https://e:1", R"(    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: plugin
      args: [a, b]
      env: [{name: K, value: V}]
      installHint: get it
      provideClusterInfo: true
)"));
    auto c = load_config({cfg, ""}, test_env(d));
    REQUIRE(c.has_value());
    REQUIRE(c->exec.has_value());
    CHECK(c->exec->api_version == "client.authentication.k8s.io/v1");
    CHECK(c->exec->command == "plugin");
    CHECK(c->exec->args == std::vector<std::string>{"a", "b"});
    CHECK(c->exec->env == std::vector<std::pair<std::string, std::string>>{{"K", "V"}});
    CHECK(c->exec->install_hint == "get it");
    CHECK(c->exec->provide_cluster_info);
}

TEST_CASE("the process environment reads real variables and files") {
    auto env = environment::process();
    CHECK(env.get("PATH").has_value());
    CHECK_FALSE(env.get("KCORO_SURELY_UNSET_VARIABLE_42").has_value());
    temp_dir d;
    std::string f = d.write("f", "contents");
    CHECK(environment::read_real_file(f).value() == "contents");
    auto missing = environment::read_real_file(d.path + "/none");
    REQUIRE_FALSE(missing.has_value());
    CHECK(is_file_not_found(missing.error()));
}
