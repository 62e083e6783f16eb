#include <kcoro/runtime/leader_election_fsm.hpp>

#include <algorithm>

#include <kcoro/core/object.hpp>

#include <boost/json/serialize.hpp>

#include <ostream>

namespace kcoro::runtime {

namespace {

std::int64_t whole_seconds(std::chrono::nanoseconds d) {
    return std::chrono::duration_cast<std::chrono::seconds>(d).count();
}

std::string_view string_at(const boost::json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

std::int64_t int_at(const boost::json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    if (!v) return 0;
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64());
    return 0;
}

boost::json::object spec_of(const leader_record& rec) {
    return boost::json::object{{"holderIdentity", rec.holder_identity},
                               {"leaseDurationSeconds", rec.lease_duration_seconds},
                               {"acquireTime", rec.acquire_time},
                               {"renewTime", rec.renew_time},
                               {"leaseTransitions", rec.lease_transitions}};
}

// The lease read, with the election record replacing its spec (client-go
// replaces the whole spec); metadata, and so resourceVersion, is kept.
boost::json::object with_record(boost::json::object lease, const leader_record& rec) {
    lease["apiVersion"] = "coordination.k8s.io/v1";
    lease["kind"] = "Lease";
    lease["spec"] = spec_of(rec);
    return lease;
}

} // namespace

std::string make_leader_identity(std::string_view hostname, std::string_view uuid) {
    return std::string(hostname) + "_" + std::string(uuid);
}

leader_record record_of(const boost::json::object& lease) {
    leader_record r;
    auto* spec = lease.if_contains("spec");
    if (!spec || !spec->is_object()) return r;
    auto& s = spec->get_object();
    r.holder_identity = std::string(string_at(s, "holderIdentity"));
    r.lease_duration_seconds = int_at(s, "leaseDurationSeconds");
    r.acquire_time = std::string(string_at(s, "acquireTime"));
    r.renew_time = std::string(string_at(s, "renewTime"));
    r.lease_transitions = int_at(s, "leaseTransitions");
    return r;
}

boost::json::object make_lease(const leader_election_config& cfg, const leader_record& rec) {
    boost::json::object lease{{"apiVersion", "coordination.k8s.io/v1"}, {"kind", "Lease"}};
    set_name(lease, cfg.lease_name);
    set_namespace(lease, cfg.lease_namespace);
    lease["spec"] = spec_of(rec);
    return lease;
}

namespace le {
bool operator==(const get_lease& a, const get_lease& b) { return a.deadline == b.deadline; }
bool operator==(const create_lease& a, const create_lease& b) { return a.body == b.body && a.deadline == b.deadline; }
bool operator==(const update_lease& a, const update_lease& b) { return a.body == b.body && a.deadline == b.deadline; }
bool operator==(const wait_until& a, const wait_until& b) { return a.deadline == b.deadline; }
bool operator==(const started_leading& a, const started_leading& b) { return a.renew_at == b.renew_at; }
bool operator==(const stopped_leading& a, const stopped_leading& b) { return a.reason == b.reason; }
bool operator==(const finished& a, const finished& b) { return a.released == b.released; }
} // namespace le

std::ostream& operator<<(std::ostream& os, const le_action& a) {
    auto ms = [](steady_time t) {
        return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    };
    struct visitor {
        std::ostream& os;
        decltype(ms)& at;
        void operator()(const le::get_lease& x) { os << "get_lease{deadline=" << at(x.deadline) << "ms}"; }
        void operator()(const le::create_lease& x) {
            os << "create_lease{" << boost::json::serialize(x.body) << ", deadline=" << at(x.deadline) << "ms}";
        }
        void operator()(const le::update_lease& x) {
            os << "update_lease{" << boost::json::serialize(x.body) << ", deadline=" << at(x.deadline) << "ms}";
        }
        void operator()(const le::wait_until& x) { os << "wait_until{" << at(x.deadline) << "ms}"; }
        void operator()(const le::started_leading& x) { os << "started_leading{renew_at=" << at(x.renew_at) << "ms}"; }
        void operator()(const le::stopped_leading& x) { os << "stopped_leading{" << x.reason << "}"; }
        void operator()(const le::finished& x) { os << "finished{released=" << x.released << "}"; }
    };
    std::visit(visitor{os, ms}, a);
    return os;
}

leader_election_fsm::leader_election_fsm(leader_election_config cfg) : cfg_(std::move(cfg)) {}

void leader_election_fsm::observe(const leader_record& rec, steady_time now) {
    // client-go's setObservedRecord: the time is OUR time of seeing a change.
    if (have_observed_ && rec == observed_) return;
    observed_ = rec;
    observed_time_ = now;
    have_observed_ = true;
}

le_action leader_election_fsm::step(const le_input& in) {
    return std::visit(
        [this](const auto& x) -> le_action {
            using T = std::decay_t<decltype(x)>;
            if (state_ == state::done) return le::finished{false};
            if (state_ == state::lost) return le::stopped_leading{"leadership already lost"};
            if constexpr (std::is_same_v<T, le::shutdown>) {
                return on_shutdown(x);
            } else if (state_ == state::releasing) {
                if constexpr (std::is_same_v<T, le::write_succeeded>) {
                    state_ = state::done;
                    return le::finished{true};
                } else if constexpr (std::is_same_v<T, le::request_failed>) {
                    state_ = state::done;
                    return le::finished{false};
                } else {
                    return le::finished{false};  // nothing else matters once releasing
                }
            } else if constexpr (std::is_same_v<T, le::start>) {
                if (state_ != state::idle) return le::wait_until{x.now};
                state_ = state::acquiring;
                return on_timer(x.now);
            } else if constexpr (std::is_same_v<T, le::timer_fired>) {
                if (state_ == state::idle) return le::wait_until{x.now};
                return on_timer(x.now);
            } else if constexpr (std::is_same_v<T, le::lease_read>) {
                return on_read(x);
            } else if constexpr (std::is_same_v<T, le::write_succeeded>) {
                return on_written(x);
            } else {
                static_assert(std::is_same_v<T, le::request_failed>);
                return on_failed(x.now, x.err.message());
            }
        },
        in);
}

le_action leader_election_fsm::on_timer(steady_time now) {
    if (state_ == state::leading) {
        if (!in_round_) {
            // A renew round: it must succeed within renew_deadline of its
            // start (client-go), and never outlast the lease we last wrote
            // as others see it (its renewTime may be older than our last
            // success: the client retried the write; found by the simulator).
            in_round_ = true;
            round_deadline_ = std::min(now + cfg_.renew_deadline, leading_until());
            if (round_deadline_ <= now) {
                // A stall outlived the lease as written: no round can start
                // (a request deadline in the past; found by libFuzzer).
                state_ = state::lost;
                return le::stopped_leading{"failed to renew lease within the renew deadline"};
            }
        } else if (now >= round_deadline_) {
            state_ = state::lost;
            return le::stopped_leading{"failed to renew lease within the renew deadline"};
        }
        return le::get_lease{round_deadline_};
    }
    // Acquiring: each attempt is bounded like a renew round.
    round_deadline_ = now + cfg_.renew_deadline;
    return le::get_lease{round_deadline_};
}

std::optional<le_action> leader_election_fsm::lose_if_round_expired(steady_time now) {
    // An answer that arrives at or after the renew round's deadline (the
    // driver did not cancel in time, or the process was stalled) does not
    // extend leadership: the round has failed (client-go's renew context
    // has expired by then). Found by libFuzzer (leader_election_fsm).
    if (state_ != state::leading || !in_round_ || now < round_deadline_) return std::nullopt;
    state_ = state::lost;
    return le::stopped_leading{"failed to renew lease within the renew deadline"};
}

le_action leader_election_fsm::on_read(const le::lease_read& r) {
    if (auto lost = lose_if_round_expired(r.now)) return std::move(*lost);
    leader_record next;
    next.holder_identity = cfg_.identity;
    next.lease_duration_seconds = whole_seconds(cfg_.lease_duration);
    next.acquire_time = format_rfc3339_micro(r.wall);
    next.renew_time = next.acquire_time;
    stamp_ = r.now;

    if (!r.lease) {
        // No lease: create one holding it.
        return le::create_lease{make_lease(cfg_, next), round_deadline_};
    }
    observe(record_of(*r.lease), r.now);
    last_lease_ = *r.lease;

    const bool valid = observed_time_ + std::chrono::seconds(observed_.lease_duration_seconds) > r.now;
    if (!observed_.holder_identity.empty() && valid && !observed_is_us()) {
        if (state_ == state::leading) {
            state_ = state::lost;
            return le::stopped_leading{"lease is held by " + observed_.holder_identity};
        }
        return le::wait_until{r.now + cfg_.retry_period};
    }
    if (observed_is_us()) {
        next.acquire_time = observed_.acquire_time;
        next.lease_transitions = observed_.lease_transitions;
    } else {
        next.lease_transitions = observed_.lease_transitions + 1;
    }
    return le::update_lease{with_record(*r.lease, next), round_deadline_};
}

le_action leader_election_fsm::on_written(const le::write_succeeded& w) {
    if (auto lost = lose_if_round_expired(w.now)) return std::move(*lost);
    observe(record_of(w.lease), w.now);
    last_lease_ = w.lease;
    in_round_ = false;
    valid_until_ = round_deadline_;  // the succeeded round's start + renew_deadline
    renewed_at_ = stamp_;
    if (state_ == state::acquiring) {
        state_ = state::leading;
        return le::started_leading{w.now + cfg_.retry_period};
    }
    return le::wait_until{w.now + cfg_.retry_period};
}

le_action leader_election_fsm::on_failed(steady_time now, std::string why) {
    if (state_ == state::leading) {
        // No further attempt fits before the deadline: stop now rather than
        // lead on without a renewed lease.
        if (now + cfg_.retry_period >= round_deadline_) {
            state_ = state::lost;
            return le::stopped_leading{"failed to renew lease within the renew deadline: " + why};
        }
    }
    return le::wait_until{now + cfg_.retry_period};
}

le_action leader_election_fsm::on_shutdown(const le::shutdown& s) {
    if (state_ == state::leading && cfg_.release_on_cancel && last_lease_) {
        state_ = state::releasing;
        leader_record rel;
        rel.lease_duration_seconds = 1;
        rel.acquire_time = format_rfc3339_micro(s.wall);
        rel.renew_time = rel.acquire_time;
        rel.lease_transitions = observed_.lease_transitions;
        return le::update_lease{with_record(*last_lease_, rel), s.now + cfg_.renew_deadline};
    }
    state_ = state::done;
    return le::finished{false};
}

} // namespace kcoro::runtime
