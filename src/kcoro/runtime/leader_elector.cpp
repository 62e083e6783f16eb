// The driver of leader_election_fsm: performs each action (GET/POST/PUT of
// the Lease bounded by the action's deadline, or a sleep on the clock) and
// feeds the outcome back. All decisions are the fsm's.
#include <kcoro/runtime/leader_elector.hpp>

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <random>

namespace kcoro::runtime {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;

std::string default_leader_identity() {
    std::array<char, 256> host{};
    if (::gethostname(host.data(), host.size() - 1) != 0) host[0] = '\0';
    std::random_device rd;
    std::array<unsigned char, 16> b{};
    for (auto& x : b) x = static_cast<unsigned char>(rd());
    b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
    b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
    std::array<char, 37> uuid{};
    std::snprintf(uuid.data(), uuid.size(), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                  b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                  b[15]);
    return make_leader_identity(host.data(), uuid.data());
}

struct leader_elector::impl {
    client::client& c;
    io::clock& clk;
    leader_elector_options opts;
    leader_election_fsm fsm;
    std::optional<asio::steady_timer> wake;  // cancelled by stop()
    bool stopping = false;
    bool shutdown_fed = false;
    bool leading = false;
    bool lost = false;
    bool released = false;
    std::string observed;

    impl(client::client& cl, io::clock& k, leader_elector_options o)
        : c(cl), clk(k), opts(std::move(o)), fsm(opts.config) {}

    void set_leading(bool on) {
        if (leading == on) return;
        leading = on;
        if (opts.on_status) opts.on_status(on);
    }

    static std::chrono::milliseconds remaining(steady_time deadline, steady_time now) {
        auto d = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
        return std::max(d, std::chrono::milliseconds(1));
    }

    // Runs `op` but gives up at `deadline` (the request is cancelled).
    asio::awaitable<result<object_ptr>> bounded(asio::awaitable<result<object_ptr>> op, steady_time deadline) {
        auto sleep = clk.sleep_until(deadline);
        auto race = std::move(op) || std::move(sleep);
        auto v = co_await std::move(race);
        if (v.index() == 0) co_return std::get<0>(std::move(v));
        co_return error(kcoro_errc::deadline_exceeded, "lease request did not finish before its deadline");
    }

    asio::awaitable<le_input> perform_get(steady_time deadline) {
        const object_key key{opts.config.lease_namespace, opts.config.lease_name};
        get_options o;
        o.timeout = remaining(deadline, clk.now());
        const auto gvr = resources::leases();
        auto op = c.get(gvr, key, o);
        auto r = co_await bounded(std::move(op), deadline);
        if (r) co_return le::lease_read{clk.now(), clk.wall_now(), **r};
        if (is_not_found(r.error())) co_return le::lease_read{clk.now(), clk.wall_now(), std::nullopt};
        co_return le::request_failed{clk.now(), r.error()};
    }

    asio::awaitable<le_input> perform_write(const boost::json::object& body, steady_time deadline, bool create) {
        // Named: the awaitables are lazy and take their arguments by reference.
        const auto gvr = resources::leases();
        result<object_ptr> r = error(kcoro_errc::cancelled);
        if (create) {
            create_options o;
            o.timeout = remaining(deadline, clk.now());
            auto op = c.create(gvr, opts.config.lease_namespace, body, o);
            r = co_await bounded(std::move(op), deadline);
        } else {
            update_options o;
            o.timeout = remaining(deadline, clk.now());
            auto op = c.update(gvr, body, o);
            r = co_await bounded(std::move(op), deadline);
        }
        if (r) co_return le::write_succeeded{clk.now(), **r};
        co_return le::request_failed{clk.now(), r.error()};
    }

