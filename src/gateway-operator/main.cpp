// gateway-operator: the GatewayInstance operator as a service.
//
//   gateway-operator [--kubeconfig FILE] [--metrics-bind-address :8080]
//                    [--health-probe-bind-address :8081] [--leader-elect]
//                    [--leader-election-namespace NS] [--leader-election-id ID]
//                    [--namespace NS] [--max-concurrent-reconciles N]
//                    [--sync-period 10h] [--log-level info] [--log-format json]
//                    [--graceful-shutdown-timeout 30s]
//                    [--registry-namespace kcoro-system]
//                    [--rollout-poll 5s] [--recheck-period 10m]
//
// The manager's flags keep kubebuilder's names and defaults
// (kcoro/server/flags.hpp, docs/operations.md); the operator adds its own.
// Exit codes: 0 clean stop, 1 failure (start-up, cache sync, lost
// leadership, shutdown deadline), 2 bad command line.
#include "controller_setup.hpp"

#include <kcoro/server/manager.hpp>

#include <iostream>
#include <string>
#include <vector>

namespace {
// kubebuilder scaffolds a fixed LeaderElectionID; a later --leader-election-id wins
// (Go's flag package: the last occurrence of a flag is the one kept).
constexpr const char* default_lease_flag = "--leader-election-id=gateway-operator.gateway.kcoro.dev";
} // namespace

int main(int argc, char** argv) {
    gateway::reconciler_options opts;
    std::chrono::nanoseconds rollout_poll = opts.rollout_poll;
    std::chrono::nanoseconds recheck = opts.recheck;

    std::vector<const char*> args(argv, argv + argc);
    args.insert(args.begin() + (argc > 0 ? 1 : 0), default_lease_flag);

    kcoro::server::manager_setup setup;
    setup.name = "gateway-operator";
    // Reconciles are coroutines: several in flight cost little (docs/operations.md).
    setup.default_max_concurrent_reconciles = 32;
    auto start = kcoro::server::manager::from_flags(static_cast<int>(args.size()), args.data(), std::move(setup), [&](kcoro::server::flag_set& f) {
        f.add_string("registry-namespace", &opts.registry_namespace,
                     "Namespace of the registration ConfigMaps (the external registry)");
        f.add_duration("rollout-poll", &rollout_poll,
                       "Requeue period while an instance's Deployment rolls out");
        f.add_duration("recheck-period", &recheck, "Periodic recheck of a converged instance");
    });
    if (!start.mgr) {
        return start.exit_code;
    }
    if (opts.registry_namespace.empty()) {
        std::cerr << "gateway-operator: --registry-namespace must not be empty\n";
        return kcoro::server::exit_usage;
    }
    opts.rollout_poll = rollout_poll;
    opts.recheck = recheck;
    auto& mgr = *start.mgr;
    gateway::setup(mgr, std::move(opts));
    return mgr.run();
}
