// The leader elector: a runnable that drives `leader_election_fsm` (the pure
// rules, see leader_election_fsm.hpp) over the client on a
// coordination.k8s.io/v1 Lease.
//
//   runtime::leader_elector le(client, clock, {
//       .config = {.lease_namespace = "ops", .lease_name = "gateway-operator",
//                  .identity = make_leader_identity(host, uuid)},
//       .on_started_leading = [&] { ... start leader-gated work ... },
//       .on_stopped_leading = [&](std::string_view why) { ... stop it at once ... },
//   });
//   co_spawn(ex, le.run(), detached);     // the manager does this
//
//  - Every request (GET, POST, PUT of the Lease) is cancelled at the deadline
//    the fsm gives it, so a renew round never outlives the renew deadline.
//  - `on_started_leading` runs once, when the lease is acquired.
//    `on_stopped_leading` runs once, when leadership is lost (renew deadline
//    passed, another holder seen); the elector's run() then returns. It is not
//    called for a clean stop() (the manager stops its runnables itself).
//  - `stop()`: a shutdown input; when leading and `release_on_cancel` is set,
//    the lease is released (empty holder, leaseDurationSeconds 1) before run()
//    returns. Cancelling run()'s coroutine ends it at once without releasing.
//  - `on_status(leading)` follows leadership (the manager wires it to
//    metrics_registry::set_leader, leader_election_master_status{name}).
//
// Lifetime: client and clock outlive it; run() returned before destruction.
// Thread safety: none (the io_context's thread).
#pragma once

#include <kcoro/core/log.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/leader_election_fsm.hpp>
#include <kcoro/runtime/runnable.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_signal.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace kcoro::client {
class client;
}

namespace kcoro::runtime {

/// "<hostname>_<random uuid v4>", controller-runtime's default identity.
std::string default_leader_identity();

struct leader_elector_options {
    leader_election_config config;
    std::function<void()> on_started_leading;
    std::function<void(std::string_view reason)> on_stopped_leading;
    /// Called with true on acquiring, false on losing or releasing.
    std::function<void(bool leading)> on_status;
    logger log;
};

class leader_elector final : public runnable {
public:
    leader_elector(client::client& c, io::clock& clk, leader_elector_options opts);
    ~leader_elector() override;

    std::string_view name() const override { return "leader-election"; }
    /// Runs until leadership is lost, stop() finished (lease released if so
    /// configured), or the coroutine is cancelled.
    boost::asio::awaitable<void> run() override;
    void stop() override;
    bool needs_leader_election() const override { return false; }

    bool is_leader() const noexcept;
    /// Leading and within the local lease validity now
    /// (leader_election_fsm::may_write); false once a stall outlived it,
    /// before the elector's next timer says so.
    bool may_write() const noexcept;
    /// True once leadership was lost (as opposed to a clean stop).
    bool lost() const noexcept;
    /// True when the last shutdown released the lease.
    bool released() const noexcept;
    /// Holder identity last read from the Lease ("" when unknown).
    const std::string& observed_leader() const noexcept;
    const leader_election_config& config() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace kcoro::runtime
