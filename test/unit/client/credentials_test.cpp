#include <kcoro/client/credentials.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace kcoro;
using namespace kcoro::client;
using namespace std::chrono_literals;
namespace asio = boost::asio;

namespace {

struct temp_dir {
    std::string path;
    temp_dir() {
        char tmpl[] = "/tmp/kcoro-creds-XXXXXX";
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
        std::ofstream(full) << contents;
        return full;
    }
    std::string script(const std::string& name, const std::string& body) const {
        std::string full = write(name, "#!/bin/sh\n" + body);
        std::filesystem::permissions(full, std::filesystem::perms::owner_all);
        return full;
    }
    std::string read(const std::string& name) const {
        std::ifstream in(path + "/" + name);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
};

// Runs the io_context until the call completes (bounded: real child
// processes complete on their own time, not on the manual clock's).
result<std::string> get_token(asio::io_context& ioc, credentials& creds) {
    std::optional<result<std::string>> out;
    asio::co_spawn(ioc, creds.bearer_token(), [&](std::exception_ptr e, result<std::string> r) {
        REQUIRE_FALSE(e);
        out = std::move(r);
    });
    auto deadline = std::chrono::steady_clock::now() + 20s;
    while (!out && std::chrono::steady_clock::now() < deadline) {
        if (ioc.stopped()) {
            ioc.restart();
        }
        ioc.run_one_for(50ms);
    }
    REQUIRE(out.has_value());
    return std::move(*out);
}

std::string token_of(asio::io_context& ioc, credentials& creds) {
    auto r = get_token(ioc, creds);
    REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message()));
    return *r;
}

wall_time at(const char* rfc3339) { return *parse_rfc3339(rfc3339); }

// A plugin that counts its runs, records its environment and answers with
// token "exec-<n>" valid until 00:10.
const char* counting_plugin = R"(n=$(cat "$DIR/count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$DIR/count"
printf '%s' "$KUBERNETES_EXEC_INFO" > "$DIR/info"
printf '%s' "$MY_VAR" > "$DIR/var"
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"exec-%s","expirationTimestamp":"2030-01-01T00:10:00Z"}}' "$n"
)";

client_config exec_client(const temp_dir& d, const std::string& command, const std::string& hint = {}) {
    client_config cfg;
    cfg.server = "https://k:6443";
    cfg.exec = exec_config{"client.authentication.k8s.io/v1", command, {"arg1"}, {{"DIR", d.path}, {"MY_VAR", "v"}},
                           hint, false};
    return cfg;
}

} // namespace

TEST_CASE("static token, no credentials") {
    asio::io_context ioc;
    io::manual_clock clk;
    client_config cfg;
    credentials none(cfg, clk, environment{});
    CHECK(token_of(ioc, none).empty());
    cfg.token = "static";
    credentials fixed(cfg, clk, environment{});
    CHECK(token_of(ioc, fixed) == "static");
    fixed.invalidate();
    CHECK(token_of(ioc, fixed) == "static");
}

TEST_CASE("token file: re-read after 60 s or invalidate(), last good token kept on a failed read") {
    temp_dir d;
    asio::io_context ioc;
    io::manual_clock clk;
    client_config cfg;
    cfg.token_file = d.write("token", "one\n");
    credentials creds(cfg, clk, environment{});
    CHECK(token_of(ioc, creds) == "one");
    d.write("token", "two");
    CHECK(token_of(ioc, creds) == "one");
    clk.advance(59s);
    CHECK(token_of(ioc, creds) == "one");
    clk.advance(1s);
    CHECK(token_of(ioc, creds) == "two");
    d.write("token", "three");
    clk.advance(10s);
    CHECK(token_of(ioc, creds) == "two");
    creds.invalidate(); // a 401
    CHECK(token_of(ioc, creds) == "three");
    std::filesystem::remove(cfg.token_file);
    clk.advance(60s);
    CHECK(token_of(ioc, creds) == "three");
    creds.invalidate();
    CHECK(token_of(ioc, creds) == "three");
}

TEST_CASE("token file never readable: an error naming the file; a static token as fallback") {
    temp_dir d;
    asio::io_context ioc;
    io::manual_clock clk;
    client_config cfg;
    cfg.token_file = d.path + "/missing";
    credentials creds(cfg, clk, environment{});
    auto r = get_token(ioc, creds);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message() == "token file: cannot read " + cfg.token_file + ": No such file or directory");
    d.write("empty", "  \n");
    cfg.token_file = d.path + "/empty";
    credentials empty(cfg, clk, environment{});
    auto e = get_token(ioc, empty);
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error().message() == "token file " + cfg.token_file + " is empty");
    cfg.token = "fallback";
    credentials fallback(cfg, clk, environment{});
    CHECK(token_of(ioc, fallback) == "fallback");
}

TEST_CASE("exec plugin: ExecCredential cached until expirationTimestamp, re-run after and after invalidate()") {
    temp_dir d;
    asio::io_context ioc;
    io::manual_clock clk(at("2030-01-01T00:00:00Z"));
    auto cfg = exec_client(d, d.script("plugin.sh", counting_plugin));
    environment env;
    env.vars = {{"PATH", "/usr/bin:/bin"}, {"MY_VAR", "overridden"}};
    credentials creds(cfg, clk, env);
    CHECK(token_of(ioc, creds) == "exec-1");
    CHECK(token_of(ioc, creds) == "exec-1");
    clk.advance(9min);
    CHECK(token_of(ioc, creds) == "exec-1");
    CHECK(creds.exec_runs() == 1);
    clk.advance(2min); // past 00:10
    CHECK(token_of(ioc, creds) == "exec-2");
    CHECK(creds.exec_runs() == 2);
    creds.invalidate();
    CHECK(token_of(ioc, creds) == "exec-3");
    CHECK(d.read("var") == "v"); // exec env overrides the process environment
    auto info = boost::json::parse(d.read("info"));
    CHECK(info == boost::json::parse(
                      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","spec":{"interactive":false}})"));
}

