#include <kcoro/server/metrics.hpp>

#include <kcoro/server/process_metrics.hpp>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <string>
#include <utility>

namespace kcoro::server {

namespace buckets {

std::vector<double> exponential(double start, double factor, int count) {
    std::vector<double> out;
    if (count < 1 || start <= 0 || factor <= 1) return out;
    out.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        out.push_back(start);
        start *= factor;  // as Go does: the rounding shows in the `le` labels
    }
    return out;
}

std::vector<double> reconcile_time() {
    return {0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6,
            0.7,   0.8,  0.9,   1.0,  1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5,
            6,     7,    8,     9,    10,  15,   20,  25,   30,  40,  50,  60};
}

std::vector<double> workqueue_duration() { return exponential(10e-9, 10, 12); }

std::vector<double> rest_client_duration() {
    return {0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0};
}

} // namespace buckets

namespace {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;
using prometheus::Histogram;

Family<Counter>& counter(prometheus::Registry& r, const char* name, const char* help) {
    return prometheus::BuildCounter().Name(name).Help(help).Register(r);
}
Family<Gauge>& gauge(prometheus::Registry& r, const char* name, const char* help) {
    return prometheus::BuildGauge().Name(name).Help(help).Register(r);
}
Family<Histogram>& histogram(prometheus::Registry& r, const char* name, const char* help) {
    return prometheus::BuildHistogram().Name(name).Help(help).Register(r);
}

std::string str(std::string_view s) { return std::string(s); }

} // namespace

struct metrics_registry::impl final : request_metrics {
    explicit impl(bool process) : with_process(process) {}

    bool with_process;
    prometheus::Registry reg;

    // controller-runtime: pkg/internal/controller/metrics/metrics.go
    Family<Counter>& reconcile_total = counter(reg, "controller_runtime_reconcile_total",
                                               "Total number of reconciliations per controller");
    Family<Counter>& reconcile_errors = counter(reg, "controller_runtime_reconcile_errors_total",
                                                "Total number of reconciliation errors per controller");
    Family<Counter>& terminal_errors =
        counter(reg, "controller_runtime_terminal_reconcile_errors_total",
                "Total number of terminal reconciliation errors per controller");
    Family<Counter>& reconcile_panics = counter(reg, "controller_runtime_reconcile_panics_total",
                                                "Total number of reconciliation panics per controller");
    Family<Histogram>& reconcile_time = histogram(reg, "controller_runtime_reconcile_time_seconds",
                                                  "Length of time per reconciliation per controller");
    Family<Gauge>& max_concurrent = gauge(reg, "controller_runtime_max_concurrent_reconciles",
                                          "Maximum number of concurrent reconciles per controller");
    Family<Gauge>& active_workers = gauge(reg, "controller_runtime_active_workers",
                                          "Number of currently used workers per controller");

    // controller-runtime: pkg/metrics/workqueue.go
    Family<Gauge>& wq_depth = gauge(reg, "workqueue_depth", "Current depth of workqueue by workqueue and priority");
    Family<Counter>& wq_adds = counter(reg, "workqueue_adds_total", "Total number of adds handled by workqueue");
    Family<Histogram>& wq_latency =
        histogram(reg, "workqueue_queue_duration_seconds",
                  "How long in seconds an item stays in workqueue before being requested");
    Family<Histogram>& wq_work = histogram(reg, "workqueue_work_duration_seconds",
                                           "How long in seconds processing an item from workqueue takes.");
    Family<Gauge>& wq_unfinished =
        gauge(reg, "workqueue_unfinished_work_seconds",
              "How many seconds of work has been done that is in progress and hasn't been observed by "
              "work_duration. Large values indicate stuck threads. One can deduce the number of stuck "
              "threads by observing the rate at which this increases.");
    Family<Gauge>& wq_longest = gauge(reg, "workqueue_longest_running_processor_seconds",
                                      "How many seconds has the longest running processor for workqueue been "
                                      "running.");
    Family<Counter>& wq_retries =
        counter(reg, "workqueue_retries_total", "Total number of retries handled by workqueue");

    // controller-runtime: pkg/metrics/client_go_adapter.go (requests_total);
    // component-base: metrics/prometheus/restclient (request duration).
    Family<Counter>& rest_requests = counter(reg, "rest_client_requests_total",
                                             "Number of HTTP requests, partitioned by status code, method, and host.");
    Family<Histogram>& rest_duration = histogram(reg, "rest_client_request_duration_seconds",
                                                 "Request latency in seconds. Broken down by verb, and host.");

    // controller-runtime: pkg/metrics/leaderelection.go
    Family<Gauge>& leader = gauge(reg, "leader_election_master_status",
                                  "Gauge of if the reporting system is master of the relevant lease, 0 indicates "
                                  "backup, 1 indicates master. 'name' is the string used to identify the lease. "
                                  "Please make sure to group by name.");

