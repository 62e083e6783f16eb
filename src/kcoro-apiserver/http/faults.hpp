// Fault injection for kcoro-apiserver: a pure table of rules the HTTP
// handler consults before (and after) each request, plus the switches that
// act on watches. Tests drive it in process (`fault_table&` from the server)
// or over HTTP (POST /kcoro/faults, see docs/apiserver.md).
//
// Rules match a request by verb, resource and name (empty = any) and fire a
// limited number of times (count; 0 = until cleared):
//   fail              answer `code` with a Status, and Retry-After if set;
//   delay             answer normally after `delay` on the server's clock;
//   drop_after_commit perform the write, then close the connection without
//                     answering (the lost acknowledgement).
// Every fired rule and every switch is appended to the log.
//
// Pure; thread safety: none (the server's one thread).
#pragma once

#include <kcoro/core/error.hpp>

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::apiserver::http {

enum class fault_action { fail, delay, drop_after_commit };

struct fault_rule {
    fault_action action = fault_action::fail;
    std::string verb;      // "" = any ("get", "list", "watch", "create", ...)
    std::string resource;  // "" = any ("configmaps")
    std::string name;      // "" = any
    int count = 1;         // times to fire; 0 = until cleared
    int code = 500;        // fail: HTTP code (reason derived from it)
    int retry_after_seconds = 0;
    std::string message;   // fail: Status message (a default otherwise)
    std::chrono::milliseconds delay{0};

    /// From JSON ({"action":"fail","verb":"update","resource":"configmaps",
    /// "name":"x","count":2,"code":503,"retryAfterSeconds":1,"delayMillis":0}).
    static result<fault_rule> from_json(const boost::json::object& o);
    boost::json::object to_json() const;
};

class fault_table {
public:
    std::uint64_t add(fault_rule r);
    void clear();
    /// The first live rule matching the request, consumed by one firing
    /// (logged). nullopt when none matches.
    std::optional<fault_rule> take(std::string_view verb, std::string_view resource, std::string_view name);

    /// Watches deliver nothing while stalled (events are kept, not lost).
    void set_watch_stall(bool on);
    bool watch_stalled() const noexcept { return stalled_; }

    void log(std::string line) { log_.push_back(std::move(line)); }
    const std::vector<std::string>& entries() const noexcept { return log_; }
    boost::json::object to_json() const;

    /// The Status a `fail` rule answers.
    static error failure_for(const fault_rule& r);

private:
    struct live {
        std::uint64_t id;
        fault_rule rule;
        int fired = 0;
    };
    std::vector<live> rules_;
    std::uint64_t next_id_ = 1;
    bool stalled_ = false;
    std::vector<std::string> log_;
};

} // namespace kcoro::apiserver::http
