// Opening connections and encoding requests (see detail/connection.hpp).
#include "detail/connection.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/this_coro.hpp>

namespace kcoro::client::detail {

namespace {

asio::awaitable<result<void>> tcp_connect(tcp::socket& sock, const server_endpoint& ep) {
    boost::system::error_code ec;
    auto addr = asio::ip::make_address(ep.host, ec);
    if (!ec) {
        unsigned long port = std::strtoul(ep.port.c_str(), nullptr, 10);
        auto [cec] = co_await sock.async_connect(tcp::endpoint(addr, static_cast<unsigned short>(port)),
                                                 asio::as_tuple(asio::use_awaitable));
        if (cec) {
            co_return error(cec, "connect " + ep.host + ":" + ep.port + ": " + cec.message());
        }
        co_return result<void>{};
    }
    tcp::resolver resolver(sock.get_executor());
    auto [rec, results] = co_await resolver.async_resolve(ep.host, ep.port, asio::as_tuple(asio::use_awaitable));
    if (rec) {
        co_return error(rec, "resolve " + ep.host + ": " + rec.message());
    }
    auto [cec, endpoint] = co_await asio::async_connect(sock, results, asio::as_tuple(asio::use_awaitable));
    (void)endpoint;
    if (cec) {
        co_return error(cec, "connect " + ep.host + ":" + ep.port + ": " + cec.message());
    }
    co_return result<void>{};
}

asio::awaitable<result<void>> tls_handshake(tls_stream& s) {
    auto [ec] = co_await s.async_handshake(asio::ssl::stream_base::client, asio::as_tuple(asio::use_awaitable));
    if (ec) {
        co_return error(ec, "TLS handshake: " + ec.message());
    }
    co_return result<void>{};
}

} // namespace

asio::awaitable<result<std::unique_ptr<connection>>> open_connection(io::clock& clk, const server_endpoint& ep,
                                                                     asio::ssl::context* tls,
                                                                     const std::string& server_name,
                                                                     steady_time connect_deadline,
                                                                     steady_time tls_deadline) {
    tcp::socket sock(co_await asio::this_coro::executor);
    auto connect_op = tcp_connect(sock, ep);
    auto connected = co_await with_deadline(clk, connect_deadline, std::move(connect_op), "connect");
    if (!connected) {
        co_return connected.error();
    }
    boost::system::error_code ignored;
    sock.set_option(tcp::no_delay(true), ignored);
    if (!tls) {
        co_return std::make_unique<connection>(std::move(sock));
    }
    auto c = std::make_unique<connection>(std::move(sock), *tls);
    auto sni = io::set_client_sni(c->tls->native_handle(), server_name);
    if (!sni) {
        co_return sni.error();
    }
    auto hs_op = tls_handshake(*c->tls);
    auto hs = co_await with_deadline(clk, tls_deadline, std::move(hs_op), "TLS handshake");
    if (!hs) {
        co_return hs.error();
    }
    co_return c;
}

http::request<http::string_body> make_request(const api_request& req, const server_endpoint& ep,
                                              const transport_options& opts, const std::string& token) {
    http::verb verb = http::verb::get;
    switch (req.method) {
    case http_method::get: verb = http::verb::get; break;
    case http_method::post: verb = http::verb::post; break;
    case http_method::put: verb = http::verb::put; break;
    case http_method::patch: verb = http::verb::patch; break;
    case http_method::delete_: verb = http::verb::delete_; break;
    }
    http::request<http::string_body> msg{verb, ep.path_prefix + req.target, 11};
    msg.set(http::field::host, ep.host_header);
    msg.set(http::field::user_agent, opts.user_agent);
    msg.set(http::field::accept, "application/json");
    if (!token.empty()) {
        msg.set(http::field::authorization, "Bearer " + token);
    }
    for (const auto& [k, v] : req.headers) {
        msg.set(k, v);
    }
    if (!req.body.empty() || req.method == http_method::post || req.method == http_method::put ||
        req.method == http_method::patch) {
        msg.set(http::field::content_type, req.content_type.empty() ? "application/json" : req.content_type);
        msg.body() = req.body;
    }
    msg.keep_alive(!req.is_watch);
    msg.prepare_payload();
    return msg;
}

std::string describe(const api_request& req, const server_endpoint& ep) {
    return std::string(to_string(req.method)) + " " + (ep.tls ? "https://" : "http://") + ep.host_header +
           ep.path_prefix + req.target;
}

} // namespace kcoro::client::detail
