#include <kcoro/server/flags.hpp>

#include <doctest/doctest.h>

using namespace kcoro::server;
using namespace std::chrono_literals;

namespace {

struct fixture {
    manager_options opts;
    std::string registry_namespace = "registry";
    flag_set flags{"gateway-operator"};
    fixture() {
        add_manager_flags(flags, opts);
        flags.add_string("registry-namespace", &registry_namespace, "Namespace of the registry ConfigMaps.");
    }
};

} // namespace

TEST_CASE("defaults are kubebuilder's") {
    fixture f;
    REQUIRE(f.flags.parse(std::vector<std::string>{}).value() == parse_outcome::run);
    CHECK(f.opts.metrics_bind_address == ":8080");
    CHECK(f.opts.health_probe_bind_address == ":8081");
    CHECK_FALSE(f.opts.leader_elect);
    CHECK_FALSE(f.opts.metrics_secure);
    CHECK(f.opts.max_concurrent_reconciles == 1);
    CHECK(f.opts.sync_period == 10h);
    CHECK(f.opts.graceful_shutdown_timeout == 30s);
    CHECK(f.opts.log_level == "info");
    CHECK(f.opts.log_format == "json");
    CHECK(f.opts.metrics_enabled());
    CHECK(f.opts.sharding_ring.empty());  // sharding off
    CHECK(validate(f.opts));
}

TEST_CASE("both --flag value and --flag=value, single dash too") {
    fixture f;
    auto r = f.flags.parse(std::vector<std::string>{
        "--kubeconfig", "/tmp/kc", "--metrics-bind-address=0", "-health-probe-bind-address", "127.0.0.1:9440",
        "--leader-elect", "--leader-election-id=gw-lock", "--leader-election-namespace", "ops", "--namespace=apps",
        "--max-concurrent-reconciles", "4", "--sync-period=1m30s", "--log-level", "trace", "--log-format=console",
        "--graceful-shutdown-timeout", "45s", "--registry-namespace=reg", "--metrics-secure=false",
        "--sharding-ring=mirror"});
    REQUIRE(r);
    CHECK(*r == parse_outcome::run);
    CHECK(f.opts.kubeconfig == "/tmp/kc");
    CHECK(f.opts.metrics_bind_address == "0");
    CHECK_FALSE(f.opts.metrics_enabled());
    CHECK(f.opts.health_probe_bind_address == "127.0.0.1:9440");
    CHECK(f.opts.leader_elect);
    CHECK(f.opts.leader_election_id == "gw-lock");
    CHECK(f.opts.leader_election_namespace == "ops");
    CHECK(f.opts.watch_namespace == "apps");
    CHECK(f.opts.max_concurrent_reconciles == 4);
    CHECK(f.opts.sync_period == 90s);
    CHECK(f.opts.log_level == "trace");
    CHECK(f.opts.log_format == "console");
    CHECK(f.opts.graceful_shutdown_timeout == 45s);
    CHECK(f.registry_namespace == "reg");
    CHECK(f.opts.sharding_ring == "mirror");
    CHECK_FALSE(f.opts.metrics_secure);
    CHECK(f.flags.was_set("sync-period"));
    CHECK_FALSE(f.flags.was_set("kubeconfig-x"));
    CHECK(validate(f.opts));
}

TEST_CASE("bool flags take =value forms only") {
    fixture f;
    REQUIRE(f.flags.parse(std::vector<std::string>{"--leader-elect=false"}));
    CHECK_FALSE(f.opts.leader_elect);
    REQUIRE(f.flags.parse(std::vector<std::string>{"--leader-elect=1"}));
    CHECK(f.opts.leader_elect);
    // As in Go, "false" after a bool flag is a positional argument.
    auto r = f.flags.parse(std::vector<std::string>{"--leader-elect", "false"});
    REQUIRE_FALSE(r);
    CHECK(r.error().message() == "unexpected argument \"false\"");
}

TEST_CASE("bad input gives a clear error naming the flag") {
    struct bad_case {
        std::vector<std::string> args;
        std::string message;
    };
    for (auto& c : std::vector<bad_case>{
             {{"--frobnicate"}, "flag provided but not defined: --frobnicate"},
             {{"--kubeconfig"}, "flag needs an argument: --kubeconfig"},
             {{"--max-concurrent-reconciles", "many"},
              "invalid value \"many\" for flag --max-concurrent-reconciles: parse error"},
             {{"--max-concurrent-reconciles=0"},
              "invalid value \"0\" for flag --max-concurrent-reconciles: must be between 1 and 1024"},
             {{"--sync-period=10"}, "invalid value \"10\" for flag --sync-period: time: missing unit in duration \"10\""},
             {{"--sync-period=-1h"}, "invalid value \"-1h\" for flag --sync-period: must not be negative"},
             {{"--graceful-shutdown-timeout=3 s"},
              "invalid value \"3 s\" for flag --graceful-shutdown-timeout: time: unknown unit \" s\" in duration \"3 s\""},
             {{"--log-level=verbose"},
              "invalid value \"verbose\" for flag --log-level: must be one of error, info, debug, trace"},
             {{"--log-format", "xml"}, "invalid value \"xml\" for flag --log-format: must be one of json, console"},
             {{"--leader-elect=maybe"}, "invalid value \"maybe\" for flag --leader-elect: parse error"},
             {{"run"}, "unexpected argument \"run\""},
             {{"---x"}, "bad flag syntax: ---x"},
             {{"-"}, "unexpected argument \"-\""},
         }) {
        fixture f;
        auto r = f.flags.parse(c.args);
        REQUIRE_FALSE_MESSAGE(r, c.message);
        CHECK(r.error().code() == kcoro::make_error_code(kcoro::kcoro_errc::invalid_config));
        CHECK(r.error().message() == c.message);
    }
}

