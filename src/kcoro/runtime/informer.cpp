#include <kcoro/runtime/informer.hpp>

#include <kcoro/runtime/shard_bucket.hpp>

#include <algorithm>

#include <kcoro/client/client.hpp>
#include <kcoro/runtime/watcher.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <exception>
#include <sstream>

namespace kcoro::runtime {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;

std::string to_string(const informer_key& k) {
    // kubectl's resource.version.group, then the scope.
    std::string out = k.gvr.resource + "." + k.gvr.version;
    if (!k.gvr.group.empty()) {
        out += "." + k.gvr.group;
    }
    if (!k.namespace_.empty()) {
        out += " namespace=" + k.namespace_;
    }
    if (!k.label_selector.empty()) {
        out += " labels=" + k.label_selector;
    }
    if (!k.field_selector.empty()) {
        out += " fields=" + k.field_selector;
    }
    if (k.metadata_only) {
        out += " metadata-only";
    }
    if (k.shard != shard_by::none) {
        out += " shard=" + std::string(to_string(k.shard));
    }
    return out;
}

namespace {

/// 401, 403, 404 on a list do not heal by retrying the same request:
/// wait_for_sync reports them at once.
bool is_fatal_list_error(const error& e) noexcept {
    return is_unauthorized(e) || is_forbidden(e) || is_not_found(e);
}

informer_options with_defaults(informer_options o) {
    if (!o.watcher.random) {
        o.watcher.random = uniform_random_source();
    }
    return o;
}

} // namespace

struct informer::impl {
    struct handler_entry {
        handler_id id = 0;
        event_handlers h;
        bool removed = false;
    };

    impl(client::client& c, io::clock& clk, asio::any_io_executor ex, informer_options o)
        : clk_(clk), opts(with_defaults(std::move(o))), name("informer " + to_string(opts.key)),
          cache(cache_options{opts.transform, opts.key.metadata_only, opts.kept_managers}),
          w(c, clk, ex,
            watcher_target{opts.key.gvr, opts.key.namespace_, opts.key.label_selector, opts.key.field_selector,
                         opts.key.metadata_only},
            watcher_hooks{[this](const watcher_event& e) { on_event(e); },
                          [this](watcher_phase p, const error& e) { on_outcome(p, e); }},
            opts.watcher, opts.metrics),
          changed(ex, asio::steady_timer::time_point::max()) {}

    io::clock& clk_;
    informer_options opts;
    std::string name;
    object_cache cache;
    watcher w;
    std::vector<std::shared_ptr<handler_entry>> handlers;
    handler_id next_id = 1;
    error last_error;
    error fatal_error;  // the last list failed with 401/403/404
    std::uint64_t handler_errors = 0;
    bool stopped = false;
    asio::steady_timer changed;  // cancelled to wake wait_for_sync
    std::uint64_t epoch = 0;

    // Sharding (key.shard != none): what the cache keeps.
    bool shard_ready = false;    // a non-empty share was given: listing may start
    hash_ranges shard_held;
    std::string shard_selector;  // sent with lists and watches (uid or namespace; empty: none)
    std::optional<bool> server_filtering;

    bool sharded() const noexcept { return opts.key.shard != shard_by::none; }

    bool in_share(const object_ptr& o) const {
        if (!o) return false;
        const auto h = shard_hash_of(*o, opts.key.shard);
        return h && contains(shard_held, *h);
    }

    void notify() {
        ++epoch;
        changed.cancel();
        if (opts.on_state_change) {
            opts.on_state_change();
        }
    }

    asio::awaitable<void> wait_changed(std::uint64_t seen) {
        if (seen != epoch) {
            co_return;
        }
        co_await changed.async_wait(asio::as_tuple(asio::use_awaitable));
    }

    template <class F>
    void invoke(const char* what, F&& f) {
        try {
            f();
        } catch (const std::exception& ex) {
            ++handler_errors;
            opts.log.error(std::string_view(ex.what()), "event handler threw",
                           {{"informer", name}, {"handler", what}});
        } catch (...) {
            ++handler_errors;
            opts.log.error(std::string_view("unknown exception"), "event handler threw",
                           {{"informer", name}, {"handler", what}});
        }
    }

