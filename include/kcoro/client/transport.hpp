// How the client reaches an API server: `transport` is the seam (one virtual
// call per request or watch), `http_transport` the default implementation,
// Beast over TCP or OpenSSL. kcoro/client/memory_transport.hpp hands requests
// to an in-process handler instead (no sockets: tests, the simulator).
//
// http_transport:
// - Request/response exchanges reuse keep-alive connections from a bounded
//   idle pool; a broken connection is dropped, and a request whose reused
//   connection turns out closed before any byte of the answer is sent again
//   once on a fresh connection (the server closed an idle connection).
// - A watch gets a dedicated connection; its body is read incrementally.
// - Deadlines (connect, TLS handshake, whole request) run on the injectable
//   io::clock; cancellation is the awaiting coroutine's cancellation slot
//   (ADR 0001): the in-flight operation completes with operation_aborted and
//   its connection is closed.
// - A bearer token is asked from `auth.bearer_token` for every request; a 401
//   calls `auth.invalidate` and retries once with a fresh token.
// - Every attempt is reported to `metrics` (code "<error>" without an answer).
//
// Lifetime and thread safety: a transport belongs to one io_context (one
// thread); its connections are created on the executor of the coroutine that
// first needs them. It must outlive the operations it runs and be destroyed
// before its io_context. A body_stream owns its connection and may outlive
// the transport.
#pragma once

#include <kcoro/core/api_request.hpp>
#include <kcoro/core/error.hpp>
#include <kcoro/core/metrics_hooks.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/io/tls.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kcoro::client {

namespace detail {
struct connection;
struct connection_waiter;
}

/// A parsed `server` URL ("https://10.0.0.1:6443", "http://127.0.0.1:8080/prefix").
struct server_endpoint {
    bool tls = true;
    std::string host;         // without IPv6 brackets
    std::string port;         // "443"/"80" when absent
    std::string path_prefix;  // "" or "/prefix" (no trailing slash)
    std::string host_header;  // authority as written ("[::1]:6443")
};

/// Pure; an error names what is wrong with the URL.
result<server_endpoint> parse_server_url(std::string_view url);

/// An HTTP answer (any status code).
struct http_response {
    int status = 0;
    std::string body;
    std::string content_type;
    /// Retry-After in seconds, when the header was present and numeric.
    std::optional<int> retry_after_seconds;
    std::vector<std::pair<std::string, std::string>> headers;
};

/// The error for a non-2xx answer: its Status (or one made from the HTTP
/// code), with Retry-After copied into details.retry_after_seconds.
error error_from_response(const http_response& r);

/// Where tokens come from (kcoro::client::credentials in practice).
struct auth_hooks {
    /// The bearer token to send; empty means no Authorization header.
    std::function<boost::asio::awaitable<result<std::string>>()> bearer_token;
    /// The server answered 401: forget cached tokens.
    std::function<void()> invalidate;
};

struct transport_options {
    std::string server;
    /// Trust, client certificate, verification; server_name defaults to the URL's host.
    io::tls_client_options tls;
    std::chrono::milliseconds connect_timeout{std::chrono::seconds(10)};
    std::chrono::milliseconds tls_handshake_timeout{std::chrono::seconds(10)};
    /// Whole-request deadline when the request carries none. For a watch it
    /// bounds only the time to the response header.
    std::chrono::milliseconds request_timeout{std::chrono::seconds(60)};
    std::size_t max_idle_connections = 8;
    /// Connections open for requests at once, idle ones included (watch
    /// connections are not counted); 0: no limit. A request that finds none
    /// free waits for one, within its deadline. HTTP/1.1 needs a connection
    /// per request in flight, and each TLS connection holds ~100 KB of
    /// buffers (Asio's, the BIO pair's, OpenSSL's): 32 reconciles in flight
    /// would otherwise open 32 (docs/performance.md). Go's MaxConnsPerHost.
    std::size_t max_connections = 0;
    /// Larger answers fail (a list of everything should paginate).
    std::size_t max_body_bytes = 256 * 1024 * 1024;
    std::string user_agent = "kcoro/0.1.0";
    request_metrics* metrics = nullptr;
    auth_hooks auth;
};

/// Takes the body of a 2xx answer piece by piece as it arrives (a list
/// decoded as it streams, core/list_stream_decoder.hpp). An error stops the
/// read: the request fails with it and its connection is closed.
using body_sink = std::function<result<void>(std::string_view)>;

