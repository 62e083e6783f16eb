#include <kcoro/core/kubeconfig.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace kcoro;

namespace {

// As `kind create cluster` / `kubectl config view --raw` write it.
const char* kind_config = R"(apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNBCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K
    server: https://127.0.0.1:41234
  name: kind-kind
contexts:
- context:
    cluster: kind-kind
    user: kind-kind
  name: kind-kind
current-context: kind-kind
kind: Config
preferences: {}
users:
- name: kind-kind
  user:
    client-certificate-data: Y2VydA==
    client-key-data: a2V5
)";

kubeconfig parse_ok(std::string_view path, std::string_view text) {
    auto r = parse_kubeconfig(path, text);
    REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message()));
    return *r;
}

std::string parse_error(std::string_view path, std::string_view text) {
    auto r = parse_kubeconfig(path, text);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == kcoro_errc::invalid_config);
    return r.error().message();
}

std::string resolve_error(std::string_view text, std::string_view context = {}) {
    auto r = resolve_kubeconfig(parse_ok("/k/config", text), context);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == kcoro_errc::invalid_config);
    return r.error().message();
}

} // namespace

TEST_CASE("a kind kubeconfig parses and resolves with decoded data") {
    auto cfg = parse_ok("/home/u/.kube/config", kind_config);
    auto r = resolve_kubeconfig(cfg, "");
    REQUIRE(r.has_value());
    CHECK(r->context_name == "kind-kind");
    CHECK(r->cluster.server == "https://127.0.0.1:41234");
    CHECK(r->cluster.certificate_authority_data == "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n");
    CHECK_FALSE(r->cluster.insecure_skip_tls_verify);
    CHECK(r->user.client_certificate_data == "cert");
    CHECK(r->user.client_key_data == "key");
    CHECK(r->context.ns.empty());
    CHECK(r->user.origin.describe("token", "x") == "kubeconfig /home/u/.kube/config: users[0] \"kind-kind\": token: x");
}

TEST_CASE("relative paths resolve against the kubeconfig's directory; the rest of a user") {
    auto cfg = parse_ok("/etc/kube/admin.conf", R"(
clusters:
- name: c
  cluster:
    server: https://api.example:6443/
    certificate-authority: pki/ca.crt
    tls-server-name: api.internal
    insecure-skip-tls-verify: false
users:
- name: u
  user:
    client-certificate: ./u.crt
    client-key: /abs/u.key
    tokenFile: token
    token: 0123
- name: x
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/plugin
      args: [get-token, --cluster, c]
      env:
      - name: A
        value: "1"
      - name: EMPTY
      installHint: install plugin
      provideClusterInfo: true
      interactiveMode: Never
- name: y
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: aws}
contexts:
- name: ctx
  context: {cluster: c, user: u, namespace: team-a}
- name: execctx
  context: {cluster: c, user: x}
current-context: ctx
)");
    auto r = resolve_kubeconfig(cfg, "");
    REQUIRE(r.has_value());
    CHECK(r->cluster.server == "https://api.example:6443");
    CHECK(r->cluster.certificate_authority == "/etc/kube/pki/ca.crt");
    CHECK(r->cluster.tls_server_name == "api.internal");
    CHECK(r->user.client_certificate == "/etc/kube/./u.crt");
    CHECK(r->user.client_key == "/abs/u.key");
    CHECK(r->user.token_file == "/etc/kube/token");
    CHECK(r->user.token == "0123"); // plain scalars stay text in kubeconfig fields
    CHECK(r->context.ns == "team-a");

    auto e = resolve_kubeconfig(cfg, "execctx");
    REQUIRE(e.has_value());
    REQUIRE(e->user.exec.has_value());
    const auto& x = *e->user.exec;
    CHECK(x.command == "/etc/kube/./bin/plugin");
    CHECK(x.args == std::vector<std::string>{"get-token", "--cluster", "c"});
    CHECK(x.env == std::vector<std::pair<std::string, std::string>>{{"A", "1"}, {"EMPTY", ""}});
    CHECK(x.install_hint == "install plugin");
    CHECK(x.provide_cluster_info);
    CHECK(x.interactive_mode == "Never");
    CHECK(cfg.find_user("y")->exec->command == "aws"); // a PATH lookup stays as written
}

