#include <kcoro/runtime/controller.hpp>
#include <kcoro/runtime/shard_ring.hpp>

#include <kcoro/runtime/event_recorder.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/errc.hpp>
#include <boost/system/system_error.hpp>

#include <algorithm>
#include <deque>
#include <cstdio>
#include <exception>
#include <random>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kcoro::runtime {

namespace asio = boost::asio;

std::string make_reconcile_id(std::uint64_t hi, std::uint64_t lo) {
    // RFC 4122 version 4 layout: xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx.
    hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
    lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                  static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                  static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xffffffffffffULL));
    return buf;
}

namespace {

work_queue_options queue_options(const controller_options& o) {
    work_queue_options q;
    q.limiter = o.rate_limiter;
    q.metrics = o.queue_metrics.get();
    return q;
}

double seconds_between(steady_time a, steady_time b) {
    return std::chrono::duration<double>(b - a).count();
}

} // namespace

struct controller::impl {
    impl(asio::any_io_executor e, io::clock& c, controller_options o, reconcile_context_func r)
        : ex(e), clk(c), opts(std::move(o)), rec(std::move(r)),
          queue(e, c, queue_options(opts), std::max<std::size_t>(1, opts.max_concurrent_reconciles)),
          log(opts.log.with_name("controller").with_values({{"controller", opts.name}})),
          done_signal(e, asio::steady_timer::time_point::max()), alive(std::make_shared<char>(0)) {
        if (!opts.random) {
            auto rng = std::make_shared<std::mt19937_64>(std::random_device{}());
            opts.random = [rng] { return (*rng)(); };
        }
    }

    asio::awaitable<void> worker();
    asio::awaitable<void> process(object_key key);
    void report_hot_loop(const reconcile_context& ctx, const hot_loop_alarm& alarm);
    std::size_t acquire_tally();
    void count_write(std::size_t slot, std::uint64_t serial, const write_record& w);
    void task_finished(bool is_worker);

    asio::any_io_executor ex;
    io::clock& clk;
    controller_options opts;
    reconcile_context_func rec;
    async_work_queue queue;
    kcoro::logger log;

    controller_stats stats;
    hot_loop_tracker hot_loops{opts.hot_loop};
    // The writes each reconcile in flight reported (one slot per reconcile
    // in flight, reused).
    struct write_tally {
        std::uint64_t serial = 0;
        std::size_t writes = 0;
        std::size_t noop_writes = 0;
        std::vector<std::string> what;  // descriptions, each once, at most a few
    };
    std::deque<write_tally> tallies;  // stable references
    std::vector<std::size_t> free_tallies;
    std::uint64_t tally_serial = 0;
    error last_error;
    std::size_t active = 0;
    bool started = false;
    bool stopping = false;
    bool cancelled = false;  // run() was cancelled: in-flight reconciles were cancelled

    std::size_t workers_running = 0;
    std::size_t tasks_running = 0;
    asio::steady_timer done_signal;  // cancelled when the last task finished
    std::vector<std::unique_ptr<asio::cancellation_signal>> cancels;
    asio::cancellation_signal metrics_cancel;
    // Sharding: hashes told by events (for keys no longer cached, e.g. a
    // delete), the hash of each key in flight, and the drops waiting for them.
    std::unordered_map<object_key, std::uint64_t, object_key_hash> hints;
    std::unordered_map<object_key, std::uint64_t, object_key_hash> running_hashes;
    struct pending_drop {
        hash_ranges ranges;
        std::function<void()> drained;
    };
    std::vector<pending_drop> drops;