    void deliver(const std::vector<std::shared_ptr<handler_entry>>& snapshot, const cache_notification& n) {
        for (const auto& h : snapshot) {
            if (h->removed) {
                continue;
            }
            switch (n.type) {
            case notification_type::added:
                if (h->h.on_add) {
                    invoke("add", [&] { h->h.on_add(n.object); });
                }
                break;
            case notification_type::updated:
                if (h->h.on_update) {
                    invoke("update", [&] { h->h.on_update(n.old_object, n.object); });
                }
                break;
            case notification_type::deleted:
                if (h->h.on_delete) {
                    invoke("delete", [&] { h->h.on_delete(n.object, n.tombstone); });
                }
                break;
            }
        }
    }

    void on_event(const watcher_event& raw) {
        // Client-side share filter, before the cache: an object outside the
        // share is never stored; one that left it (its controller owner
        // changed) goes as a delete, as a server drops an object that stops
        // matching a selector.
        const watcher_event* ep = &raw;
        watcher_event moved;
        if (sharded() && raw.object && raw.type != watcher_event_type::deleted && !in_share(raw.object)) {
            if (raw.type == watcher_event_type::init_apply) {
                return;
            }
            moved = raw;
            moved.type = watcher_event_type::deleted;
            ep = &moved;
        }
        const watcher_event& e = *ep;
        const bool snapshot_event = e.type == watcher_event_type::init_start || e.type == watcher_event_type::init_apply;
        if (handlers.empty() || snapshot_event) {
            // Nobody listens (or nothing to hear until init_done): the cache
            // materialises no objects.
            cache.handle(e, notification_sink());
        } else {
            // A snapshot: handlers may add or remove handlers. Objects are
            // decoded one notification at a time, so a relist of N objects
            // never holds N trees.
            auto snapshot = handlers;
            cache.set_old_objects(std::any_of(snapshot.begin(), snapshot.end(), [](const auto& h) {
                return !h->removed && h->h.on_update && h->h.reads_old_object;
            }));
            cache.handle(e, [&](const cache_notification& n) { deliver(snapshot, n); });
        }
        // The snapshot events change nothing visible until init_done.
        if (opts.metrics && !snapshot_event) {
            opts.metrics->set_cache_objects(static_cast<std::int64_t>(cache.size()));
        }
        if (e.type == watcher_event_type::init_done) {
            notify();
        }
    }

    void on_outcome(watcher_phase p, const error& e) {
        if (!e) {
            if (p == watcher_phase::list) {
                fatal_error = error();
                if (!shard_selector.empty()) {
                    note_shard_mode();
                }
            }
            if (p != watcher_phase::watch_stream) {
                last_error = error();
            }
            return;
        }
        last_error = e.with_context(std::string(to_string(p)) + " " + to_string(opts.key));
        if (p == watcher_phase::list && is_fatal_list_error(e)) {
            fatal_error = last_error;
        }
        // client-go's reflector logs expired watches and dropped streams
        // quietly: both heal by themselves.
        if (is_gone_or_expired(e)) {
            opts.log.info("watch expired, relisting", {{"informer", name}, {"error", last_error.message()}});
        } else if (p == watcher_phase::watch_stream && is_transport_error(e)) {
            opts.log.debug("watch stream broke, resuming", {{"informer", name}, {"error", last_error.message()}});
        } else {
            opts.log.error(last_error, "watcher request failed", {{"informer", name}});
        }
        notify();
    }

    // The first answered list with a shardSelector says whether the server
    // applied it (KEP-5866: it echoes metadata.shardInfo). Without the echo
    // the server ignored it (before 1.36, or the gate off): stop sending it;
    // the client filter keeps the cache to the share either way.
    void note_shard_mode() {
        const auto& echo = w.last_list_shard_selector();
        const bool server = echo.has_value();
        if (server_filtering && *server_filtering == server) return;
        server_filtering = server;
        if (server) {
            opts.log.info("shard filtering by the server (shardSelector)", {{"informer", name}});
        } else {
            opts.log.info("shard filtering on the client: the server ignored shardSelector", {{"informer", name}});
            shard_selector.clear();
            w.set_shard_selector("");
        }
    }