TEST_CASE("validate catches what single flags cannot") {
    manager_options o;
    o.leader_elect = true;
    auto r = validate(o);
    REQUIRE_FALSE(r);
    CHECK(r.error().message() == "--leader-election-id is required when --leader-elect is set");
    o.leader_election_id = "x";
    CHECK(validate(o));
    o.metrics_bind_address = "localhost";
    CHECK_FALSE(validate(o));
    o.metrics_bind_address = ":99999";
    CHECK_FALSE(validate(o));
    o.metrics_bind_address = "[::1]:8080";
    CHECK(validate(o));
    // --sharding-ring: a DNS-1123 label short enough for "<ring>-<16 hex>" Lease names.
    o.sharding_ring = "mirror";
    CHECK(validate(o));
    for (const std::string& bad : {std::string("Mirror"), std::string("mirror_1"), std::string("-mirror"), std::string(47, 'a')}) {
        o.sharding_ring = bad;
        auto e = validate(o);
        REQUIRE_FALSE(e);
        CHECK(e.error().message().find("--sharding-ring") != std::string::npos);
    }
    o.sharding_ring = std::string(46, 'a');
    CHECK(validate(o));
}

TEST_CASE("--help and usage text document every flag") {
    fixture f;
    CHECK(f.flags.parse(std::vector<std::string>{"--help"}).value() == parse_outcome::help_requested);
    CHECK(f.flags.parse(std::vector<std::string>{"-h"}).value() == parse_outcome::help_requested);
    auto u = f.flags.usage();
    for (auto name : {"kubeconfig", "metrics-bind-address", "health-probe-bind-address", "leader-elect",
                      "leader-election-namespace", "leader-election-id", "metrics-secure", "namespace",
                      "max-concurrent-reconciles", "sync-period", "log-level", "log-format",
                      "graceful-shutdown-timeout", "registry-namespace", "sharding-ring"})
        CHECK_MESSAGE(u.find(std::string("  --") + name) != std::string::npos, name);
    CHECK(u.find("  --metrics-bind-address string\n") != std::string::npos);
    CHECK(u.find("(default \":8080\")") != std::string::npos);
    CHECK(u.find("(default 10h0m0s)") != std::string::npos);
    CHECK(u.find("(default 30s)") != std::string::npos);
    CHECK(u.find("  --leader-elect\n") != std::string::npos);
    // Sorted by name, as Go prints them.
    CHECK(u.find("--graceful-shutdown-timeout") < u.find("--health-probe-bind-address"));
}

TEST_CASE("Go durations") {
    CHECK(parse_go_duration("0").value() == 0ns);
    CHECK(parse_go_duration("300ms").value() == 300ms);
    CHECK(parse_go_duration("1.5h").value() == 90min);
    CHECK(parse_go_duration("2h45m").value() == 165min);
    CHECK(parse_go_duration("-1m30s").value() == -90s);
    CHECK(parse_go_duration("+5s").value() == 5s);
    CHECK(parse_go_duration("1us").value() == 1us);
    CHECK(parse_go_duration("1\xC2\xB5s").value() == 1us);
    CHECK(parse_go_duration(".5s").value() == 500ms);
    CHECK(parse_go_duration("1.s").value() == 1s);
    for (auto bad : {"", "-", "s", "1", "1x", "1h-2m", ".s", "9999999999h", "1.2.3s"})
        CHECK_FALSE_MESSAGE(parse_go_duration(bad).has_value(), bad);

    CHECK(format_go_duration(0ns) == "0s");
    CHECK(format_go_duration(10h) == "10h0m0s");
    CHECK(format_go_duration(30s) == "30s");
    CHECK(format_go_duration(90s) == "1m30s");
    CHECK(format_go_duration(1500ms) == "1.5s");
    CHECK(format_go_duration(250ms) == "250ms");
    CHECK(format_go_duration(1500us) == "1.5ms");
    CHECK(format_go_duration(42ns) == "42ns");
    CHECK(format_go_duration(-2s) == "-2s");
}