TEST_CASE("exec plugin found on the environment's PATH, with cluster info when asked") {
    temp_dir d;
    asio::io_context ioc;
    io::manual_clock clk(at("2030-01-01T00:00:00Z"));
    d.script("kcoro-test-plugin", counting_plugin);
    auto cfg = exec_client(d, "kcoro-test-plugin");
    cfg.exec->provide_cluster_info = true;
    cfg.ca_pem = "PEM";
    environment env;
    env.vars = {{"PATH", "/nonexistent:" + d.path + ":/usr/bin:/bin"}};
    credentials creds(cfg, clk, env);
    CHECK(token_of(ioc, creds) == "exec-1");
    auto info = boost::json::parse(d.read("info"));
    CHECK(info.at("spec").at("cluster") == boost::json::parse(R"({"server":"https://k:6443","certificate-authority-data":"UEVN"})"));
}

TEST_CASE("concurrent callers share one plugin run") {
    temp_dir d;
    asio::io_context ioc;
    io::manual_clock clk(at("2030-01-01T00:00:00Z"));
    auto cfg = exec_client(d, d.script("plugin.sh", counting_plugin));
    environment env;
    env.vars = {{"PATH", "/usr/bin:/bin"}};
    credentials creds(cfg, clk, env);
    std::vector<std::string> got;
    for (int i = 0; i < 3; ++i) {
        asio::co_spawn(ioc, creds.bearer_token(), [&](std::exception_ptr, result<std::string> r) {
            got.push_back(r ? *r : "error: " + r.error().message());
        });
    }
    auto deadline = std::chrono::steady_clock::now() + 20s;
    while (got.size() < 3 && std::chrono::steady_clock::now() < deadline) {
        ioc.run_one_for(50ms);
    }
    CHECK(got == std::vector<std::string>{"exec-1", "exec-1", "exec-1"});
    CHECK(creds.exec_runs() == 1);
}

TEST_CASE("failing plugins: exit code, install hint, not found, bad output; the token never shows") {
    temp_dir d;
    asio::io_context ioc;
    io::manual_clock clk(at("2030-01-01T00:00:00Z"));
    environment env;
    env.vars = {{"PATH", "/usr/bin:/bin"}};

    std::string failing = d.script("fail.sh", "echo 'plugin complains on stderr' >&2\nexit 3\n");
    credentials fail(exec_client(d, failing, "install it with: apt-get install x"), clk, env);
    auto r = get_token(ioc, fail);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == kcoro_errc::io_error);
    CHECK(r.error().message() ==
          "exec plugin \"" + failing + "\": exit code 3; install hint: install it with: apt-get install x");

    credentials missing(exec_client(d, "kcoro-no-such-plugin", "get it"), clk, env);
    auto m = get_token(ioc, missing);
    REQUIRE_FALSE(m.has_value());
    CHECK(m.error().message() ==
          "exec plugin \"kcoro-no-such-plugin\": executable not found (PATH=/usr/bin:/bin); install hint: get it");

    auto answer = [&](const std::string& name, const std::string& json) {
        std::string p = d.script(name, "printf '%s' '" + json + "'\n");
        credentials c(exec_client(d, p), clk, env);
        auto res = get_token(ioc, c);
        REQUIRE_FALSE(res.has_value());
        CHECK(res.error().message().find("secret-token") == std::string::npos);
        return res.error().message();
    };
    CHECK(answer("garbage.sh", "not json secret-token").find("is not an ExecCredential JSON object") !=
          std::string::npos);
    CHECK(answer("version.sh",
                 R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"secret-token"}})")
              .find("returned apiVersion \"client.authentication.k8s.io/v1beta1\" but is configured for "
                    "\"client.authentication.k8s.io/v1\"") != std::string::npos);
    CHECK(answer("nostatus.sh", R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"})")
              .find("has no status") != std::string::npos);
    CHECK(answer("cert.sh",
                 R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientCertificateData":"x","clientKeyData":"y"}})")
              .find("client certificates from exec plugins (clientCertificateData) are not supported") !=
          std::string::npos);
    CHECK(answer("badtime.sh",
                 R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"secret-token","expirationTimestamp":"tomorrow"}})")
              .find("status.expirationTimestamp \"tomorrow\" is not an RFC 3339 time") != std::string::npos);
}

TEST_CASE("a plugin that does not answer is killed at the timeout") {
    temp_dir d;
    asio::io_context ioc;
    io::manual_clock clk(at("2030-01-01T00:00:00Z"));
    environment env;
    env.vars = {{"PATH", "/usr/bin:/bin"}};
    std::string hang = d.script("hang.sh", "exec sleep 30\n");
    credentials creds(exec_client(d, hang), clk, env);
    std::optional<result<std::string>> out;
    asio::co_spawn(ioc, creds.bearer_token(), [&](std::exception_ptr, result<std::string> r) { out = std::move(r); });
    ioc.poll();
    CHECK_FALSE(out.has_value());
    REQUIRE(clk.sleepers() == 1);
    clk.advance(credentials::exec_timeout);
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!out && std::chrono::steady_clock::now() < deadline) {
        ioc.run_one_for(50ms);
    }
    REQUIRE(out.has_value());
    REQUIRE_FALSE(out->has_value());
    CHECK(out->error().message() == "exec plugin \"" + hang + "\": no answer within 60 s; killed");
}