    bool sharded() const noexcept { return static_cast<bool>(opts.sharding.owns); }
    // The cache's (the object as it is now) first, else what an event told.
    std::optional<std::uint64_t> hash_of(const object_key& k) const {
        if (opts.sharding.key_hash) return opts.sharding.key_hash(k);
        if (opts.sharding.hash_of) {
            if (auto h = opts.sharding.hash_of(k)) return h;
        }
        if (auto it = hints.find(k); it != hints.end()) return it->second;
        return std::nullopt;
    }
    // Sharded intake: false when the key is not to be queued.
    bool admit(const object_key& k, std::optional<std::uint64_t> h) {
        if (!h) return false;  // not cached, no event told it: nothing of ours to reconcile
        if (!opts.sharding.owns(*h)) {
            ++stats.unowned;
            if (opts.sharding.on_unowned) opts.sharding.on_unowned();
            return false;
        }
        (void)k;
        return true;
    }
    void check_drops() {
        std::vector<std::function<void()>> ready;
        for (auto it = drops.begin(); it != drops.end();) {
            const bool busy = std::any_of(running_hashes.begin(), running_hashes.end(),
                                          [&](const auto& kv) { return contains(it->ranges, kv.second); });
            if (busy) {
                ++it;
            } else {
                ready.push_back(std::move(it->drained));
                it = drops.erase(it);
            }
        }
        for (auto& f : ready) {
            if (f) f();  // may call drop_ranges again (through the ring): `drops` is consistent
        }
    }

    // Handlers registered through watch() hold a weak reference: they do
    // nothing once the controller is gone, whatever the destruction order.
    std::shared_ptr<char> alive;
};

controller::controller(asio::any_io_executor ex, io::clock& clk, controller_options opts, reconcile_func r) {
    auto f = std::make_shared<reconcile_func>(std::move(r));
    reconcile_context_func wrapped = [f](const reconcile_context& ctx) { return (*f)(ctx.key); };
    impl_ = std::make_unique<impl>(ex, clk, std::move(opts), std::move(wrapped));
}

controller::controller(asio::any_io_executor ex, io::clock& clk, controller_options opts,
                       reconcile_context_func r)
    : impl_(std::make_unique<impl>(ex, clk, std::move(opts), std::move(r))) {}

controller::~controller() = default;

void controller::enqueue(const object_key& key) {
    auto& s = *impl_;
    if (s.sharded() && !s.admit(key, s.hash_of(key))) return;
    s.queue.add(key);
}

void controller::enqueue_hashed(const object_key& key, std::uint64_t hash) {
    auto& s = *impl_;
    if (s.sharded() && s.opts.sharding.key_hash) {
        enqueue(key);  // the key decides, not the event
        return;
    }
    if (s.sharded()) {
        if (s.stopping || !s.admit(key, hash)) return;
        s.hints[key] = hash;
    }
    s.queue.add(key);
}

void controller::enqueue_after(const object_key& key, std::chrono::nanoseconds delay) {
    auto& s = *impl_;
    if (s.sharded() && !s.admit(key, s.hash_of(key))) return;
    s.queue.add_after(key, delay);
}

bool controller::sharded() const noexcept { return impl_->sharded(); }

void controller::drop_ranges(const hash_ranges& ranges, std::function<void()> drained) {
    auto& s = *impl_;
    s.queue.remove_if([&](const object_key& k) {
        auto h = s.hash_of(k);
        if (!h || !contains(ranges, *h)) return false;
        s.hints.erase(k);
        return true;
    });
    s.drops.push_back({ranges, std::move(drained)});
    s.check_drops();
}

std::size_t controller::in_flight_in(const hash_ranges& ranges) const {
    const auto& rh = impl_->running_hashes;
    return static_cast<std::size_t>(
        std::count_if(rh.begin(), rh.end(), [&](const auto& kv) { return contains(ranges, kv.second); }));
}

event_handlers controller::guard(event_handlers h) const {
    std::weak_ptr<char> alive = impl_->alive;
    event_handlers guarded;
    guarded.reads_old_object = h.reads_old_object;
    if (h.on_add) {
        guarded.on_add = [alive, f = std::move(h.on_add)](const object_ptr& o) {
            if (!alive.expired()) f(o);
        };
    }
    if (h.on_update) {
        guarded.on_update = [alive, f = std::move(h.on_update)](const object_ptr& a, const object_ptr& b) {
            if (!alive.expired()) f(a, b);
        };
    }
    if (h.on_delete) {
        guarded.on_delete = [alive, f = std::move(h.on_delete)](const object_ptr& o, bool tombstone) {
            if (!alive.expired()) f(o, tombstone);
        };
    }
    return guarded;
}

