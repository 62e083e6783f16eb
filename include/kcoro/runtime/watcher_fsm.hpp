// The reflector/watcher as a pure state machine: `step(input, now) -> action`.
// A thin driver performs the action (send the list or watch request, sleep,
// read the stream), feeds back what happened as the next input, and hands
// the action's events to the store. No I/O, no clock, no hidden randomness
// (the random source for jitter and watch timeouts is injected).
//
// The rules are client-go's reflector (tools/cache/reflector.go, cited at
// each decision in watcher_fsm.cpp) and pager (tools/pager/pager.go):
//  - The first list is at resourceVersion "0" with limit 500 (a watch cache
//    ignores the limit and answers whole; a server without one pages, and then
//    every later list pages too). Later lists are at the last revision seen,
//    unpaged (so the watch cache can serve them), or at "" paged at 500 after
//    the revision was found unavailable.
//  - A list failing with 410 Expired/Gone or "too large resource version"
//    is retried at once at "" (the revision is marked unavailable). A
//    continuation page failing with Expired falls back to one full list at
//    the first page's revision (limit 0). Other list failures back off, then
//    relist; 404 first delivers an empty list so waiters for sync unblock.
//  - After a list, watch from its revision with allowWatchBookmarks=true and
//    timeoutSeconds drawn from [300, 600). Events and bookmarks advance the
//    last revision; a stream that ends re-watches from it at once, except a
//    "very short watch" (< 1 s, no events), which backs off and relists.
//  - A watch request refused (connection refused) or answered 429 backs off
//    and re-watches from the same revision; any other watch request failure
//    backs off and relists. In the stream: ERROR 410 backs off and relists
//    at the last revision (not at "": client-go keeps the revision, since a
//    list at RV=x returns data at least that fresh); 429 backs off and
//    re-watches; anything else backs off and relists. Transport EOF/reset in
//    the stream is a normal end (client-go's StreamWatcher treats it so).
//  - Backoff: 800 ms doubling to 30 s, each step jittered to [d, 2d), reset
//    when 2 minutes passed since the last backoff began
//    (NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0)); a Retry-After
//    from the server is a lower bound on the sleep.
//  - Streaming list (optional): a watch with sendInitialEvents=true,
//    resourceVersionMatch=NotOlderThan; ADDED events until the BOOKMARK
//    annotated k8s.io/initial-events-end, then the same stream goes on as the
//    watch. If it fails before that bookmark, fall back to a paged list for
//    this round (client-go: "making progress is better than deadlocking");
//    a non-retryable API rejection (400/403/422...) turns streaming off for good.
//
// Events for the store: init_start, init_apply (per object), init_done, then
// apply and deleted, so a store can build a new snapshot and swap at init_done.
//
// Lifetime: a value. Thread safety: none; one driver steps it.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/time.hpp>
#include <kcoro/core/watch_event.hpp>

#include <chrono>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace kcoro::runtime {

// --- events for the store ---------------------------------------------------
enum class watcher_event_type { init_start, init_apply, init_done, apply, deleted };

struct watcher_event {
    watcher_event_type type = watcher_event_type::apply;
    object_ptr object;  // null for init_start / init_done
    friend bool operator==(const watcher_event& a, const watcher_event& b) noexcept;
};

// --- what the driver must do next -----------------------------------------
struct list_request {
    std::string resource_version;
    std::string continue_token;
    int limit = 0;  // 0: unpaged
    friend bool operator==(const list_request&, const list_request&) = default;
};

struct watch_request {
    std::string resource_version;
    int timeout_seconds = 0;
    bool allow_watch_bookmarks = true;
    bool send_initial_events = false;
    std::string resource_version_match;  // "NotOlderThan" with send_initial_events
    friend bool operator==(const watch_request&, const watch_request&) = default;
};

/// Sleep until `deadline`, then step `timer_fired`.
struct sleep_until {
    steady_time deadline;
    friend bool operator==(const sleep_until&, const sleep_until&) = default;
};

/// Nothing to start: deliver the next input of the operation in flight
/// (the next watch event, the list answer...).
struct await_input {
    friend bool operator==(const await_input&, const await_input&) = default;
};

/// Stopped: close any stream and return.
struct watcher_done {
    friend bool operator==(const watcher_done&, const watcher_done&) = default;
};

using watcher_next = std::variant<list_request, watch_request, sleep_until, await_input, watcher_done>;

struct watcher_action {
    std::vector<watcher_event> events;
    watcher_next next;
    friend bool operator==(const watcher_action&, const watcher_action&) = default;
};

