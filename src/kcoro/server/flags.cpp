#include <kcoro/server/flags.hpp>

#include <kcoro/core/name_validation.hpp>

#include <kcoro/server/bind_address.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ostream>
#include <sstream>

namespace kcoro::server {

namespace {

error bad(std::string msg) { return error(kcoro_errc::invalid_config, std::move(msg)); }

std::string go_quote(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + '"';
}

// Go's strconv.ParseBool.
std::optional<bool> parse_bool(std::string_view v) {
    if (v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True") return true;
    if (v == "0" || v == "f" || v == "F" || v == "false" || v == "FALSE" || v == "False") return false;
    return std::nullopt;
}

// Unit of a duration component, in nanoseconds; 0 when unknown.
double unit_ns(std::string_view u) {
    if (u == "ns") return 1;
    if (u == "us" || u == "\xC2\xB5s" || u == "\xCE\xBCs") return 1e3;  // us, U+00B5 s, U+03BC s
    if (u == "ms") return 1e6;
    if (u == "s") return 1e9;
    if (u == "m") return 60e9;
    if (u == "h") return 3600e9;
    return 0;
}

// Trims trailing zeros of a fixed-point fraction ("1.500" -> "1.5", "2.000" -> "2").
std::string trim_fraction(std::string s) {
    if (s.find('.') == std::string::npos) return s;
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

std::string fixed(std::int64_t whole, std::int64_t frac, int frac_digits) {
    std::string f = std::to_string(frac);
    f.insert(0, static_cast<std::size_t>(frac_digits) - std::min<std::size_t>(f.size(), frac_digits), '0');
    return trim_fraction(std::to_string(whole) + "." + f);
}

} // namespace

result<std::chrono::nanoseconds> parse_go_duration(std::string_view s) {
    const std::string orig(s);
    auto invalid = [&] { return bad("time: invalid duration " + go_quote(orig)); };
    bool neg = false;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        s.remove_prefix(1);
    }
    if (s == "0") return std::chrono::nanoseconds(0);
    if (s.empty()) return invalid();
    long double total = 0;
    while (!s.empty()) {
        std::size_t i = 0;
        long double value = 0;
        bool digits = false;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
            value = value * 10 + (s[i] - '0');
            digits = true;
            ++i;
        }
        if (i < s.size() && s[i] == '.') {
            ++i;
            long double scale = 0.1L;
            while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
                value += (s[i] - '0') * scale;
                scale /= 10;
                digits = true;
                ++i;
            }
        }
        if (!digits) return invalid();
        std::size_t j = i;
        while (j < s.size() && !(s[j] >= '0' && s[j] <= '9') && s[j] != '.') ++j;
        auto unit = s.substr(i, j - i);
        if (unit.empty()) return bad("time: missing unit in duration " + go_quote(orig));
        const double ns = unit_ns(unit);
        if (ns == 0) return bad("time: unknown unit " + go_quote(unit) + " in duration " + go_quote(orig));
        total += value * ns;
        if (total >= 9223372036854775807.0L) return invalid();
        s.remove_prefix(j);
    }
    // Rounded to the nanosecond (a fraction of a nanosecond cannot be kept).
    auto n = static_cast<std::int64_t>(std::min(total + 0.5L, 9223372036854775807.0L));
    return std::chrono::nanoseconds(neg ? -n : n);
}

std::string format_go_duration(std::chrono::nanoseconds d) {
    std::int64_t n = d.count();
    if (n == 0) return "0s";
    std::string sign = n < 0 ? "-" : "";
    std::uint64_t u = n < 0 ? static_cast<std::uint64_t>(-(n + 1)) + 1 : static_cast<std::uint64_t>(n);
    if (u < 1000) return sign + std::to_string(u) + "ns";
    if (u < 1000000) return sign + fixed(static_cast<std::int64_t>(u / 1000), static_cast<std::int64_t>(u % 1000), 3) + "\xC2\xB5s";
    if (u < 1000000000)
        return sign + fixed(static_cast<std::int64_t>(u / 1000000), static_cast<std::int64_t>(u % 1000000), 6) + "ms";
    std::uint64_t secs = u / 1000000000, frac = u % 1000000000;
    std::uint64_t h = secs / 3600, m = (secs / 60) % 60, s = secs % 60;
    std::string out = sign;
    if (h > 0) out += std::to_string(h) + "h";
    if (h > 0 || m > 0) out += std::to_string(m) + "m";
    out += fixed(static_cast<std::int64_t>(s), static_cast<std::int64_t>(frac), 9) + "s";
    return out;
}

