// The accept loop, the session registry and shutdown. The per-connection
// session (Beast) is compiled in http_session_plain.cpp and
// http_session_tls.cpp so the two heavy units build in parallel.
#include <kcoro/io/http_server.hpp>

#include "http_server_impl.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <cctype>
#include <vector>

namespace kcoro::io {
namespace asio = boost::asio;
using asio::ip::tcp;

std::string_view find_header(const http_headers& headers, std::string_view name) noexcept {
    for (const auto& [k, v] : headers) {
        if (k.size() == name.size() &&
            std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) {
                return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
            })) {
            return v;
        }
    }
    return {};
}

http_server::impl::impl(asio::any_io_executor e, io::clock& c, http_handler h, http_server_options o,
                        std::shared_ptr<asio::ssl::context> t)
    : ex(std::move(e)), clk(c), handler(std::move(h)), options(o), tls(std::move(t)), acceptor(ex) {}

asio::awaitable<void> http_server::impl::accept_loop() {
    auto self = shared_from_this();  // the loop keeps the state alive
    while (!stopping) {
        auto [ec, sock] = co_await acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
        if (stopping || !acceptor.is_open()) {
            co_return;
        }
        if (ec) {
            // EMFILE and friends: back off briefly instead of spinning.
            co_await clk.sleep_for(std::chrono::milliseconds(50));
            continue;
        }
        if (sessions.size() >= options.max_sessions) {
            boost::system::error_code ignored;
            sock.close(ignored);
            continue;
        }
        ++accepted;
        auto st = std::make_shared<detail::session_state>();
        sessions.push_back(st);
        auto slot = st->cancel.slot();
        if (tls) {
            asio::co_spawn(ex, detail::tls_session(self, std::move(sock), st),
                           asio::bind_cancellation_slot(slot, asio::detached));
        } else {
            asio::co_spawn(ex, detail::plain_session(self, std::move(sock), st),
                           asio::bind_cancellation_slot(slot, asio::detached));
        }
    }
}

void http_server::impl::soft_stop(detail::session_state& st) {
    boost::system::error_code ignored;
    switch (st.phase) {
    case detail::session_phase::handshake:
    case detail::session_phase::idle:
        if (st.socket) {
            st.socket->cancel(ignored);
        }
        break;
    case detail::session_phase::streaming:
        if (st.stream_stop) {
            st.stream_stop->cancel();
        }
        break;
    default:
        // Reading or handling: the session answers, then sees stop_requested.
        break;
    }
}

void http_server::impl::hard_stop(const std::shared_ptr<detail::session_state>& sp) {
    auto& st = *sp;
    boost::system::error_code ignored;
    st.stop_requested = true;
    if (st.stream_stop) {
        st.stream_stop->cancel();
    }
    if (st.socket) {
        st.socket->close(ignored);
    }
    // Emit from a handler that keeps the session state alive: co_spawn's
    // cancellation handler (in st.cancel's slot) re-dispatches the emit to the
    // session's executor, and if the session finished and dropped the state
    // before that ran, it would touch freed memory. On the io_context's
    // thread the inner dispatch runs inline, while `sp` is held.
    asio::post(ex, [sp] { sp->cancel.emit(asio::cancellation_type::terminal); });
}

void http_server::impl::remove(const std::shared_ptr<detail::session_state>& st) {
    sessions.remove(st);
}

http_server::http_server(asio::any_io_executor ex, io::clock& clk, http_handler handler,
                         http_server_options options, std::shared_ptr<asio::ssl::context> tls)
    : impl_(std::make_shared<impl>(std::move(ex), clk, std::move(handler), options, std::move(tls))) {}

http_server::~http_server() {
    stop(std::chrono::milliseconds(0));
}

result<tcp::endpoint> http_server::listen(const tcp::endpoint& ep) {
    boost::system::error_code ec;
    auto& a = impl_->acceptor;
    if (a.is_open()) {
        return error(kcoro_errc::invalid_config, "http_server: already listening");
    }
    a.open(ep.protocol(), ec);
    if (!ec) {
        a.set_option(asio::socket_base::reuse_address(true), ec);
    }
    if (!ec) {
        a.bind(ep, ec);
    }
    if (!ec) {
        a.listen(asio::socket_base::max_listen_connections, ec);
    }
    if (ec) {
        boost::system::error_code ignored;
        a.close(ignored);
        return error(ec, "http_server: listen on " + ep.address().to_string() + ":" + std::to_string(ep.port()));
    }
    impl_->bound = a.local_endpoint(ec);
    auto self = impl_;
    asio::co_spawn(impl_->ex, self->accept_loop(), asio::detached);
    return impl_->bound;
}

tcp::endpoint http_server::local_endpoint() const { return impl_->bound; }
bool http_server::is_tls() const noexcept { return impl_->tls != nullptr; }

void http_server::stop(std::chrono::milliseconds grace) {
    auto& s = *impl_;
    boost::system::error_code ignored;
    s.stopping = true;
    s.acceptor.close(ignored);
    // Copy: stopping may finish sessions, which unregister themselves.
    std::vector<std::shared_ptr<detail::session_state>> all(s.sessions.begin(), s.sessions.end());
    if (grace.count() <= 0) {
        for (auto& st : all) {
            s.hard_stop(st);
        }
        return;
    }
    for (auto& st : all) {
        st->stop_requested = true;
        s.soft_stop(*st);
    }
    // After the grace period, whatever is left is closed hard.
    auto self = impl_;
    auto terminal = [](std::shared_ptr<impl> srv, std::chrono::milliseconds g) -> asio::awaitable<void> {
        co_await srv->clk.sleep_for(g);
        std::vector<std::shared_ptr<detail::session_state>> left(srv->sessions.begin(), srv->sessions.end());
        for (auto& st : left) {
            srv->hard_stop(st);
        }
    };
    asio::co_spawn(s.ex, terminal(self, grace), asio::detached);
}

void http_server::close_streams() {
    std::vector<std::shared_ptr<detail::session_state>> all(impl_->sessions.begin(), impl_->sessions.end());
    for (auto& st : all) {
        if (st->phase == detail::session_phase::streaming && st->stream_stop) {
            st->stream_stop->cancel();
        }
    }
}

std::size_t http_server::session_count() const noexcept { return impl_->sessions.size(); }

std::size_t http_server::streaming_count() const noexcept {
    return static_cast<std::size_t>(std::count_if(impl_->sessions.begin(), impl_->sessions.end(), [](const auto& st) {
        return st->phase == detail::session_phase::streaming;
    }));
}

std::uint64_t http_server::accepted() const noexcept { return impl_->accepted; }

} // namespace kcoro::io
