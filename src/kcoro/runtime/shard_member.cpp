// The driver of shard_membership_fsm: performs each action (a write of our
// Lease, reaps, lists, drops) one at a time on the io_context, each request
// bounded by a deadline on the clock, and feeds the outcome back. All
// decisions are the fsm's; the driver keeps the contract of
// docs/sharding.md ("Driver contract"): one write at a time, cancelled at
// its write_deadline, renewTime stamped when it starts, updates with our last
// resourceVersion and a re-read on 409, serial (monotonic) observations,
// `fresh` only for the list asked for.
#include <kcoro/runtime/shard_member.hpp>

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <optional>

namespace kcoro::runtime {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;

std::string shard_lease_name(std::string_view ring, std::string_view identity) {
    return std::string(ring) + "-" + hash_hex(fnv1a64(identity)).substr(2);
}

struct shard_member::impl {
    client::client& c;
    io::clock& clk;
    shard_member_options opts;
    shard_membership_fsm fsm;
    std::string lease;
    std::optional<asio::steady_timer> wake;  // cancelled by stop() and drained()
    std::deque<sm_input> inbox;              // inputs from outside the coroutine

    // Work the fsm asked for, done one at a time by run().
    std::optional<shard_announcement> write;
    bool release = false;
    steady_time write_deadline{};
    std::deque<shard_reap> reaps;
    bool want_fresh = false;
    steady_time list_at{};  // the next list (periodic, or a retry of a fresh one)
    std::optional<steady_time> wake_at;

    std::optional<boost::json::object> own;     // our Lease as last written or read
    std::map<std::string, object_ptr> listed;  // holder -> its Lease as last listed
    // Leases of members gone (released or reaped: holder ""), by name: the
    // resourceVersion listed and since when we saw that version.
    struct vacant_lease {
        std::string resource_version;
        steady_time since{};
    };
    std::map<std::string, vacant_lease> vacant;

    bool stop_asked = false;
    bool finished = false;
    bool released = false;
    std::string reason;

    // Handover tracking for the metrics.
    std::vector<std::string> last_view;
    hash_ranges share;
    std::optional<steady_time> handover_since;

    impl(client::client& cl, io::clock& k, shard_member_options o)
        : c(cl), clk(k), opts(std::move(o)), fsm(opts.config),
          lease(shard_lease_name(opts.config.ring, opts.config.identity)) {}

    void feed(const sm_input& in) { apply(fsm.step(in)); }

    void apply(shard_actions a) {
        const steady_time now = clk.now();
        if (!a.drop.empty()) {
            if (opts.on_drop) {
                opts.on_drop(a.drop);
            } else {
                inbox.push_back(sm::drained{now, a.drop});  // nothing reconciles through us
            }
        }
        if (a.write) {
            write = std::move(a.write);
            release = a.release;
            write_deadline = a.write_deadline;
        }
        for (auto& r : a.reap) reaps.push_back(std::move(r));
        if (a.list_leases) {
            want_fresh = true;
            list_at = now;
        }
        wake_at = a.wake_at;  // every step recomputes it
        track_handover(now);
        if (a.active_changed && opts.on_change) opts.on_change(fsm.active());
        if (a.stopped && reason.empty()) {
            reason = a.reason.empty() ? "stopped" : a.reason;
            if (opts.metrics) opts.metrics->set_members(0);
            opts.log.info("left the shard ring", {{"ring", opts.config.ring}, {"reason", reason}});
            if (opts.on_stopped) opts.on_stopped(reason);
        }
    }

    void track_handover(steady_time now) {
        if (fsm.view() != last_view) {
            last_view = fsm.view();
            share = last_view.empty()
                        ? hash_ranges{}
                        : normalize(shard_ring(last_view, opts.config.virtual_nodes).ranges_of(opts.config.identity));
            if (opts.metrics) opts.metrics->set_members(static_cast<std::int64_t>(last_view.size()));
            if (!handover_since && normalize(fsm.active()) != share) handover_since = now;
        }
        if (handover_since && normalize(fsm.active()) == share) {
            if (opts.metrics) {
                opts.metrics->handover_done(std::chrono::duration<double>(now - *handover_since).count());
            }
            handover_since.reset();
        }
    }

