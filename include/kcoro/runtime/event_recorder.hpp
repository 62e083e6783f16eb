// The event recorder: a runnable that writes Kubernetes Events decided by
// `event_aggregator` (aggregation into series, per-object rate limit; see
// event_aggregator.hpp) over the client.
//
//   auto& rec = mgr.events("gateway-operator");
//   rec.record(*obj, event_type::normal, "Created", "Reconcile", "created Deployment gw-1");
//
//  - record() never blocks and never suspends: it asks the aggregator what to
//    write and enqueues the write; one coroutine (run()) sends the queue in
//    order. A full queue drops the event ("queue_full").
//  - events.k8s.io/v1 first; when the server answers 404 for that API (the
//    group is not served, checked by GET /apis/events.k8s.io/v1), the
//    recorder switches to core/v1 Events for good.
//  - Failed writes are retried per classify_write_error, sleeping
//    aggregator.retry_sleep on the clock, up to `max_attempts`; then dropped
//    ("retries_exhausted"); a write the server rejects is dropped ("rejected").
//  - Every drop is counted through `on_drop(reason)` (the manager wires it to
//    metrics_registry::event_dropped, kcoro_events_dropped_total{reason})
//    and in dropped_total(); none is silent.
//  - stop(): no new events are accepted (counted as "shutdown" drops), the
//    queue is flushed, then run() returns. A cancelled run() returns at once.
//
// Lifetime: client and clock outlive it; run() returned before destruction.
// Thread safety: none (the io_context's thread).
#pragma once

#include <kcoro/core/log.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/event_aggregator.hpp>
#include <kcoro/runtime/runnable.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace kcoro::client {
class client;
}

namespace kcoro::runtime {

struct event_recorder_options {
    /// reporting_controller / reporting_instance; `api` is the starting API.
    event_aggregator_config aggregator;
    /// Writes waiting to be sent; beyond it record() drops ("queue_full").
    std::size_t queue_limit = 1000;
    /// Attempts per write (client-go's maxTriesPerEvent).
    int max_attempts = 12;
    /// How often the aggregator's tick() runs (series refresh and end).
    std::chrono::nanoseconds tick_interval = std::chrono::minutes(1);
    /// Every dropped event, with its reason.
    std::function<void(std::string_view reason)> on_drop;
    logger log;
};

class event_recorder final : public runnable {
public:
    event_recorder(client::client& c, io::clock& clk, event_recorder_options opts);
    ~event_recorder() override;

    /// Records an event about `object` (a full object: its reference is taken
    /// with object_reference_of). Non-blocking.
    void record(const boost::json::object& object, event_type type, std::string_view reason,
                std::string_view action, std::string_view note);
    /// The same with an optional related object.
    void record(const boost::json::object& object, const boost::json::object* related, event_type type,
                std::string_view reason, std::string_view action, std::string_view note);
    /// A prepared request (regarding/related are ObjectReferences).
    void record(event_request req);

    std::string_view name() const override { return "event-recorder"; }
    boost::asio::awaitable<void> run() override;
    void stop() override;
    bool needs_leader_election() const override { return false; }

    /// The API in use (core_v1 after the fallback).
    events_api api() const noexcept;
    std::size_t queued() const noexcept;
    std::uint64_t written() const noexcept;
    std::uint64_t dropped_total() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace kcoro::runtime
