// Prints the exposition of a metrics_registry with every family populated,
// for `promtool check metrics` (promtool_check.sh).
#include <kcoro/server/metrics.hpp>

#include <iostream>

int main() {
    kcoro::server::metrics_registry reg;
    auto c = reg.make_controller_metrics("gateway");
    c->reconcile_done(kcoro::reconcile_outcome::success, 0.02);
    c->reconcile_error();
    c->terminal_error();
    c->panic();
    c->set_active_workers(1);
    c->set_max_concurrent_reconciles(2);
    auto q = reg.make_workqueue_metrics("gateway", "gateway");
    q->add();
    q->set_depth(1);
    q->queue_latency(0.001);
    q->work_duration(0.02);
    q->set_unfinished_work(0.5);
    q->set_longest_running(0.5);
    q->retry();
    reg.requests().observe("GET", "GET", "127.0.0.1:6443", "200", 0.01);
    reg.set_leader("gateway-operator-lock", true);
    reg.event_dropped("rate_limited");
    reg.set_cache_objects("configmaps", 3);
    reg.watch_restarted("configmaps", "stream_end");
    reg.relisted("configmaps", "gone");
    reg.noop_write("gateway", "deployments.apps");
    reg.set_caches_synced(true);
    auto sh = reg.make_shard_metrics("gateway");
    sh->set_members(3);
    sh->handover_done(3.5);
    reg.shard_controller_added("gateway");
    reg.set_shard_owned_keys("gateway", 40);
    reg.shard_unowned_event("gateway");
    std::cout << reg.serialize();
    return 0;
}