    static std::chrono::milliseconds remaining(steady_time deadline, steady_time now) {
        auto d = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
        return std::max(d, std::chrono::milliseconds(1));
    }

    // Runs `op` but gives up at `deadline` (the request is cancelled).
    template <class T>
    asio::awaitable<result<T>> bounded(asio::awaitable<result<T>> op, steady_time deadline) {
        auto sleep = clk.sleep_until(deadline);
        auto race = std::move(op) || std::move(sleep);
        auto v = co_await std::move(race);
        if (v.index() == 0) co_return std::get<0>(std::move(v));
        co_return error(kcoro_errc::deadline_exceeded, "shard lease request did not finish before its deadline");
    }

    asio::awaitable<result<object_ptr>> get(std::string name, steady_time deadline) {
        get_options o;
        o.timeout = remaining(deadline, clk.now());
        const auto gvr = resources::leases();
        const object_key key{opts.lease_namespace, std::move(name)};
        auto op = c.get(gvr, key, o);
        co_return co_await bounded(std::move(op), deadline);
    }

    boost::json::object lease_body(const shard_announcement& a, bool rel) const {
        boost::json::object body;
        if (own) {
            body = *own;  // keeps metadata.resourceVersion: the precondition
        } else {
            set_name(body, lease);
            set_namespace(body, opts.lease_namespace);
        }
        body["apiVersion"] = "coordination.k8s.io/v1";
        body["kind"] = "Lease";
        set_label(body, shard_ring_label, opts.config.ring);
        set_annotation(body, shard_state_annotation, to_annotation(a));
        boost::json::object spec;
        if (auto* s = body.if_contains("spec"); s && s->is_object()) spec = s->get_object();
        const auto stamp = format_rfc3339_micro(clk.wall_now());  // no earlier than the action
        spec["holderIdentity"] = rel ? "" : opts.config.identity;
        spec["leaseDurationSeconds"] =
            std::chrono::duration_cast<std::chrono::seconds>(opts.config.lease_duration).count();
        spec["renewTime"] = stamp;
        if (!own) spec["acquireTime"] = stamp;
        body["spec"] = std::move(spec);
        return body;
    }

    asio::awaitable<sm_input> perform_write(shard_announcement a, bool rel, steady_time deadline) {
        if (clk.now() >= deadline) co_return sm::lease_write_failed{clk.now()};
        const auto gvr = resources::leases();
        auto body = lease_body(a, rel);
        const bool create = !own;
        result<object_ptr> r = error(kcoro_errc::cancelled);
        if (create) {
            create_options o;
            o.timeout = remaining(deadline, clk.now());
            auto op = c.create(gvr, opts.lease_namespace, body, o);
            r = co_await bounded(std::move(op), deadline);
        } else {
            update_options o;
            o.timeout = remaining(deadline, clk.now());
            auto op = c.update(gvr, body, o);
            r = co_await bounded(std::move(op), deadline);
        }
        if (r) {
            own = **r;
            if (rel) released = true;
            co_return sm::lease_written{clk.now()};
        }
        const bool raced = create ? is_already_exists(r.error()) : is_conflict(r.error());
        if (!raced) {
            opts.log.debug("shard lease write failed", {{"lease", lease}, {"error", r.error().message()}});
            co_return sm::lease_write_failed{clk.now()};
        }
        // Someone wrote it since our last write: read it, never retry blindly.
        auto g = co_await get(lease, deadline);
        if (g) {
            const auto now_holder = shard_lease_of(**g).holder;
            if (now_holder == opts.config.identity) {
                own = **g;  // our own earlier write, answered too late
                co_return sm::lease_write_failed{clk.now()};
            }
            if (!create || now_holder.empty()) {
                if (rel && now_holder.empty()) released = true;  // our release, its answer lost
                co_return sm::lease_lost{clk.now()};
            }
            co_return sm::lease_write_failed{clk.now()};
        }
        if (is_not_found(g.error()) && !create) co_return sm::lease_lost{clk.now()};
        co_return sm::lease_write_failed{clk.now()};
    }

