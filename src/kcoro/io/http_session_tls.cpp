// TLS sessions (see http_session.hpp): handshake with a deadline, then the
// verified client certificate's CN and O (tls.hpp) become the request's
// identity.
#include "http_session.hpp"

#include <boost/asio/ssl/stream.hpp>


namespace kcoro::io::detail {


asio::awaitable<void> tls_session(std::shared_ptr<http_server::impl> srv, asio::ip::tcp::socket sock,
                                  std::shared_ptr<session_state> st) {
    asio::ssl::stream<asio::ip::tcp::socket> s(std::move(sock), *srv->tls);
    st->socket = &s.next_layer();
    try {
        s.next_layer().set_option(asio::ip::tcp::no_delay(true));
        std::string remote = endpoint_string(s.next_layer());
        st->phase = session_phase::handshake;
        auto hop = s.async_handshake(asio::ssl::stream_base::server, tuple_awaitable) ||
                   srv->clk.sleep_for(srv->options.io_timeout);
        auto h = co_await std::move(hop);
        if (h.index() == 0 && !std::get<0>(std::get<0>(h)) && !st->stop_requested) {
            auto cert = verified_peer_identity(s.native_handle());
            co_await serve(s, *srv, *st, remote, cert);
            // Polite close_notify, bounded: peers often just close.
            auto sop = s.async_shutdown(tuple_awaitable) ||
                       srv->clk.sleep_for(std::chrono::milliseconds(std::min<long>(srv->options.io_timeout.count(), 1000)));
            co_await std::move(sop);
        }
    } catch (const std::exception&) {
        // Only bugs throw here; the connection is closed below either way.
    }
    boost::system::error_code ignored;
    s.next_layer().close(ignored);
    st->socket = nullptr;
    srv->remove(st);
}

} // namespace kcoro::io::detail