    // kcoro's own.
    Family<Counter>& events_dropped = counter(reg, "kcoro_events_dropped_total",
                                              "Events not written to the API server, by reason.");
    Family<Gauge>& cache_objects = gauge(reg, "kcoro_informer_cache_objects",
                                         "Objects held in an informer's cache, by resource.");
    Family<Counter>& watch_restarts = counter(reg, "kcoro_watch_restarts_total",
                                              "Watches restarted from the last resourceVersion, by resource and reason.");
    Family<Counter>& relists = counter(reg, "kcoro_relists_total",
                                       "Full relists of a resource, by resource and reason.");
    Family<Counter>& noop_writes =
        counter(reg, "kcoro_noop_writes_total",
                "Writes that changed nothing on the server (a hot-loop signal), by controller and resource.");
    Family<Counter>& hot_loops =
        counter(reg, "kcoro_hot_loop_detected_total",
                "Hot-loop alarms: a key reconciled with writes more often than the threshold, by controller.");
    Family<Gauge>& caches_synced =
        gauge(reg, "kcoro_caches_synced",
              "1 once every informer of the manager has synced (the readiness check informers), 0 before.");
    Family<Gauge>& shard_members =
        gauge(reg, "kcoro_shard_members", "Live members of a sharding ring as this replica sees them, by ring.");
    Family<Counter>& shard_handovers =
        counter(reg, "kcoro_shard_handovers_total",
                "Handovers completed: the ring's membership changed and this replica's active ranges reached "
                "its new share, by ring.");
    Family<Histogram>& shard_handover_duration =
        histogram(reg, "kcoro_shard_handover_duration_seconds",
                  "Time from a membership change to this replica's active ranges matching its new share, by ring.");
    Family<Counter>& shard_unowned =
        counter(reg, "kcoro_shard_unowned_events_total",
                "Keys of watch events not queued, or queued keys not started, because another replica of the "
                "sharding ring owns them, by controller.");
    Family<Gauge>& shard_owned_keys =
        gauge(reg, "kcoro_shard_owned_keys",
              "Cached objects of a controller's primary resource whose hash is in this replica's active ranges "
              "of the sharding ring, by controller.");
    Counter& leader_write_refused =
        counter(reg, "kcoro_leader_write_refused_total",
                "Writes refused unsent because the local lease validity had passed (a stalled leader).")
            .Add({});

    void observe(std::string_view verb, std::string_view method, std::string_view host, std::string_view code,
                 double seconds) override {
        rest_requests.Add({{"code", str(code)}, {"method", str(method)}, {"host", str(host)}}).Increment();
        rest_duration.Add({{"verb", str(verb)}, {"host", str(host)}}, buckets::rest_client_duration())
            .Observe(seconds);
    }
};

namespace {

class controller_sink final : public controller_metrics {
public:
    controller_sink(Family<Counter>& total, Family<Counter>& errors, Family<Counter>& terminal,
                    Family<Counter>& panics, Family<Histogram>& time, Family<Gauge>& max_concurrent,
                    Family<Gauge>& active, Family<Counter>& noop_writes, Family<Counter>& hot_loops,
                    const std::string& controller)
        : success_(total.Add({{"controller", controller}, {"result", "success"}})),
          error_(total.Add({{"controller", controller}, {"result", "error"}})),
          requeue_(total.Add({{"controller", controller}, {"result", "requeue"}})),
          requeue_after_(total.Add({{"controller", controller}, {"result", "requeue_after"}})),
          errors_(errors.Add({{"controller", controller}})),
          terminal_(terminal.Add({{"controller", controller}})),
          panics_(panics.Add({{"controller", controller}})),
          time_family_(time),
          controller_(controller),
          max_concurrent_(max_concurrent.Add({{"controller", controller}})),
          active_(active.Add({{"controller", controller}})),
          noop_writes_(noop_writes),
          hot_loops_(hot_loops.Add({{"controller", controller}})) {}

