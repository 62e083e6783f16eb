// Plain-TCP sessions (see http_session.hpp).
#include "http_session.hpp"

namespace kcoro::io::detail {

asio::awaitable<void> plain_session(std::shared_ptr<http_server::impl> srv, asio::ip::tcp::socket sock,
                                    std::shared_ptr<session_state> st) {
    st->socket = &sock;
    try {
        sock.set_option(asio::ip::tcp::no_delay(true));
        std::string remote = endpoint_string(sock);
        co_await serve(sock, *srv, *st, remote, std::nullopt);
    } catch (const std::exception&) {
        // Only bugs throw here; the connection is closed below either way.
    }
    boost::system::error_code ignored;
    sock.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
    sock.close(ignored);
    st->socket = nullptr;
    srv->remove(st);
}

} // namespace kcoro::io::detail