TEST_CASE("insecure-skip-tls-verify only when explicitly true") {
    auto yes = parse_ok("/c", "clusters:\n- name: a\n  cluster: {server: 'https://h', insecure-skip-tls-verify: true}\n");
    CHECK(yes.clusters.at(0).insecure_skip_tls_verify);
    auto no = parse_ok("/c", "clusters:\n- name: a\n  cluster: {server: 'https://h'}\n");
    CHECK_FALSE(no.clusters.at(0).insecure_skip_tls_verify);
    // A bool field takes YAML 1.1's words, as client-go's decoding (goyaml.v2) does.
    auto on = parse_ok("/c", "clusters:\n- name: a\n  cluster: {server: 'https://h', insecure-skip-tls-verify: yes}\n");
    CHECK(on.clusters.at(0).insecure_skip_tls_verify);
    CHECK(parse_error("/c", "clusters:\n- name: a\n  cluster: {insecure-skip-tls-verify: maybe}\n") ==
          "kubeconfig /c: clusters[0] \"a\": insecure-skip-tls-verify: expected true or false");
}

TEST_CASE("KUBECONFIG merge: first file wins per name, current-context from the first that sets it") {
    auto merged = load_kubeconfigs({
        {"/a", "clusters:\n- name: shared\n  cluster: {server: https://a}\n"
               "users:\n- name: me\n  user: {token: from-a}\n"},
        {"/b", "current-context: ctx-b\n"
               "clusters:\n- name: shared\n  cluster: {server: https://b}\n- name: only-b\n  cluster: {server: https://ob}\n"
               "users:\n- name: me\n  user: {token: from-b}\n"
               "contexts:\n- name: ctx-b\n  context: {cluster: shared, user: me}\n"},
        {"/c", "current-context: ctx-c\ncontexts:\n- name: ctx-c\n  context: {cluster: only-b}\n"},
    });
    REQUIRE(merged.has_value());
    CHECK(merged->files == std::vector<std::string>{"/a", "/b", "/c"});
    CHECK(merged->current_context == "ctx-b");
    CHECK(merged->find_cluster("shared")->server == "https://a");
    CHECK(merged->find_cluster("shared")->origin.file == "/a");
    CHECK(merged->find_cluster("only-b")->server == "https://ob");
    auto r = resolve_kubeconfig(*merged, "");
    REQUIRE(r.has_value());
    CHECK(r->cluster.server == "https://a");
    CHECK(r->user.token == "from-a");
    auto over = resolve_kubeconfig(*merged, "ctx-c");
    REQUIRE(over.has_value());
    CHECK(over->cluster.server == "https://ob");
    CHECK(over->user.origin.name.empty()); // anonymous
}

TEST_CASE("an empty file is an empty config; a broken one names the file") {
    CHECK(parse_ok("/e", "").clusters.empty());
    CHECK(parse_ok("/e", "# nothing\n").current_context.empty());
    CHECK(parse_error("/p", "clusters: [\n") == "kubeconfig /p: yaml: line 2, column 1: did not find expected node content while parsing a flow node");
    CHECK(parse_error("/p", "- a\n") == "kubeconfig /p: not a mapping (a kubeconfig is a YAML or JSON object)");
    CHECK(parse_error("/p", "clusters: {}\n") == "kubeconfig /p: clusters: expected a list");
    CHECK(parse_error("/p", "users:\n- just-a-name\n") == "kubeconfig /p: users[0]: expected a mapping");
    CHECK(parse_error("/p", "users:\n- user: {}\n") == "kubeconfig /p: users[0]: name: missing");
    CHECK(parse_error("/p", "users:\n- name: a\n- name: a\n") == "kubeconfig /p: users[1] \"a\": name: duplicate name in users");
    CHECK(parse_error("/p", "current-context: [x]\n") == "kubeconfig /p: current-context: expected a string");
}