std::string_view controller::name() const { return impl_->opts.name; }
bool controller::needs_leader_election() const { return impl_->opts.needs_leader_election; }
std::size_t controller::active_workers() const noexcept { return impl_->active; }
bool controller::idle() const noexcept {
    const auto& q = impl_->queue.queue();
    return q.len() == 0 && q.num_processing() == 0 && impl_->queue.in_flight() == 0 && impl_->active == 0;
}
const controller_stats& controller::stats() const noexcept { return impl_->stats; }
const error& controller::last_error() const noexcept { return impl_->last_error; }
const async_work_queue& controller::queue() const noexcept { return impl_->queue; }
const controller_options& controller::options() const noexcept { return impl_->opts; }

void controller::stop() {
    auto& s = *impl_;
    if (s.stopping) {
        return;
    }
    s.stopping = true;
    s.queue.shut_down();  // wakes every worker waiting in get()
}

asio::awaitable<void> controller::impl::worker() {
    for (;;) {
        if (stopping || cancelled) {
            co_return;
        }
        auto next = co_await queue.get();
        if (!next) {
            co_return;
        }
        if (stopping || cancelled) {
            queue.done(*next);  // intake stopped: do not start it
            co_return;
        }
        if (!sharded()) {
            co_await process(std::move(*next));
            continue;
        }
        // THE gate (docs/sharding.md): a reconcile starts only while this
        // replica may reconcile the key's hash, checked at this moment.
        const auto h = hash_of(*next);
        if (!h || !opts.sharding.owns(*h)) {
            ++stats.unowned;
            hints.erase(*next);
            queue.forget(*next);
            queue.done(*next);
            continue;
        }
        const object_key key = *next;
        running_hashes[key] = *h;
        co_await process(std::move(*next));
        running_hashes.erase(key);
        if (!queue.queue().is_dirty(key) && !queue.queue().is_waiting(key)) hints.erase(key);
        if (!drops.empty()) check_drops();
    }
}

namespace {

std::string resource_label(const group_version_resource& gvr) {
    return gvr.group.empty() ? gvr.resource : gvr.resource + "." + gvr.group;
}

} // namespace

std::size_t controller::impl::acquire_tally() {
    if (free_tallies.empty()) {
        tallies.emplace_back();
        return tallies.size() - 1;
    }
    const auto slot = free_tallies.back();
    free_tallies.pop_back();
    return slot;
}

void controller::impl::count_write(std::size_t slot, std::uint64_t serial, const write_record& w) {
    if (w.noop && opts.metrics) {
        opts.metrics->noop_write(resource_label(w.gvr));
    }
    auto& t = tallies[slot];
    if (t.serial != serial) {
        return;  // a hook kept past its reconcile: counted in the metrics only
    }
    ++t.writes;
    t.noop_writes += w.noop;
    constexpr std::size_t max_descriptions = 8;
    auto text = describe(w);
    if (t.what.size() < max_descriptions && std::find(t.what.begin(), t.what.end(), text) == t.what.end()) {
        t.what.push_back(std::move(text));
    }
}