std::ostream& operator<<(std::ostream& os, parse_outcome o) {
    return os << (o == parse_outcome::run ? "run" : "help_requested");
}

flag_set::flag_set(std::string program) : program_(std::move(program)) {}

void flag_set::add(std::string name, flag f) { flags_[std::move(name)] = std::move(f); }

void flag_set::add_string(std::string name, std::string* target, std::string help) {
    flag f;
    f.help = std::move(help);
    f.type_name = "string";
    if (!target->empty()) f.default_text = go_quote(*target);
    f.set = [target](std::string_view v) -> result<void> {
        *target = std::string(v);
        return {};
    };
    add(std::move(name), std::move(f));
}

void flag_set::add_bool(std::string name, bool* target, std::string help) {
    flag f;
    f.help = std::move(help);
    f.is_bool = true;
    if (*target) f.default_text = "true";
    f.set = [target](std::string_view v) -> result<void> {
        auto b = parse_bool(v);
        if (!b) return bad("parse error");
        *target = *b;
        return {};
    };
    add(std::move(name), std::move(f));
}

void flag_set::add_int(std::string name, std::int64_t* target, std::string help, std::int64_t min,
                       std::int64_t max) {
    flag f;
    f.help = std::move(help);
    f.type_name = "int";
    if (*target != 0) f.default_text = std::to_string(*target);
    f.set = [target, min, max](std::string_view v) -> result<void> {
        std::int64_t x = 0;
        auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
        if (ec != std::errc{} || p != v.data() + v.size() || v.empty()) return bad("parse error");
        if (x < min || x > max)
            return bad("must be between " + std::to_string(min) + " and " + std::to_string(max));
        *target = x;
        return {};
    };
    add(std::move(name), std::move(f));
}

void flag_set::add_duration(std::string name, std::chrono::nanoseconds* target, std::string help,
                            bool allow_negative) {
    flag f;
    f.help = std::move(help);
    f.type_name = "duration";
    if (target->count() != 0) f.default_text = format_go_duration(*target);
    f.set = [target, allow_negative](std::string_view v) -> result<void> {
        auto d = parse_go_duration(v);
        if (!d) return d.error();
        if (!allow_negative && d->count() < 0) return bad("must not be negative");
        *target = *d;
        return {};
    };
    add(std::move(name), std::move(f));
}

void flag_set::add_choice(std::string name, std::string* target, std::vector<std::string> choices,
                          std::string help) {
    flag f;
    std::string list;
    for (auto& c : choices) list += (list.empty() ? "" : ", ") + c;
    f.help = std::move(help) + " (one of " + list + ")";
    f.type_name = "string";
    if (!target->empty()) f.default_text = go_quote(*target);
    f.set = [target, choices = std::move(choices), list](std::string_view v) -> result<void> {
        if (std::find(choices.begin(), choices.end(), v) == choices.end()) return bad("must be one of " + list);
        *target = std::string(v);
        return {};
    };
    add(std::move(name), std::move(f));
}

result<parse_outcome> flag_set::parse(int argc, const char* const* argv) {
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i) args.emplace_back(argv[i] ? argv[i] : "");
    return parse(args);
}

result<parse_outcome> flag_set::parse(const std::vector<std::string>& args) {
    set_.clear();
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string_view a = args[i];
        if (a == "--") {
            if (i + 1 < args.size()) return bad("unexpected argument " + go_quote(args[i + 1]));
            break;
        }
        if (a.size() < 2 || a[0] != '-') return bad("unexpected argument " + go_quote(a));
        std::string_view body = a.substr(a[1] == '-' ? 2 : 1);
        if (body.empty() || body[0] == '-' || body[0] == '=') return bad("bad flag syntax: " + std::string(a));
        auto eq = body.find('=');
        std::string_view name = body.substr(0, eq);
        if (name == "help" || name == "h") return parse_outcome::help_requested;
        auto it = flags_.find(name);
        if (it == flags_.end()) return bad("flag provided but not defined: --" + std::string(name));
        const flag& f = it->second;
        std::string value;
        if (eq != std::string_view::npos) {
            value = std::string(body.substr(eq + 1));
        } else if (f.is_bool) {
            value = "true";
        } else {
            if (i + 1 >= args.size()) return bad("flag needs an argument: --" + std::string(name));
            value = args[++i];
        }
        if (auto r = f.set(value); !r)
            return bad("invalid value " + go_quote(value) + " for flag --" + std::string(name) + ": " +
                       r.error().message());
        set_.emplace_back(name);
    }
    return parse_outcome::run;
}