// --- what happened ---------------------------------------------------------
struct start {};
struct stop {};
/// One page of a list answer (ListMeta.resourceVersion and .continue).
struct list_page_received {
    std::string resource_version;
    std::string continue_token;
    std::vector<object_ptr> items;
};
/// One item of the list answer in flight, decoded while its body still
/// streams in (client::list_each): it goes to the store at once, so a list
/// never holds a page of trees. The page's list_page_received follows with
/// the rest (or none) of its items.
struct list_item_received {
    object_ptr item;
};
struct list_failed {
    error err;
};
/// The watch request was answered 200; the stream is open.
struct watch_started {};
/// A decoded event (ERROR events are handled as failures of the stream).
struct watch_event_received {
    watch_event event;
};
/// The stream ended cleanly (server timeout, EOF).
struct watch_stream_ended {};
/// The watch request failed, or the open stream failed (undecodable, reset).
struct watch_failed {
    error err;
};
struct timer_fired {};
/// The store's view changed (a sharded informer's share grew, or its
/// shardSelector did): abandon what is in flight and relist now, at the last
/// revision seen. The list's snapshot replaces the store's at init_done, so
/// objects that left the view come out as tombstone deletes. Ignored before
/// start and once stopped.
struct relist_requested {};

using watcher_input = std::variant<start, stop, list_page_received, list_item_received, list_failed, watch_started,
                                   watch_event_received, watch_stream_ended, watch_failed, timer_fired,
                                   relist_requested>;

enum class watcher_state {
    idle,
    listing,               // list requests in flight
    watch_pending,         // watch requested, not answered yet
    watching,              // stream open
    streaming_pending,     // sendInitialEvents watch requested
    streaming,             // receiving initial events
    backing_off,
    stopped,
};

struct watcher_options {
    int page_size = 500;
    /// Use a streaming list (sendInitialEvents) instead of list + watch.
    bool streaming_list = false;
    std::chrono::nanoseconds backoff_initial = std::chrono::milliseconds(800);
    std::chrono::nanoseconds backoff_max = std::chrono::seconds(30);
    std::chrono::nanoseconds backoff_reset = std::chrono::minutes(2);
    /// Uniform in [0, 1): watch timeouts and backoff jitter. Default: a fixed
    /// deterministic sequence (seeded xorshift); drivers inject a real one.
    std::function<double()> random;
};

class watcher_fsm {
public:
    explicit watcher_fsm(watcher_options opts = {});

    watcher_action step(const watcher_input& in, steady_time now);

    watcher_state state() const noexcept { return state_; }
    /// The last revision seen (list, event or bookmark).
    const std::string& last_sync_resource_version() const noexcept { return last_rv_; }
    bool resource_version_unavailable() const noexcept { return rv_unavailable_; }
    /// True once an init_done has been emitted.
    bool has_synced() const noexcept { return synced_; }
    bool streaming_enabled() const noexcept { return streaming_; }
    /// The error that caused the current backoff, if any.
    const error& last_error() const noexcept { return last_error_; }

private:
    enum class after_backoff { relist, rewatch, restream };

    watcher_action begin_sync(steady_time now);
    watcher_action begin_list(steady_time now);
    watcher_action begin_watch(steady_time now);
    watcher_action begin_stream(steady_time now);
    watcher_action back_off(after_backoff then, const error& err, steady_time now,
                            std::vector<watcher_event> events = {});
    watcher_action on_page(const list_page_received& p, steady_time now);
    watcher_action on_item(const list_item_received& i);
    watcher_action on_list_failed(const error& err, steady_time now);
    watcher_action on_event(const watch_event& e, steady_time now);
    watcher_action on_stream_event(const watch_event& e, steady_time now);
    watcher_action on_watch_failed(const error& err, steady_time now);
    watcher_action on_stream_failed(const error& err, steady_time now);
    watcher_action on_stream_ended(steady_time now);
    int watch_timeout_seconds();
    double random();
    std::string relist_resource_version() const;

    watcher_options opts_;
    watcher_state state_ = watcher_state::idle;
    std::string last_rv_;
    bool rv_unavailable_ = false;
    bool paginated_result_ = false;
    bool synced_ = false;
    bool streaming_ = false;
    error last_error_;

    // current list attempt
    std::string list_rv_;          // revision the attempt asked for
    int list_limit_ = 0;
    bool list_continuing_ = false; // a continuation page is in flight
    bool list_full_fallback_ = false;
    bool list_retried_at_empty_rv_ = false;
    bool init_started_ = false;

    // current watch
    steady_time watch_start_{};
    std::size_t watch_events_ = 0;

    // backoff
    after_backoff after_ = after_backoff::relist;
    std::chrono::nanoseconds backoff_next_{};
    std::optional<steady_time> last_backoff_start_;
    std::uint64_t rng_state_ = 0x9e3779b97f4a7c15ULL;
};

std::ostream& operator<<(std::ostream& os, watcher_event_type t);
std::ostream& operator<<(std::ostream& os, const watcher_event& e);
std::ostream& operator<<(std::ostream& os, const watcher_next& n);
std::ostream& operator<<(std::ostream& os, const watcher_action& a);
std::ostream& operator<<(std::ostream& os, watcher_state s);

} // namespace kcoro::runtime
