// configmap-mirror: the reference controller as a service, on the manager
// (metrics, probes, informers synced first, optional leader election,
// graceful SIGTERM). docs/getting-started.md runs it against kcoro-apiserver.
#include "mirror.hpp"

#include <kcoro/server/manager.hpp>

int main(int argc, char** argv) {
    kcoro::server::manager_setup setup;
    setup.name = "configmap-mirror";
    // Reconciles are coroutines: several in flight cost little (docs/operations.md).
    setup.default_max_concurrent_reconciles = 32;
    auto start = kcoro::server::manager::from_flags(argc, argv, std::move(setup));
    if (!start.mgr) {
        return start.exit_code;
    }
    auto& mgr = *start.mgr;
    mirror::reconciler rec(mgr.client());
    mirror::add_to(mgr, rec);
    return mgr.run();
}