TEST_CASE("broken fields name the file, the entry and the field") {
    CHECK(parse_error("/home/u/.kube/config",
                      "users:\n- name: ok\n  user: {}\n- name: admin\n  user:\n    client-key-data: '%%%not base64'\n") ==
          "kubeconfig /home/u/.kube/config: users[1] \"admin\": client-key-data: not valid base64");
    CHECK(parse_error("/p", "clusters:\n- name: c\n  cluster:\n    certificate-authority-data: abc!\n") ==
          "kubeconfig /p: clusters[0] \"c\": certificate-authority-data: not valid base64");
    CHECK(parse_error("/p", "clusters:\n- name: c\n  cluster:\n    server: [a]\n") ==
          "kubeconfig /p: clusters[0] \"c\": server: expected a string");
    CHECK(parse_error("/p", "clusters:\n- name: c\n  cluster: https://x\n") ==
          "kubeconfig /p: clusters[0] \"c\": cluster: expected a mapping");
    CHECK(parse_error("/p", "users:\n- name: u\n  user:\n    exec:\n      args: [a, [b]]\n") ==
          "kubeconfig /p: users[0] \"u\": exec: args[1]: expected a string");
    CHECK(parse_error("/p", "users:\n- name: u\n  user:\n    exec:\n      env:\n      - value: x\n") ==
          "kubeconfig /p: users[0] \"u\": exec: env[0]: name: missing");
}

TEST_CASE("resolution errors: missing context, cluster, user, server; unsupported features") {
    CHECK(resolve_error("clusters: []\n") == "kubeconfig /k/config: no current-context is set and no context was given");
    CHECK(resolve_error("current-context: nope\n") == "kubeconfig /k/config: current-context: context \"nope\" not found");
    CHECK(resolve_error("current-context: x\n", "other") ==
          "kubeconfig /k/config: context \"other\" (from --context) not found");
    CHECK(resolve_error("current-context: x\ncontexts:\n- name: x\n  context: {user: u}\n") ==
          "kubeconfig /k/config: contexts[0] \"x\": cluster: missing");
    CHECK(resolve_error("current-context: x\ncontexts:\n- name: x\n  context: {cluster: gone}\n") ==
          "kubeconfig /k/config: contexts[0] \"x\": cluster: cluster \"gone\" not found");
    const std::string base = "current-context: x\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n";
    const std::string cluster = "clusters:\n- name: c\n  cluster: {server: https://h}\n";
    CHECK(resolve_error(base + cluster) == "kubeconfig /k/config: contexts[0] \"x\": user: user \"u\" not found");
    CHECK(resolve_error(base + "clusters:\n- name: c\n  cluster: {}\nusers:\n- name: u\n  user: {}\n") ==
          "kubeconfig /k/config: clusters[0] \"c\": server: missing");
    CHECK(resolve_error(base + "clusters:\n- name: c\n  cluster: {server: ftp://h}\nusers:\n- name: u\n  user: {}\n") ==
          "kubeconfig /k/config: clusters[0] \"c\": server: \"ftp://h\": only https:// and http:// are supported");
    CHECK(resolve_error(base +
                        "clusters:\n- name: c\n  cluster: {server: https://h, insecure-skip-tls-verify: true, "
                        "certificate-authority: /ca}\nusers:\n- name: u\n  user: {}\n") ==
          "kubeconfig /k/config: clusters[0] \"c\": insecure-skip-tls-verify: cannot be combined with "
          "certificate-authority(-data), as in client-go");
    CHECK(resolve_error(base + "clusters:\n- name: c\n  cluster: {server: https://h, proxy-url: http://p}\n"
                               "users:\n- name: u\n  user: {}\n") ==
          "kubeconfig /k/config: clusters[0] \"c\": proxy-url: not supported by kcoro");
    CHECK(resolve_error(base + cluster + "users:\n- name: u\n  user: {auth-provider: {name: gcp}}\n") ==
          "kubeconfig /k/config: users[0] \"u\": auth-provider: not supported by kcoro (use an exec plugin)");
    CHECK(resolve_error(base + cluster + "users:\n- name: u\n  user: {username: a, password: b}\n") ==
          "kubeconfig /k/config: users[0] \"u\": username: basic authentication is not supported by kcoro");
    CHECK(resolve_error(base + cluster + "users:\n- name: u\n  user: {client-certificate: /c.crt}\n") ==
          "kubeconfig /k/config: users[0] \"u\": client-key: missing (client-certificate is set)");
    CHECK(resolve_error(base + cluster + "users:\n- name: u\n  user: {exec: {apiVersion: v9}}\n") ==
          "kubeconfig /k/config: users[0] \"u\": exec: command: missing");
    CHECK(resolve_error(base + cluster + "users:\n- name: u\n  user: {exec: {command: x, apiVersion: v9}}\n") ==
          "kubeconfig /k/config: users[0] \"u\": exec: apiVersion: \"v9\" is not client.authentication.k8s.io/v1 or v1beta1");
    auto bare = resolve_kubeconfig(
        parse_ok("/k", "current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\n"
                       "clusters:\n- name: c\n  cluster: {server: 'h:6443'}\n"),
        "");
    REQUIRE(bare.has_value());
    CHECK(bare->cluster.server == "https://h:6443");
}

