// Private: the session coroutine, shared by the plain and the TLS unit.
// read (with idle and io deadlines) -> handler -> write, until the client
// closes, asks for Connection: close, times out, or the server stops.
#pragma once

#include "http_server_impl.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <exception>
#include <string>
#include <variant>

namespace kcoro::io::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using namespace asio::experimental::awaitable_operators;

inline constexpr auto tuple_awaitable = asio::as_tuple(asio::use_awaitable);

inline std::string endpoint_string(const asio::ip::tcp::socket& s) {
    boost::system::error_code ec;
    auto ep = s.remote_endpoint(ec);
    if (ec) {
        return {};
    }
    return ep.address().to_string() + ":" + std::to_string(ep.port());
}

/// Waits until the timer is cancelled (a stop signal for a stream).
inline asio::awaitable<boost::system::error_code> wait_stop(asio::steady_timer& t) {
    auto [ec] = co_await t.async_wait(tuple_awaitable);
    co_return ec;
}

/// The handler, with exceptions (bugs) turned into a 500.
inline asio::awaitable<http_reply> call_handler(http_server::impl& srv, http_request req) {
    try {
        co_return co_await srv.handler(std::move(req));
    } catch (const std::exception& e) {
        co_return http_response{500, "text/plain", {}, std::string("internal error: ") + e.what() + "\n"};
    }
}

inline asio::awaitable<void> run_body(const http_stream& s, http_stream_writer& w) {
    try {
        co_await s.body(w);
    } catch (const std::exception&) {
        // A body that throws ends the stream; the session closes the connection.
    }
}

template <class Stream>
class chunk_writer final : public http_stream_writer {
public:
    chunk_writer(Stream& s, http_server::impl& srv, session_state& st) : s_(s), srv_(srv), st_(st) {}

    asio::awaitable<bool> write(std::string chunk) override {
        if (failed_ || st_.stop_requested) {
            co_return false;
        }
        if (chunk.empty()) {
            co_return true;
        }
        busy_ = true;
        auto op = asio::async_write(s_, http::make_chunk(asio::buffer(chunk)), tuple_awaitable) ||
                  srv_.clk.sleep_for(srv_.options.io_timeout);
        auto r = co_await std::move(op);
        busy_ = false;
        if (r.index() != 0 || std::get<0>(std::get<0>(r))) {
            failed_ = true;
            co_return false;
        }
        co_return true;
    }

    /// A write was interrupted mid-chunk (cancelled or failed): the framing
    /// is broken and the connection must close.
    bool broken() const noexcept { return failed_ || busy_; }

private:
    Stream& s_;
    http_server::impl& srv_;
    session_state& st_;
    bool failed_ = false;
    bool busy_ = false;
};

/// Reads and discards until the client closes: how a streaming session learns
/// that the client went away. Any bytes read are kept for the next request.
template <class Stream>
asio::awaitable<boost::system::error_code> read_until_closed(Stream& s, beast::flat_buffer& buf) {
    for (;;) {
        auto [ec, n] = co_await s.async_read_some(buf.prepare(4096), tuple_awaitable);
        if (ec) {
            co_return ec;
        }
        buf.commit(n);
        if (buf.size() > 64 * 1024) {
            co_return http::error::buffer_overflow;
        }
    }
}

inline http_request to_request(http::request<http::string_body>&& req, const std::string& remote,
                               const std::optional<peer_identity>& cert) {
    http_request out;
    out.method = std::string(req.method_string());
    out.target = std::string(req.target());
    for (const auto& f : req) {
        out.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
    }
    out.body = std::move(req.body());
    out.remote_address = remote;
    out.client_cert = cert;
    return out;
}

template <class Stream>
asio::awaitable<bool> write_response(Stream& s, http_server::impl& srv, http_response r, bool keep_alive,
                                     bool head = false) {
    http::response<http::string_body> res{static_cast<http::status>(r.status), 11};
    res.set(http::field::server, "kcoro");
    if (!r.content_type.empty()) {
        res.set(http::field::content_type, r.content_type);
    }
    for (auto& [k, v] : r.headers) {
        res.insert(k, v);
    }
    res.body() = std::move(r.body);
    res.keep_alive(keep_alive);
    res.prepare_payload();
    if (head) {
        // A HEAD answer has the GET answer's headers (Content-Length
        // included) and no body (RFC 9110 9.3.2).
        http::response_serializer<http::string_body> sr{res};
        auto hop = http::async_write_header(s, sr, tuple_awaitable) || srv.clk.sleep_for(srv.options.io_timeout);
        auto hw = co_await std::move(hop);
        co_return hw.index() == 0 && !std::get<0>(std::get<0>(hw));
    }
    auto op = http::async_write(s, res, tuple_awaitable) || srv.clk.sleep_for(srv.options.io_timeout);
    auto w = co_await std::move(op);
    co_return w.index() == 0 && !std::get<0>(std::get<0>(w));
}