    void reconcile_done(reconcile_outcome outcome, double seconds) override {
        switch (outcome) {
        case reconcile_outcome::success: success_.Increment(); break;
        case reconcile_outcome::error: error_.Increment(); break;
        case reconcile_outcome::requeue: requeue_.Increment(); break;
        case reconcile_outcome::requeue_after: requeue_after_.Increment(); break;
        }
        // The histogram's series appears with the first reconcile, as in
        // controller-runtime.
        if (!time_) time_ = &time_family_.Add({{"controller", controller_}}, buckets::reconcile_time());
        time_->Observe(seconds);
    }
    void reconcile_error() override { errors_.Increment(); }
    void terminal_error() override { terminal_.Increment(); }
    void panic() override { panics_.Increment(); }
    void set_active_workers(std::int64_t n) override { active_.Set(static_cast<double>(n)); }
    void set_max_concurrent_reconciles(std::int64_t n) override { max_concurrent_.Set(static_cast<double>(n)); }
    void noop_write(std::string_view resource) override {
        noop_writes_.Add({{"controller", controller_}, {"resource", std::string(resource)}}).Increment();
    }
    void hot_loop_detected() override { hot_loops_.Increment(); }

private:
    Counter& success_;
    Counter& error_;
    Counter& requeue_;
    Counter& requeue_after_;
    Counter& errors_;
    Counter& terminal_;
    Counter& panics_;
    Family<Histogram>& time_family_;
    std::string controller_;
    Histogram* time_ = nullptr;
    Gauge& max_concurrent_;
    Gauge& active_;
    Family<Counter>& noop_writes_;
    Counter& hot_loops_;
};

class workqueue_sink final : public workqueue_metrics {
public:
    workqueue_sink(Family<Gauge>& depth, Family<Counter>& adds,
                   Family<Histogram>& latency, Family<Histogram>& work, Family<Gauge>& unfinished,
                   Family<Gauge>& longest, Family<Counter>& retries, const std::string& name,
                   const std::string& controller)
        // controller-runtime >= 0.20 adds a `priority` label to the depth
        // gauge, empty for queues without priorities.
        : depth_(depth.Add({{"name", name}, {"controller", controller}, {"priority", ""}})),
          adds_(adds.Add({{"name", name}, {"controller", controller}})),
          latency_(latency.Add({{"name", name}, {"controller", controller}}, buckets::workqueue_duration())),
          work_(work.Add({{"name", name}, {"controller", controller}}, buckets::workqueue_duration())),
          unfinished_(unfinished.Add({{"name", name}, {"controller", controller}})),
          longest_(longest.Add({{"name", name}, {"controller", controller}})),
          retries_(retries.Add({{"name", name}, {"controller", controller}})) {}

    void add() override { adds_.Increment(); }
    void set_depth(std::int64_t d) override { depth_.Set(static_cast<double>(d)); }
    void queue_latency(double s) override { latency_.Observe(s); }
    void work_duration(double s) override { work_.Observe(s); }
    void set_unfinished_work(double s) override { unfinished_.Set(s); }
    void set_longest_running(double s) override { longest_.Set(s); }
    void retry() override { retries_.Increment(); }

private:
    Gauge& depth_;
    Counter& adds_;
    Histogram& latency_;
    Histogram& work_;
    Gauge& unfinished_;
    Gauge& longest_;
    Counter& retries_;
};

class informer_sink final : public informer_metrics {
public:
    informer_sink(metrics_registry& reg, std::string resource) : reg_(reg), resource_(std::move(resource)) {
        reg_.set_cache_objects(resource_, 0);
    }
    void set_cache_objects(std::int64_t n) override { reg_.set_cache_objects(resource_, n); }
    void watch_restarted(std::string_view reason) override { reg_.watch_restarted(resource_, reason); }
    void relisted(std::string_view reason) override { reg_.relisted(resource_, reason); }

private:
    metrics_registry& reg_;
    std::string resource_;
};

class shard_sink final : public shard_metrics {
public:
    shard_sink(Family<Gauge>& members, Family<Counter>& handovers, Family<Histogram>& duration,
               const std::string& ring)
        : members_(members.Add({{"ring", ring}})), handovers_(handovers.Add({{"ring", ring}})),
          // 0.25 s ... 128 s: a clean handover takes a few retry periods, a
          // kill at least the lease duration (docs/sharding.md's figures).
          duration_(duration.Add({{"ring", ring}}, buckets::exponential(0.25, 2, 10))) {}
    void set_members(std::int64_t n) override { members_.Set(static_cast<double>(n)); }
    void handover_done(double seconds) override {
        handovers_.Increment();
        duration_.Observe(seconds);
    }

private:
    Gauge& members_;
    Counter& handovers_;
    Histogram& duration_;
};

prometheus::MetricFamily process_family(const char* name, const char* help, prometheus::MetricType type,
                                        double value) {
    prometheus::MetricFamily f;
    f.name = name;
    f.help = help;
    f.type = type;
    prometheus::ClientMetric m;
    if (type == prometheus::MetricType::Counter)
        m.counter.value = value;
    else
        m.gauge.value = value;
    f.metric.push_back(std::move(m));
    return f;
}

} // namespace

metrics_registry::metrics_registry(bool process_metrics) : impl_(std::make_unique<impl>(process_metrics)) {}
metrics_registry::~metrics_registry() = default;

prometheus::Registry& metrics_registry::registry() noexcept { return impl_->reg; }

