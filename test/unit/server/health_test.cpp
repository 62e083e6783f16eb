#include <kcoro/server/health.hpp>

#include <doctest/doctest.h>

#include <optional>
#include <string>

using kcoro::server::health_handler;
using kcoro::server::http_answer;
using namespace std::chrono_literals;

namespace {

std::optional<std::string> ok() { return std::nullopt; }
std::optional<std::string> broken() { return std::string("informer configmaps not synced"); }

bool has_nosniff(const http_answer& a) {
    for (auto& [k, v] : a.headers)
        if (k == "X-Content-Type-Options" && v == "nosniff") return true;
    return false;
}

} // namespace

TEST_CASE("an empty set serves ping") {
    health_handler h;
    auto a = h.handle("/healthz");
    CHECK(a.status == 200);
    CHECK(a.body == "ok");
    CHECK(a.content_type == "text/plain; charset=utf-8");
    CHECK(has_nosniff(a));
    CHECK(h.handle("/healthz?verbose").body == "[+]ping ok\nhealthz check passed\n");
    CHECK(h.handle("/healthz/ping").body == "ok");
    CHECK(h.handle("/healthz/ping").status == 200);
    CHECK(h.handle("/readyz/").body == "ok");
    CHECK(h.handle("/healthz/other").status == 404);
}

TEST_CASE("all healthy: ok, verbose listing sorted by name") {
    health_handler h;
    h.readyz().add("informers", ok);
    h.readyz().add("leader", ok);
    CHECK(h.handle("/readyz").body == "ok");
    auto v = h.handle("/readyz?verbose");
    CHECK(v.status == 200);
    CHECK(v.body == "[+]informers ok\n[+]leader ok\nhealthz check passed\n");
    // ?verbose=false still counts: Go checks presence only.
    CHECK(h.handle("/readyz?verbose=false").body == v.body);
    // A set that has checks no longer serves the implicit ping.
    CHECK(h.handle("/readyz/ping").status == 404);
}

TEST_CASE("a failing check: 500 with reasons withheld, always verbose") {
    health_handler h;
    h.readyz().add("informers", broken);
    h.readyz().add("ping", ok);
    auto a = h.handle("/readyz");
    CHECK(a.status == 500);
    CHECK(a.body == "[-]informers failed: reason withheld\n[+]ping ok\nhealthz check failed\n");
    CHECK(a.body.find("not synced") == std::string::npos);
    CHECK(has_nosniff(a));
    CHECK(h.handle("/readyz?verbose").body == a.body);
}

TEST_CASE("single check path shows the reason") {
    health_handler h;
    h.readyz().add("informers", broken);
    h.readyz().add("ping", ok);
    auto a = h.handle("/readyz/informers");
    CHECK(a.status == 500);
    CHECK(a.body == "internal server error: informer configmaps not synced\n");
    CHECK(h.handle("/readyz/ping").status == 200);
    CHECK(h.handle("/readyz/ping").body == "ok");
    CHECK(h.handle("/readyz/ping/").body == "ok");  // trailing slash cleaned
    CHECK(h.handle("/readyz//ping").body == "ok");
    auto nf = h.handle("/readyz/nope");
    CHECK(nf.status == 404);
    CHECK(nf.body == "404 page not found\n");
    CHECK(h.handle("/readyz/a/b").status == 404);
}

TEST_CASE("exclude skips checks and warns about unknown names") {
    health_handler h;
    h.readyz().add("informers", broken);
    h.readyz().add("ping", ok);
    auto a = h.handle("/readyz?exclude=informers");
    CHECK(a.status == 200);
    CHECK(a.body == "ok");
    CHECK(h.handle("/readyz?exclude=informers&verbose").body ==
          "[+]informers excluded: ok\n[+]ping ok\nhealthz check passed\n");
    auto w = h.handle("/readyz?exclude=zeta&exclude=alpha&verbose&exclude=informers");
    CHECK(w.status == 200);
    CHECK(w.body ==
          "[+]informers excluded: ok\n[+]ping ok\n"
          "warn: some health checks cannot be excluded: no matches for \"alpha\",\"zeta\"\nhealthz check passed\n");
    // Percent-encoded names are decoded.
    CHECK(h.handle("/readyz?exclude=inform%65rs").status == 200);
    // An unknown exclude on a failing set is reported in the failure body.
    CHECK(h.handle("/readyz?exclude=nope").body ==
          "[-]informers failed: reason withheld\n[+]ping ok\n"
          "warn: some health checks cannot be excluded: no matches for \"nope\"\nhealthz check failed\n");
}

TEST_CASE("liveness and readiness are separate sets; other paths are 404") {
    health_handler h;
    h.healthz().add("watchdog", broken);
    CHECK(h.handle("/healthz").status == 500);
    CHECK(h.handle("/readyz").status == 200);
    CHECK(h.handle("/healthzx").status == 404);
    CHECK(h.handle("/").status == 404);
    CHECK(h.handle("").status == 404);
    CHECK(h.handle("/metrics").status == 404);
}

TEST_CASE("query helpers") {
    using namespace kcoro::server;
    CHECK(query_unescape("a+b%2Fc%zz%4") == "a b/c%zz%4");
    CHECK(query_values("exclude=a&x=1&exclude=b&exclude", "exclude") == std::vector<std::string>{"a", "b", ""});
    CHECK(query_has("verbose", "verbose"));
    CHECK(query_has("a=1&verbose=", "verbose"));
    CHECK_FALSE(query_has("verbosee", "verbose"));
    CHECK_FALSE(query_has("", "verbose"));
}

TEST_CASE("watchdog fails when the loop stalls") {
    kcoro::steady_time t0{};
    kcoro::server::watchdog w(5s, t0);
    CHECK_FALSE(w.check(t0 + 5s));
    auto stalled = w.check(t0 + 6s);
    REQUIRE(stalled);
    CHECK(*stalled == "event loop made no progress for 6000ms (limit 5000ms)");
    w.progress(t0 + 6s);
    CHECK_FALSE(w.check(t0 + 10s));
    w.progress(t0 + 1s);  // time never goes backwards
    CHECK(w.last_progress() == t0 + 6s);

    health_handler h;
    auto now = t0 + 20s;
    h.healthz().add("watchdog", [&] { return w.check(now); });
    CHECK(h.handle("/healthz").status == 500);
    now = t0 + 7s;
    CHECK(h.handle("/healthz").status == 200);
}
