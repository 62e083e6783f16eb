// @@name@@: the @@kind@@ operator as a service.
//
//   @@name@@ [--kubeconfig FILE] [--metrics-bind-address :8080]
//            [--health-probe-bind-address :8081] [--leader-elect] ...
//
// The manager brings kubebuilder's flags (--help lists them), metrics,
// probes, leader election and a graceful SIGTERM. Exit codes: 0 clean stop,
// 1 failure, 2 bad command line.
#include "reconciler.hpp"

#include <kcoro/server/manager.hpp>

#include <utility>

int main(int argc, char** argv) {
    kcoro::server::manager_setup setup;
    setup.name = "@@name@@";
    auto start = kcoro::server::manager::from_flags(argc, argv, std::move(setup));
    if (!start.mgr) return start.exit_code;
    @@namespace@@::setup(*start.mgr);
    return start.mgr->run();
}
