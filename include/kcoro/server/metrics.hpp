// The Prometheus metrics of a kcoro process, with controller-runtime's names,
// types, help texts, labels and buckets, so dashboards and alerts written for
// controller-runtime operators work unchanged (docs/operations.md lists them).
//
//   controller_runtime_*          per controller   (make_controller_metrics)
//   workqueue_*                   per queue        (make_workqueue_metrics)
//   rest_client_*                 API requests     (requests())
//   leader_election_master_status                  (set_leader)
//   process_*                     read from /proc/self at each serialize()
//   kcoro_*                       kcoro's own: dropped events, cache sizes,
//                                 watch restarts, relists, no-op writes,
//                                 caches synced, hot loops, refused writes,
//                                 shard ring membership and handovers
//
// There is no global registry: the manager owns one `metrics_registry` and
// hands the hook objects to the components.
//
// Lifetime: the hook objects returned by the factories refer to metrics owned
// by the registry; the registry must outlive them.
// Thread safety: all updates and serialize() may be called from any thread
// (prometheus-cpp metrics are atomic, families lock when adding labels).
#pragma once

#include <kcoro/core/metrics_hooks.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace prometheus {
class Registry;
}

namespace kcoro::server {

/// Bucket upper bounds used by controller-runtime (and the Go client).
namespace buckets {
/// controller_runtime_reconcile_time_seconds: 0.005 ... 60 (40 buckets).
std::vector<double> reconcile_time();
/// workqueue_{queue,work}_duration_seconds: ExponentialBuckets(10e-9, 10, 12),
/// computed by repeated multiplication exactly as Go does, so the `le` labels
/// print identically (1e-08, 1e-07, 1e-06, 9.999999999999999e-06, ...).
std::vector<double> workqueue_duration();
/// rest_client_request_duration_seconds: component-base's 0.005 ... 60 (12 buckets).
std::vector<double> rest_client_duration();
/// Go's prometheus.ExponentialBuckets(start, factor, count).
std::vector<double> exponential(double start, double factor, int count);
} // namespace buckets

class metrics_registry {
public:
    /// Registers every family. When `process_metrics` is true, serialize()
    /// appends the process_* families read from /proc/self.
    explicit metrics_registry(bool process_metrics = true);
    ~metrics_registry();
    metrics_registry(const metrics_registry&) = delete;
    metrics_registry& operator=(const metrics_registry&) = delete;

    /// The underlying registry, for an operator's own metrics.
    prometheus::Registry& registry() noexcept;

    /// controller_runtime_* for `controller`; pre-sets reconcile_total for the
    /// four results, the error/panic counters and both gauges to 0, as
    /// controller-runtime does when a controller starts. The sink also counts
    /// kcoro_noop_writes_total{controller,resource} and
    /// kcoro_hot_loop_detected_total{controller} (pre-set to 0).
    std::unique_ptr<controller_metrics> make_controller_metrics(const std::string& controller);

    /// workqueue_* with labels name=`name`, controller=`controller`
    /// (controller-runtime passes the controller name for both).
    std::unique_ptr<workqueue_metrics> make_workqueue_metrics(const std::string& name,
                                                              const std::string& controller);

    /// kcoro_informer_cache_objects / kcoro_watch_restarts_total /
    /// kcoro_relists_total with resource=`resource` ("configmaps",
    /// "gateways.example.com").
    std::unique_ptr<informer_metrics> make_informer_metrics(const std::string& resource);

    /// kcoro_shard_members / kcoro_shard_handovers_total /
    /// kcoro_shard_handover_duration_seconds with ring=`ring`
    /// (runtime/shard_member.hpp); the counter starts at 0.
    std::unique_ptr<shard_metrics> make_shard_metrics(const std::string& ring);

    /// rest_client_requests_total / rest_client_request_duration_seconds.
    request_metrics& requests() noexcept;

    /// leader_election_master_status{name} = 1 while leading, 0 otherwise.
    void set_leader(std::string_view lease_name, bool leading);

    // --- kcoro's own -------------------------------------------------------
    /// kcoro_events_dropped_total{reason}
    void event_dropped(std::string_view reason);
    /// kcoro_informer_cache_objects{resource}
    void set_cache_objects(std::string_view resource, std::int64_t objects);
    /// kcoro_watch_restarts_total{resource,reason}
    void watch_restarted(std::string_view resource, std::string_view reason);
    /// kcoro_relists_total{resource,reason}
    void relisted(std::string_view resource, std::string_view reason);
    /// kcoro_shard_unowned_events_total{controller}: an event's key not
    /// queued (or a queued key not started) because another replica of the
    /// sharding ring owns it.
    void shard_unowned_event(std::string_view controller);
    /// kcoro_shard_owned_keys{controller}: cached primaries of the
    /// controller whose hash is in this replica's active ranges.
    void set_shard_owned_keys(std::string_view controller, std::int64_t keys);
    /// Both series above at 0 for a newly sharded controller (exported from
    /// the start, as controller-runtime pre-sets its counters).
    void shard_controller_added(std::string_view controller);
    /// kcoro_leader_write_refused_total (server/leader_write_guard.hpp).
    void leader_write_refused();
    /// kcoro_noop_writes_total{controller,resource}: a write that changed nothing.
    void noop_write(std::string_view controller, std::string_view resource);
    /// kcoro_caches_synced: 0 from the manager's start until every informer
    /// synced (the readiness check `informers`), then 1. Not exported until
    /// first set (the manager sets it to 0 when it is created).
    void set_caches_synced(bool synced);

    /// The text exposition format 0.0.4 of every family.
    std::string serialize() const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace kcoro::server