std::unique_ptr<controller_metrics> metrics_registry::make_controller_metrics(const std::string& controller) {
    auto& i = *impl_;
    auto sink = std::make_unique<controller_sink>(i.reconcile_total, i.reconcile_errors, i.terminal_errors,
                                                  i.reconcile_panics, i.reconcile_time, i.max_concurrent,
                                                  i.active_workers, i.noop_writes, i.hot_loops, controller);
    // Every counter and gauge starts at 0 (the sink's constructor adds them).
    return sink;
}

std::unique_ptr<workqueue_metrics> metrics_registry::make_workqueue_metrics(const std::string& name,
                                                                            const std::string& controller) {
    auto& i = *impl_;
    return std::make_unique<workqueue_sink>(i.wq_depth, i.wq_adds, i.wq_latency, i.wq_work,
                                            i.wq_unfinished, i.wq_longest, i.wq_retries, name, controller);
}

std::unique_ptr<informer_metrics> metrics_registry::make_informer_metrics(const std::string& resource) {
    return std::make_unique<informer_sink>(*this, resource);
}

std::unique_ptr<shard_metrics> metrics_registry::make_shard_metrics(const std::string& ring) {
    auto& i = *impl_;
    return std::make_unique<shard_sink>(i.shard_members, i.shard_handovers, i.shard_handover_duration, ring);
}

request_metrics& metrics_registry::requests() noexcept { return *impl_; }

void metrics_registry::set_leader(std::string_view lease_name, bool leading) {
    impl_->leader.Add({{"name", str(lease_name)}}).Set(leading ? 1.0 : 0.0);
}

void metrics_registry::shard_unowned_event(std::string_view controller) {
    impl_->shard_unowned.Add({{"controller", std::string(controller)}}).Increment();
}
void metrics_registry::set_shard_owned_keys(std::string_view controller, std::int64_t keys) {
    impl_->shard_owned_keys.Add({{"controller", std::string(controller)}}).Set(static_cast<double>(keys));
}
void metrics_registry::shard_controller_added(std::string_view controller) {
    impl_->shard_owned_keys.Add({{"controller", std::string(controller)}}).Set(0);
    impl_->shard_unowned.Add({{"controller", std::string(controller)}});
}
void metrics_registry::leader_write_refused() { impl_->leader_write_refused.Increment(); }

void metrics_registry::set_caches_synced(bool synced) {
    impl_->caches_synced.Add({}).Set(synced ? 1.0 : 0.0);
}

void metrics_registry::event_dropped(std::string_view reason) {
    impl_->events_dropped.Add({{"reason", str(reason)}}).Increment();
}

void metrics_registry::set_cache_objects(std::string_view resource, std::int64_t objects) {
    impl_->cache_objects.Add({{"resource", str(resource)}}).Set(static_cast<double>(objects));
}

void metrics_registry::watch_restarted(std::string_view resource, std::string_view reason) {
    impl_->watch_restarts.Add({{"resource", str(resource)}, {"reason", str(reason)}}).Increment();
}

void metrics_registry::relisted(std::string_view resource, std::string_view reason) {
    impl_->relists.Add({{"resource", str(resource)}, {"reason", str(reason)}}).Increment();
}

void metrics_registry::noop_write(std::string_view controller, std::string_view resource) {
    impl_->noop_writes.Add({{"controller", str(controller)}, {"resource", str(resource)}}).Increment();
}

std::string metrics_registry::serialize() const {
    auto families = impl_->reg.Collect();
    // Go's registry leaves out families without series; so do we.
    families.erase(std::remove_if(families.begin(), families.end(),
                                  [](const prometheus::MetricFamily& f) { return f.metric.empty(); }),
                   families.end());
    if (impl_->with_process) {
        if (auto p = read_process_sample()) {
            using prometheus::MetricType;
            families.push_back(process_family("process_cpu_seconds_total",
                                              "Total user and system CPU time spent in seconds.",
                                              MetricType::Counter, p->cpu_seconds_total));
            families.push_back(process_family("process_max_fds", "Maximum number of open file descriptors.",
                                              MetricType::Gauge, p->max_fds));
            families.push_back(process_family("process_open_fds", "Number of open file descriptors.",
                                              MetricType::Gauge, p->open_fds));
            families.push_back(process_family("process_resident_memory_bytes", "Resident memory size in bytes.",
                                              MetricType::Gauge, p->resident_memory_bytes));
            families.push_back(process_family("process_start_time_seconds",
                                              "Start time of the process since unix epoch in seconds.",
                                              MetricType::Gauge, p->start_time_seconds));
            families.push_back(process_family("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                                              MetricType::Gauge, p->virtual_memory_bytes));
        }
    }
    return prometheus::TextSerializer().Serialize(families);
}

} // namespace kcoro::server
