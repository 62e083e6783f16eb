// The watcher driver: the thin coroutine that runs a `watcher_fsm` (the pure
// reflector state machine) against the API client. It performs what the fsm
// asks (list pages, watch requests, sleeps on the clock), feeds back what
// happened as the fsm's next input, and hands the fsm's events to a sink.
//
//   runtime::watcher w(client, clock, {.gvr = resources::configmaps()},
//                      {.on_event = [&](const watcher_event& e) { cache.handle(e); }});
//   co_spawn(ex, w.run(), detached);
//   ...
//   w.stop();   // run() returns once the request in flight was abandoned
//
// The mapping of fsm actions and inputs:
//   list_request  -> client.list_each(gvr, ns, {resourceVersion, continue,
//                    limit, selectors}) -> list_item_received for each item
//                    as it is decoded (stepped at once, its events handed to
//                    the sink), then list_page_received | list_failed
//   watch_request -> client.watch(gvr, ns, {resourceVersion, timeoutSeconds,
//                    allowWatchBookmarks, sendInitialEvents, selectors})
//                    -> watch_started | watch_failed
//   await_input   -> stream.next() -> watch_event_received, watch_stream_ended
//                    (clean end), watch_failed (garbage, reset; an ERROR event
//                    as watch_failed{event.to_error()})
//   sleep_until   -> clock.sleep_until(deadline) -> timer_fired
//   watcher_done  -> close the stream, return
// Any action other than await_input closes the open stream first.
//
// Restarts are counted on the informer_metrics hook: a watch request that
// follows a watch is a watch restart, a list after the first is a relist, each
// with the reason of the failure that caused it ("gone", "too_many_requests",
// "transport", "short_watch", "stream_end", "forbidden", "error", ...).
//
// Lifetime: the client, the clock and the metrics hook must outlive run();
// run() must have returned before the watcher is destroyed. Thread safety:
// none; everything on the io_context thread that runs run().
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/metrics_hooks.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/watcher_fsm.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace kcoro::client {
class client;
class watch_stream;
}

namespace kcoro::runtime {

/// What one watcher lists and watches.
struct watcher_target {
    group_version_resource gvr;
    std::string namespace_;  // empty: all namespaces (or a cluster-scoped resource)
    std::string label_selector;
    std::string field_selector;
    /// List and watch PartialObjectMetadata: the server sends metadata only.
    bool metadata_only = false;
    /// KEP-5866 shardSelector sent with every list and watch (empty: none).
    std::string shard_selector;
};

/// Which request an outcome belongs to.
enum class watcher_phase {
    list,          // one list page
    watch_open,    // the watch request (until its header)
    watch_stream,  // the open stream (ERROR events, garbage, reset)
};

std::string_view to_string(watcher_phase p) noexcept;

struct watcher_hooks {
    /// Every event of the fsm, in order. Required.
    std::function<void(const watcher_event&)> on_event;
    /// The outcome of each list page and watch request (an empty error:
    /// success), and each failure of an open stream; called before the
    /// events that outcome causes. May be empty.
    std::function<void(watcher_phase, const error&)> on_outcome;
};

/// The reason label of a restart caused by `e` ("gone", "too_many_requests", ...).
std::string restart_reason(const error& e);

/// A real random source of [0, 1), seeded from std::random_device: the
/// default of `watcher_options::random` when none is injected.
std::function<double()> uniform_random_source();

class watcher {
public:
    /// `opts.random` empty: a real random source (seeded from std::random_device).
    watcher(client::client& c, io::clock& clk, boost::asio::any_io_executor ex, watcher_target target,
            watcher_hooks hooks, watcher_options opts = {}, informer_metrics* metrics = nullptr);
    ~watcher();
    watcher(const watcher&) = delete;
    watcher& operator=(const watcher&) = delete;

    /// Runs until stop() or cancellation of the awaiting coroutine; returns
    /// at once when stop() was called before.
    boost::asio::awaitable<void> run();
    /// Idempotent; the request, stream read or sleep in flight is abandoned.
    void stop();
    /// Abandons the request, stream read or sleep in flight and relists now
    /// (watcher_fsm's relist_requested). Before run() or once stopped, nothing.
    void relist();
    /// The shardSelector of the next list and watch requests (empty: none);
    /// the request in flight keeps the one it was sent with.
    void set_shard_selector(std::string selector) { target_.shard_selector = std::move(selector); }
    /// The label selector of the next list and watch (a sharded informer's
    /// owner buckets; as with the shardSelector, a wider one needs a relist).
    void set_label_selector(std::string selector) { target_.label_selector = std::move(selector); }
    /// metadata.shardInfo.selector of the last list page answered: the
    /// selector the server applied; nullopt when it applied none.
    const std::optional<std::string>& last_list_shard_selector() const noexcept { return last_list_shard_; }

    const watcher_fsm& fsm() const noexcept { return fsm_; }
    const watcher_target& target() const noexcept { return target_; }
    bool stopped() const noexcept { return stopped_; }
    /// Requests sent so far (for tests and logs).
    std::uint64_t lists() const noexcept { return lists_; }
    std::uint64_t watches() const noexcept { return watches_; }

private:
    boost::asio::awaitable<void> loop(watcher_input first);
    boost::asio::awaitable<void> wait_signal();
    boost::asio::awaitable<watcher_input> perform_list(const list_request& r);
    boost::asio::awaitable<watcher_input> perform_watch(const watch_request& r);
    boost::asio::awaitable<watcher_input> read_stream();
    void deliver(const watcher_action& a);
    void outcome(watcher_phase p, const error& e);
    void count_restart(const watcher_next& next);
    void close_stream() noexcept;

    client::client& client_;
    io::clock& clk_;
    watcher_target target_;
    watcher_hooks hooks_;
    informer_metrics* metrics_;
    watcher_fsm fsm_;
    boost::asio::steady_timer signal_;  // cancelled by stop() and relist()
    std::unique_ptr<client::watch_stream> stream_;
    bool stopped_ = false;
    bool relist_pending_ = false;
    std::optional<std::string> last_list_shard_;
    bool running_ = false;
    std::uint64_t lists_ = 0;
    std::uint64_t watches_ = 0;

    // restart accounting
    enum class last_op { none, list, watch };
    last_op last_op_ = last_op::none;
    std::string reason_;    // why the current list/watch attempt ended
};

} // namespace kcoro::runtime