bool flag_set::was_set(std::string_view name) const {
    return std::find(set_.begin(), set_.end(), name) != set_.end();
}

std::string flag_set::usage() const {
    std::ostringstream out;
    out << "Usage of " << program_ << ":\n";
    for (auto& [name, f] : flags_) {
        out << "  --" << name;
        if (!f.type_name.empty()) out << ' ' << f.type_name;
        out << "\n    \t" << f.help;
        if (!f.default_text.empty()) out << " (default " << f.default_text << ')';
        out << '\n';
    }
    return std::move(out).str();
}

void add_manager_flags(flag_set& flags, manager_options& o) {
    flags.add_string("kubeconfig", &o.kubeconfig,
                     "Path to a kubeconfig. Only required if out-of-cluster; defaults to $KUBECONFIG, then the "
                     "in-cluster service account (when KUBERNETES_SERVICE_HOST/_PORT are set), then "
                     "~/.kube/config.");
    flags.add_string("metrics-bind-address", &o.metrics_bind_address,
                     "The address the metrics endpoint binds to. Use 0 to disable the metrics service.");
    flags.add_string("health-probe-bind-address", &o.health_probe_bind_address,
                     "The address the probe endpoint (/healthz, /readyz) binds to. Use 0 to disable it.");
    flags.add_bool("metrics-secure", &o.metrics_secure,
                   "If set, the metrics endpoint is served securely via HTTPS with authentication and "
                   "authorization (TokenReview and SubjectAccessReview).");
    flags.add_bool("leader-elect", &o.leader_elect,
                   "Enable leader election for controller manager. Enabling this will ensure there is only one "
                   "active controller manager.");
    flags.add_string("leader-election-namespace", &o.leader_election_namespace,
                     "Namespace of the leader election Lease. Defaults to the pod's namespace when in-cluster.");
    flags.add_string("leader-election-id", &o.leader_election_id, "Name of the leader election Lease.");
    flags.add_string("sharding-ring", &o.sharding_ring,
                     "Name of the sharding ring: every replica with the same name reconciles its own share of each "
                     "controller's objects (one Lease per replica in the leader election namespace). Empty: off.");
    flags.add_string("namespace", &o.watch_namespace,
                     "Namespace to watch and reconcile. Empty means all namespaces.");
    flags.add_int("max-concurrent-reconciles", &o.max_concurrent_reconciles,
                  "Maximum number of concurrent reconciles per controller.", 1, 1024);
    flags.add_duration("sync-period", &o.sync_period,
                       "Minimum interval at which watched objects are reconciled again (informer resync).");
    flags.add_choice("log-level", &o.log_level, {"error", "info", "debug", "trace"},
                     "Log verbosity: debug is V(1), trace is V(2).");
    flags.add_choice("log-format", &o.log_format, {"json", "console"},
                     "Log format: JSON lines or human-readable console lines.");
    flags.add_duration("graceful-shutdown-timeout", &o.graceful_shutdown_timeout,
                       "How long in-flight reconciles may run after SIGTERM before the process exits.");
}

namespace {

result<void> check_address(std::string_view flag, std::string_view addr) {
    if (is_disabled_bind_address(addr) || split_bind_address(addr)) return {};
    return bad("invalid value " + go_quote(addr) + " for flag --" + std::string(flag) +
               ": want \"0\", \":port\" or \"host:port\"");
}

} // namespace

result<void> validate(const manager_options& o) {
    if (auto r = check_address("metrics-bind-address", o.metrics_bind_address); !r) return r;
    if (auto r = check_address("health-probe-bind-address", o.health_probe_bind_address); !r) return r;
    if (o.leader_elect && o.leader_election_id.empty())
        return bad("--leader-election-id is required when --leader-elect is set");
    if (o.sync_period.count() <= 0) return bad("--sync-period must be positive");
    if (!o.sharding_ring.empty()) {
        // The ring names its Leases "<ring>-<16 hex>" and labels them with it.
        auto errs = validate_dns1123_label(o.sharding_ring);
        if (errs.empty() && o.sharding_ring.size() > 46) errs.push_back("must be no more than 46 characters");
        if (!errs.empty()) return bad("invalid value " + go_quote(o.sharding_ring) + " for flag --sharding-ring: " + errs.front());
    }
    return {};
}

} // namespace kcoro::server
