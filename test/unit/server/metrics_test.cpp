#include <kcoro/server/metrics.hpp>

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using kcoro::server::metrics_registry;

namespace {

// A small parser of the text exposition format, enough to check families.
struct sample {
    std::string name;
    std::map<std::string, std::string> labels;
    std::string value;
};
struct exposition {
    std::map<std::string, std::string> type;
    std::map<std::string, std::string> help;
    std::vector<sample> samples;

    std::vector<sample> of(const std::string& name) const {
        std::vector<sample> out;
        for (auto& s : samples)
            if (s.name == name) out.push_back(s);
        return out;
    }
    std::set<std::string> label_names(const std::string& name) const {
        std::set<std::string> out;
        for (auto& s : of(name))
            for (auto& [k, v] : s.labels) out.insert(k);
        return out;
    }
    const sample* find(const std::string& name, const std::map<std::string, std::string>& labels) const {
        for (auto& s : samples)
            if (s.name == name && s.labels == labels) return &s;
        return nullptr;
    }
};

exposition parse(const std::string& text) {
    exposition e;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("# TYPE ", 0) == 0) {
            auto rest = line.substr(7);
            auto sp = rest.find(' ');
            e.type[rest.substr(0, sp)] = rest.substr(sp + 1);
        } else if (line.rfind("# HELP ", 0) == 0) {
            auto rest = line.substr(7);
            auto sp = rest.find(' ');
            e.help[rest.substr(0, sp)] = rest.substr(sp + 1);
        } else if (!line.empty() && line[0] != '#') {
            sample s;
            auto brace = line.find('{');
            auto sp = line.rfind(' ');
            if (brace != std::string::npos && brace < sp) {
                s.name = line.substr(0, brace);
                auto close = line.rfind('}');
                std::string lbl = line.substr(brace + 1, close - brace - 1);
                std::size_t i = 0;
                while (i < lbl.size()) {
                    auto eq = lbl.find('=', i);
                    std::string k = lbl.substr(i, eq - i);
                    std::string v;
                    std::size_t j = eq + 2;
                    while (j < lbl.size() && lbl[j] != '"') {
                        if (lbl[j] == '\\') ++j;
                        v += lbl[j++];
                    }
                    s.labels[k] = v;
                    i = j + 2;  // past '"' and ','
                }
            } else {
                s.name = line.substr(0, sp);
            }
            s.value = line.substr(sp + 1);
            e.samples.push_back(s);
        }
    }
    return e;
}

std::vector<std::string> le_values(const exposition& e, const std::string& bucket_name,
                                   const std::map<std::string, std::string>& labels) {
    std::vector<std::string> out;
    for (auto& s : e.of(bucket_name)) {
        auto l = s.labels;
        auto le = l["le"];
        l.erase("le");
        if (l == labels) out.push_back(le);
    }
    return out;
}

} // namespace

TEST_CASE("Go's ExponentialBuckets rounding is reproduced") {
    auto b = kcoro::server::buckets::workqueue_duration();
    REQUIRE(b.size() == 12);
    CHECK(b.front() == 1e-8);
    CHECK(b.back() == doctest::Approx(1e3));
    CHECK(kcoro::server::buckets::reconcile_time().size() == 40);
    CHECK(kcoro::server::buckets::rest_client_duration().size() == 12);
    CHECK(kcoro::server::buckets::exponential(1, 0.5, 3).empty());  // bad input: no buckets, no crash
}

