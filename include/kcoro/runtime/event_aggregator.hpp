// The event recorder's decisions, pure: which Event to create, which series
// to patch, which event to drop. Bodies are events.k8s.io/v1 Events, or
// core/v1 Events when the cluster lacks events.k8s.io (the fallback).
//
// Aggregation follows client-go's tools/events broadcaster:
//  - events with the same (type, action, reason, reportingController,
//    reportingInstance, regarding, related) are isomorphic;
//  - the first occurrence is created;
//  - the second turns it into a series: a patch {"series":{"count":2,
//    "lastObservedTime":...}} (and a create with the series if the patch
//    finds the Event gone);
//  - later ones only count in memory (count, lastObservedTime);
//  - an isomorphic event with another note starts a new Event (a create,
//    spending a token of the rate limit below), so the newest Event shows
//    the latest note: the API never lets an Event's note change
//    (ValidateEventUpdate), and client-go's series would keep the first
//    note, where a controller's "repaired drift of X: <what>" should read
//    as the latest. The old series' last count is written at the next tick.
//  - tick(): every 30 min every series is written again (refresh); a series
//    not observed for 6 min gets its final count written and is forgotten;
//    a single event older than 6 min is forgotten.
// Differences, on purpose: regarding.resourceVersion is not part of the key
// (a controller that updates the object on every pass would otherwise never
// aggregate), and the per-object rate limit below applies.
//
// Rate limit, as client-go's record spam filter: a token bucket per
// (reportingController, regarding object) with burst 25 refilled one token
// per 5 minutes (LRU of 4096 objects). Only writes spend tokens: repeats
// folded into a series in memory cost nothing. Every dropped event is
// reported through the drop hook (kcoro_events_dropped_total{reason}):
// "invalid", "rate_limited" here; the driver reports "rejected",
// "retries_exhausted" and "queue_full" through dropped().
//
// Thread safety: not thread-safe; one driver owns it.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/time.hpp>
#include <kcoro/core/token_bucket.hpp>

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kcoro::runtime {

enum class event_type { normal, warning };
enum class events_api { events_v1, core_v1 };

/// An ObjectReference to `obj` (apiVersion, kind, namespace, name, uid,
/// resourceVersion), as client-go's ref.GetReference builds it.
boost::json::object object_reference_of(const boost::json::object& obj);

/// What a controller records.
struct event_request {
    boost::json::object regarding;                // ObjectReference
    std::optional<boost::json::object> related;   // ObjectReference
    event_type type = event_type::normal;
    std::string reason;                           // UpperCamelCase, e.g. "Created"
    std::string action;                           // e.g. "Reconcile"
    std::string note;                             // human text, cut at 1024 bytes
};

/// One write the driver performs.
struct event_write {
    enum class kind { create, patch_series };
    kind op = kind::create;
    std::string ns;
    std::string name;
    /// create: the Event. patch_series: a strategic merge patch.
    boost::json::object body;
    /// patch_series: the Event to create instead when the patch answers 404.
    boost::json::object create_if_missing;
};

/// What to do after a write failed (client-go's recordEvent rules).
enum class write_verdict { retry, drop };
write_verdict classify_write_error(const error& e, bool series) noexcept;

struct event_aggregator_config {
    std::string reporting_controller;  // e.g. "gateway-operator"
    std::string reporting_instance;    // e.g. the leader identity
    events_api api = events_api::events_v1;
    int spam_burst = 25;
    std::chrono::nanoseconds spam_refill_every = std::chrono::minutes(5);
    std::size_t spam_cache_size = 4096;
    std::size_t max_cached_events = 4096;
    std::chrono::nanoseconds finish_time = std::chrono::minutes(6);
    std::chrono::nanoseconds refresh_time = std::chrono::minutes(30);
    /// client-go retries a failed write 12 times, 10 s apart (jittered by the driver).
    int max_tries_per_event = 12;
    std::chrono::nanoseconds retry_sleep = std::chrono::seconds(10);
};

class event_aggregator {
public:
    using drop_hook = std::function<void(std::string_view reason)>;

    explicit event_aggregator(event_aggregator_config cfg, drop_hook on_drop = {});

    /// Records one event observed at `now` (`wall` for the timestamps).
    /// Returns the write to make now, if any.
    std::optional<event_write> record(const event_request& req, steady_time now, wall_time wall);

    /// Periodic upkeep (call at least once a minute): series refresh and end.
    std::vector<event_write> tick(steady_time now, wall_time wall);

    /// Reports a drop decided by the driver (counted like the others).
    void dropped(std::string_view reason);

    std::size_t cached_events() const noexcept { return cache_.size(); }
    std::uint64_t dropped_total() const noexcept { return dropped_total_; }
    const event_aggregator_config& config() const noexcept { return cfg_; }

private:
    struct cached {
        boost::json::object event;  // the full body as created (events.k8s.io form)
        std::int64_t count = 1;     // 1: no series yet
        std::int64_t written = 1;   // the count last written
        steady_time first_seen{};
        steady_time last_seen{};
        wall_time last_seen_wall{};
    };
    struct spam_entry {
        token_bucket bucket;
        std::list<std::string>::iterator lru;
    };

    bool allow(const std::string& spam_key, steady_time now);
    event_write series_write(const cached& c) const;
    boost::json::object to_api(const boost::json::object& ev, std::int64_t count, wall_time last) const;

    event_aggregator_config cfg_;
    drop_hook on_drop_;
    std::map<std::string, cached> cache_;  // by isomorphic key
    std::vector<event_write> pending_;    // written at the next tick()
    std::unordered_map<std::string, spam_entry> spam_;
    std::list<std::string> spam_lru_;  // front = most recent
    std::optional<steady_time> last_refresh_;
    std::int64_t last_name_nanos_ = 0;
    std::uint64_t dropped_total_ = 0;
};

} // namespace kcoro::runtime
