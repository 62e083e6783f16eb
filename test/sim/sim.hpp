// The deterministic simulation (docs/testing.md, "Simulation"):
// kcoro-apiserver, controller managers, a user and a fault injector on one
// io_context and one manual clock, every choice drawn from one seeded PRNG,
// no sockets (client::memory_transport). Two worlds: gateway-operator
// (operator_world.cpp) and configmap-mirror (mirror_world.cpp), on the same
// machinery (world.hpp). One run_seed() is one world, from an empty store
// to teardown:
//
//   chaos     user actions and faults for `chaos` of virtual time;
//   converge  faults and user stop; every object must converge within
//             `converge_bound`;
//   quiet     nothing happens for `quiet` (but the world's nudges, events
//             that must cause no write): the managers must write nothing.
//
// Safety invariants are checked at every settled point (no handler ready)
// and on every request; a violation is recorded with the virtual time, and
// the run goes on to the end (the trace shows what followed).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace kcoro::sim {

enum class world_kind { gateway_operator, configmap_mirror };

struct sim_options {
    world_kind world = world_kind::gateway_operator;
    std::uint64_t seed = 1;
    bool print_trace = false;
    /// Manager replicas (leader election on; the mirror world's only with two or more).
    int replicas = 2;
    std::chrono::seconds chaos{std::chrono::minutes(20)};
    std::chrono::seconds converge_bound{std::chrono::minutes(10)};
    std::chrono::seconds quiet{std::chrono::minutes(30)};
    /// Where deploy/crd lives (the CRD is created from its YAML).
    std::string source_dir;
    /// Defects to switch on (gateway::defect or mirror_defect bits of
    /// defective_mirror.hpp, by world), for the proof that the simulator
    /// catches them.
    unsigned defects = 0;
    /// Also inject writes answered after the client's deadline (the server
    /// commits after the client gave up).
    bool late_writes = true;
    /// The defect of every world: the managers run without the leader write
    /// guard (a leader keeps writing after its lease could be taken; sharded,
    /// a replica keeps writing after its shard Lease expired).
    bool no_write_guard = false;
    /// Sharded (--sharding-ring, docs/sharding.md): `replicas` (3 to 5)
    /// members of one ring and no leader election; faults add clean
    /// removals and additions (the ring stays between 3 and 5 members), and
    /// the invariant is shard safety: no hash held by two replicas at once,
    /// every write of a replica inside its share and its shard Lease.
    bool sharded = false;
    /// The defect of the sharded worlds: a replica takes up a range without
    /// waiting for its previous holder's release (each replica reads the
    /// others' shard Leases as claiming nothing and acking everything).
    bool handover_without_release = false;
};

struct sim_result {
    std::vector<std::string> violations;
    std::uint64_t trace_hash = 0;
    std::uint64_t trace_lines = 0;
    std::uint64_t requests = 0;
    std::uint64_t faults = 0;
    /// Writes the leader write guard refused.
    std::uint64_t guard_refusals = 0;
    std::uint64_t handlers = 0;
    std::chrono::nanoseconds virtual_time{0};
    bool ok() const noexcept { return violations.empty(); }
};

sim_result run_seed(const sim_options& opts);

} // namespace kcoro::sim
