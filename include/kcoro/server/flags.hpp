// Command-line flags of a kcoro manager, with the kubebuilder scaffold's
// names and defaults (docs/operations.md lists them), on a small flag set
// that follows Go's `flag` package rules, so operators' deployment manifests
// carry over:
//
//   --name value  --name=value  -name value  -name=value
//   bool flags:   --name  --name=true|false|1|0|t|f   (never "--name false")
//   --help, -h:   parse() reports help_requested; usage() is the text
//   --            ends the flags
//
// An unknown flag, a missing or bad value, or a positional argument is an
// error value (kcoro_errc::invalid_config) whose message names the flag.
// An operator adds its own flags to the same set (add_string etc.).
//
// Lifetime: the set stores pointers to the targets given to add_*; they must
// outlive parse(). Thread safety: none needed (start-up only).
#pragma once

#include <kcoro/core/error.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::server {

/// Go's time.ParseDuration: "300ms", "1.5h", "1h30m", "-2s", "0".
result<std::chrono::nanoseconds> parse_go_duration(std::string_view s);
/// Go's Duration.String(): "10h0m0s", "30s", "1.5s", "250ms", "0s".
std::string format_go_duration(std::chrono::nanoseconds d);

enum class parse_outcome { run, help_requested };
std::ostream& operator<<(std::ostream& os, parse_outcome o);

class flag_set {
public:
    explicit flag_set(std::string program);

    // Each target's current value is the flag's default (shown by usage()).
    void add_string(std::string name, std::string* target, std::string help);
    void add_bool(std::string name, bool* target, std::string help);
    /// An integer flag accepting values in [min, max].
    void add_int(std::string name, std::int64_t* target, std::string help,
                 std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                 std::int64_t max = std::numeric_limits<std::int64_t>::max());
    /// A Go duration; `allow_negative` false rejects values below zero.
    void add_duration(std::string name, std::chrono::nanoseconds* target, std::string help,
                      bool allow_negative = false);
    /// A string restricted to `choices`.
    void add_choice(std::string name, std::string* target, std::vector<std::string> choices, std::string help);

    /// Parses arguments (without the program name). Targets of flags seen are
    /// set; on error some targets may already be set.
    result<parse_outcome> parse(const std::vector<std::string>& args);
    result<parse_outcome> parse(int argc, const char* const* argv);

    /// Go's PrintDefaults layout, flags sorted by name.
    std::string usage() const;

    /// True when the flag was given on the command line by the last parse().
    bool was_set(std::string_view name) const;

private:
    struct flag {
        std::string help;
        std::string default_text;   // empty: not shown
        std::string type_name;      // "string", "int", "duration", "" for bool
        bool is_bool = false;
        std::function<result<void>(std::string_view)> set;
    };
    void add(std::string name, flag f);

    std::string program_;
    std::map<std::string, flag, std::less<>> flags_;
    std::vector<std::string> set_;
};

/// The manager's options with kubebuilder's defaults.
struct manager_options {
    std::string kubeconfig;                                // --kubeconfig
    std::string metrics_bind_address = ":8080";            // --metrics-bind-address ("0" disables)
    std::string health_probe_bind_address = ":8081";       // --health-probe-bind-address ("0" disables)
    bool metrics_secure = false;                           // --metrics-secure
    bool leader_elect = false;                             // --leader-elect
    std::string leader_election_namespace;                 // --leader-election-namespace
    std::string leader_election_id;                        // --leader-election-id
    std::string sharding_ring;                             // --sharding-ring ("" = off; docs/sharding.md)
    std::string watch_namespace;                           // --namespace ("" = all)
    std::int64_t max_concurrent_reconciles = 1;            // --max-concurrent-reconciles
    std::chrono::nanoseconds sync_period = std::chrono::hours(10);                 // --sync-period
    std::string log_level = "info";                        // --log-level error|info|debug|trace
    std::string log_format = "json";                       // --log-format json|console
    std::chrono::nanoseconds graceful_shutdown_timeout = std::chrono::seconds(30);  // --graceful-shutdown-timeout

    bool metrics_enabled() const noexcept { return metrics_bind_address != "0"; }
    bool probes_enabled() const noexcept { return health_probe_bind_address != "0"; }
};

/// Registers the manager's flags on `flags`, bound to `opts`.
void add_manager_flags(flag_set& flags, manager_options& opts);

/// Checks what single flags cannot: bind addresses are "0", ":port" or
/// "host:port"; leader election needs an id; a sharding ring's name is a
/// DNS-1123 label of at most 46 characters (its Leases are "<ring>-<16 hex>").
result<void> validate(const manager_options& opts);

} // namespace kcoro::server
