#include <kcoro/runtime/shard_membership_fsm.hpp>

#include <kcoro/core/object.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <charconv>
#include <limits>
#include <ostream>

namespace kcoro::runtime {

namespace {

template <class... F>
struct overloaded : F... {
    using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

std::optional<std::uint64_t> parse_hex(std::string_view s) {
    if (s.size() != 18 || s.substr(0, 2) != "0x") return std::nullopt;
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

// KEP-5866 bounds [start, end) -> an inclusive range.
std::optional<hash_range> parse_bounds(std::string_view start, std::string_view end) {
    auto first = parse_hex(start);
    if (!first) return std::nullopt;
    if (end == "0x10000000000000000") return hash_range{*first, std::numeric_limits<std::uint64_t>::max()};
    auto e = parse_hex(end);
    if (!e || *e <= *first) return std::nullopt;
    return hash_range{*first, *e - 1};
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

std::optional<std::uint64_t> uint_of(const boost::json::value& v) {
    if (v.is_uint64()) return v.get_uint64();
    if (v.is_int64() && v.get_int64() >= 0) return static_cast<std::uint64_t>(v.get_int64());
    return std::nullopt;
}

} // namespace

std::string to_annotation(const shard_announcement& a) {
    boost::json::array view;
    for (const auto& m : a.view) view.emplace_back(m);
    boost::json::array claimed;
    for (const auto& r : a.claimed) claimed.emplace_back(boost::json::array{hash_hex(r.first), end_hex(r)});
    boost::json::object acks;
    for (const auto& [m, g] : a.acks) acks[m] = g;
    return boost::json::serialize(boost::json::object{
        {"gen", a.generation}, {"view", std::move(view)}, {"claimed", std::move(claimed)}, {"acks", std::move(acks)}});
}

std::optional<shard_announcement> parse_announcement(std::string_view text) {
    boost::system::error_code ec;
    auto v = boost::json::parse(text, ec);
    if (ec || !v.is_object()) return std::nullopt;
    const auto& o = v.get_object();
    shard_announcement a;
    auto* gen = o.if_contains("gen");
    auto g = gen ? uint_of(*gen) : std::nullopt;
    if (!g) return std::nullopt;
    a.generation = *g;
    if (auto* view = o.if_contains("view"); view && view->is_array()) {
        for (const auto& m : view->get_array()) {
            if (!m.is_string()) return std::nullopt;
            a.view.emplace_back(m.get_string());
        }
    }
    auto* claimed = o.if_contains("claimed");
    if (!claimed || !claimed->is_array()) return std::nullopt;
    for (const auto& r : claimed->get_array()) {
        if (!r.is_array() || r.get_array().size() != 2 || !r.get_array()[0].is_string() ||
            !r.get_array()[1].is_string())
            return std::nullopt;
        auto range = parse_bounds(r.get_array()[0].get_string(), r.get_array()[1].get_string());
        if (!range) return std::nullopt;
        a.claimed.push_back(*range);
    }
    a.claimed = normalize(std::move(a.claimed));
    if (auto* acks = o.if_contains("acks"); acks && acks->is_object()) {
        for (const auto& [m, gv] : acks->get_object()) {
            auto ag = uint_of(gv);
            if (!ag) return std::nullopt;
            a.acks[std::string(m)] = *ag;
        }
    }
    return a;
}

shard_lease shard_lease_of(const boost::json::object& lease) {
    shard_lease l;
    l.resource_version = std::string(resource_version_of(lease));
    if (auto* spec = lease.if_contains("spec"); spec && spec->is_object()) {
        const auto& s = spec->get_object();
        l.holder = std::string(string_at(s, "holderIdentity"));
        l.lease_duration_seconds = int_at(s, "leaseDurationSeconds");
        l.renew_time = std::string(string_at(s, "renewTime"));
    }
    if (auto text = annotation_of(lease, shard_state_annotation)) l.announcement = parse_announcement(*text);
    return l;
}

std::ostream& operator<<(std::ostream& os, const shard_actions& a) {
    os << "shard_actions{";
    if (!a.drop.empty()) os << "drop=" << a.drop.size() << " ranges, ";
    if (a.write) {
        os << (a.release ? "release " : "write ") << to_annotation(*a.write) << " until "
           << std::chrono::duration_cast<std::chrono::milliseconds>(a.write_deadline.time_since_epoch()).count()
           << "ms, ";
    }
    for (const auto& r : a.reap) os << "reap " << r.holder << "@" << r.resource_version << ", ";
    if (a.list_leases) os << "list_leases, ";
    if (a.active_changed) os << "active_changed, ";
    if (a.wake_at) {
        os << "wake_at="
           << std::chrono::duration_cast<std::chrono::milliseconds>(a.wake_at->time_since_epoch()).count() << "ms, ";
    }
    if (a.stopped) os << "stopped: " << a.reason;
    return os << "}";
}

shard_membership_fsm::shard_membership_fsm(shard_membership_config cfg) : cfg_(std::move(cfg)) {}

shard_actions shard_membership_fsm::step(const sm_input& in) {
    shard_actions out;
    if (state_ == state::stopped) {
        out.stopped = true;
        out.reason = "stopped";
        return out;
    }
    const steady_time now = std::visit([](const auto& x) { return x.now; }, in);
    std::visit(overloaded{
                   [&](const sm::start&) {
                       if (state_ == state::idle) state_ = state::joining;
                   },
                   [&](const sm::tick&) {},
                   [&](const sm::leases_observed& o) { observe(o, out); },
                   [&](const sm::lease_written&) {
                       if (!pending_) return;
                       announced_ = *pending_;
                       pending_.reset();
                       // The round's start, not its end: others count from
                       // the renewTime stamped no earlier than it.
                       valid_until_ = std::max(valid_until_, write_started_ + cfg_.renew_deadline);
                       next_write_at_ = write_started_ + cfg_.retry_period;
                       backoff_ = false;
                       if (pending_release_) {
                           stop("left the ring", out);
                           return;
                       }
                       if (!written_once_) {
                           written_once_ = true;
                           if (state_ == state::joining) state_ = state::running;
                           // Our Lease is now visible: a consistent list from
                           // here on sees every member that could not see us.
                           // Asked join_settle later (evaluate), so replicas
                           // starting with us are seen too.
                           settle_at_ = write_started_ + cfg_.join_settle;
                       }
                   },
                   [&](const sm::lease_write_failed&) {
                       pending_.reset();
                       pending_release_ = false;
                       next_write_at_ = now + cfg_.retry_period;
                       backoff_ = true;
                   },
                   [&](const sm::lease_lost&) {
                       pending_.reset();
                       // Leaving with nothing held, it is our own release
                       // whose answer was lost.
                       const bool left = state_ == state::leaving && active_.empty() && draining_.empty();
                       stop(left ? "left the ring" : "shard lease taken from us", out);
                   },
                   [&](const sm::drained& d) { draining_ = subtract(draining_, normalize(d.ranges)); },
                   [&](const sm::reaped& r) {
                       reaping_.erase(r.holder);
                       peers_.erase(r.holder);
                       gone_.insert(r.holder);
                   },
                   [&](const sm::reap_failed&) {
                       // It renewed, or another member reaped it: read again
                       // (no second reap before the list answered).
                       list_asked_ = true;
                       out.list_leases = true;
                   },
                   [&](const sm::shutdown&) {
                       if (state_ == state::idle) {
                           stop("left before joining", out);
                       } else {
                           state_ = state::leaving;
                       }
                   },
               },
               in);
    if (state_ != state::stopped) evaluate(now, out);
    return out;
}

void shard_membership_fsm::observe(const sm::leases_observed& o, shard_actions&) {
    if (o.fresh && list_asked_) {
        // A list asked for another reason (a failed reap) before the settle
        // admits nobody: the settle's own list follows.
        if (written_once_ && o.now >= settle_at_) have_fresh_ = true;
        list_asked_ = false;
    }
    if (o.fresh) reaping_.clear();  // a failed reap may be tried again on what the list shows
    std::map<std::string_view, const shard_lease*> held;
    for (const auto& l : o.leases) {
        if (!l.holder.empty()) held[l.holder] = &l;
    }
    // A member we knew whose Lease no longer names it was released, reaped
    // or deleted (the cache only moves forward): it never comes back.
    for (auto it = peers_.begin(); it != peers_.end();) {
        if (!held.contains(it->first)) {
            gone_.insert(it->first);
            reaping_.erase(it->first);
            it = peers_.erase(it);
        } else {
            ++it;
        }
    }
    for (const auto& [holder, lease] : held) {
        if (holder == cfg_.identity || gone_.contains(holder)) continue;
        auto it = peers_.find(holder);
        if (it == peers_.end()) {
            peers_.emplace(std::string(holder), peer{*lease, o.now});
        } else if (!(it->second.lease == *lease)) {
            // client-go's rule: expiry counts from OUR time of seeing a change.
            it->second = peer{*lease, o.now};
        }
    }
}

bool shard_membership_fsm::expired(const peer& p, steady_time now) const noexcept {
    return now >= p.changed_at + std::chrono::seconds(p.lease.lease_duration_seconds);
}

shard_announcement shard_membership_fsm::current_announcement() const {
    return shard_announcement{gen_, view_, claimed_, acks_};
}

void shard_membership_fsm::stop(std::string reason, shard_actions& out) {
    out.drop = unite(active_, draining_);
    out.active_changed = !active_.empty();
    active_.clear();
    draining_.clear();
    state_ = state::stopped;
    out.stopped = true;
    out.reason = std::move(reason);
    out.wake_at.reset();
}

void shard_membership_fsm::evaluate(steady_time now, shard_actions& out) {
    if (state_ == state::idle) return;  // observations before start are kept, nothing more
    if (written_once_ && now >= valid_until_) {
        // Leaving with nothing held, the release's answer was lost (or the
        // retry met our own release): we are out all the same.
        const bool left = state_ == state::leaving && active_.empty() && draining_.empty();
        stop(left ? "left the ring (release not confirmed)" : "shard lease not renewed within the renew deadline", out);
        return;
    }
    if (state_ == state::running && !have_fresh_ && !list_asked_ && now >= settle_at_) {
        list_asked_ = true;
        out.list_leases = true;
    }
    const bool member = state_ == state::running && have_fresh_;

    // The ring of the live members; expired ones are reaped, and block
    // activations (below) until the reap succeeded.
    std::vector<std::string> view{cfg_.identity};
    for (const auto& [id, p] : peers_) {
        if (!expired(p, now)) {
            view.push_back(id);
        } else if (!reaping_.contains(id)) {
            reaping_.insert(id);
            out.reap.push_back({id, p.lease.resource_version});
        }
    }
    std::sort(view.begin(), view.end());
    if (view != view_) {
        view_ = std::move(view);
        share_ = shard_ring(view_, cfg_.virtual_nodes).ranges_of(cfg_.identity);
    }
    const hash_ranges intent = member ? share_ : hash_ranges{};

    // Stop at once what we no longer want; it stays claimed until drained.
    if (auto dropped = subtract(active_, intent); !dropped.empty()) {
        active_ = intersect(active_, intent);
        draining_ = unite(draining_, dropped);
        out.drop = unite(out.drop, dropped);
        out.active_changed = true;
    }
    const hash_ranges held = unite(active_, draining_);
    if (auto claimed = unite(intent, held); claimed != claimed_) {
        claimed_ = std::move(claimed);
        ++gen_;
    }

    // Ack a member's claim only when nothing we hold lies in it. Once acked,
    // we never activate into it: activations skip every observed claim.
    std::map<std::string, std::uint64_t> acks;
    for (const auto& [id, p] : peers_) {
        if (!p.lease.announcement) continue;
        if (!overlaps(held, p.lease.announcement->claimed)) {
            acks[id] = p.lease.announcement->generation;
        } else if (auto old = acks_.find(id); old != acks_.end()) {
            acks[id] = old->second;
        }
    }
    acks_ = std::move(acks);

    // Activate what we want once our claim is written and every other member
    // (expired ones included, until reaped) acked it, except what any of
    // them still claims.
    if (member && announced_.generation == gen_ && now < valid_until_) {
        bool acked = true;
        hash_ranges others;
        for (const auto& [id, p] : peers_) {
            const auto& a = p.lease.announcement;
            if (!a) {
                acked = false;
                break;
            }
            auto ack = a->acks.find(cfg_.identity);
            if (ack == a->acks.end() || ack->second != gen_) {
                acked = false;
                break;
            }
            others = unite(others, a->claimed);
        }
        if (acked) {
            auto gained = subtract(subtract(subtract(intent, active_), draining_), others);
            if (!gained.empty()) {
                active_ = unite(active_, gained);
                out.active_changed = true;
            }
        }
    }

    // Write our Lease: when the announcement changed, or to renew it.
    if (!pending_) {
        const bool release = state_ == state::leaving && active_.empty() && draining_.empty();
        auto ann = current_announcement();
        const bool changed = !written_once_ || !(ann == announced_) || release;
        // After a failure, wait a retry period even for a change.
        if ((changed && !backoff_) || now >= next_write_at_) {
            pending_ = ann;
            pending_release_ = release;
            write_started_ = now;
            out.write = std::move(ann);
            out.release = release;
            out.write_deadline = now + cfg_.renew_deadline;
        }
    }

    // When to look again: the next renewal, the end of our validity, the
    // expiry of a member we see live.
    std::optional<steady_time> wake;
    auto earliest = [&](steady_time t) {
        if (!wake || t < *wake) wake = t;
    };
    if (!pending_) earliest(std::max(next_write_at_, now));
    if (written_once_) earliest(valid_until_);
    if (state_ == state::running && !have_fresh_ && !list_asked_) earliest(settle_at_);
    for (const auto& [id, p] : peers_) {
        if (!expired(p, now)) earliest(p.changed_at + std::chrono::seconds(p.lease.lease_duration_seconds));
    }
    out.wake_at = wake;
}

} // namespace kcoro::runtime
