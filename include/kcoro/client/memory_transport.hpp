// A transport without sockets: each request is handed to an in-process HTTP
// handler (an `io::http_handler`, e.g. kcoro-apiserver's api_handler) on the
// same io_context, and its reply comes back as the answer; a streaming reply
// (a watch) is read chunk by chunk as the handler writes it.
//
//   kcoro::apiserver::server srv(io.get_executor(), clk, {.listen = false});
//   srv.start();
//   auto t = std::make_unique<kcoro::client::memory_transport>(clk,
//       [&srv](kcoro::io::http_request r) { return srv.handler()(std::move(r)); });
//   auto c = kcoro::client::client::create(cfg, clk, std::move(t));
//
// What the wire would do, kept: the request carries method, target, headers
// (User-Agent, Accept, Content-Type, Authorization when a token is set) and
// body as http_transport sends them; `http_drop` (the handler closes without
// answering: the lost acknowledgement) is a connection reset; a request
// deadline (the request's timeout, else `request_timeout`) gives
// kcoro_errc::deadline_exceeded while the handler runs on to its end, as a
// server does not learn that its client gave up. Cancelling the awaiting
// coroutine gives kcoro_errc::cancelled; the handler still runs to its end.
// Order: answers come back in the order the handler produces them, and a
// stream's chunks in the order written. Nothing else runs in between but
// what the io_context runs, so a run on a manual clock is deterministic.
//
// Streams: the handler's body coroutine writes into a queue the reader
// drains (unbounded: the handler never waits for the reader). close() on the
// body_stream cancels the body coroutine (terminal cancellation), as a
// client going away does to a server. close_streams() ends every open
// stream of this transport: cleanly (the server ended the body) or cut (a
// connection reset, after what was already written).
//
// Lifetime: the handler and the clock must outlive the transport and its
// streams' body coroutines; a body_stream may outlive the transport. Thread
// safety: none (one io_context).
#pragma once

#include <kcoro/client/transport.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/io/http_server.hpp>

#include <chrono>
#include <list>
#include <memory>
#include <string>

namespace kcoro::client {

struct memory_transport_options {
    /// Sent as "Authorization: Bearer <token>" when not empty.
    std::string bearer_token;
    std::string user_agent = "kcoro/0.1.0";
    /// The handler's http_request::remote_address.
    std::string remote_address = "memory:0";
    /// Whole-request deadline when the request carries none; for a watch it
    /// bounds the time to the reply.
    std::chrono::milliseconds request_timeout{std::chrono::seconds(60)};
    /// Every attempt, as http_transport reports it ("<error>" without an answer).
    request_metrics* metrics = nullptr;
    /// The host label of the metrics.
    std::string host = "memory";
};

/// How close_streams() ends a stream.
enum class stream_end {
    clean,  // the server ended the body (the reader sees the end of the stream)
    cut,    // the connection was reset (the reader gets a transport error)
};

class memory_transport final : public transport {
public:
    memory_transport(io::clock& clk, io::http_handler handler, memory_transport_options opts = {});
    ~memory_transport() override;
    memory_transport(const memory_transport&) = delete;
    memory_transport& operator=(const memory_transport&) = delete;

    boost::asio::awaitable<result<http_response>> round_trip(api_request req) override;
    boost::asio::awaitable<result<std::unique_ptr<body_stream>>> open_stream(api_request req) override;

    /// Ends every stream open now (see the file comment).
    void close_streams(stream_end how);
    /// Streams open now (their body coroutine still running or unread data).
    std::size_t open_streams() const noexcept;
    /// Requests handed to the handler since construction (streams included).
    std::uint64_t requests() const noexcept { return requests_; }

    struct stream_state;

private:
    io::http_request make_request(const api_request& req) const;
    void observe(const api_request& req, std::string_view code, steady_time start);
    /// Hands `req` to the handler (counted, with its deadline); a failure is observed.
    boost::asio::awaitable<result<io::http_reply>> deliver(const api_request& req, steady_time start);

    io::clock& clk_;
    io::http_handler handler_;
    memory_transport_options opts_;
    std::uint64_t requests_ = 0;
    std::list<std::weak_ptr<stream_state>> streams_;
};

} // namespace kcoro::client