asio::awaitable<void> controller::impl::process(object_key key) {
    reconcile_context ctx;
    ctx.key = key;
    const auto hi = opts.random();
    ctx.reconcile_id = make_reconcile_id(hi, opts.random());
    ctx.log = log.for_reconcile(opts.name, opts.group, opts.kind, key.ns, key.name, ctx.reconcile_id);
    ctx.events = opts.events;
    ctx.field_manager = opts.field_manager.empty() ? opts.name : opts.field_manager;
    ctx.read_owned = opts.read_owned;
    if (opts.read_primary) {
        // One pointer captured: the copy allocates nothing.
        ctx.read_primary = [f = &opts.read_primary](const object_key& k) { return (*f)(k); };
    }
    if (sharded() && !opts.sharding.key_hash) {
        // By uid: a key may hold an object of another share; children need
        // their owner's bucket. By namespace the key decides both.
        ctx.owns_uid = [owns = &opts.sharding.owns](std::string_view uid) { return (*owns)(fnv1a64(uid)); };
        ctx.helpers.stamp_shard_bucket = true;
    }
    // This reconcile's write counts live in a slot of the controller; the
    // hook names the slot and the reconcile's serial (small and trivially
    // copyable, so std::function stores it without allocating).
    const std::size_t slot = acquire_tally();
    const std::uint64_t serial = ++tally_serial;
    tallies[slot].serial = serial;
    ctx.helpers.on_write = [self = this, slot, serial](const write_record& w) { self->count_write(slot, serial, w); };
    ++active;
    stats.max_in_flight = std::max(stats.max_in_flight, active);
    if (opts.metrics) {
        opts.metrics->set_active_workers(static_cast<std::int64_t>(active));
    }
    const auto start = clk.now();

    result<reconcile_result> out = reconcile_result{};
    bool panicked = false;
    std::string what;
    try {
        auto aw = rec(ctx);
        out = co_await std::move(aw);
    } catch (const std::exception& e) {
        panicked = true;
        what = e.what();
    } catch (...) {
        panicked = true;
        what = "unknown exception";
    }

    --active;
    if (opts.metrics) {
        opts.metrics->set_active_workers(static_cast<std::int64_t>(active));
    }
    const double secs = seconds_between(start, clk.now());

    if (cancelled) {
        // run() was cancelled: whatever ended the reconcile (operation_aborted
        // thrown or returned) is the cancellation, not a failure.
        ctx.log.debug("Reconcile cancelled");
        tallies[slot] = write_tally{};
        free_tallies.push_back(slot);
        queue.done(key);
        co_return;
    }

    error err;
    reconcile_result res;
    if (panicked) {
        ++stats.panics;
        if (opts.metrics) {
            opts.metrics->panic();
        }
        err = error(boost::system::errc::make_error_code(boost::system::errc::state_not_recoverable),
                    "panic: " + what + " [recovered]");
        ctx.log.error(err, "Observed a panic in reconciler");
    } else if (!out) {
        err = out.error();
    } else {
        res = *out;
    }

    const auto d = decide(res, err);
    ++stats.reconciles;
    if (opts.metrics) {
        opts.metrics->reconcile_done(d.outcome, secs);
    }
    if (d.error) {
        ++stats.errors;
        if (opts.metrics) {
            opts.metrics->reconcile_error();
        }
        if (d.terminal) {
            ++stats.terminal;
            if (opts.metrics) {
                opts.metrics->terminal_error();
            }
        }
        if (d.result_ignored) {
            ctx.log.info("Warning: Reconciler returned both a non-zero result and a non-nil error. "
                         "The result will always be ignored if the error is non-nil and the non-nil "
                         "error causes requeuing with exponential backoff.");
        }
        if (!panicked) {
            ctx.log.error(err, "Reconciler error", {{"terminal", d.terminal}});
        }
    } else if (ctx.log.enabled(log_level::debug)) {
        ctx.log.debug("Reconcile done", {{"result", d.op == queue_op::forget ? "success" : "requeue"}});
    }

    {
        auto& t = tallies[slot];
        stats.writes += t.writes;
        stats.noop_writes += t.noop_writes;
        if (auto alarm = hot_loops.record(key, clk.now(), t.writes, t.noop_writes, t.what)) {
            report_hot_loop(ctx, *alarm);
        }
        t = write_tally{};  // the slot's serial moves on: late hooks count nowhere
        free_tallies.push_back(slot);
    }

    queue.apply(d, key);
    queue.done(key);
}

void controller::impl::report_hot_loop(const reconcile_context& ctx, const hot_loop_alarm& alarm) {
    ++stats.hot_loops;
    if (opts.metrics) {
        opts.metrics->hot_loop_detected();
    }
    const auto text = describe(alarm);
    const auto window = std::chrono::duration<double>(opts.hot_loop.window).count();
    // controller-runtime logs warnings at info with a "Warning: " prefix.
    ctx.log.info("Warning: hot loop: every reconcile of this object writes something", {
        {"writingReconciles", static_cast<std::int64_t>(alarm.writing_reconciles)},
        {"seconds", std::chrono::duration<double>(alarm.span).count()},
        {"noopWrites", static_cast<std::int64_t>(alarm.noop_writes)},
        {"windowSeconds", window},
        {"wrote", text}});
    if (opts.events && opts.read_primary) {
        if (auto obj = opts.read_primary(alarm.key)) {
            opts.events->record(*obj, event_type::warning, "HotLoop", "Reconcile", "hot loop: " + text);
        }
    }
}

