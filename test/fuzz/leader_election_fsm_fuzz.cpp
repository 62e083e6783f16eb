// Fuzz target: the leader election state machine against a model API server
// and a second candidate, under any timing (each byte picks how the driver
// answers the last action and how late: answers may arrive after the
// deadline the fsm asked for, as from a stalled process). Properties:
//  - stopped_leading and finished are terminal;
//  - the documented renew rule: while leading, a step at or after the
//    deadline of the renew round in progress stops leading;
//  - every write holds our identity (empty only when releasing), carries the
//    resourceVersion last read, and asks for a deadline of its own round;
//  - a lease we created or updated is one the fsm reports as observed;
//  - waits and deadlines are never before the input's time.
#include <kcoro/runtime/leader_election_fsm.hpp>

#include <kcoro/core/object.hpp>

#include <boost/json/serialize.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

namespace {

using namespace kcoro;
using namespace kcoro::runtime;
using namespace std::chrono_literals;

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "property violated: %s\n", what);
        std::abort();
    }
}

struct reader {
    const std::uint8_t* p;
    std::size_t n;
    bool empty() const { return n == 0; }
    std::uint8_t next() {
        if (n == 0) return 0;
        --n;
        return *p++;
    }
};

// The API server's copy of the lease: the object and its revision.
struct server {
    std::optional<boost::json::object> lease;
    std::uint64_t rv = 0;

    boost::json::object store(boost::json::object body) {
        mutable_metadata(body)["resourceVersion"] = std::to_string(++rv);
        lease = body;
        return body;
    }
    std::string current_rv() const { return lease ? std::string(resource_version_of(*lease)) : std::string(); }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    reader in{data, size};
    leader_election_config cfg;
    cfg.lease_namespace = "ops";
    cfg.lease_name = "lock";
    cfg.identity = "me_1";
    cfg.release_on_cancel = in.next() & 1;
    leader_election_fsm fsm(cfg);
    server api;
    steady_time now = steady_time{} + 1000s;
    const wall_time wall0 = wall_time{} + 1'800'000'000s;
    auto wall = [&] { return wall0 + (now - (steady_time{} + 1000s)); };

    std::optional<std::string> known_rv;  // resourceVersion of the lease last read or written
    steady_time round_deadline = steady_time::max();  // of the renew round in progress (max: none)
    bool leading = false;
    bool releasing = false;

    le_action action = fsm.step(le::start{now});
    for (int steps = 0; steps < 400 && !in.empty(); ++steps) {
        const std::uint8_t b = in.next();
        // Some answers come late: up to 25.5 s after they were due.
        const auto late = std::chrono::milliseconds(100 * (b >> 4 == 0xf ? in.next() : 0));
        const bool fail = (b & 3) == 3;
        // The other candidate sometimes writes the lease first.
        if ((b & 0x0c) == 0x0c && in.next() < 64) {
            leader_record other{"other_2", 15, format_rfc3339_micro(wall()), format_rfc3339_micro(wall()), 7};
            api.store(make_lease(cfg, other));
        }
        std::optional<le_input> next;
        if (const auto* g = std::get_if<le::get_lease>(&action)) {
            check(g->deadline >= now, "a request deadline in the past");
            now += std::chrono::milliseconds(in.next() * 20) + late;
            if (fail) {
                next = le::request_failed{now, error(kcoro_errc::deadline_exceeded, "timeout")};
            } else {
                next = le::lease_read{now, wall(), api.lease};
            }
        } else if (const auto* c = std::get_if<le::create_lease>(&action)) {
            check(record_of(c->body).holder_identity == cfg.identity, "create holds another identity");
            now += std::chrono::milliseconds(in.next() * 20) + late;
            if (fail || api.lease) {
                next = le::request_failed{now, error(api_errc::already_exists)};
            } else {
                next = le::write_succeeded{now, api.store(c->body)};
            }
        } else if (const auto* u = std::get_if<le::update_lease>(&action)) {
            const auto rec = record_of(u->body);
            if (releasing) {
                check(rec.holder_identity.empty(), "a release that keeps a holder");
            } else {
                check(rec.holder_identity == cfg.identity, "update holds another identity");
            }
            check(known_rv && resource_version_of(u->body) == *known_rv, "update without the resourceVersion read");
            now += std::chrono::milliseconds(in.next() * 20) + late;
            if (fail || !api.lease || api.current_rv() != resource_version_of(u->body)) {
                next = le::request_failed{now, error(api_errc::conflict)};
            } else {
                next = le::write_succeeded{now, api.store(u->body)};
            }
        } else if (const auto* w = std::get_if<le::wait_until>(&action)) {
            now = std::max(now, w->deadline) + late;
            next = le::timer_fired{now};
        } else if (const auto* s = std::get_if<le::started_leading>(&action)) {
            check(s->renew_at >= now, "a renew in the past");
            now = std::max(now, s->renew_at) + late;
            next = le::timer_fired{now};
        } else {
            // stopped_leading or finished: terminal.
            const auto state = fsm.current();
            check(state == leader_election_fsm::state::lost || state == leader_election_fsm::state::done,
                  "a terminal action from a live state");
            auto again = fsm.step(le::timer_fired{now + 1s});
            check(again.index() == action.index(), "a terminal state moved");
            return 0;
        }
        if ((b & 0xf0) == 0x80) {
            next = le::shutdown{now, wall()};
            releasing = leading && cfg.release_on_cancel;
        }

        const bool was_leading = fsm.is_leader();
        action = fsm.step(*next);
        leading = fsm.is_leader();
        if (was_leading && leading && now >= round_deadline) {
            check(false, "still leading at or past the renew round's deadline");
        }
        if (const auto* g = std::get_if<le::get_lease>(&action)) {
            if (leading) round_deadline = g->deadline;
        }
        if (const auto* r = std::get_if<le::lease_read>(&*next); r && r->lease) {
            known_rv = std::string(resource_version_of(*r->lease));
        }
        if (const auto* w = std::get_if<le::write_succeeded>(&*next)) {
            known_rv = std::string(resource_version_of(w->lease));
            if (fsm.current() != leader_election_fsm::state::done && fsm.current() != leader_election_fsm::state::lost) {
                check(fsm.observed() == record_of(w->lease), "the lease written is not the one observed");
            }
            round_deadline = steady_time::max();  // the round succeeded
        }
        if (const auto* w = std::get_if<le::wait_until>(&action)) check(w->deadline >= now, "a wait in the past");
    }
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput); }
#endif