    // Sleeps until `deadline` or stop(); true when stop() interrupted it.
    asio::awaitable<void> sleep(steady_time deadline) {
        if (stopping) co_return;
        auto s = clk.sleep_until(deadline);
        auto w = wake->async_wait(asio::as_tuple(asio::use_awaitable));
        auto race = std::move(s) || std::move(w);
        co_await std::move(race);
    }
};

leader_elector::leader_elector(client::client& c, io::clock& clk, leader_elector_options opts)
    : impl_(std::make_unique<impl>(c, clk, std::move(opts))) {}

leader_elector::~leader_elector() = default;

bool leader_elector::is_leader() const noexcept { return impl_->leading; }
bool leader_elector::may_write() const noexcept { return impl_->fsm.may_write(impl_->clk.now()); }
bool leader_elector::lost() const noexcept { return impl_->lost; }
bool leader_elector::released() const noexcept { return impl_->released; }
const std::string& leader_elector::observed_leader() const noexcept { return impl_->observed; }
const leader_election_config& leader_elector::config() const noexcept { return impl_->opts.config; }

void leader_elector::stop() {
    impl_->stopping = true;
    if (impl_->wake) impl_->wake->cancel();
}

asio::awaitable<void> leader_elector::run() {
    auto& s = *impl_;
    s.wake.emplace(co_await asio::this_coro::executor, asio::steady_timer::time_point::max());
    const auto& log = s.opts.log;
    log.info("attempting to acquire leader lease", {{"lease", s.opts.config.lease_namespace + "/" + s.opts.config.lease_name},
                                                    {"identity", s.opts.config.identity}});
    if (s.opts.on_status) s.opts.on_status(false);  // the gauge exists (0) on standbys

    le_action a = s.fsm.step(le::start{s.clk.now()});
    for (;;) {
        auto cs = co_await asio::this_coro::cancellation_state;
        if (cs.cancelled() != asio::cancellation_type::none) {
            s.set_leading(false);
            co_return;  // hard stop: no release
        }
        if (s.stopping && !s.shutdown_fed) {
            s.shutdown_fed = true;
            a = s.fsm.step(le::shutdown{s.clk.now(), s.clk.wall_now()});
        }
        s.observed = s.fsm.observed().holder_identity;

        le_input next = le::timer_fired{s.clk.now()};
        if (auto* g = std::get_if<le::get_lease>(&a)) {
            next = co_await s.perform_get(g->deadline);
        } else if (auto* cr = std::get_if<le::create_lease>(&a)) {
            next = co_await s.perform_write(cr->body, cr->deadline, true);
        } else if (auto* up = std::get_if<le::update_lease>(&a)) {
            next = co_await s.perform_write(up->body, up->deadline, false);
        } else if (auto* w = std::get_if<le::wait_until>(&a)) {
            co_await s.sleep(w->deadline);
            next = le::timer_fired{s.clk.now()};
        } else if (auto* st = std::get_if<le::started_leading>(&a)) {
            log.info("successfully acquired lease", {{"lease", s.opts.config.lease_name},
                                                      {"identity", s.opts.config.identity}});
            s.set_leading(true);
            if (s.opts.on_started_leading) s.opts.on_started_leading();
            co_await s.sleep(st->renew_at);
            next = le::timer_fired{s.clk.now()};
        } else if (auto* sl = std::get_if<le::stopped_leading>(&a)) {
            s.lost = true;
            s.set_leading(false);
            log.error(sl->reason, "leader election lost", {{"lease", s.opts.config.lease_name}});
            if (s.opts.on_stopped_leading) s.opts.on_stopped_leading(sl->reason);
            co_return;
        } else if (auto* f = std::get_if<le::finished>(&a)) {
            s.released = f->released;
            s.set_leading(false);
            if (f->released) log.info("released leader lease", {{"lease", s.opts.config.lease_name}});
            co_return;
        }
        if (auto* rf = std::get_if<le::request_failed>(&next)) {
            log.debug("lease request failed", {{"lease", s.opts.config.lease_name}, {"error", rf->err.message()}});
        }
        a = s.fsm.step(next);
    }
}

} // namespace kcoro::runtime
