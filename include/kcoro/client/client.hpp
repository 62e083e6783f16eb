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
// Arguments: the verbs are lazy coroutines that take their arguments by
// reference, so every argument must outlive the operation. `co_await
// c->get(gvr, key)` is fine (the temporaries live until the co_await ends);
// creating the awaitable now and starting it later (`auto op = c->get(gvr,
// key); co_spawn(ex, std::move(op), ...)`) needs named arguments, including
// the options a default argument would otherwise create. Also name option
// objects rather than writing them as braced temporaries inside co_await:
// g++ 12 destroys some temporaries of a co_await operand twice.
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
#include <kcoro/core/list_decoder.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/request_options.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/core/token_bucket.hpp>
#include <kcoro/core/watch_event.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

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
    ~client();
    client(const client&) = delete;
    client& operator=(const client&) = delete;

    boost::asio::awaitable<result<object_ptr>> get(const group_version_resource& gvr, const object_key& key,
                                                   const get_options& opts = {});
    /// One page (opts.limit / opts.continue_token).
    boost::asio::awaitable<result<list_result>> list(const group_version_resource& gvr, std::string_view ns,
                                                     const list_options& opts = {});
    /// Every page, following metadata.continue; the result's resource_version
    /// is the last page's. opts.limit sets the page size (500 when 0).
    boost::asio::awaitable<result<list_result>> list_all(const group_version_resource& gvr, std::string_view ns,
                                                         list_options opts = {});
    boost::asio::awaitable<result<object_ptr>> create(const group_version_resource& gvr, std::string_view ns,
                                                      const boost::json::object& obj,
                                                      const create_options& opts = {});
    /// PUT; metadata.resourceVersion is the precondition (409 Conflict when stale).
    boost::asio::awaitable<result<object_ptr>> update(const group_version_resource& gvr,
                                                      const boost::json::object& obj,
                                                      const update_options& opts = {});
    boost::asio::awaitable<result<object_ptr>> patch(const group_version_resource& gvr, const object_key& key,
                                                     std::string patch, const patch_options& opts = {});
    /// Server-side apply: patch_type::apply with `field_manager`.
    boost::asio::awaitable<result<object_ptr>> apply(const group_version_resource& gvr,
                                                     const boost::json::object& obj,
                                                     std::string field_manager, bool force = false);
    /// DELETE. Answers the object (still present, with a deletionTimestamp,
    /// when finalizers hold it) or the server's Success Status.
    boost::asio::awaitable<result<object_ptr>> remove(const group_version_resource& gvr, const object_key& key,
                                                      const delete_options& opts = {});

    // The status subresource.
    boost::asio::awaitable<result<object_ptr>> get_status(const group_version_resource& gvr,
                                                          const object_key& key);
    boost::asio::awaitable<result<object_ptr>> update_status(const group_version_resource& gvr,
                                                             const boost::json::object& obj,
                                                             update_options opts = {});
    boost::asio::awaitable<result<object_ptr>> patch_status(const group_version_resource& gvr,
                                                            const object_key& key, std::string patch,
                                                            patch_options opts = {});

    /// Opens a watch on a dedicated connection (the header is awaited, so a
    /// 410 for a too-old resourceVersion is this call's error).
    boost::asio::awaitable<result<watch_stream>> watch(const group_version_resource& gvr, std::string_view ns,
                                                       const watch_options& opts = {});

    /// Any request, with rate limiting and retries; non-2xx answers are errors.
    boost::asio::awaitable<result<http_response>> send(const api_request& req);

    discovery_client& discovery() noexcept { return *discovery_; }
    const client_config& config() const noexcept { return config_; }
    transport& http() noexcept { return *transport_; }
    io::clock& clock() noexcept { return clk_; }

private:
    client(const client_config& cfg, io::clock& clk, client_options opts, std::unique_ptr<transport> t);
    boost::asio::awaitable<result<void>> wait_for_token_bucket();
    boost::asio::awaitable<result<object_ptr>> send_for_object(result<api_request> req);

    client_config config_;
    io::clock& clk_;
    client_options opts_;
    std::unique_ptr<transport> transport_;
    std::optional<token_bucket> limiter_;
    std::unique_ptr<discovery_client> discovery_;
    std::shared_ptr<void> credentials_;  // kcoro::client::credentials when the config supplies auth
};

/// Parses a JSON object body into a shared object (decode_error otherwise).
result<object_ptr> decode_object_body(std::string_view body);

} // namespace kcoro::client