TEST_CASE("controller metrics: names, types, labels, pre-set results") {
    metrics_registry reg(false);
    auto c = reg.make_controller_metrics("gateway");
    auto e = parse(reg.serialize());

    CHECK(e.type["controller_runtime_reconcile_total"] == "counter");
    CHECK(e.help["controller_runtime_reconcile_total"] == "Total number of reconciliations per controller");
    for (auto result : {"success", "error", "requeue", "requeue_after"}) {
        auto s = e.find("controller_runtime_reconcile_total", {{"controller", "gateway"}, {"result", result}});
        REQUIRE_MESSAGE(s, result);
        CHECK(s->value == "0");
    }
    for (auto name : {"controller_runtime_reconcile_errors_total", "controller_runtime_terminal_reconcile_errors_total",
                      "controller_runtime_reconcile_panics_total"}) {
        CHECK(e.type[name] == "counter");
        REQUIRE(e.find(name, {{"controller", "gateway"}}));
        CHECK(e.find(name, {{"controller", "gateway"}})->value == "0");
    }
    CHECK(e.type["controller_runtime_max_concurrent_reconciles"] == "gauge");
    CHECK(e.type["controller_runtime_active_workers"] == "gauge");
    CHECK(e.help["controller_runtime_active_workers"] == "Number of currently used workers per controller");
    // No reconcile yet: the histogram has no series (as in controller-runtime).
    CHECK(e.of("controller_runtime_reconcile_time_seconds_count").empty());

    c->reconcile_done(kcoro::reconcile_outcome::requeue_after, 0.3);
    c->reconcile_done(kcoro::reconcile_outcome::error, 2);
    c->reconcile_error();
    c->terminal_error();
    c->panic();
    c->set_max_concurrent_reconciles(4);
    c->set_active_workers(2);
    e = parse(reg.serialize());
    CHECK(e.type["controller_runtime_reconcile_time_seconds"] == "histogram");
    CHECK(e.find("controller_runtime_reconcile_total", {{"controller", "gateway"}, {"result", "requeue_after"}})->value == "1");
    CHECK(e.find("controller_runtime_reconcile_total", {{"controller", "gateway"}, {"result", "error"}})->value == "1");
    CHECK(e.find("controller_runtime_reconcile_total", {{"controller", "gateway"}, {"result", "success"}})->value == "0");
    CHECK(e.find("controller_runtime_reconcile_errors_total", {{"controller", "gateway"}})->value == "1");
    CHECK(e.find("controller_runtime_terminal_reconcile_errors_total", {{"controller", "gateway"}})->value == "1");
    CHECK(e.find("controller_runtime_reconcile_panics_total", {{"controller", "gateway"}})->value == "1");
    CHECK(e.find("controller_runtime_max_concurrent_reconciles", {{"controller", "gateway"}})->value == "4");
    CHECK(e.find("controller_runtime_active_workers", {{"controller", "gateway"}})->value == "2");
    CHECK(e.find("controller_runtime_reconcile_time_seconds_count", {{"controller", "gateway"}})->value == "2");
    CHECK(e.find("controller_runtime_reconcile_time_seconds_bucket", {{"controller", "gateway"}, {"le", "0.35"}})->value == "1");
    CHECK(le_values(e, "controller_runtime_reconcile_time_seconds_bucket", {{"controller", "gateway"}}) ==
          std::vector<std::string>{"0.005", "0.01", "0.025", "0.05", "0.1", "0.15", "0.2", "0.25", "0.3",
                                   "0.35",  "0.4",  "0.45",  "0.5",  "0.6", "0.7",  "0.8", "0.9",  "1",
                                   "1.25",  "1.5",  "1.75",  "2",    "2.5", "3",    "3.5", "4",    "4.5",
                                   "5",     "6",    "7",     "8",    "9",   "10",   "15",  "20",   "25",
                                   "30",    "40",   "50",    "60",   "+Inf"});
}

TEST_CASE("workqueue metrics: names, types, {name,controller} labels and buckets") {
    metrics_registry reg(false);
    auto q = reg.make_workqueue_metrics("gateway", "gateway");
    q->add();
    q->add();
    q->set_depth(3);
    q->queue_latency(0.002);
    q->work_duration(0.5);
    q->set_unfinished_work(1.5);
    q->set_longest_running(0.75);
    q->retry();
    auto e = parse(reg.serialize());

    const std::map<std::string, std::string> nc{{"name", "gateway"}, {"controller", "gateway"}};
    CHECK(e.type["workqueue_depth"] == "gauge");
    CHECK(e.label_names("workqueue_depth") == std::set<std::string>{"name", "controller", "priority"});
    CHECK(e.find("workqueue_depth", {{"name", "gateway"}, {"controller", "gateway"}, {"priority", ""}})->value == "3");
    CHECK(e.type["workqueue_adds_total"] == "counter");
    CHECK(e.find("workqueue_adds_total", nc)->value == "2");
    CHECK(e.type["workqueue_retries_total"] == "counter");
    CHECK(e.find("workqueue_retries_total", nc)->value == "1");
    CHECK(e.type["workqueue_unfinished_work_seconds"] == "gauge");
    CHECK(e.find("workqueue_unfinished_work_seconds", nc)->value == "1.5");
    CHECK(e.type["workqueue_longest_running_processor_seconds"] == "gauge");
    CHECK(e.find("workqueue_longest_running_processor_seconds", nc)->value == "0.75");
    const std::vector<std::string> expected_le{"1e-08", "1e-07", "1e-06", "9.999999999999999e-06",
                                               "9.999999999999999e-05", "0.001", "0.01", "0.1", "1", "10",
                                               "100", "1000", "+Inf"};
    for (auto h : {"workqueue_queue_duration_seconds", "workqueue_work_duration_seconds"}) {
        CHECK(e.type[h] == "histogram");
        CHECK(le_values(e, std::string(h) + "_bucket", nc) == expected_le);
    }
    CHECK(e.find("workqueue_queue_duration_seconds_bucket",
                 {{"name", "gateway"}, {"controller", "gateway"}, {"le", "0.01"}})->value == "1");
    CHECK(e.help["workqueue_work_duration_seconds"] == "How long in seconds processing an item from workqueue takes.");
}

