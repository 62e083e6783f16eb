#include <kcoro/core/log.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <sstream>

using namespace kcoro;
using namespace std::chrono_literals;

namespace {

struct capture final : log_sink {
    std::vector<std::string> lines;
    void write(std::string_view line) override { lines.emplace_back(line); }
};

struct fixture {
    std::shared_ptr<capture> sink = std::make_shared<capture>();
    // 2026-11-29T11:32:36.123456Z
    wall_time now = wall_time{} + 1795951956s + 123456us;
    logger make(log_level level = log_level::info, log_format format = log_format::json) {
        return logger(log_config{level, format, [this] { return now; }, sink});
    }
    boost::json::object last() {
        REQUIRE_FALSE(sink->lines.empty());
        CHECK(sink->lines.back().back() == '\n');
        return boost::json::parse(sink->lines.back()).as_object();
    }
};

} // namespace

TEST_CASE("JSON lines carry level, ts, logger, msg and fields") {
    fixture f;
    auto log = f.make().with_name("controller").with_name("gateway");
    log.info("Starting workers", {{"worker count", 2}, {"ready", true}, {"ratio", 0.5}});
    auto o = f.last();
    CHECK(o["level"] == "info");
    CHECK(o["ts"] == "2026-11-29T11:32:36.123Z");
    CHECK(o["logger"] == "controller.gateway");
    CHECK(o["msg"] == "Starting workers");
    CHECK(o["worker count"] == 2);
    CHECK(o["ready"] == true);
    CHECK(o["ratio"] == 0.5);
    // Envelope first, in zap's order.
    CHECK(f.sink->lines.back().rfind("{\"level\":\"info\",\"ts\":", 0) == 0);
}

TEST_CASE("reconcile fields and errors") {
    fixture f;
    auto log = f.make().for_reconcile("gateway", "example.com", "Gateway", "apps", "gw-1", "4f1c");
    log.error(kcoro::error(kcoro::api_errc::conflict, "update deployments apps/gw-1: conflict"), "Reconciler error");
    auto o = f.last();
    CHECK(o["level"] == "error");
    CHECK(o["controller"] == "gateway");
    CHECK(o["controllerGroup"] == "example.com");
    CHECK(o["controllerKind"] == "Gateway");
    CHECK(o["Gateway"].as_object()["name"] == "gw-1");
    CHECK(o["Gateway"].as_object()["namespace"] == "apps");
    CHECK(o["namespace"] == "apps");
    CHECK(o["name"] == "gw-1");
    CHECK(o["reconcileID"] == "4f1c");
    CHECK(o["error"] == "update deployments apps/gw-1: conflict");
}

TEST_CASE("strings are JSON-escaped") {
    fixture f;
    auto log = f.make();
    log.info("quote \" backslash \\ newline \n tab \t", {{"k\"ey", "v\x01"}});
    auto o = f.last();
    CHECK(o["msg"] == "quote \" backslash \\ newline \n tab \t");
    CHECK(o["k\"ey"] == "v\x01");
    CHECK(f.sink->lines.back().find('\n') == f.sink->lines.back().size() - 1);  // one line
}

TEST_CASE("levels filter by configuration") {
    fixture f;
    auto info = f.make(log_level::info);
    info.debug("hidden");
    info.trace("hidden");
    CHECK(f.sink->lines.empty());
    info.error("boom", "failed");
    info.info("shown");
    CHECK(f.sink->lines.size() == 2);

    auto errors_only = f.make(log_level::error);
    errors_only.info("hidden");
    CHECK(f.sink->lines.size() == 2);

    auto trace = f.make(log_level::trace);
    trace.debug("d");
    CHECK(f.last()["level"] == "debug");
    trace.trace("t");
    CHECK(f.last()["level"] == "trace");
    CHECK(trace.enabled(log_level::trace));
    CHECK_FALSE(info.enabled(log_level::debug));

    logger silent;  // default: prints nothing, never crashes
    silent.error("x", "y");
    CHECK_FALSE(silent.enabled(log_level::error));
}