void controller::impl::task_finished(bool is_worker) {
    if (is_worker && --workers_running == 0) {
        metrics_cancel.emit(asio::cancellation_type::terminal);
    }
    if (--tasks_running == 0) {
        done_signal.cancel();
    }
}

asio::awaitable<void> controller::run() {
    auto& s = *impl_;
    if (s.started) {
        co_return;
    }
    s.started = true;
    if (s.stopping) {
        co_return;
    }

    // controller-runtime's lines: "Starting Controller", then (once its
    // sources synced; in a manager they did before any controller starts)
    // "Starting workers".
    s.log.info("Starting Controller");
    if (s.opts.wait_for_sync) {
        result<void> synced = error(kcoro_errc::cancelled, "cancelled while waiting for caches to sync");
        try {
            auto wait = s.opts.wait_for_sync(s.opts.cache_sync_timeout);
            synced = co_await std::move(wait);
        } catch (const boost::system::system_error&) {
            // Cancelled (operation_aborted thrown by an await after the
            // cancellation): nothing started, nothing to drain.
            s.queue.shut_down();
            co_return;
        }
        if (!synced) {
            s.last_error = synced.error().with_context("wait for caches to sync");
            s.log.error(s.last_error, "Could not wait for Cache to sync", {{"timeout",
                std::chrono::duration<double>(s.opts.cache_sync_timeout).count()}});
            s.queue.shut_down();
            co_return;
        }
    }
    if (s.stopping) {
        co_return;
    }

    const std::size_t n = s.queue.max_concurrent();
    s.log.info("Starting workers", {{"worker count", static_cast<std::int64_t>(n)}});
    if (s.opts.metrics) {
        s.opts.metrics->set_max_concurrent_reconciles(static_cast<std::int64_t>(n));
        s.opts.metrics->set_active_workers(0);
    }

    s.cancels.clear();
    for (std::size_t i = 0; i < n; ++i) {
        s.cancels.push_back(std::make_unique<asio::cancellation_signal>());
        ++s.workers_running;
        ++s.tasks_running;
        auto on_done = [&s](std::exception_ptr e) {
            if (e) {
                try {
                    std::rethrow_exception(e);
                } catch (const std::exception& ex) {
                    s.log.error(ex.what(), "controller worker ended with an exception");
                } catch (...) {
                    s.log.error("unknown", "controller worker ended with an exception");
                }
            }
            s.task_finished(true);
        };
        auto w = s.worker();
        asio::co_spawn(s.ex, std::move(w), asio::bind_cancellation_slot(s.cancels.back()->slot(), on_done));
    }
    if (s.opts.queue_metrics && s.opts.metrics_period.count() > 0) {
        ++s.tasks_running;
        auto on_done = [&s](std::exception_ptr) { s.task_finished(false); };
        auto m = s.queue.run_metrics(s.opts.metrics_period);
        asio::co_spawn(s.ex, std::move(m), asio::bind_cancellation_slot(s.metrics_cancel.slot(), on_done));
    }

    while (s.tasks_running > 0) {
        auto [ec] = co_await s.done_signal.async_wait(asio::as_tuple(asio::use_awaitable));
        (void)ec;
        auto cs = co_await asio::this_coro::cancellation_state;
        if (cs.cancelled() != asio::cancellation_type::none) {
            // Cancelled from outside: cancel the in-flight reconciles and
            // wait for them to unwind.
            if (!s.cancelled) {
                s.cancelled = true;
                s.stopping = true;
                s.log.info("Cancelled: stopping in-flight reconciles");
                s.queue.shut_down();
                for (auto& c : s.cancels) {
                    c->emit(asio::cancellation_type::terminal);
                }
                s.metrics_cancel.emit(asio::cancellation_type::terminal);
            }
            co_await asio::this_coro::reset_cancellation_state();
        }
    }
    s.log.info("All workers finished");
}

} // namespace kcoro::runtime