TEST_CASE("client, leader election and kcoro metrics") {
    metrics_registry reg(false);
    reg.requests().observe("GET", "GET", "10.0.0.1:6443", "200", 0.03);
    reg.requests().observe("GET", "GET", "10.0.0.1:6443", "200", 0.2);
    reg.requests().observe("PATCH", "PATCH", "10.0.0.1:6443", "<error>", 1.0);
    reg.set_leader("gateway-operator-lock", true);
    reg.event_dropped("rate_limited");
    reg.set_cache_objects("gateways.example.com", 12);
    reg.watch_restarted("configmaps", "stream_end");
    reg.relisted("configmaps", "gone");
    reg.noop_write("gateway", "deployments.apps");
    auto e = parse(reg.serialize());

    CHECK(e.type["rest_client_requests_total"] == "counter");
    CHECK(e.find("rest_client_requests_total", {{"code", "200"}, {"method", "GET"}, {"host", "10.0.0.1:6443"}})->value == "2");
    CHECK(e.find("rest_client_requests_total", {{"code", "<error>"}, {"method", "PATCH"}, {"host", "10.0.0.1:6443"}}));
    CHECK(e.type["rest_client_request_duration_seconds"] == "histogram");
    CHECK(e.label_names("rest_client_request_duration_seconds_count") == std::set<std::string>{"verb", "host"});
    CHECK(le_values(e, "rest_client_request_duration_seconds_bucket", {{"verb", "GET"}, {"host", "10.0.0.1:6443"}}) ==
          std::vector<std::string>{"0.005", "0.025", "0.1", "0.25", "0.5", "1", "2", "4", "8", "15", "30", "60", "+Inf"});
    CHECK(e.find("rest_client_request_duration_seconds_bucket",
                 {{"verb", "GET"}, {"host", "10.0.0.1:6443"}, {"le", "0.1"}})->value == "1");

    CHECK(e.type["leader_election_master_status"] == "gauge");
    CHECK(e.find("leader_election_master_status", {{"name", "gateway-operator-lock"}})->value == "1");
    reg.set_leader("gateway-operator-lock", false);
    CHECK(parse(reg.serialize()).find("leader_election_master_status", {{"name", "gateway-operator-lock"}})->value == "0");

    CHECK(e.type["kcoro_events_dropped_total"] == "counter");
    CHECK(e.find("kcoro_events_dropped_total", {{"reason", "rate_limited"}})->value == "1");
    CHECK(e.type["kcoro_informer_cache_objects"] == "gauge");
    CHECK(e.find("kcoro_informer_cache_objects", {{"resource", "gateways.example.com"}})->value == "12");
    CHECK(e.find("kcoro_watch_restarts_total", {{"resource", "configmaps"}, {"reason", "stream_end"}})->value == "1");
    CHECK(e.find("kcoro_relists_total", {{"resource", "configmaps"}, {"reason", "gone"}})->value == "1");
    CHECK(e.find("kcoro_noop_writes_total", {{"controller", "gateway"}, {"resource", "deployments.apps"}})->value == "1");
}

TEST_CASE("kcoro_caches_synced: absent until set, then 0 or 1") {
    metrics_registry reg(false);
    CHECK(reg.serialize().find("kcoro_caches_synced") == std::string::npos);
    reg.set_caches_synced(false);
    auto e = parse(reg.serialize());
    CHECK(e.type["kcoro_caches_synced"] == "gauge");
    REQUIRE(e.find("kcoro_caches_synced", {}));
    CHECK(e.find("kcoro_caches_synced", {})->value == "0");
    reg.set_caches_synced(true);
    CHECK(parse(reg.serialize()).find("kcoro_caches_synced", {})->value == "1");
}

