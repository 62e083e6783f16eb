// configmap-mirror: the reference controller as a service, on the manager
// (metrics, probes, informers synced first, optional leader election,
// graceful SIGTERM). docs/runtime.md has the one command that runs it
// against kcoro-apiserver.
#include "mirror.hpp"

#include <kcoro/server/manager.hpp>

#include <algorithm>
#include <memory>

int main(int argc, char** argv) {
    kcoro::server::manager_setup setup;
    setup.name = "configmap-mirror";
    auto start = kcoro::server::manager::from_flags(argc, argv, std::move(setup));
    if (!start.mgr) {
        return start.exit_code;
    }
    auto& mgr = *start.mgr;
    const std::string name = "configmap-mirror";

    kcoro::runtime::helper_options helpers;
    auto* metrics = &mgr.metrics();
    helpers.noop_write = [metrics, name](const kcoro::group_version_resource& gvr) {
        metrics->noop_write(name, gvr.resource);
    };
    mirror::reconciler rec(mgr.client(), mirror::cache_reader(mgr.cache()), helpers, mgr.log().with_name(name));

    kcoro::runtime::controller_options opts;
    opts.name = name;
    opts.max_concurrent_reconciles = static_cast<std::size_t>(std::max<std::int64_t>(1, mgr.options().max_concurrent_reconciles));
    opts.metrics = mgr.metrics().make_controller_metrics(name);
    opts.queue_metrics = mgr.metrics().make_workqueue_metrics(name, name);
    opts.log = mgr.log();
    auto ctl = mirror::make_controller(mgr.cache(), mgr.clock(), mgr.executor(), rec, std::move(opts));
    mgr.add(*ctl);
    return mgr.run();
}