    asio::awaitable<sm_input> perform_reap(shard_reap rp) {
        auto it = listed.find(rp.holder);
        if (it == listed.end()) co_return sm::reap_failed{clk.now(), rp.holder};
        boost::json::object body = *it->second;
        mutable_metadata(body)["resourceVersion"] = rp.resource_version;  // the compare-and-swap
        if (auto* s = body.if_contains("spec"); s && s->is_object()) s->get_object()["holderIdentity"] = "";
        // A retry period at most: a hung read or reap must not hold back the
        // next renewal (the loop is serial) until our validity ends.
        const auto deadline = clk.now() + opts.config.retry_period;
        update_options o;
        o.timeout = remaining(deadline, clk.now());
        const auto gvr = resources::leases();
        auto op = c.update(gvr, body, o);
        auto r = co_await bounded(std::move(op), deadline);
        if (r || is_not_found(r.error())) {
            opts.log.info("reaped an expired shard lease", {{"ring", opts.config.ring}, {"holder", rp.holder}});
            co_return sm::reaped{clk.now(), rp.holder};
        }
        co_return sm::reap_failed{clk.now(), rp.holder};
    }

    // A consistent list of the ring's Leases; nullopt when it failed.
    asio::awaitable<std::optional<sm::leases_observed>> perform_list(bool fresh) {
        // A retry period at most: a hung read or reap must not hold back the
        // next renewal (the loop is serial) until our validity ends.
        const auto deadline = clk.now() + opts.config.retry_period;
        list_options o;
        o.label_selector = std::string(shard_ring_label) + "=" + opts.config.ring;
        o.timeout = remaining(deadline, clk.now());
        const auto gvr = resources::leases();
        auto op = c.list(gvr, opts.lease_namespace, o);
        auto r = co_await bounded(std::move(op), deadline);
        if (!r) {
            opts.log.debug("shard lease list failed", {{"ring", opts.config.ring}, {"error", r.error().message()}});
            co_return std::nullopt;
        }
        sm::leases_observed obs{clk.now(), {}, fresh};
        listed.clear();
        std::map<std::string, vacant_lease> still_vacant;
        for (const auto& item : r->items) {
            auto l = shard_lease_of(*item);
            if (!l.holder.empty()) {
                listed[l.holder] = item;
            } else if (auto name = std::string(name_of(*item)); name != lease) {
                auto it = vacant.find(name);
                still_vacant[name] = it != vacant.end() && it->second.resource_version == l.resource_version
                                         ? it->second
                                         : vacant_lease{l.resource_version, obs.now};
            }
            obs.leases.push_back(std::move(l));
        }
        vacant = std::move(still_vacant);
        co_return obs;
    }

    // The Lease of a member that left (released) or was reaped stays behind,
    // one per process that ever joined (identities are unique per process):
    // without this every restart and rollout would add a Lease, and every
    // member's list of the ring would grow with them. Once a Lease has shown
    // holder "" unchanged for a lease duration, a member deletes it, with
    // its resourceVersion as the precondition. Deleted is gone, as released
    // is (shard_membership_fsm); its holder, if it still ran, meets a 404 on
    // its next renewal and stops (lease_lost). One at a time; the outcome
    // does not matter (another member may have deleted it first).
    std::optional<std::pair<std::string, std::string>> take_due_vacant(steady_time now) {
        for (auto it = vacant.begin(); it != vacant.end(); ++it) {
            if (now - it->second.since >= opts.config.lease_duration) {
                auto out = std::make_pair(it->first, it->second.resource_version);
                vacant.erase(it);
                return out;
            }
        }
        return std::nullopt;
    }

    asio::awaitable<void> perform_delete(std::string name, std::string resource_version) {
        const auto deadline = clk.now() + opts.config.retry_period;  // as a reap: never holds back a renewal
        delete_options o{delete_preconditions{{}, std::move(resource_version)}};
        o.timeout = remaining(deadline, clk.now());
        const auto gvr = resources::leases();
        auto op = c.remove(gvr, object_key{opts.lease_namespace, name}, o);
        auto r = co_await bounded(std::move(op), deadline);
        if (r) {
            opts.log.info("deleted the shard lease of a member that left", {{"ring", opts.config.ring}, {"lease", name}});
        } else if (!is_not_found(r.error()) && !is_conflict(r.error())) {
            opts.log.debug("shard lease delete failed", {{"lease", name}, {"error", r.error().message()}});
        }
    }

