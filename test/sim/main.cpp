// kcoro-sim: runs seeds of the deterministic simulation (sim.hpp).
//
//   kcoro-sim --seed N [--trace]          one seed (the replay of a failure)
//   kcoro-sim --seeds N [--first S]       seeds S..S+N-1 (default S = 1)
//   kcoro-sim --seed N --repeat 2         the same seed twice: the traces must hash equal
//   --world operator|mirror               gateway-operator (default) or configmap-mirror
//   --defect NAME                         switch on a defect of the world's controller (see --help)
//   --expect-violation                    succeed only if some seed breaks an invariant
//                                         (stops at the first; the defect proofs)
//   --chaos SECONDS --replicas N          shape of each run
//   --sharded                             the replicas form a sharding ring (--sharding-ring;
//                                         3 replicas unless --replicas says 3-5)
//   --no-late-writes                      no writes that commit after their client gave up
//
// Exit code: 0 when every seed held every invariant, 1 otherwise (each
// failing seed prints its violations and the command that replays it).
#include "sim.hpp"

#include "defective_mirror.hpp"
#include "reconciler.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>

namespace {

using kcoro::sim::world_kind;

struct defect_name {
    world_kind world;
    const char* name;
    unsigned bit;
};
// The defect of every world: the managers run without the leader write guard.
constexpr const char* no_write_guard = "no-write-guard";
// The defect of the sharded worlds: ranges taken up before their release.
constexpr const char* handover_without_release = "handover-without-release";

constexpr defect_name defect_names[] = {
    {world_kind::gateway_operator, "registration-before-finalizer", gateway::defect_registration_before_finalizer},
    {world_kind::gateway_operator, "status-every-pass", gateway::defect_status_every_pass},
    {world_kind::gateway_operator, "no-uid-check", gateway::defect_no_uid_check},
    {world_kind::gateway_operator, "already-exists-is-failure", gateway::defect_already_exists_is_failure},
    {world_kind::configmap_mirror, "write-every-pass", kcoro::sim::mirror_defect_write_every_pass},
    {world_kind::configmap_mirror, "adopt-on-already-exists", kcoro::sim::mirror_defect_adopt_on_already_exists},
};

const char* world_name(world_kind w) { return w == world_kind::configmap_mirror ? "mirror" : "operator"; }

int usage(const char* argv0) {
    std::fprintf(stderr,
                 "usage: %s [--world operator|mirror] [--seed N | --seeds N [--first S]] [--trace] [--repeat K]\n"
                 "          [--defect NAME] [--chaos SECONDS] [--replicas N] [--sharded] [--source-dir DIR]\n"
                 "          [--no-late-writes]\n",
                 argv0);
    for (auto w : {world_kind::gateway_operator, world_kind::configmap_mirror}) {
        std::fprintf(stderr, "defects of --world %s:", world_name(w));
        for (const auto& d : defect_names) {
            if (d.world == w) std::fprintf(stderr, " %s", d.name);
        }
        std::fprintf(stderr, " %s, with --sharded: %s\n", no_write_guard, handover_without_release);
    }
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    kcoro::sim::sim_options base;
    base.source_dir = KCORO_SOURCE_DIR;
    std::uint64_t first = 1;
    std::uint64_t count = 1;
    int repeat = 1;
    bool expect_violation = false;
    std::string defect_arg;
    std::string shape_args;  // for the replay command
    bool replicas_given = false;
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        auto value = [&]() -> const char* {
            if (i + 1 >= argc) {
                std::exit(usage(argv[0]));
            }
            return argv[++i];
        };
        if (a == "--world") {
            std::string_view w = value();
            if (w == "operator") base.world = world_kind::gateway_operator;
            else if (w == "mirror") base.world = world_kind::configmap_mirror;
            else return usage(argv[0]);
        } else if (a == "--seed") {
            first = std::strtoull(value(), nullptr, 10);
            count = 1;
        } else if (a == "--seeds") {
            count = std::strtoull(value(), nullptr, 10);
        } else if (a == "--first") {
            first = std::strtoull(value(), nullptr, 10);
        } else if (a == "--expect-violation") {
            expect_violation = true;
        } else if (a == "--no-late-writes") {
            base.late_writes = false;
            shape_args += " --no-late-writes";
        } else if (a == "--trace") {
            base.print_trace = true;
        } else if (a == "--repeat") {
            repeat = std::atoi(value());
        } else if (a == "--chaos") {
            base.chaos = std::chrono::seconds(std::atoll(value()));
            shape_args += " --chaos " + std::to_string(base.chaos.count());
        } else if (a == "--replicas") {
            base.replicas = std::atoi(value());
            replicas_given = true;
            shape_args += " --replicas " + std::to_string(base.replicas);
        } else if (a == "--sharded") {
            base.sharded = true;
            shape_args += " --sharded";
        } else if (a == "--source-dir") {
            base.source_dir = value();
        } else if (a == "--defect") {
            defect_arg = value();
        } else {
            return usage(argv[0]);
        }
    }
    if (!defect_arg.empty()) {
        // After the loop: --world may come after --defect.
        bool found = defect_arg == no_write_guard;
        base.no_write_guard = found;
        if (defect_arg == handover_without_release) {
            if (!base.sharded) return usage(argv[0]);
            base.handover_without_release = found = true;
        }
        for (const auto& d : defect_names) {
            if (d.world == base.world && defect_arg == d.name) {
                base.defects |= d.bit;
                found = true;
            }
        }
        if (!found) return usage(argv[0]);
    }
    if (base.sharded) {
        if (!replicas_given) base.replicas = 3;
        if (base.replicas < 3 || base.replicas > 5) return usage(argv[0]);
    }
    const auto start = std::chrono::steady_clock::now();  // the report's rate only; never inside a run
    std::uint64_t failed = 0;
    std::uint64_t first_failure = 0;
    double virtual_seconds = 0;
    std::uint64_t requests = 0;
    std::uint64_t refusals = 0;
    for (std::uint64_t seed = first; seed < first + count && !(expect_violation && failed); ++seed) {
        auto o = base;
        o.seed = seed;
        std::uint64_t hash = 0;
        for (int k = 0; k < repeat; ++k) {
            kcoro::sim::sim_result r;
            try {
                r = kcoro::sim::run_seed(o);
            } catch (const std::exception& e) {
                r.violations.push_back(std::string("the simulation threw: ") + e.what());
            }
            virtual_seconds += std::chrono::duration<double>(r.virtual_time).count();
            requests += r.requests;
            refusals += r.guard_refusals;
            if (k > 0 && r.trace_hash != hash) {
                r.violations.push_back("determinism: run " + std::to_string(k + 1) + " traced " +
                                       std::to_string(r.trace_hash) + ", run 1 traced " + std::to_string(hash));
            }
            hash = r.trace_hash;
            if (repeat > 1 || count == 1) {
                std::printf("seed %llu: trace %016llx (%llu lines), %llu requests, %llu faults, %.0f virtual s\n",
                            static_cast<unsigned long long>(seed), static_cast<unsigned long long>(r.trace_hash),
                            static_cast<unsigned long long>(r.trace_lines),
                            static_cast<unsigned long long>(r.requests), static_cast<unsigned long long>(r.faults),
                            std::chrono::duration<double>(r.virtual_time).count());
            }
            if (!r.ok()) {
                if (failed++ == 0) first_failure = seed;
                std::printf("seed %llu FAILED:\n", static_cast<unsigned long long>(seed));
                for (const auto& v : r.violations) std::printf("  %s\n", v.c_str());
                std::printf("  replay: scripts/kcoro-dev sim%s --seed %llu --trace%s%s%s\n",
                            base.world == world_kind::configmap_mirror ? " --world mirror" : "",
                            static_cast<unsigned long long>(seed), defect_arg.empty() ? "" : " --defect ",
                            defect_arg.c_str(), shape_args.c_str());
                break;
            }
        }
        std::fflush(stdout);
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%llu seed(s), %llu failed%s; %.1f s, %.2f seeds/s, %.1f virtual hours, %llu requests, "
                "%llu writes refused by the leader write guard\n",
                static_cast<unsigned long long>(count), static_cast<unsigned long long>(failed),
                failed ? (" (first: " + std::to_string(first_failure) + ")").c_str() : "", secs,
                secs > 0 ? static_cast<double>(count) / secs : 0.0, virtual_seconds / 3600.0,
                static_cast<unsigned long long>(requests), static_cast<unsigned long long>(refusals));
    if (expect_violation) {
        if (failed) std::printf("caught at seed %llu\n", static_cast<unsigned long long>(first_failure));
        else std::printf("not caught in %llu seed(s)\n", static_cast<unsigned long long>(count));
        return failed ? 0 : 1;
    }
    return failed ? 1 : 0;
}
