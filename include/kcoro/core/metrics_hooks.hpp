// Metric hooks: the interfaces through which the client, the workqueue and
// the controllers report what the metrics layer exports with
// controller-runtime's names (kcoro/server/metrics.hpp implements them with
// prometheus-cpp). Pure interfaces; a null hook means "not measured".
//
// Thread safety: called from the io_context thread that runs the component.
#pragma once

#include <cstdint>
#include <string_view>

namespace kcoro {

/// rest_client_requests_total{code,method,host} and
/// rest_client_request_duration_seconds{verb,host}.
class request_metrics {
public:
    virtual ~request_metrics() = default;
    /// One finished attempt. `code` is the HTTP code as text, or "<error>" when
    /// no answer was received (client-go's label for transport errors).
    virtual void observe(std::string_view verb, std::string_view method, std::string_view host,
                         std::string_view code, double seconds) = 0;
};

/// The workqueue_* family for one queue (labels name and controller are
/// bound when the sink is created).
class workqueue_metrics {
public:
    virtual ~workqueue_metrics() = default;
    virtual void add() = 0;                          // workqueue_adds_total
    virtual void set_depth(std::int64_t depth) = 0;  // workqueue_depth
    virtual void queue_latency(double seconds) = 0;  // workqueue_queue_duration_seconds
    virtual void work_duration(double seconds) = 0;  // workqueue_work_duration_seconds
    virtual void set_unfinished_work(double seconds) = 0;  // workqueue_unfinished_work_seconds
    virtual void set_longest_running(double seconds) = 0;  // workqueue_longest_running_processor_seconds
    virtual void retry() = 0;                        // workqueue_retries_total
};

/// How a reconcile ended, as controller_runtime_reconcile_total{result} labels it.
enum class reconcile_outcome { success, error, requeue, requeue_after };

/// controller_runtime_* for one controller, plus kcoro's own per-controller
/// series (no-op writes, hot loops; empty by default).
class controller_metrics {
public:
    virtual ~controller_metrics() = default;
    virtual void reconcile_done(reconcile_outcome outcome, double seconds) = 0;  // total + time
    virtual void reconcile_error() = 0;           // controller_runtime_reconcile_errors_total
    virtual void terminal_error() = 0;            // controller_runtime_terminal_reconcile_errors_total
    virtual void panic() = 0;                     // controller_runtime_reconcile_panics_total
    virtual void set_active_workers(std::int64_t n) = 0;
    virtual void set_max_concurrent_reconciles(std::int64_t n) = 0;
    /// kcoro_noop_writes_total{controller,resource}: a write that changed nothing.
    virtual void noop_write(std::string_view resource) { (void)resource; }
    /// kcoro_hot_loop_detected_total{controller}
    virtual void hot_loop_detected() {}
};

/// kcoro_informer_cache_objects{resource}, kcoro_watch_restarts_total and
/// kcoro_relists_total{resource,reason} for one informer (the resource label
/// is bound when the sink is created).
class informer_metrics {
public:
    virtual ~informer_metrics() = default;
    virtual void set_cache_objects(std::int64_t n) = 0;
    virtual void watch_restarted(std::string_view reason) = 0;  // resumed from the last resourceVersion
    virtual void relisted(std::string_view reason) = 0;         // full list (e.g. "gone" after 410)
};

/// kcoro_shard_members{ring}, kcoro_shard_handovers_total{ring} and
/// kcoro_shard_handover_duration_seconds{ring} for one member of a sharding
/// ring (the ring label is bound when the sink is created; runtime/shard_member.hpp
/// says what a handover is).
class shard_metrics {
public:
    virtual ~shard_metrics() = default;
    virtual void set_members(std::int64_t n) = 0;
    virtual void handover_done(double seconds) = 0;
};

} // namespace kcoro