TEST_CASE("informer metrics bind the resource label") {
    metrics_registry reg(false);
    auto inf = reg.make_informer_metrics("configmaps");
    auto e = parse(reg.serialize());
    CHECK(e.find("kcoro_informer_cache_objects", {{"resource", "configmaps"}})->value == "0");
    inf->set_cache_objects(7);
    inf->watch_restarted("stream_end");
    inf->watch_restarted("stream_end");
    inf->relisted("gone");
    e = parse(reg.serialize());
    CHECK(e.find("kcoro_informer_cache_objects", {{"resource", "configmaps"}})->value == "7");
    CHECK(e.type["kcoro_watch_restarts_total"] == "counter");
    CHECK(e.find("kcoro_watch_restarts_total", {{"resource", "configmaps"}, {"reason", "stream_end"}})->value == "2");
    CHECK(e.type["kcoro_relists_total"] == "counter");
    CHECK(e.find("kcoro_relists_total", {{"resource", "configmaps"}, {"reason", "gone"}})->value == "1");
}

TEST_CASE("families without series are left out, label values are escaped") {
    metrics_registry reg(false);
    auto text = reg.serialize();
    CHECK(text.find("workqueue_depth") == std::string::npos);
    reg.set_cache_objects("we\"ird\\name", 1);
    auto e = parse(reg.serialize());
    CHECK(e.find("kcoro_informer_cache_objects", {{"resource", "we\"ird\\name"}}));
}

TEST_CASE("process metrics are read at scrape time") {
    metrics_registry reg(true);
    auto e = parse(reg.serialize());
    for (auto name : {"process_resident_memory_bytes", "process_virtual_memory_bytes", "process_open_fds",
                      "process_max_fds", "process_start_time_seconds"})
        CHECK_MESSAGE(e.type[name] == "gauge", name);
    CHECK(e.type["process_cpu_seconds_total"] == "counter");
    REQUIRE(e.of("process_open_fds").size() == 1);
    CHECK(std::stod(e.of("process_open_fds")[0].value) >= 3);  // stdin, stdout, stderr at least
    CHECK(std::stod(e.of("process_resident_memory_bytes")[0].value) > 0);
    CHECK(std::stod(e.of("process_start_time_seconds")[0].value) > 1.6e9);
}

TEST_CASE("shard metrics bind the ring label") {
    metrics_registry reg(false);
    auto sh = reg.make_shard_metrics("mirror");
    auto e = parse(reg.serialize());
    CHECK(e.type["kcoro_shard_members"] == "gauge");
    CHECK(e.find("kcoro_shard_members", {{"ring", "mirror"}})->value == "0");
    CHECK(e.type["kcoro_shard_handovers_total"] == "counter");
    CHECK(e.find("kcoro_shard_handovers_total", {{"ring", "mirror"}})->value == "0");
    sh->set_members(3);
    sh->handover_done(3.2);
    sh->handover_done(17.0);
    e = parse(reg.serialize());
    CHECK(e.find("kcoro_shard_members", {{"ring", "mirror"}})->value == "3");
    CHECK(e.find("kcoro_shard_handovers_total", {{"ring", "mirror"}})->value == "2");
    CHECK(e.type["kcoro_shard_handover_duration_seconds"] == "histogram");
    CHECK(le_values(e, "kcoro_shard_handover_duration_seconds_bucket", {{"ring", "mirror"}}) ==
          std::vector<std::string>{"0.25", "0.5", "1", "2", "4", "8", "16", "32", "64", "128", "+Inf"});
    CHECK(e.find("kcoro_shard_handover_duration_seconds_bucket", {{"ring", "mirror"}, {"le", "4"}})->value == "1");
    CHECK(e.find("kcoro_shard_handover_duration_seconds_bucket", {{"ring", "mirror"}, {"le", "32"}})->value == "2");
    CHECK(e.find("kcoro_shard_handover_duration_seconds_count", {{"ring", "mirror"}})->value == "2");
}

TEST_CASE("a sharded controller's owned keys and unowned events, exported at 0 from the start") {
    metrics_registry reg(false);
    auto e = parse(reg.serialize());
    CHECK_FALSE(e.find("kcoro_shard_owned_keys", {{"controller", "mirror"}}));
    reg.shard_controller_added("mirror");
    e = parse(reg.serialize());
    CHECK(e.type["kcoro_shard_owned_keys"] == "gauge");
    CHECK(e.find("kcoro_shard_owned_keys", {{"controller", "mirror"}})->value == "0");
    CHECK(e.type["kcoro_shard_unowned_events_total"] == "counter");
    CHECK(e.find("kcoro_shard_unowned_events_total", {{"controller", "mirror"}})->value == "0");
    reg.set_shard_owned_keys("mirror", 41);
    reg.shard_unowned_event("mirror");
    reg.shard_unowned_event("mirror");
    e = parse(reg.serialize());
    CHECK(e.find("kcoro_shard_owned_keys", {{"controller", "mirror"}})->value == "41");
    CHECK(e.find("kcoro_shard_unowned_events_total", {{"controller", "mirror"}})->value == "2");
}
