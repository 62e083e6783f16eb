// Structured logging for every layer: a logger value passed around (no
// global state), child loggers with names and bound values, JSON lines by
// default (zap production layout, as controller-runtime writes it) or a
// human console format.
//
// JSON line:   {"level":"info","ts":"2026-11-29T11:32:36.123Z","logger":"controller",
//               "msg":"Reconciler error","controller":"gateway",...,"error":"..."}
// Console:     2026-11-29T11:32:36.123Z\tINFO\tcontroller\tmsg\t{"controller":"gateway"}
//
// `ts` is RFC 3339 UTC with milliseconds (controller-runtime's default time
// encoder is RFC 3339; milliseconds are kept because reconciles are fast).
// Levels: error, info (V(0)), debug (V(1)), trace (V(2)); a logger prints
// a message when its level is at or below the configured one.
//
// Redaction: values under keys naming credentials (token, password,
// authorization, ...; case-insensitive, at any depth of a JSON value) and
// the `data`/`stringData` of any object whose kind is Secret are printed as
// "[redacted]".
//
// Pure: the time comes from an injected function, lines go to a sink.
// Thread safety: a logger is an immutable value, safe to copy and use from
// any thread; the sink must accept concurrent write() calls (ostream_sink
// locks).
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/time.hpp>

#include <boost/json/value.hpp>

#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kcoro {

enum class log_level { error = 0, info = 1, debug = 2, trace = 3 };
enum class log_format { json, console };

/// "error", "info", "debug", "trace"; nullopt otherwise.
std::optional<log_level> parse_log_level(std::string_view s);
/// "json", "console"; nullopt otherwise.
std::optional<log_format> parse_log_format(std::string_view s);

/// One key/value. Any JSON value; strings, numbers and bools convert.
struct log_kv {
    template <class T>
        requires(!std::is_convertible_v<T, std::string_view>)
    log_kv(std::string_view k, T&& v) : key(k), value(std::forward<T>(v)) {}
    log_kv(std::string_view k, std::string_view v) : key(k), value(v) {}
    log_kv(std::string_view k, const std::string& v) : key(k), value(std::string_view(v)) {}
    log_kv(std::string_view k, const char* v) : key(k), value(std::string_view(v ? v : "")) {}
    std::string key;
    boost::json::value value;
};

/// Where lines go; each call is one complete line ending in '\n'.
class log_sink {
public:
    virtual ~log_sink() = default;
    virtual void write(std::string_view line) = 0;
};

/// A sink over an ostream (std::cerr by default in a manager); locks per line.
class ostream_sink final : public log_sink {
public:
    explicit ostream_sink(std::ostream& out) : out_(out) {}
    void write(std::string_view line) override;

private:
    std::mutex mutex_;
    std::ostream& out_;
};

struct log_config {
    log_level level = log_level::info;
    log_format format = log_format::json;
    std::function<wall_time()> clock;  // required: the injected time
    std::shared_ptr<log_sink> sink;    // required
};

/// True when `key` names a credential whose value must never be printed.
bool is_sensitive_key(std::string_view key);
/// A copy of `v` with credentials and Secret data replaced by "[redacted]".
boost::json::value redact(const boost::json::value& v);

class logger {
public:
    /// A logger that prints nothing (for tests and defaults).
    logger();
    explicit logger(log_config config);

    /// A child named "<parent>.<name>" (or `name` at the root).
    logger with_name(std::string_view name) const;
    /// A child that adds these values to every line (later keys replace).
    logger with_values(std::initializer_list<log_kv> kvs) const;
    logger with_values(std::vector<log_kv> kvs) const;
    /// The fields controller-runtime adds to a reconcile's logger:
    /// controller, controllerGroup, controllerKind, <Kind>{name,namespace},
    /// namespace, name, reconcileID.
    logger for_reconcile(std::string_view controller, std::string_view group, std::string_view kind,
                         std::string_view ns, std::string_view name, std::string_view reconcile_id) const;

    bool enabled(log_level l) const noexcept;

    void error(const kcoro::error& err, std::string_view msg, std::initializer_list<log_kv> kvs = {}) const;
    void error(std::string_view err, std::string_view msg, std::initializer_list<log_kv> kvs = {}) const;
    void info(std::string_view msg, std::initializer_list<log_kv> kvs = {}) const;
    void debug(std::string_view msg, std::initializer_list<log_kv> kvs = {}) const;
    void trace(std::string_view msg, std::initializer_list<log_kv> kvs = {}) const;

    /// The line that would be printed (no level filtering); for tests and sinks.
    std::string format(log_level l, std::string_view msg, std::initializer_list<log_kv> kvs,
                       const std::string* err) const;

private:
    void emit(log_level l, std::string_view msg, std::initializer_list<log_kv> kvs, const std::string* err) const;

    std::shared_ptr<const log_config> config_;
    std::string name_;
    std::shared_ptr<const std::vector<log_kv>> values_;
};

} // namespace kcoro
