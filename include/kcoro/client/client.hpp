// The Kubernetes API client: every verb for any group/version/resource, as
// coroutines on the caller's executor returning result<T> (ADR 0001/0002).
//
//   auto c = kcoro::client::client::create(cfg, clk).value();
//   auto cm = co_await c->get(kcoro::resources::configmaps(), {"default", "x"});
//   if (!cm && kcoro::is_not_found(cm.error())) { ... }
//
// Requests are built by the pure builders (kcoro/core/requests.hpp), sent by
// the transport (connection pool, TLS, deadlines, token refresh after 401),
// and retried per kcoro::retry_policy (429/5xx with Retry-After up to 10
// times, sleeping on the clock; GETs after a reset). An optional client-side
// QPS/burst limiter (off by default) delays requests on the clock.
//
// Arguments: every verb takes its arguments by value into the coroutine
// frame and has no default arguments (shorter overloads name the defaults
// inside), so every way of calling one is safe:
//
//   co_await c->get(gvr, {"ns", "name"});                  // braced key
//   co_await c->remove(gvr, key, kcoro::delete_options{kcoro::deletion_propagation::foreground});
//   auto op = c->get(kcoro::resources::leases(), k);       // started later:
//   co_await std::move(op);                                // arguments live in the frame
//
// (test/integration/header_examples_test.cpp runs both examples.)
//
// The argument types (keys, resources, options) are not aggregates, so a
// braced temporary in a co_await operand is a constructor call, which g++ 12
// compiles correctly (docs/toolchain.md: it destroys aggregate temporaries
// of a co_await operand twice).
//
// Lifetime and thread safety: a client and everything it returns live on one
// io_context and are used from its thread. The client must outlive its
// operations and watch streams' use of it (a watch_stream owns its own
// connection and outlives the client safely), and be destroyed before the
// io_context. Objects returned (object_ptr) are shared and immutable.
#pragma once

#include <kcoro/client/config.hpp>
#include <kcoro/client/environment.hpp>
#include <kcoro/client/transport.hpp>
#include <kcoro/client/write_origin.hpp>
#include <kcoro/core/list_decoder.hpp>
#include <kcoro/core/list_stream_decoder.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/request_options.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/core/token_bucket.hpp>
#include <kcoro/core/watch_event.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <memory>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace kcoro {
class watch_decoder;
}

namespace kcoro::client {

class discovery_client;

inline constexpr std::string_view version = "0.1.0";

struct client_options {
    /// Whole-request deadline when a request sets none (watches: until the header).
    std::chrono::milliseconds request_timeout{std::chrono::seconds(60)};
    /// Client-side rate limit; 0 = off (the default: servers use priority and fairness).
    double qps = 0;
    int burst = 10;
    /// Automatic retries (retry_policy); 0 disables them.
    int max_retries = 10;
    std::string user_agent = "kcoro/" + std::string(version);
    request_metrics* metrics = nullptr;
    /// Where bearer tokens come from; unset = from the config (static token,
    /// token file or exec plugin through kcoro::client::credentials).
    std::optional<auth_hooks> auth;
    /// What credentials read (token files, exec plugins); unset = the process's.
    std::optional<environment> env;
    std::size_t max_idle_connections = 8;
    /// Connections open for requests at once (watches not counted); more
    /// requests wait for one (transport_options::max_connections). 0: no
    /// limit, as Go's default: against a real API server a limit of 16 at 32
    /// reconciles in flight made the sync 36% slower for 1.1 MB less
    /// (docs/performance.md).
    std::size_t max_connections = 0;
};

/// An open watch: events in order until the server ends the stream.
///
/// Lifetime: owns its connection; movable; one reader coroutine at a time.
class watch_stream {
public:
    watch_stream();
    watch_stream(std::unique_ptr<body_stream> body, std::size_t max_event_bytes);
    watch_stream(watch_stream&&) noexcept;
    watch_stream& operator=(watch_stream&&) noexcept;
    ~watch_stream();