    void set_shard(const hash_ranges& held) {
        auto next = normalize(held);
        const auto gained = subtract(next, shard_held);
        const auto lost = subtract(shard_held, next);
        shard_held = std::move(next);
        if (server_selectable() && server_filtering.value_or(true)) {
            // The selector follows the share; an empty share keeps the last
            // one (nothing selects nothing) and the client filter drops all.
            if (auto sel = shard_selector_of(shard_held)) {
                shard_selector = *sel;
                w.set_shard_selector(*sel);
            }
        }
        if (opts.key.shard == shard_by::controller_owner_bucket && !shard_held.empty()) {
            // The owner buckets of the share, with the informer's own
            // selector; every bucket: the own selector alone.
            std::string sel = opts.key.label_selector;
            if (auto buckets = shard_bucket_selector(shard_held)) {
                if (!sel.empty()) sel += ',';
                sel += *buckets;
            }
            w.set_label_selector(std::move(sel));
        }
        if (!shard_ready) {
            if (shard_held.empty()) return;  // never list for an empty share
            shard_ready = true;
            notify();  // run() waits for this
            return;
        }
        if (!gained.empty()) {
            // Objects of the gained ranges were never listed here: relist.
            // The new snapshot also drops what was lost.
            w.relist();
            return;
        }
        if (!lost.empty()) {
            evict(lost);
        }
    }

    void evict(const hash_ranges& lost) {
        // The keys first, then one object at a time: the walk never holds
        // the cache decoded (a clean leave evicts everything).
        std::vector<object_key> gone;
        cache.for_each([&](const object_ptr& o) {
            const auto h = shard_hash_of(*o, opts.key.shard);
            if (!h || contains(lost, *h)) gone.push_back(key_of(*o));
        });
        auto snapshot = handlers;
        for (const auto& k : gone) {
            auto o = cache.get(k);
            if (!o) continue;
            for (auto n : cache.remove(o)) {
                n.tombstone = true;  // not a delete the server reported
                deliver(snapshot, n);
            }
        }
        if (opts.metrics) {
            opts.metrics->set_cache_objects(static_cast<std::int64_t>(cache.size()));
        }
    }

    // KEP-5866 selects by the object's uid or namespace.
    bool server_selectable() const noexcept {
        return opts.key.shard == shard_by::uid || opts.key.shard == shard_by::namespace_;
    }
    std::optional<std::string> shard_selector_of(const hash_ranges& rs) const {
        if (rs.empty()) return std::nullopt;
        return runtime::shard_selector(rs, opts.key.shard == shard_by::namespace_ ? shard_field::namespace_
                                                                                   : shard_field::uid);
    }

    void resync() {
        if (handlers.empty() || !cache.has_synced()) {
            return;
        }
        auto objs = cache.list();
        auto snapshot = handlers;
        for (const auto& o : objs) {
            for (const auto& h : snapshot) {
                if (!h->removed && h->h.on_update) {
                    invoke("resync", [&] { h->h.on_update(o, o); });
                }
            }
        }
    }