/// The body of a streaming answer (a watch), read as it arrives.
class body_stream {
public:
    virtual ~body_stream() = default;
    /// The next bytes of the body; an empty view at the clean end of the
    /// body. The view is valid until the next call. Errors: transport codes
    /// (a connection cut mid-chunk gives Beast's partial_message), cancellation.
    virtual boost::asio::awaitable<result<std::string_view>> read_some() = 0;
    /// Closes the connection now (also done by the destructor).
    virtual void close() noexcept = 0;
};

/// The seam between the client and the wire. Implementations own how a
/// request reaches a server; retries, rate limits and decoding stay in the
/// client. Lifetime and threads as the client's (one io_context).
class transport {
public:
    virtual ~transport() = default;

    // The coroutines take the request by value (it lives in their frame, so
    // an operation may be started later than it was made; client.hpp).
    /// One request; any HTTP answer is a value. Errors: transport codes,
    /// kcoro_errc::deadline_exceeded, cancellation, token errors.
    virtual boost::asio::awaitable<result<http_response>> round_trip(api_request req) = 0;
    /// Opens a stream (watch) and reads the header. A non-2xx answer is read
    /// whole and returned as its error.
    virtual boost::asio::awaitable<result<std::unique_ptr<body_stream>>> open_stream(api_request req) = 0;
    /// As round_trip, but the body of a 2xx answer goes to `sink` as it
    /// arrives (http_response::body stays empty); other answers are read
    /// whole as round_trip reads them. The default reads the answer whole
    /// and hands the body over in one piece (in-process transports hold it
    /// whole anyway).
    virtual boost::asio::awaitable<result<http_response>> round_trip_streaming(api_request req, body_sink sink);
    /// As round_trip, with non-2xx answers turned into errors (error_from_response).
    boost::asio::awaitable<result<http_response>> send(api_request req);
    /// Drops idle connections (nothing for transports without any).
    virtual void close_idle() noexcept {}
};

/// The default transport: HTTP/1.1 over TCP or TLS (see the file comment).
class http_transport final : public transport {
public:
    /// Fails for a bad URL or unusable TLS material.
    static result<std::unique_ptr<http_transport>> create(io::clock& clk, transport_options opts);
    ~http_transport() override;
    http_transport(const http_transport&) = delete;
    http_transport& operator=(const http_transport&) = delete;

    boost::asio::awaitable<result<http_response>> round_trip(api_request req) override;
    /// On a pooled connection, read into a fixed 64 KB buffer (Content-Length
    /// or chunked), whatever the body's size.
    boost::asio::awaitable<result<http_response>> round_trip_streaming(api_request req, body_sink sink) override;
    /// On a dedicated connection.
    boost::asio::awaitable<result<std::unique_ptr<body_stream>>> open_stream(api_request req) override;

    std::size_t idle_connections() const noexcept { return idle_.size(); }
    /// Connections checked out by requests now.
    std::size_t busy_connections() const noexcept { return busy_; }
    const server_endpoint& endpoint() const noexcept { return endpoint_; }
    const transport_options& options() const noexcept { return opts_; }
    void close_idle() noexcept override;

private:
    http_transport(io::clock& clk, transport_options opts, server_endpoint ep, std::shared_ptr<void> tls);
    boost::asio::awaitable<result<std::unique_ptr<detail::connection>>> connect(steady_time deadline);
    boost::asio::awaitable<result<http_response>> attempt(const api_request& req, const std::string& token,
                                                          const body_sink* sink);
    boost::asio::awaitable<result<http_response>> round_trip_with(api_request req, const body_sink* sink);
    boost::asio::awaitable<result<std::unique_ptr<body_stream>>> open_attempt(const api_request& req,
                                                                               const std::string& token);
    void observe(const api_request& req, std::string_view code, steady_time start);

    io::clock& clk_;
    transport_options opts_;
    server_endpoint endpoint_;
    std::shared_ptr<void> tls_;  // asio::ssl::context, kept opaque here
    std::vector<std::unique_ptr<detail::connection>> idle_;
    /// Connections checked out by requests in flight.
    std::size_t busy_ = 0;
    /// Requests waiting under max_connections, oldest first: a request that
    /// gives its connection back wakes one (not all: 16 waiters woken per
    /// release cost a quarter of a controller's CPU against a real server).
    std::deque<std::shared_ptr<detail::connection_waiter>> waiters_;
    boost::asio::awaitable<result<void>> wait_released();
    void wake_one_waiter() noexcept;
};

} // namespace kcoro::client
