// Liveness and readiness probes with controller-runtime's behaviour
// (pkg/healthz/healthz.go), as a pure handler:
//
//   GET /healthz, /readyz          all checks of the set; 200 "ok" or 500
//                                  with the verbose listing
//   ?verbose                       200 with "[+]name ok" lines then
//                                  "healthz check passed"
//   ?exclude=a&exclude=b           those checks are skipped ("[+]a excluded: ok");
//                                  unknown names give a "warn:" line
//   /readyz/<check>                one check: 200 "ok", or 500
//                                  "internal server error: <reason>"
//   unknown check or path          404 "404 page not found"
//
// A failing check's reason is withheld from the aggregated listing (the
// endpoint is public); only the single-check path shows it. An empty set
// serves a "ping" check that always passes.
//
// Lifetime: checks are std::functions called during handle(); whatever they
// capture must outlive the handler. Thread safety: not thread-safe; add
// checks before serving and call handle() from the io thread.
#pragma once

#include <kcoro/core/time.hpp>
#include <kcoro/server/http_answer.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::server {

/// A check: nullopt when healthy, else the reason it failed.
using health_check = std::function<std::optional<std::string>()>;

/// A named set of checks served under one path ("/healthz" or "/readyz").
class check_set {
public:
    /// Adds or replaces a check. Names are path segments: no '/'.
    void add(std::string name, health_check check);
    bool empty() const noexcept { return checks_.empty(); }

    /// Serves `rest`: what follows the set's path ("", "/", "/ping") and
    /// the raw query (without '?').
    http_answer handle(std::string_view rest, std::string_view query) const;

private:
    std::map<std::string, health_check, std::less<>> checks_;  // sorted, as the listing is
};

/// The probe endpoints: /healthz (liveness) and /readyz (readiness).
class health_handler {
public:
    check_set& healthz() noexcept { return healthz_; }
    check_set& readyz() noexcept { return readyz_; }

    /// Answers a request target ("/readyz/informers?verbose").
    http_answer handle(std::string_view target) const;

private:
    check_set healthz_;
    check_set readyz_;
};

/// Liveness of the event loop: the driver records progress (a tick that ran
/// on the io_context); the check fails when the last one is older than
/// `max_stall`. Pure: time is passed in.
class watchdog {
public:
    watchdog(std::chrono::nanoseconds max_stall, steady_time start) noexcept
        : max_stall_(max_stall), last_progress_(start) {}

    void progress(steady_time now) noexcept {
        if (now > last_progress_) last_progress_ = now;
    }
    /// nullopt when the loop made progress within max_stall of `now`.
    std::optional<std::string> check(steady_time now) const;
    steady_time last_progress() const noexcept { return last_progress_; }

private:
    std::chrono::nanoseconds max_stall_;
    steady_time last_progress_;
};

/// Query helpers (Go's url.ParseQuery semantics for what the probes need).
/// Percent-decodes and maps '+' to ' '; malformed escapes are kept verbatim.
std::string query_unescape(std::string_view s);
/// True when `key` appears in the query, with or without a value.
bool query_has(std::string_view query, std::string_view key);
/// Every value of `key`, in order.
std::vector<std::string> query_values(std::string_view query, std::string_view key);

} // namespace kcoro::server