    asio::awaitable<void> resync_loop() {
        co_await asio::this_coro::throw_if_cancelled(false);
        while (!stopped) {
            // Jitter up to 10% so informers created together do not resync together.
            const auto period = opts.resync_period;
            const auto jitter =
                std::chrono::duration_cast<std::chrono::nanoseconds>(period * (0.1 * opts.watcher.random()));
            const std::chrono::nanoseconds d = period + jitter;
            auto ec = co_await clk_.sleep_for(d);
            if (ec || stopped) {
                co_return;
            }
            resync();
        }
    }
};

informer::informer(client::client& c, io::clock& clk, asio::any_io_executor ex, informer_options opts)
    : impl_(std::make_unique<impl>(c, clk, std::move(ex), std::move(opts))) {}

informer::~informer() = default;

handler_id informer::add_handlers(event_handlers h) {
    auto e = std::make_shared<impl::handler_entry>();
    e->id = impl_->next_id++;
    e->h = std::move(h);
    impl_->handlers.push_back(e);
    // client-go: a handler added to a running informer first sees every
    // cached object as an add.
    if (e->h.on_add && impl_->cache.size() > 0) {
        for (const auto& o : impl_->cache.list()) {
            if (e->removed) {
                break;
            }
            impl_->invoke("add", [&] { e->h.on_add(o); });
        }
    }
    return e->id;
}

void informer::remove_handlers(handler_id id) {
    auto& hs = impl_->handlers;
    for (auto it = hs.begin(); it != hs.end(); ++it) {
        if ((*it)->id == id) {
            (*it)->removed = true;
            hs.erase(it);
            return;
        }
    }
}

bool informer::add_index(std::string name, index_func fn) {
    return impl_->cache.add_index(std::move(name), std::move(fn));
}

std::string_view informer::name() const {
    return impl_->name;
}

asio::awaitable<void> informer::run() {
    if (impl_->stopped) {
        co_return;
    }
    // A sharded informer lists nothing before it has a share.
    while (impl_->sharded() && !impl_->shard_ready && !impl_->stopped) {
        co_await impl_->wait_changed(impl_->epoch);
        auto cs = co_await asio::this_coro::cancellation_state;
        if (cs.cancelled() != asio::cancellation_type::none) {
            co_return;
        }
    }
    if (impl_->stopped) {
        impl_->notify();
        co_return;
    }
    if (impl_->opts.resync_period > std::chrono::nanoseconds::zero()) {
        // g++ 12 (docs/toolchain.md): awaitables named first, not temporaries in the operand.
        auto watch = impl_->w.run();
        auto resync = impl_->resync_loop();
        co_await (std::move(watch) || std::move(resync));
    } else {
        co_await impl_->w.run();
    }
    impl_->notify();
}

void informer::set_shard(const hash_ranges& held) {
    if (impl_->sharded()) {
        impl_->set_shard(held);
    }
}

std::optional<bool> informer::server_filtering() const noexcept {
    return impl_->server_filtering;
}

void informer::stop() {
    impl_->stopped = true;
    impl_->w.stop();
    impl_->notify();
}

bool informer::has_synced() const noexcept {
    return impl_->cache.has_synced();
}

asio::awaitable<result<void>> informer::wait_for_sync(std::chrono::nanoseconds timeout) {
    co_await asio::this_coro::throw_if_cancelled(false);
    auto& s = *impl_;
    const steady_time deadline = s.clk_.now() + timeout;
    for (;;) {
        if (s.fatal_error) {
            co_return s.fatal_error;
        }
        if (s.cache.has_synced()) {
            co_return result<void>();
        }
        if (s.stopped) {
            co_return error(kcoro_errc::cancelled, s.name + ": stopped before it synced");
        }
        if (s.clk_.now() >= deadline) {
            std::string msg = s.name + ": not synced after " +
                              std::to_string(std::chrono::duration<double>(timeout).count()) + "s";
            if (s.last_error) {
                msg += "; last error: " + s.last_error.message();
            }
            co_return error(kcoro_errc::not_synced, std::move(msg));
        }
        auto signalled = s.wait_changed(s.epoch);
        auto timer = s.clk_.sleep_until(deadline);
        co_await (std::move(signalled) || std::move(timer));
        auto cs = co_await asio::this_coro::cancellation_state;
        if (cs.cancelled() != asio::cancellation_type::none) {
            co_return error(kcoro_errc::cancelled, s.name + ": wait for sync cancelled");
        }
    }
}

const object_cache& informer::cache() const noexcept {
    return impl_->cache;
}

const informer_key& informer::key() const noexcept {
    return impl_->opts.key;
}

const error& informer::last_error() const noexcept {
    return impl_->last_error;
}

std::uint64_t informer::handler_errors() const noexcept {
    return impl_->handler_errors;
}

const watcher& informer::source() const noexcept {
    return impl_->w;
}

} // namespace kcoro::runtime
