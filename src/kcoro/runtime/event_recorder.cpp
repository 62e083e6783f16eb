// The driver of event_aggregator: a queue filled by record() (never blocks)
// and one coroutine that sends it in order, with retries, the core/v1
// fallback, and a count for every event that is not written.
#include <kcoro/runtime/event_recorder.hpp>

#include <kcoro/client/client.hpp>
#include <kcoro/core/api_request.hpp>
#include <kcoro/core/resource.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>

#include <deque>

namespace kcoro::runtime {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;

namespace {
struct queued_write {
    event_write write;
    std::optional<event_request> request;  // what produced it (re-recorded after the API fallback)
    int attempts = 0;
};
} // namespace

struct event_recorder::impl {
    client::client& c;
    io::clock& clk;
    event_recorder_options opts;
    std::unique_ptr<event_aggregator> agg;
    std::deque<queued_write> queue;
    std::optional<asio::steady_timer> wake;
    bool stopping = false;
    bool probed = false;  // the events.k8s.io probe ran
    std::uint64_t written = 0;
    std::uint64_t dropped = 0;

    impl(client::client& cl, io::clock& k, event_recorder_options o) : c(cl), clk(k), opts(std::move(o)) {
        make_aggregator(opts.aggregator.api);
    }

    void make_aggregator(events_api api) {
        auto cfg = opts.aggregator;
        cfg.api = api;
        agg = std::make_unique<event_aggregator>(cfg, [this](std::string_view reason) {
            ++dropped;
            opts.log.debug("event dropped", {{"reason", reason}});
            if (opts.on_drop) opts.on_drop(reason);
        });
    }

    void notify() {
        if (wake) wake->cancel();
    }

    void enqueue(event_write w, std::optional<event_request> req) {
        if (queue.size() >= opts.queue_limit) {
            agg->dropped("queue_full");
            return;
        }
        queue.push_back(queued_write{std::move(w), std::move(req), 0});
        notify();
    }

    void record(event_request req) {
        if (stopping) {
            agg->dropped("shutdown");
            return;
        }
        auto w = agg->record(req, clk.now(), clk.wall_now());
        if (w) enqueue(std::move(*w), std::move(req));
    }

    group_version_resource gvr() const {
        return agg->config().api == events_api::events_v1 ? resources::events_v1() : resources::events();
    }

    asio::awaitable<result<object_ptr>> send(const event_write& w) {
        const auto target = gvr();
        if (w.op == event_write::kind::create) {
            const create_options o;
            co_return co_await c.create(target, w.ns, w.body, o);
        }
        patch_options o;
        o.type = patch_type::strategic_merge;
        const object_key key{w.ns, w.name};
        std::string patch = boost::json::serialize(w.body);
        auto r = co_await c.patch(target, key, std::move(patch), o);
        if (!r && is_not_found(r.error()) && !w.create_if_missing.empty()) {
            const create_options co;
            co_return co_await c.create(target, w.ns, w.create_if_missing, co);
        }
        co_return r;
    }

    // True when the server does not serve events.k8s.io/v1 (a 404 for the group).
    asio::awaitable<bool> events_v1_missing() {
        api_request req;
        req.method = http_method::get;
        req.target = "/apis/events.k8s.io/v1";
        req.verb = "GET";
        auto r = co_await c.send(req);
        co_return !r && is_not_found(r.error());
    }

    // Switches to core/v1 Events: a new aggregator, and the queued events recorded again.
    void fall_back() {
        opts.log.info("events.k8s.io/v1 is not served: recording core/v1 Events");
        auto old = std::move(queue);
        queue.clear();
        make_aggregator(events_api::core_v1);
        for (auto& q : old) {
            if (q.request) {
                auto w = agg->record(*q.request, clk.now(), clk.wall_now());
                if (w) enqueue(std::move(*w), std::move(q.request));
            }
            // a refresh of a series (no request) is written again by the new aggregator's tick
        }
    }

    asio::awaitable<void> wait(steady_time deadline) {
        auto s = clk.sleep_until(deadline);
        auto w = wake->async_wait(asio::as_tuple(asio::use_awaitable));
        auto race = std::move(s) || std::move(w);
        co_await std::move(race);
    }
};

event_recorder::event_recorder(client::client& c, io::clock& clk, event_recorder_options opts)
    : impl_(std::make_unique<impl>(c, clk, std::move(opts))) {}

event_recorder::~event_recorder() = default;

void event_recorder::record(const boost::json::object& object, event_type type, std::string_view reason,
                            std::string_view action, std::string_view note) {
    record(object, nullptr, type, reason, action, note);
}

void event_recorder::record(const boost::json::object& object, const boost::json::object* related, event_type type,
                            std::string_view reason, std::string_view action, std::string_view note) {
    event_request req;
    req.regarding = object_reference_of(object);
    if (related) req.related = object_reference_of(*related);
    req.type = type;
    req.reason = std::string(reason);
    req.action = std::string(action);
    req.note = std::string(note);
    impl_->record(std::move(req));
}

void event_recorder::record(event_request req) { impl_->record(std::move(req)); }

void event_recorder::stop() {
    impl_->stopping = true;
    impl_->notify();
}

events_api event_recorder::api() const noexcept { return impl_->agg->config().api; }
std::size_t event_recorder::queued() const noexcept { return impl_->queue.size(); }
std::uint64_t event_recorder::written() const noexcept { return impl_->written; }
std::uint64_t event_recorder::dropped_total() const noexcept { return impl_->dropped; }

asio::awaitable<void> event_recorder::run() {
    auto& s = *impl_;
    s.wake.emplace(co_await asio::this_coro::executor, asio::steady_timer::time_point::max());
    auto next_tick = s.clk.now() + s.opts.tick_interval;
    for (;;) {
        auto cs = co_await asio::this_coro::cancellation_state;
        if (cs.cancelled() != asio::cancellation_type::none) co_return;

        if (s.clk.now() >= next_tick) {
            next_tick = s.clk.now() + s.opts.tick_interval;
            for (auto& w : s.agg->tick(s.clk.now(), s.clk.wall_now())) s.enqueue(std::move(w), std::nullopt);
        }
        if (s.queue.empty()) {
            if (s.stopping) co_return;  // flushed
            co_await s.wait(next_tick);
            continue;
        }

        auto& front = s.queue.front();
        ++front.attempts;
        auto r = co_await s.send(front.write);
        if (r) {
            ++s.written;
            s.queue.pop_front();
            continue;
        }
        const auto err = r.error();
        auto cs2 = co_await asio::this_coro::cancellation_state;
        if (cs2.cancelled() != asio::cancellation_type::none) co_return;
        if (s.agg->config().api == events_api::events_v1 && is_not_found(err) && !s.probed) {
            s.probed = true;
            if (co_await s.events_v1_missing()) {
                s.fall_back();
                continue;
            }
        }
        const bool series = front.write.op == event_write::kind::patch_series;
        if (classify_write_error(err, series) == write_verdict::drop) {
            s.opts.log.debug("event rejected", {{"error", err.message()}});
            s.queue.pop_front();
            s.agg->dropped("rejected");
        } else if (front.attempts >= s.opts.max_attempts || s.stopping) {
            s.opts.log.debug("event not written", {{"error", err.message()}});
            s.queue.pop_front();
            s.agg->dropped(s.stopping ? "shutdown" : "retries_exhausted");
        } else {
            co_await s.wait(s.clk.now() + s.opts.aggregator.retry_sleep);
        }
    }
}

} // namespace kcoro::runtime
