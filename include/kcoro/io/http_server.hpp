// A small HTTP/1.1 server on the caller's io_context, plain or TLS: the
// transport of kcoro-apiserver and of kcoro's /metrics and /healthz endpoints.
//
// Each connection is a session coroutine that only reads a request, hands it
// to the handler, and writes the reply (Beast's awaitable server example).
// Handlers see plain values (`http_request` -> `http_reply`), never Beast
// types, so they stay testable without sockets.
//
// A reply is one of:
//   - `http_response`: a complete response (Content-Length);
//   - `http_stream`: a chunked response whose body coroutine pushes chunks
//     over time through an `http_stream_writer` (watch streams). The body
//     coroutine is cancelled (terminal cancellation) when the client goes
//     away or the server stops; a write then reports false;
//   - `http_drop`: close the connection without answering (fault injection:
//     the lost acknowledgement).
//
// Deadlines run on the injectable `io::clock`: an idle keep-alive connection
// is closed after `idle_timeout`; a request must be read (and a response
// written) within `io_timeout`; a TLS handshake within `io_timeout`.
//
// Shutdown (`stop`): the acceptor closes, idle sessions close, streaming
// sessions have their body cancelled and end the chunked body cleanly,
// sessions busy in the handler answer and then close. After `grace`, every
// remaining connection is closed hard (total, then terminal cancellation).
//
// Lifetime and threads: the server and all its sessions run on the one
// executor given at construction (single-threaded io_context). The server
// object may be destroyed at any time; sessions keep the shared state alive
// and the destructor closes them all. The handler must stay valid until the
// io_context has run out of the server's sessions.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/io/tls.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace boost::asio::ssl {
class context;
}

namespace kcoro::io {

using http_headers = std::vector<std::pair<std::string, std::string>>;

/// First value of a header, case-insensitive name; empty when absent.
std::string_view find_header(const http_headers& headers, std::string_view name) noexcept;

struct http_request {
    std::string method;  // "GET", "POST", ...
    std::string target;  // path and query as sent
    http_headers headers;
    std::string body;
    std::string remote_address;  // "127.0.0.1:53120"
    /// Present only when the client presented a certificate that verified
    /// against the server context's CA.
    /// (CN = user, O = groups; see kcoro/io/tls.hpp).
    std::optional<peer_identity> client_cert;

    std::string_view header(std::string_view name) const noexcept { return find_header(headers, name); }
};

struct http_response {
    unsigned status = 200;
    std::string content_type = "application/json";
    http_headers headers;
    std::string body;
};

/// The sink of a streaming (chunked) response. Valid only inside the body
/// coroutine it was passed to.
class http_stream_writer {
public:
    virtual ~http_stream_writer() = default;
    /// Sends one chunk (empty chunks are skipped, they would end the body).
    /// False when the client went away, the write timed out, or the server
    /// is stopping: the body coroutine should return.
    virtual boost::asio::awaitable<bool> write(std::string chunk) = 0;
};

struct http_stream {
    unsigned status = 200;
    std::string content_type = "application/json";
    http_headers headers;
    /// Runs until it returns (the body then ends cleanly with the last chunk)
    /// or is cancelled (client gone, server stopping).
    std::function<boost::asio::awaitable<void>(http_stream_writer&)> body;
};

/// Close the connection without writing anything.
struct http_drop {};

using http_reply = std::variant<http_response, http_stream, http_drop>;

using http_handler = std::function<boost::asio::awaitable<http_reply>(http_request)>;

struct http_server_options {
    /// Keep-alive connection waiting for its next request.
    std::chrono::milliseconds idle_timeout{std::chrono::seconds(90)};
    /// Reading one request, writing one response or one chunk, TLS handshake.
    std::chrono::milliseconds io_timeout{std::chrono::seconds(30)};
    std::uint64_t body_limit = 3 * 1024 * 1024;  // kube-apiserver's 3 MiB
    /// The request line and headers: kube-apiserver's MaxHeaderBytes (1 MiB,
    /// apiserver/pkg/server/secure_serving.go), not Beast's 8 KiB default: a
    /// sharded informer's shardSelector of ~250 ranges is a 20 KB query.
    /// Beyond it: 431, as Go's net/http answers.
    std::uint32_t header_limit = 1024 * 1024;
    std::size_t max_sessions = 1024;
};

class http_server {
public:
    /// `clock` must outlive the server and its sessions. `tls` null means plain
    /// HTTP; otherwise it must outlive the server's sessions too.
    http_server(boost::asio::any_io_executor ex, clock& clk, http_handler handler,
                http_server_options options = {},
                std::shared_ptr<boost::asio::ssl::context> tls = nullptr);
    ~http_server();
    http_server(const http_server&) = delete;
    http_server& operator=(const http_server&) = delete;

    /// Binds and starts accepting; port 0 picks a free port. Returns the
    /// bound endpoint.
    result<boost::asio::ip::tcp::endpoint> listen(const boost::asio::ip::tcp::endpoint& ep);
    /// The bound endpoint (port 0 before listen).
    boost::asio::ip::tcp::endpoint local_endpoint() const;
    bool is_tls() const noexcept;

    /// Graceful shutdown, see the file comment. Returns immediately; run the
    /// io_context until `session_count()` is 0.
    void stop(std::chrono::milliseconds grace = std::chrono::seconds(5));
    /// Ends every streaming response now (the connections stay usable):
    /// fault injection "close all watch streams".
    void close_streams();

    std::size_t session_count() const noexcept;
    std::size_t streaming_count() const noexcept;
    /// Connections accepted since start.
    std::uint64_t accepted() const noexcept;

    struct impl;

private:
    std::shared_ptr<impl> impl_;
};

} // namespace kcoro::io
