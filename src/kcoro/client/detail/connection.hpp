// Private to the transport: one connection (plain TCP or TLS), how it is
// opened, request encoding and the deadline race. Heavy Beast/Asio/SSL
// templates: included only by the transport's .cpp files.
#pragma once

#include <kcoro/client/transport.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <sys/socket.h>

#include <cerrno>
#include <optional>
#include <string>
#include <variant>

namespace kcoro::client::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using tls_stream = asio::ssl::stream<tcp::socket>;

/// One open connection. Exactly one of plain/tls is engaged.
struct connection {
    explicit connection(tcp::socket s) : plain(std::move(s)) {}
    connection(tcp::socket s, asio::ssl::context& ctx) : tls(std::in_place, std::move(s), ctx) {}

    /// Calls f with the stream; f returns the same type for both.
    template <class F>
    auto visit(F&& f) {
        return tls ? f(*tls) : f(*plain);
    }
    tcp::socket& socket() noexcept { return tls ? tls->next_layer() : *plain; }
    /// An idle pooled connection is usable only if the peer has sent nothing:
    /// readable bytes (a TLS close_notify, junk) or EOF mean the server closed
    /// or abandoned it. Checked before reuse, as Go's transport does, so a
    /// request is never written to a connection known to be dead.
    bool idle_peer_closed() noexcept {
        auto& s = socket();
        if (!s.is_open()) {
            return true;
        }
        if (buffer.size() != 0) {
            return true;
        }
        char probe = 0;
        const auto n = ::recv(s.native_handle(), &probe, 1, MSG_PEEK | MSG_DONTWAIT);
        return n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
    }
    void close() noexcept {
        boost::system::error_code ignored;
        socket().shutdown(tcp::socket::shutdown_both, ignored);
        socket().close(ignored);
    }

    std::optional<tcp::socket> plain;
    std::optional<tls_stream> tls;
    beast::flat_buffer buffer;
    /// Served an earlier request (so it may have been closed by the server while idle).
    bool reused = false;
};

/// Runs `op` against `deadline` on the clock. The loser is cancelled and
/// awaited. When the caller is cancelled both are, and the result says so.
template <class R>
asio::awaitable<R> with_deadline(io::clock& clk, steady_time deadline, asio::awaitable<R> op,
                                 std::string_view what) {
    using namespace asio::experimental::awaitable_operators;
    auto sleep = clk.sleep_until(deadline);
    auto v = co_await (std::move(op) || std::move(sleep));
    if (v.index() == 0) {
        co_return std::get<0>(std::move(v));
    }
    if (std::get<1>(v)) {
        // The sleep was aborted: the awaiting coroutine was cancelled.
        co_return R(error(kcoro_errc::cancelled, std::string(what) + ": cancelled"));
    }
    co_return R(error(kcoro_errc::deadline_exceeded, std::string(what) + ": deadline exceeded"));
}

/// Resolves, connects (connect deadline), and for TLS sets SNI and completes
/// the handshake (handshake deadline).
asio::awaitable<result<std::unique_ptr<connection>>> open_connection(io::clock& clk, const server_endpoint& ep,
                                                                     asio::ssl::context* tls,
                                                                     const std::string& server_name,
                                                                     steady_time connect_deadline,
                                                                     steady_time tls_deadline);

/// The HTTP/1.1 request for `req`, with Host, User-Agent, Accept and Authorization.
http::request<http::string_body> make_request(const api_request& req, const server_endpoint& ep,
                                              const transport_options& opts, const std::string& token);

/// Fills an http_response from a parsed Beast response header.
template <class Fields>
void copy_header(const http::header<false, Fields>& h, http_response& out) {
    out.status = static_cast<int>(h.result_int());
    for (const auto& f : h) {
        out.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
        if (f.name() == http::field::content_type) {
            out.content_type = std::string(f.value());
        } else if (f.name() == http::field::retry_after) {
            int secs = 0;
            auto v = f.value();
            bool ok = !v.empty();
            for (char c : v) {
                if (c < '0' || c > '9' || secs > 100000) {
                    ok = false;
                    break;
                }
                secs = secs * 10 + (c - '0');
            }
            if (ok) {
                out.retry_after_seconds = secs;
            }
        }
    }
}

/// "GET https://host:port/path": context for transport errors.
std::string describe(const api_request& req, const server_endpoint& ep);

} // namespace kcoro::client::detail
