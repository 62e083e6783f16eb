// Leader election on a coordination.k8s.io/v1 Lease, client-go's rules
// (tools/leaderelection) as a pure state machine: `step(input) -> action`,
// time passed in, no I/O. A thin driver performs the action (GET, POST or PUT
// of the Lease, a sleep) and feeds the outcome back.
//
// Rules (defaults: lease 15 s, renew deadline 10 s, retry period 2 s):
//  - Acquire: GET the lease. Absent: create it holding it. Held by another
//    holder whose lease has not expired: wait a retry period. Expiry is
//    judged by OUR clock: the time we last saw the record change plus its
//    leaseDurationSeconds, never the other's renewTime. Expired or empty
//    holder: take over with a PUT, leaseTransitions + 1.
//  - Renew: every retry period, GET then PUT renewTime (acquireTime and
//    leaseTransitions kept). A renew round that has not succeeded within the
//    renew deadline of its start loses leadership; requests carry that
//    deadline so the driver cancels them in time, and an answer that
//    arrives at or after it loses leadership too.
//  - Conflicts (409) and other failures: the next attempt, a retry period
//    later, re-reads the lease.
//  - Stricter than client-go: a renew that reads another live holder stops
//    leading at once instead of retrying until the deadline.
//  - Shutdown: when leading and release_on_cancel is set, PUT the lease with
//    an empty holderIdentity and leaseDurationSeconds 1 (client-go's
//    ReleaseOnCancel), then finish.
//
// Thread safety: a value used by one driver.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/time.hpp>

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace kcoro::runtime {

struct leader_election_config {
    std::string lease_namespace;
    std::string lease_name;
    std::string identity;  // make_leader_identity(hostname, uuid)
    std::chrono::nanoseconds lease_duration = std::chrono::seconds(15);
    std::chrono::nanoseconds renew_deadline = std::chrono::seconds(10);
    std::chrono::nanoseconds retry_period = std::chrono::seconds(2);
    bool release_on_cancel = false;
};

/// controller-runtime's identity: "<hostname>_<uuid>".
std::string make_leader_identity(std::string_view hostname, std::string_view uuid);

/// The election record held in a Lease's spec.
struct leader_record {
    std::string holder_identity;
    std::int64_t lease_duration_seconds = 0;
    std::string acquire_time;  // MicroTime text, as read
    std::string renew_time;
    std::int64_t lease_transitions = 0;
    friend bool operator==(const leader_record&, const leader_record&) = default;
};

/// Reads the record of a Lease object (missing fields read as empty/0).
leader_record record_of(const boost::json::object& lease);

/// A Lease object holding `rec` (name and namespace from the config).
boost::json::object make_lease(const leader_election_config& cfg, const leader_record& rec);

namespace le {
// --- inputs ---------------------------------------------------------------
struct start { steady_time now; };
struct timer_fired { steady_time now; };
/// The GET answered: the lease, or nullopt for 404.
struct lease_read { steady_time now; wall_time wall; std::optional<boost::json::object> lease; };
/// A create or update succeeded; `lease` is the server's answer.
struct write_succeeded { steady_time now; boost::json::object lease; };
/// A GET, create or update failed (409, timeout, transport...).
struct request_failed { steady_time now; error err; };
/// The manager is stopping.
struct shutdown { steady_time now; wall_time wall; };

// --- actions --------------------------------------------------------------
/// GET the lease; cancel the request at `deadline`.
struct get_lease { steady_time deadline; };
/// POST this Lease.
struct create_lease { boost::json::object body; steady_time deadline; };
/// PUT this Lease (it carries the resourceVersion read).
struct update_lease { boost::json::object body; steady_time deadline; };
/// Sleep until `deadline`, then feed timer_fired.
struct wait_until { steady_time deadline; };
/// We now lead: start the leader-gated work, then sleep until `renew_at`
/// and feed timer_fired.
struct started_leading { steady_time renew_at; };
/// Leadership lost: stop all leader-gated work at once (terminal).
struct stopped_leading { std::string reason; };
/// Shutdown finished (terminal); `released` tells whether the lease was given up.
struct finished { bool released; };

bool operator==(const get_lease&, const get_lease&);
bool operator==(const create_lease&, const create_lease&);
bool operator==(const update_lease&, const update_lease&);
bool operator==(const wait_until&, const wait_until&);
bool operator==(const started_leading&, const started_leading&);
bool operator==(const stopped_leading&, const stopped_leading&);
bool operator==(const finished&, const finished&);
} // namespace le

using le_input = std::variant<le::start, le::timer_fired, le::lease_read, le::write_succeeded, le::request_failed,
                              le::shutdown>;
using le_action = std::variant<le::get_lease, le::create_lease, le::update_lease, le::wait_until,
                               le::started_leading, le::stopped_leading, le::finished>;

std::ostream& operator<<(std::ostream& os, const le_action& a);

class leader_election_fsm {
public:
    enum class state { idle, acquiring, leading, releasing, lost, done };

    explicit leader_election_fsm(leader_election_config cfg);

    le_action step(const le_input& in);

    state current() const noexcept { return state_; }
    bool is_leader() const noexcept { return state_ == state::leading; }
    /// Leading, and `now` before the local lease validity: the deadline of
    /// the renew round (or acquisition) that last succeeded, i.e. its start
    /// plus renew_deadline. Another candidate can take over no earlier than
    /// lease_duration after that round wrote, so a write allowed here cannot
    /// race a new leader (with renew_deadline < lease_duration to spare for
    /// clock drift). A process that was paused (SIGSTOP, a GC-like stall)
    /// still thinks it leads until its next timer: this is what catches it.
    bool may_write(steady_time now) const noexcept { return is_leader() && now < valid_until_; }
    steady_time valid_until() const noexcept { return valid_until_; }
    /// While leading: when the lease we last wrote stops being ours to use
    /// (the renewTime others read + renew_deadline + retry_period, always
    /// before renewTime + lease_duration); no renew round lasts past it.
    steady_time leading_until() const noexcept { return renewed_at_ + cfg_.renew_deadline + cfg_.retry_period; }
    const leader_record& observed() const noexcept { return observed_; }
    const leader_election_config& config() const noexcept { return cfg_; }

private:
    le_action on_read(const le::lease_read& r);
    le_action on_written(const le::write_succeeded& w);
    le_action on_failed(steady_time now, std::string why);
    le_action on_timer(steady_time now);
    le_action on_shutdown(const le::shutdown& s);
    std::optional<le_action> lose_if_round_expired(steady_time now);
    void observe(const leader_record& rec, steady_time now);
    bool observed_is_us() const noexcept { return observed_.holder_identity == cfg_.identity; }

    leader_election_config cfg_;
    state state_ = state::idle;
    leader_record observed_;
    bool have_observed_ = false;
    steady_time observed_time_{};
    std::optional<boost::json::object> last_lease_;  // last lease read or written (carries resourceVersion)
    steady_time round_deadline_{};                    // of the current attempt / renew round
    bool in_round_ = false;
    steady_time valid_until_{};                        // may_write's bound
    // When the renewTime of the body being written / last written was taken:
    // a write retried by the client (429 Retry-After) commits a renewTime
    // older than its answer, and others count from that renewTime.
    steady_time stamp_{};
    steady_time renewed_at_{};
};

} // namespace kcoro::runtime