    // Sleeps until `deadline`, or until an input arrives from outside.
    asio::awaitable<void> sleep(steady_time deadline) {
        if (!inbox.empty()) co_return;
        auto s = clk.sleep_until(deadline);
        auto w = wake->async_wait(asio::as_tuple(asio::use_awaitable));
        auto race = std::move(s) || std::move(w);
        co_await std::move(race);
    }

    void poke() {
        if (wake) wake->cancel();
    }
};

shard_member::shard_member(client::client& c, io::clock& clk, shard_member_options opts)
    : impl_(std::make_unique<impl>(c, clk, std::move(opts))) {}

shard_member::~shard_member() = default;

void shard_member::stop() {
    auto& s = *impl_;
    if (s.stop_asked) return;
    s.stop_asked = true;
    s.inbox.push_back(sm::shutdown{s.clk.now()});
    s.poke();
}

void shard_member::drained(const hash_ranges& ranges) {
    impl_->inbox.push_back(sm::drained{impl_->clk.now(), ranges});
    impl_->poke();
}

bool shard_member::owns(std::uint64_t hash) const noexcept {
    return !impl_->finished && impl_->fsm.may_reconcile(hash, impl_->clk.now());
}
bool shard_member::owns_key(std::string_view key) const noexcept { return owns(fnv1a64(key)); }
const hash_ranges& shard_member::active() const noexcept { return impl_->fsm.active(); }
const shard_membership_fsm& shard_member::state() const noexcept { return impl_->fsm; }
bool shard_member::finished() const noexcept { return impl_->finished; }
bool shard_member::released() const noexcept { return impl_->released; }
const std::string& shard_member::stop_reason() const noexcept { return impl_->reason; }
const std::string& shard_member::lease_name() const noexcept { return impl_->lease; }

asio::awaitable<void> shard_member::run() {
    auto& s = *impl_;
    struct mark_finished {
        impl& s;
        ~mark_finished() { s.finished = true; }
    } guard{s};
    s.wake.emplace(co_await asio::this_coro::executor, asio::steady_timer::time_point::max());
    s.opts.log.info("joining the shard ring", {{"ring", s.opts.config.ring},
                                                {"lease", s.opts.lease_namespace + "/" + s.lease},
                                                {"identity", s.opts.config.identity}});
    s.list_at = s.clk.now();
    s.feed(sm::start{s.clk.now()});
    for (;;) {
        auto cs = co_await asio::this_coro::cancellation_state;
        if (cs.cancelled() != asio::cancellation_type::none) co_return;  // hard stop: no release
        while (!s.inbox.empty()) {
            auto in = std::move(s.inbox.front());
            s.inbox.pop_front();
            s.feed(in);
        }
        if (!s.reason.empty()) co_return;  // the fsm stopped
        const steady_time now = s.clk.now();
        if (s.wake_at && now >= *s.wake_at) {
            s.wake_at.reset();
            s.feed(sm::tick{now});
            continue;
        }
        if (s.write) {
            auto a = std::move(*s.write);
            s.write.reset();
            s.feed(co_await s.perform_write(std::move(a), s.release, s.write_deadline));
            continue;
        }
        if (!s.reaps.empty()) {
            auto rp = std::move(s.reaps.front());
            s.reaps.pop_front();
            s.feed(co_await s.perform_reap(std::move(rp)));
            continue;
        }
        if (auto due = s.fsm.current() == shard_membership_fsm::state::running && now < s.fsm.valid_until()
                           ? s.take_due_vacant(now)
                           : std::nullopt) {
            co_await s.perform_delete(std::move(due->first), std::move(due->second));
            continue;
        }
        if (now >= s.list_at) {
            const bool fresh = s.want_fresh;  // asked before this list started
            s.want_fresh = false;
            auto obs = co_await s.perform_list(fresh);
            s.list_at = s.clk.now() + s.fsm.config().retry_period;
            if (obs) {
                s.feed(*obs);
            } else if (fresh) {
                s.want_fresh = true;  // retried at list_at
            }
            continue;
        }
        co_await s.sleep(s.wake_at ? std::min(*s.wake_at, s.list_at) : s.list_at);
    }
}

} // namespace kcoro::runtime
