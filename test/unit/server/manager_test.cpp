// The manager's pure bits: bind addresses and the configuration checks of
// create() (no I/O: nothing runs). The start/stop order, probes, signals and
// leader election are tested in test/integration/manager_test.cpp.
#include <kcoro/server/manager.hpp>

#include <doctest/doctest.h>

#include <string>

using kcoro::server::manager;

namespace {
struct null_sink final : kcoro::log_sink {
    void write(std::string_view) override {}
};

kcoro::server::manager_setup offline_setup() {
    kcoro::server::manager_setup s;
    kcoro::client::client_config cfg;
    cfg.server = "http://127.0.0.1:1";
    s.client_config = cfg;
    s.sink = std::make_shared<null_sink>();
    s.handle_signals = false;
    s.identity = "host_1";
    return s;
}
} // namespace

TEST_CASE("bind addresses") {
    using kcoro::server::parse_bind_address;
    auto a = parse_bind_address(":8080");
    REQUIRE(a);
    CHECK(a->port() == 8080);
    CHECK(a->address().is_unspecified());
    auto b = parse_bind_address("127.0.0.1:0");
    REQUIRE(b);
    CHECK(b->address().to_string() == "127.0.0.1");
    auto c = parse_bind_address("[::1]:9443");
    REQUIRE(c);
    CHECK(c->address().is_v6());
    CHECK(c->port() == 9443);
    CHECK(parse_bind_address("localhost:1")->address().is_loopback());
    CHECK_FALSE(parse_bind_address("8080"));
    CHECK_FALSE(parse_bind_address(":99999"));
    CHECK_FALSE(parse_bind_address("example.com:80"));
}

TEST_CASE("create: bad configuration is an error naming it") {
    kcoro::server::manager_options o;
    o.log_level = "loud";
    auto a = manager::create(o, offline_setup());
    REQUIRE_FALSE(a);
    CHECK(a.error().message().find("--log-level") != std::string::npos);

    kcoro::server::manager_options o2;
    o2.leader_elect = true;  // without --leader-election-id
    CHECK_FALSE(manager::create(o2, offline_setup()));

    kcoro::server::manager_options o3;
    o3.metrics_bind_address = "nonsense";
    CHECK_FALSE(manager::create(o3, offline_setup()));

    kcoro::server::manager_options o4;
    o4.health_probe_bind_address = "probes.example.com:8081";  // a name, not an address
    auto d = manager::create(o4, offline_setup());
    REQUIRE_FALSE(d);
    CHECK(d.error().message().find("--health-probe-bind-address") != std::string::npos);
}

TEST_CASE("create: accessors before run") {
    kcoro::server::manager_options o;
    o.watch_namespace = "team-a";
    auto m = manager::create(o, offline_setup());
    REQUIRE(m);
    CHECK((*m)->identity() == "host_1");
    CHECK((*m)->cache().options().namespace_ == "team-a");
    CHECK((*m)->options().watch_namespace == "team-a");
    CHECK_FALSE((*m)->is_leader());
    CHECK_FALSE((*m)->cache_synced());
    CHECK_FALSE((*m)->metrics_endpoint());
    CHECK((*m)->elector() == nullptr);
    CHECK(&(*m)->recorder() == &(*m)->events((*m)->name()));
    CHECK((*m)->probes().handle("/readyz").status == 500);  // informers not synced
    CHECK((*m)->probes().handle("/healthz").status == 200);
    // An identity is made when none is given: <hostname>_<uuid>.
    auto s = offline_setup();
    s.identity.clear();
    auto m2 = manager::create(o, s);
    REQUIRE(m2);
    CHECK((*m2)->identity().find('_') != std::string::npos);
}
