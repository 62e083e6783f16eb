#include <kcoro/server/metrics_handler.hpp>

#include <doctest/doctest.h>

using kcoro::server::metrics_handler;
using kcoro::server::metrics_registry;

TEST_CASE("/metrics answers the exposition format") {
    metrics_registry reg(false);
    reg.set_leader("lock", true);
    metrics_handler h(reg);
    auto a = h.handle("/metrics");
    CHECK(a.status == 200);
    CHECK(a.content_type == "text/plain; version=0.0.4; charset=utf-8");
    CHECK(a.body.find("# TYPE leader_election_master_status gauge\n") != std::string::npos);
    CHECK(a.body.find("leader_election_master_status{name=\"lock\"} 1\n") != std::string::npos);
    CHECK(h.handle("/metrics?debug=1").status == 200);
    // Scrapes see the current values.
    reg.set_leader("lock", false);
    CHECK(h.handle("/metrics").body.find("leader_election_master_status{name=\"lock\"} 0\n") != std::string::npos);
}

TEST_CASE("other paths are 404") {
    metrics_registry reg(false);
    metrics_handler h(reg);
    for (auto t : {"/", "/metrics/", "/metricsx", "/healthz", ""}) {
        auto a = h.handle(t);
        CHECK_MESSAGE(a.status == 404, t);
        CHECK(a.body == "404 page not found\n");
    }
}