TEST_CASE("a JSON kubeconfig is accepted") {
    auto r = resolve_kubeconfig(
        parse_ok("/j.json", R"({"apiVersion":"v1","kind":"Config","current-context":"x",
          "clusters":[{"name":"c","cluster":{"server":"http://127.0.0.1:8080","insecure-skip-tls-verify":true}}],
          "contexts":[{"name":"x","context":{"cluster":"c","namespace":"ns"}}]})"),
        "");
    REQUIRE(r.has_value());
    CHECK(r->cluster.server == "http://127.0.0.1:8080");
    CHECK(r->cluster.insecure_skip_tls_verify);
    CHECK(r->context.ns == "ns");
}

TEST_CASE("minikube and GKE kubeconfigs as their tools write them") {
    auto mk = parse_ok("/home/u/.kube/config", R"(apiVersion: v1
clusters:
- cluster:
    certificate-authority: /home/u/.minikube/ca.crt
    extensions:
    - extension:
        last-update: Mon, 01 Jan 2024 10:00:00 UTC
        provider: minikube.sigs.k8s.io
        version: v1.32.0
      name: cluster_info
    server: https://192.168.49.2:8443
  name: minikube
- cluster:
    certificate-authority-data: Q0E=
    server: https://34.1.2.3
  name: gke_proj_europe-west1_c1
contexts:
- context:
    cluster: minikube
    extensions:
    - extension:
        provider: minikube.sigs.k8s.io
      name: context_info
    namespace: default
    user: minikube
  name: minikube
- context:
    cluster: gke_proj_europe-west1_c1
    user: gke_proj_europe-west1_c1
  name: gke_proj_europe-west1_c1
current-context: minikube
kind: Config
preferences: {}
users:
- name: minikube
  user:
    client-certificate: /home/u/.minikube/profiles/minikube/client.crt
    client-key: /home/u/.minikube/profiles/minikube/client.key
- name: gke_proj_europe-west1_c1
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: gke-gcloud-auth-plugin
      installHint: Install gke-gcloud-auth-plugin for use with kubectl by following
        https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin
      provideClusterInfo: true
)");
    auto m = resolve_kubeconfig(mk, "");
    REQUIRE(m.has_value());
    CHECK(m->cluster.certificate_authority == "/home/u/.minikube/ca.crt");
    CHECK(m->user.client_key == "/home/u/.minikube/profiles/minikube/client.key");
    auto g = resolve_kubeconfig(mk, "gke_proj_europe-west1_c1");
    REQUIRE(g.has_value());
    CHECK(g->cluster.certificate_authority_data == "CA");
    REQUIRE(g->user.exec.has_value());
    CHECK(g->user.exec->command == "gke-gcloud-auth-plugin");
    CHECK(g->user.exec->install_hint ==
          "Install gke-gcloud-auth-plugin for use with kubectl by following "
          "https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin");
    CHECK(g->user.exec->provide_cluster_info);
}