TEST_CASE("credentials and Secret data are never printed") {
    fixture f;
    auto log = f.make().with_values({{"token", "abc.def.ghi"}});
    boost::json::object secret{{"apiVersion", "v1"},
                               {"kind", "Secret"},
                               {"metadata", boost::json::object{{"name", "creds"}}},
                               {"data", boost::json::object{{"password", "aHVudGVyMg=="}}},
                               {"stringData", boost::json::object{{"user", "s3cr3t-user"}}}};
    log.info("request", {{"Authorization", "Bearer xyz"},
                         {"password", "hunter2"},
                         {"headers", boost::json::object{{"X-Auth-Token", "t0k"}, {"Accept", "json"}}},
                         {"object", secret},
                         {"list", boost::json::array{secret}},
                         {"user", "admin"}});
    const std::string line = f.sink->lines.back();
    for (auto leak : {"abc.def.ghi", "Bearer xyz", "hunter2", "t0k", "aHVudGVyMg==", "s3cr3t-user"})
        CHECK_MESSAGE(line.find(leak) == std::string::npos, leak);
    auto o = f.last();
    CHECK(o["token"] == "[redacted]");
    CHECK(o["Authorization"] == "[redacted]");
    CHECK(o["password"] == "[redacted]");
    CHECK(o["headers"].as_object()["X-Auth-Token"] == "[redacted]");
    CHECK(o["headers"].as_object()["Accept"] == "json");
    CHECK(o["object"].as_object()["data"] == "[redacted]");
    CHECK(o["object"].as_object()["stringData"] == "[redacted]");
    CHECK(o["object"].as_object()["metadata"].as_object()["name"] == "creds");
    CHECK(o["list"].as_array()[0].as_object()["data"] == "[redacted]");
    CHECK(o["user"] == "admin");

    // Console format redacts too.
    auto console = f.make(log_level::info, log_format::console);
    console.info("x", {{"bearer_token", "sekret"}});
    CHECK(f.sink->lines.back().find("sekret") == std::string::npos);

    // A ConfigMap's data is printed.
    log.info("cm", {{"object", boost::json::object{{"kind", "ConfigMap"}, {"data", boost::json::object{{"a", "b"}}}}}});
    CHECK(f.last()["object"].as_object()["data"].as_object()["a"] == "b");
}

TEST_CASE("bound values: later keys replace, envelope keys cannot be shadowed") {
    fixture f;
    auto log = f.make().with_values({{"a", 1}, {"b", 2}}).with_values({{"a", 3}});
    log.info("m", {{"msg", "spoof"}, {"level", "error"}, {"c", 4}});
    auto o = f.last();
    CHECK(o["a"] == 3);
    CHECK(o["b"] == 2);
    CHECK(o["c"] == 4);
    CHECK(o["msg"] == "m");
    CHECK(o["level"] == "info");
}

TEST_CASE("console format") {
    fixture f;
    auto log = f.make(log_level::info, log_format::console).with_name("setup");
    log.info("starting manager", {{"version", "0.1.0"}});
    CHECK(f.sink->lines.back() == "2026-11-29T11:32:36.123Z\tINFO\tsetup\tstarting manager\t{\"version\":\"0.1.0\"}\n");
    auto root = f.make(log_level::info, log_format::console);
    root.error("boom", "failed");
    CHECK(f.sink->lines.back() == "2026-11-29T11:32:36.123Z\tERROR\tfailed\t{\"error\":\"boom\"}\n");
}

TEST_CASE("parsing levels and formats") {
    CHECK(parse_log_level("debug") == log_level::debug);
    CHECK(parse_log_level("trace") == log_level::trace);
    CHECK_FALSE(parse_log_level("Debug"));
    CHECK(parse_log_format("console") == log_format::console);
    CHECK_FALSE(parse_log_format("xml"));
    CHECK(is_sensitive_key("clientKeyData"));
    CHECK_FALSE(is_sensitive_key("name"));
    CHECK(is_sensitive_key("client-key-data"));
    CHECK(is_sensitive_key("ServiceAccountToken"));
}

TEST_CASE("ostream_sink writes whole lines") {
    std::ostringstream out;
    auto sink = std::make_shared<ostream_sink>(out);
    logger log(log_config{log_level::info, log_format::json, [] { return wall_time{}; }, sink});
    log.info("a");
    log.info("b");
    CHECK(out.str() == "{\"level\":\"info\",\"ts\":\"1970-01-01T00:00:00.000Z\",\"msg\":\"a\"}\n"
                       "{\"level\":\"info\",\"ts\":\"1970-01-01T00:00:00.000Z\",\"msg\":\"b\"}\n");
}