    /// The next event; std::nullopt when the stream ended cleanly (the
    /// server's timeoutSeconds, or close()). Garbage, a truncated stream and
    /// transport failures are errors; after an error the stream is closed.
    /// ERROR events are events: `event.to_error()` gives their Status.
    boost::asio::awaitable<result<std::optional<watch_event>>> next();
    /// Closes the connection; next() then returns std::nullopt.
    void close() noexcept;
    bool is_open() const noexcept;

private:
    struct state;
    std::unique_ptr<state> s_;
};

class client {
public:
    /// Fails for a bad server URL or TLS material (kcoro_errc::invalid_config).
    static result<std::unique_ptr<client>> create(const client_config& cfg, io::clock& clk,
                                                  client_options opts = {});
    /// A client over a transport of the caller's (memory_transport.hpp, a
    /// test double). The transport brings its own authentication, user agent
    /// and metrics: `opts.auth`, `env`, `metrics`, `user_agent`,
    /// `request_timeout`, `max_idle_connections` and `max_connections` are
    /// not used here.
    static std::unique_ptr<client> create(const client_config& cfg, io::clock& clk, std::unique_ptr<transport> t,
                                          client_options opts = {});
    ~client();
    client(const client&) = delete;
    client& operator=(const client&) = delete;

    boost::asio::awaitable<result<object_ptr>> get(group_version_resource gvr, object_key key, get_options opts);
    boost::asio::awaitable<result<object_ptr>> get(group_version_resource gvr, object_key key) {
        return get(std::move(gvr), std::move(key), get_options());
    }
    /// One page (opts.limit / opts.continue_token).
    boost::asio::awaitable<result<list_result>> list(group_version_resource gvr, std::string ns, list_options opts);
    boost::asio::awaitable<result<list_result>> list(group_version_resource gvr, std::string ns) {
        return list(std::move(gvr), std::move(ns), list_options());
    }
    /// One page, each item handed to `on_item` as soon as it is decoded,
    /// while the body still streams in (core/list_stream_decoder.hpp): the
    /// result carries the list's metadata and no items. A failure after some
    /// items went out is not retried (they would go out twice).
    boost::asio::awaitable<result<list_result>> list_each(group_version_resource gvr, std::string ns,
                                                          list_options opts, list_stream_decoder::item_sink on_item);
    /// Every page, following metadata.continue; the result's resource_version
    /// is the last page's. opts.limit sets the page size (500 when 0).
    boost::asio::awaitable<result<list_result>> list_all(group_version_resource gvr, std::string ns,
                                                         list_options opts);
    boost::asio::awaitable<result<list_result>> list_all(group_version_resource gvr, std::string ns) {
        return list_all(std::move(gvr), std::move(ns), list_options());
    }
    boost::asio::awaitable<result<object_ptr>> create(group_version_resource gvr, std::string ns,
                                                      boost::json::object obj, create_options opts);
    boost::asio::awaitable<result<object_ptr>> create(group_version_resource gvr, std::string ns,
                                                      boost::json::object obj) {
        return create(std::move(gvr), std::move(ns), std::move(obj), create_options());
    }
    /// PUT; metadata.resourceVersion is the precondition (409 Conflict when stale).
    boost::asio::awaitable<result<object_ptr>> update(group_version_resource gvr, boost::json::object obj,
                                                      update_options opts);
    boost::asio::awaitable<result<object_ptr>> update(group_version_resource gvr, boost::json::object obj) {
        return update(std::move(gvr), std::move(obj), update_options());
    }
    boost::asio::awaitable<result<object_ptr>> patch(group_version_resource gvr, object_key key, std::string body,
                                                     patch_options opts);
    /// A JSON merge patch.
    boost::asio::awaitable<result<object_ptr>> patch(group_version_resource gvr, object_key key, std::string body) {
        return patch(std::move(gvr), std::move(key), std::move(body), patch_options());
    }
    /// Server-side apply: patch_type::apply with `field_manager`; `force`
    /// takes over fields other managers own.
    boost::asio::awaitable<result<object_ptr>> apply(group_version_resource gvr, boost::json::object obj,
                                                     std::string field_manager, bool force);
    boost::asio::awaitable<result<object_ptr>> apply(group_version_resource gvr, boost::json::object obj,
                                                     std::string field_manager) {
        return apply(std::move(gvr), std::move(obj), std::move(field_manager), false);
    }
    /// DELETE. Answers the object (still present, with a deletionTimestamp,
    /// when finalizers hold it) or the server's Success Status.
    boost::asio::awaitable<result<object_ptr>> remove(group_version_resource gvr, object_key key,
                                                      delete_options opts);
    boost::asio::awaitable<result<object_ptr>> remove(group_version_resource gvr, object_key key) {
        return remove(std::move(gvr), std::move(key), delete_options());
    }