/// Streams a chunked response; returns whether the connection may be reused.
template <class Stream>
asio::awaitable<bool> write_stream(Stream& s, http_server::impl& srv, session_state& st, beast::flat_buffer& buf,
                                   http_stream r, bool keep_alive) {
    http::response<http::empty_body> res{static_cast<http::status>(r.status), 11};
    res.set(http::field::server, "kcoro");
    if (!r.content_type.empty()) {
        res.set(http::field::content_type, r.content_type);
    }
    for (auto& [k, v] : r.headers) {
        res.insert(k, v);
    }
    res.keep_alive(keep_alive);
    res.chunked(true);
    http::response_serializer<http::empty_body> sr{res};
    auto hop = http::async_write_header(s, sr, tuple_awaitable) || srv.clk.sleep_for(srv.options.io_timeout);
    auto h = co_await std::move(hop);
    if (h.index() != 0 || std::get<0>(std::get<0>(h))) {
        co_return false;
    }

    asio::steady_timer stop_timer(srv.ex, asio::steady_timer::time_point::max());
    st.stream_stop = &stop_timer;
    st.phase = session_phase::streaming;
    chunk_writer<Stream> writer(s, srv, st);
    bool ended_by_body = false;
    {
        auto op = run_body(r, writer) || read_until_closed(s, buf) || wait_stop(stop_timer);
        auto res2 = co_await std::move(op);
        ended_by_body = res2.index() == 0;
    }
    st.stream_stop = nullptr;
    if (writer.broken()) {
        co_return false;
    }
    // Ended by the body, by a stop signal or because the client went away:
    // end the body cleanly either way (a gone client just fails the write).
    auto lop = asio::async_write(s, http::make_chunk_last(), tuple_awaitable) ||
               srv.clk.sleep_for(srv.options.io_timeout);
    auto l = co_await std::move(lop);
    if (l.index() != 0 || std::get<0>(std::get<0>(l))) {
        co_return false;
    }
    // Reuse the connection only when the body ended by itself (timeoutSeconds).
    co_return ended_by_body && keep_alive;
}

/// The keep-alive loop over an established (and, for TLS, handshaken) stream.
template <class Stream>
asio::awaitable<void> serve(Stream& s, http_server::impl& srv, session_state& st, const std::string& remote,
                            const std::optional<peer_identity>& cert) {
    beast::flat_buffer buf;
    for (;;) {
        if (st.stop_requested) {
            co_return;
        }
        st.phase = session_phase::idle;
        if (buf.size() == 0) {
            auto op = s.async_read_some(buf.prepare(4096), tuple_awaitable) ||
                      srv.clk.sleep_for(srv.options.idle_timeout);
            auto r = co_await std::move(op);
            if (r.index() != 0) {
                co_return;  // idle timeout
            }
            auto [ec, n] = std::get<0>(r);
            if (ec || st.stop_requested) {
                co_return;
            }
            buf.commit(n);
        }
        st.phase = session_phase::reading;
        http::request_parser<http::string_body> parser;
        parser.body_limit(srv.options.body_limit);
        parser.header_limit(srv.options.header_limit);
        auto rop = http::async_read(s, buf, parser, tuple_awaitable) || srv.clk.sleep_for(srv.options.io_timeout);
        auto rr = co_await std::move(rop);
        if (rr.index() != 0) {
            co_return;
        }
        if (auto [ec, n] = std::get<0>(rr); ec) {
            (void)n;
            // g++ 12 (docs/toolchain.md): the responses are named first (an
            // aggregate temporary in a co_await operand is destroyed twice).
            if (ec == http::error::header_limit) {
                // Go's net/http (kube-apiserver) past MaxHeaderBytes.
                http_response too_large{431, "text/plain; charset=utf-8", {}, "431 Request Header Fields Too Large"};
                co_await write_response(s, srv, std::move(too_large), false);
            } else if (ec == http::error::body_limit) {
                http_response too_large{413, "text/plain", {}, "request too large\n"};
                co_await write_response(s, srv, std::move(too_large), false);
            } else if (ec.category() == http::make_error_code(http::error::end_of_stream).category() &&
                       ec != http::error::end_of_stream &&
                       ec != http::error::partial_message) {
                http_response bad{400, "text/plain", {}, "bad request\n"};
                co_await write_response(s, srv, std::move(bad), false);
            }
            co_return;
        }
        auto req = parser.release();
        bool keep_alive = req.keep_alive();
        const bool head = req.method() == http::verb::head;
        st.phase = session_phase::handling;
        http_reply reply = co_await call_handler(srv, to_request(std::move(req), remote, cert));
        keep_alive = keep_alive && !st.stop_requested;
        st.phase = session_phase::closing;
        if (std::holds_alternative<http_drop>(reply)) {
            co_return;
        }
        bool reuse = false;
        if (auto* resp = std::get_if<http_response>(&reply)) {
            reuse = co_await write_response(s, srv, std::move(*resp), keep_alive, head) && keep_alive;
        } else {
            reuse = co_await write_stream(s, srv, st, buf, std::move(std::get<http_stream>(reply)), keep_alive);
        }
        if (!reuse) {
            co_return;
        }
    }
}

} // namespace kcoro::io::detail
