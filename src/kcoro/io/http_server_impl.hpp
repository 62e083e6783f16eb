// Private: the shared state of an http_server and its sessions. Asio only;
// the Beast session template lives in http_session.hpp.
#pragma once

#include <kcoro/io/http_server.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <list>
#include <memory>

namespace kcoro::io {

namespace detail {

/// What a session is doing; stop() treats each phase differently.
enum class session_phase { handshake, idle, reading, handling, streaming, closing };

/// One connection's state as the server sees it. Pointers are set by the
/// session coroutine while the objects live in its frame, and cleared before
/// they die.
struct session_state {
    session_phase phase = session_phase::handshake;
    bool stop_requested = false;
    boost::asio::ip::tcp::socket* socket = nullptr;       // lowest layer
    boost::asio::steady_timer* stream_stop = nullptr;     // cancelled to end a stream
    boost::asio::cancellation_signal cancel;              // terminal cancellation
};

} // namespace detail

struct http_server::impl : std::enable_shared_from_this<http_server::impl> {
    impl(boost::asio::any_io_executor ex, io::clock& clk, http_handler h, http_server_options o,
         std::shared_ptr<boost::asio::ssl::context> tls);

    boost::asio::any_io_executor ex;
    io::clock& clk;
    http_handler handler;
    http_server_options options;
    std::shared_ptr<boost::asio::ssl::context> tls;
    boost::asio::ip::tcp::acceptor acceptor;
    boost::asio::ip::tcp::endpoint bound;
    std::list<std::shared_ptr<detail::session_state>> sessions;
    bool stopping = false;
    std::uint64_t accepted = 0;

    boost::asio::awaitable<void> accept_loop();
    /// Ends one session's stream (if streaming) or its idle wait.
    void soft_stop(detail::session_state& st);
    /// Closes the connection and cancels the session coroutine.
    void hard_stop(const std::shared_ptr<detail::session_state>& st);
    void remove(const std::shared_ptr<detail::session_state>& st);
};

namespace detail {
/// Defined in http_session_plain.cpp / http_session_tls.cpp (compiled apart).
boost::asio::awaitable<void> plain_session(std::shared_ptr<http_server::impl> srv,
                                           boost::asio::ip::tcp::socket sock,
                                           std::shared_ptr<session_state> st);
boost::asio::awaitable<void> tls_session(std::shared_ptr<http_server::impl> srv,
                                         boost::asio::ip::tcp::socket sock,
                                         std::shared_ptr<session_state> st);
} // namespace detail

} // namespace kcoro::io
