#include <kcoro/runtime/watcher_fsm.hpp>

#include <boost/system/errc.hpp>

#include <algorithm>
#include <ostream>

namespace kcoro::runtime {

namespace {

constexpr const char* not_older_than = "NotOlderThan";

bool is_connection_refused(const error& e) noexcept {
    return e.code() == boost::system::errc::connection_refused;
}

// reflector.go isWatchErrorRetriable: utilnet.IsConnectionRefused(err) ||
// apierrors.IsTooManyRequests(err).
bool is_watch_error_retriable(const error& e) noexcept {
    return is_connection_refused(e) || is_too_many_requests(e);
}

std::chrono::nanoseconds retry_after_of(const error& e) noexcept {
    const status* s = e.api_status();
    if (s && s->details && s->details->retry_after_seconds > 0) {
        return std::chrono::seconds(s->details->retry_after_seconds);
    }
    return std::chrono::nanoseconds::zero();
}

} // namespace

bool operator==(const watcher_event& a, const watcher_event& b) noexcept {
    if (a.type != b.type) {
        return false;
    }
    if (a.object == b.object) {
        return true;
    }
    return a.object && b.object && *a.object == *b.object;
}

watcher_fsm::watcher_fsm(watcher_options opts) : opts_(std::move(opts)), streaming_(opts_.streaming_list) {
    if (opts_.page_size < 0) {
        opts_.page_size = 0;
    }
}

double watcher_fsm::random() {
    if (opts_.random) {
        double r = opts_.random();
        // A bad source must not produce negative or huge sleeps.
        return (r >= 0.0 && r < 1.0) ? r : 0.0;
    }
    // xorshift64*: deterministic when nothing is injected.
    rng_state_ ^= rng_state_ >> 12;
    rng_state_ ^= rng_state_ << 25;
    rng_state_ ^= rng_state_ >> 27;
    return static_cast<double>((rng_state_ * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

// reflector.go: timeoutSeconds := int64(minWatchTimeout.Seconds() * (rand.Float64() + 1.0)),
// minWatchTimeout = 5 min.
int watcher_fsm::watch_timeout_seconds() {
    return static_cast<int>(300.0 * (random() + 1.0));
}

// reflector.go relistResourceVersion: "" once the last revision proved
// unavailable, "0" (any, from the watch cache) before the first sync,
// else the last revision seen.
std::string watcher_fsm::relist_resource_version() const {
    if (rv_unavailable_) {
        return "";
    }
    if (last_rv_.empty()) {
        return "0";
    }
    return last_rv_;
}

watcher_action watcher_fsm::begin_sync(steady_time now) {
    return streaming_ ? begin_stream(now) : begin_list(now);
}

watcher_action watcher_fsm::begin_list(steady_time) {
    state_ = watcher_state::listing;
    list_rv_ = relist_resource_version();
    // reflector.go list(): keep the pager's 500 for "0" (the watch cache
    // ignores it) and for "" (etcd); for an exact revision page only if the
    // server paged the RV="0" list (no watch cache), else list unpaged so the
    // watch cache can answer.
    list_limit_ = opts_.page_size;
    if (!list_rv_.empty() && list_rv_ != "0" && !paginated_result_) {
        list_limit_ = 0;
    }
    list_continuing_ = false;
    list_full_fallback_ = false;
    list_retried_at_empty_rv_ = false;
    init_started_ = false;
    return {{}, list_request{list_rv_, "", list_limit_}};
}

watcher_action watcher_fsm::begin_watch(steady_time now) {
    state_ = watcher_state::watch_pending;
    watch_start_ = now;
    watch_events_ = 0;
    return {{}, watch_request{last_rv_, watch_timeout_seconds(), true, false, ""}};
}

// reflector.go watchList: RV = rewatchResourceVersion() ("" when unavailable,
// else the last revision, "" before the first sync), NotOlderThan.
watcher_action watcher_fsm::begin_stream(steady_time now) {
    state_ = watcher_state::streaming_pending;
    watch_start_ = now;
    watch_events_ = 0;
    init_started_ = false;
    std::string rv = rv_unavailable_ ? std::string() : last_rv_;
    return {{}, watch_request{rv, watch_timeout_seconds(), true, true, not_older_than}};
}

watcher_action watcher_fsm::back_off(after_backoff then, const error& err, steady_time now,
                                     std::vector<watcher_event> events) {
    // wait.exponentialBackoffManager: reset when resetDuration passed since the
    // last backoff began; each step is jittered to [d, 2d) (jitter 1.0).
    if (!last_backoff_start_ || now - *last_backoff_start_ > opts_.backoff_reset) {
        backoff_next_ = opts_.backoff_initial;
    }
    last_backoff_start_ = now;
    auto d = backoff_next_;
    backoff_next_ = std::min(opts_.backoff_max, backoff_next_ * 2);
    auto sleep = d + std::chrono::duration_cast<std::chrono::nanoseconds>(d * random());
    sleep = std::max(sleep, retry_after_of(err));  // honour Retry-After
    after_ = then;
    last_error_ = err;
    state_ = watcher_state::backing_off;
    return {std::move(events), sleep_until{now + sleep}};
}

watcher_action watcher_fsm::on_page(const list_page_received& p, steady_time now) {
    std::vector<watcher_event> events;
    events.reserve(p.items.size() + 2);
    if (!init_started_) {
        init_started_ = true;
        events.push_back({watcher_event_type::init_start, nullptr});
    }
    for (const auto& item : p.items) {
        if (item) {
            events.push_back({watcher_event_type::init_apply, item});
        }
    }
    if (!p.continue_token.empty() && !list_full_fallback_) {
        // reflector.go: a paged answer to RV="0" means no watch cache; keep
        // paging later lists.
        if (list_rv_ == "0") {
            paginated_result_ = true;
        }
        // pager.go: continuation pages carry no resourceVersion.
        list_continuing_ = true;
        return {std::move(events), list_request{"", p.continue_token, list_limit_}};
    }
    // The list is complete: the store swaps, the watch starts from its revision.
    rv_unavailable_ = false;
    last_rv_ = p.resource_version;
    synced_ = true;
    events.push_back({watcher_event_type::init_done, nullptr});
    auto next = begin_watch(now);
    next.events = std::move(events);
    return next;
}

watcher_action watcher_fsm::on_item(const list_item_received& i) {
    // The list stays in flight; a failure later in its body relists, and
    // that list's init_start drops what this one applied.
    std::vector<watcher_event> events;
    if (!init_started_) {
        init_started_ = true;
        events.push_back({watcher_event_type::init_start, nullptr});
    }
    if (i.item) {
        events.push_back({watcher_event_type::init_apply, i.item});
    }
    return {std::move(events), await_input{}};
}

watcher_action watcher_fsm::on_list_failed(const error& err, steady_time now) {
    // pager.go: an Expired continuation falls back to one full list at the
    // requested revision.
    if (list_continuing_ && !list_full_fallback_ && is_gone_or_expired(err)) {
        list_full_fallback_ = true;
        list_continuing_ = false;
        init_started_ = false;  // the full answer replaces the pages so far
        return {{}, list_request{list_rv_, "", 0}};
    }
    // reflector.go list(): Expired or too-large revision: mark it unavailable
    // and retry at once at "".
    if (!list_retried_at_empty_rv_ && (is_gone_or_expired(err) || is_resource_version_too_large(err))) {
        rv_unavailable_ = true;
        bool retried = true;
        auto next = begin_list(now);
        list_retried_at_empty_rv_ = retried;
        return next;
    }
    std::vector<watcher_event> events;
    if (is_not_found(err)) {
        // reflector.go: "call sync with an empty list" so sync waiters unblock.
        events.push_back({watcher_event_type::init_start, nullptr});
        events.push_back({watcher_event_type::init_done, nullptr});
        synced_ = true;
    }
    return back_off(after_backoff::relist, err, now, std::move(events));
}

watcher_action watcher_fsm::on_event(const watch_event& e, steady_time now) {
    if (e.type == watch_event_type::error) {
        return on_watch_failed(e.to_error(), now);
    }
    state_ = watcher_state::watching;
    ++watch_events_;
    if (!e.resource_version.empty()) {
        last_rv_ = e.resource_version;
    }
    watcher_action a{{}, await_input{}};
    if (!e.object) {
        return a;
    }
    switch (e.type) {
    case watch_event_type::added:
    case watch_event_type::modified:
        a.events.push_back({watcher_event_type::apply, e.object});
        break;
    case watch_event_type::deleted:
        a.events.push_back({watcher_event_type::deleted, e.object});
        break;
    default:
        break;  // bookmark: only the revision moves
    }
    return a;
}

watcher_action watcher_fsm::on_stream_event(const watch_event& e, steady_time now) {
    if (e.type == watch_event_type::error) {
        return on_stream_failed(e.to_error(), now);
    }
    state_ = watcher_state::streaming;
    ++watch_events_;
    watcher_action a{{}, await_input{}};
    if (!init_started_) {
        init_started_ = true;
        a.events.push_back({watcher_event_type::init_start, nullptr});
    }
    switch (e.type) {
    case watch_event_type::added:
    case watch_event_type::modified:
        if (e.object) {
            a.events.push_back({watcher_event_type::init_apply, e.object});
        }
        break;
    case watch_event_type::deleted:
        // The initial events are ADDED only; anything else is not the protocol
        // we asked for: fall back to a list.
        return on_stream_failed(error(kcoro_errc::decode_error, "DELETED among initial events"), now);
    case watch_event_type::bookmark:
        if (e.initial_events_end) {
            // reflector.go watchList: the snapshot is complete; the same stream
            // goes on as the watch.
            last_rv_ = e.resource_version;
            rv_unavailable_ = false;
            synced_ = true;
            state_ = watcher_state::watching;
            a.events.push_back({watcher_event_type::init_done, nullptr});
        }
        break;
    default:
        break;
    }
    return a;
}

watcher_action watcher_fsm::on_stream_failed(const error& err, steady_time now) {
    last_error_ = err;
    // reflector.go watchList isErrorRetriableWithSideEffectsFn.
    if (is_watch_error_retriable(err)) {
        return back_off(after_backoff::restream, err, now);
    }
    if (is_gone_or_expired(err) || is_resource_version_too_large(err)) {
        rv_unavailable_ = true;
        return begin_stream(now);
    }
    // A server that rejects the parameters will keep rejecting them.
    if (is_api_error(err) && !is_retryable(err)) {
        streaming_ = false;
    }
    // reflector.go ListAndWatch: fall back to list now rather than deadlock.
    return begin_list(now);
}

watcher_action watcher_fsm::on_watch_failed(const error& err, steady_time now) {
    if (state_ == watcher_state::watch_pending) {
        // reflector.go watch(): the request failed.
        if (is_watch_error_retriable(err)) {
            return back_off(after_backoff::rewatch, err, now);
        }
        return back_off(after_backoff::relist, err, now);
    }
    // The open stream failed (watchHandler returned err).
    if (is_too_many_requests(err)) {
        return back_off(after_backoff::rewatch, err, now);
    }
    if (is_transport_error(err) && !is_cancelled(err)) {
        // streamwatcher.go: EOF, reset and timeouts end the stream normally.
        return on_stream_ended(now);
    }
    // Expired: relist at the last revision (rv_unavailable_ untouched, as
    // reflector.go's "Don't set LastSyncResourceVersionUnavailable").
    return back_off(after_backoff::relist, err, now);
}

watcher_action watcher_fsm::on_stream_ended(steady_time now) {
    // reflector.go watchHandler: "very short watch" is an error, and
    // ListAndWatch returning means backoff then relist.
    if (watch_events_ == 0 && now - watch_start_ < std::chrono::seconds(1)) {
        return back_off(after_backoff::relist, error(kcoro_errc::stream_truncated, "very short watch"), now);
    }
    return begin_watch(now);
}

watcher_action watcher_fsm::step(const watcher_input& in, steady_time now) {
    if (state_ == watcher_state::stopped) {
        return {{}, watcher_done{}};
    }
    if (std::holds_alternative<stop>(in)) {
        state_ = watcher_state::stopped;
        return {{}, watcher_done{}};
    }
    const watcher_action ignore{{}, await_input{}};
    if (std::holds_alternative<relist_requested>(in)) {
        // Not client-go (a reflector's selectors never change): a sharded
        // informer's share is its selector. A list in flight is restarted
        // (its items so far were chosen by the old view; the next page
        // starts a new snapshot with init_start); a backoff is cut short.
        if (state_ == watcher_state::idle) {
            return ignore;
        }
        return begin_sync(now);
    }
    switch (state_) {
    case watcher_state::idle:
        if (std::holds_alternative<start>(in)) {
            return begin_sync(now);
        }
        return ignore;
    case watcher_state::listing:
        if (auto* p = std::get_if<list_page_received>(&in)) {
            return on_page(*p, now);
        }
        if (auto* i = std::get_if<list_item_received>(&in)) {
            return on_item(*i);
        }
        if (auto* f = std::get_if<list_failed>(&in)) {
            return on_list_failed(f->err, now);
        }
        return ignore;
    case watcher_state::watch_pending:
    case watcher_state::watching:
        if (std::holds_alternative<watch_started>(in)) {
            state_ = watcher_state::watching;
            return ignore;
        }
        if (auto* e = std::get_if<watch_event_received>(&in)) {
            return on_event(e->event, now);
        }
        if (std::holds_alternative<watch_stream_ended>(in)) {
            if (state_ == watcher_state::watch_pending) {
                state_ = watcher_state::watching;
            }
            return on_stream_ended(now);
        }
        if (auto* f = std::get_if<watch_failed>(&in)) {
            return on_watch_failed(f->err, now);
        }
        return ignore;
    case watcher_state::streaming_pending:
    case watcher_state::streaming:
        if (std::holds_alternative<watch_started>(in)) {
            state_ = watcher_state::streaming;
            return ignore;
        }
        if (auto* e = std::get_if<watch_event_received>(&in)) {
            return on_stream_event(e->event, now);
        }
        if (std::holds_alternative<watch_stream_ended>(in)) {
            return on_stream_failed(error(kcoro_errc::stream_truncated, "stream ended before initial-events-end"), now);
        }
        if (auto* f = std::get_if<watch_failed>(&in)) {
            return on_stream_failed(f->err, now);
        }
        return ignore;
    case watcher_state::backing_off:
        if (std::holds_alternative<timer_fired>(in)) {
            switch (after_) {
            case after_backoff::relist: return begin_sync(now);
            case after_backoff::rewatch: return begin_watch(now);
            case after_backoff::restream: return begin_stream(now);
            }
        }
        return ignore;
    case watcher_state::stopped:
        break;
    }
    return {{}, watcher_done{}};
}

// --- printing -----------------------------------------------------------------
std::ostream& operator<<(std::ostream& os, watcher_event_type t) {
    switch (t) {
    case watcher_event_type::init_start: return os << "init_start";
    case watcher_event_type::init_apply: return os << "init_apply";
    case watcher_event_type::init_done: return os << "init_done";
    case watcher_event_type::apply: return os << "apply";
    case watcher_event_type::deleted: return os << "deleted";
    }
    return os << "?";
}

std::ostream& operator<<(std::ostream& os, const watcher_event& e) {
    os << e.type;
    if (e.object) {
        os << "(" << key_of(*e.object) << "@" << resource_version_of(*e.object) << ")";
    }
    return os;
}

std::ostream& operator<<(std::ostream& os, const watcher_next& n) {
    struct visitor {
        std::ostream& os;
        void operator()(const list_request& r) {
            os << "list{rv=\"" << r.resource_version << "\" continue=\"" << r.continue_token
               << "\" limit=" << r.limit << "}";
        }
        void operator()(const watch_request& r) {
            os << "watch{rv=\"" << r.resource_version << "\" timeout=" << r.timeout_seconds
               << (r.allow_watch_bookmarks ? " bookmarks" : "")
               << (r.send_initial_events ? " sendInitialEvents" : "");
            if (!r.resource_version_match.empty()) {
                os << " match=" << r.resource_version_match;
            }
            os << "}";
        }
        void operator()(const sleep_until& s) {
            os << "sleep_until{" << std::chrono::duration<double>(s.deadline.time_since_epoch()).count() << "s}";
        }
        void operator()(const await_input&) { os << "await_input"; }
        void operator()(const watcher_done&) { os << "done"; }
    };
    std::visit(visitor{os}, n);
    return os;
}

std::ostream& operator<<(std::ostream& os, const watcher_action& a) {
    os << "{events=[";
    for (std::size_t i = 0; i < a.events.size(); ++i) {
        os << (i ? " " : "") << a.events[i];
    }
    return os << "] next=" << a.next << "}";
}

std::ostream& operator<<(std::ostream& os, watcher_state s) {
    switch (s) {
    case watcher_state::idle: return os << "idle";
    case watcher_state::listing: return os << "listing";
    case watcher_state::watch_pending: return os << "watch_pending";
    case watcher_state::watching: return os << "watching";
    case watcher_state::streaming_pending: return os << "streaming_pending";
    case watcher_state::streaming: return os << "streaming";
    case watcher_state::backing_off: return os << "backing_off";
    case watcher_state::stopped: return os << "stopped";
    }
    return os << "?";
}

} // namespace kcoro::runtime