    // The status subresource.
    boost::asio::awaitable<result<object_ptr>> get_status(group_version_resource gvr, object_key key);
    boost::asio::awaitable<result<object_ptr>> update_status(group_version_resource gvr, boost::json::object obj,
                                                             update_options opts);
    boost::asio::awaitable<result<object_ptr>> update_status(group_version_resource gvr, boost::json::object obj) {
        return update_status(std::move(gvr), std::move(obj), update_options());
    }
    boost::asio::awaitable<result<object_ptr>> patch_status(group_version_resource gvr, object_key key,
                                                            std::string body, patch_options opts);
    /// A JSON merge patch of the status.
    boost::asio::awaitable<result<object_ptr>> patch_status(group_version_resource gvr, object_key key,
                                                            std::string body) {
        return patch_status(std::move(gvr), std::move(key), std::move(body), patch_options());
    }

    /// Opens a watch on a dedicated connection (the header is awaited, so a
    /// 410 for a too-old resourceVersion is this call's error).
    boost::asio::awaitable<result<watch_stream>> watch(group_version_resource gvr, std::string ns,
                                                       watch_options opts);
    boost::asio::awaitable<result<watch_stream>> watch(group_version_resource gvr, std::string ns) {
        return watch(std::move(gvr), std::move(ns), watch_options());
    }

    /// Any request, with rate limiting and retries; non-2xx answers are errors.
    boost::asio::awaitable<result<http_response>> send(api_request req);
    /// As send, with a 2xx body handed to `sink` as it arrives
    /// (transport::round_trip_streaming); not retried once `sink` was called.
    boost::asio::awaitable<result<http_response>> send_streaming(api_request req, body_sink sink);

    /// Asked before every attempt of a write (POST, PUT, PATCH, DELETE): an
    /// error refuses it unsent (the manager's leader write guard,
    /// server/leader_write_guard.hpp). Empty: every write is sent. Called on
    /// the thread that sends; set it before the writers start. `owner`
    /// names who set it: clear_write_guard(owner) removes it only if it is
    /// still that owner's (a manager restarted on the same client).
    /// `origin`: what the sending coroutine's executor carries
    /// (client/write_origin.hpp: the manager's controllers carry theirs),
    /// null when nothing.
    using write_guard = std::function<std::optional<error>(const api_request&, const write_origin* origin)>;
    void set_write_guard(const void* owner, write_guard g) {
        guard_owner_ = owner;
        guard_ = std::move(g);
    }
    void clear_write_guard(const void* owner) noexcept {
        if (guard_owner_ == owner) {
            guard_owner_ = nullptr;
            guard_ = nullptr;
        }
    }

    discovery_client& discovery() noexcept { return *discovery_; }
    const client_config& config() const noexcept { return config_; }
    transport& http() noexcept { return *transport_; }
    io::clock& clock() noexcept { return clk_; }

private:
    client(const client_config& cfg, io::clock& clk, client_options opts, std::unique_ptr<transport> t);
    boost::asio::awaitable<result<void>> wait_for_token_bucket();
    boost::asio::awaitable<result<object_ptr>> send_for_object(result<api_request> req);
    boost::asio::awaitable<result<http_response>> send_with(api_request req, const body_sink* sink);

    client_config config_;
    io::clock& clk_;
    client_options opts_;
    std::unique_ptr<transport> transport_;
    std::optional<token_bucket> limiter_;
    std::unique_ptr<discovery_client> discovery_;
    std::shared_ptr<void> credentials_;  // kcoro::client::credentials when the config supplies auth
    write_guard guard_;
    const void* guard_owner_ = nullptr;
};

/// Parses a JSON object body into a shared object (decode_error otherwise).
result<object_ptr> decode_object_body(std::string_view body);

} // namespace kcoro::client
