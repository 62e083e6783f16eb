#include "scripted_server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/beast/http.hpp>

#include <kcoro/io/tls.hpp>

#include <algorithm>
#include <cctype>
#include <set>

namespace kcoro::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

std::string url_decode(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '+') {
            out += ' ';
        } else if (s[i] == '%' && i + 2 < s.size() &&
                   std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
                   std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
            out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

header_list parse_query(std::string_view q) {
    header_list out;
    while (!q.empty()) {
        auto amp = q.find('&');
        auto part = q.substr(0, amp);
        auto eq = part.find('=');
        if (!part.empty()) {
            out.emplace_back(url_decode(part.substr(0, eq)),
                             eq == std::string_view::npos ? std::string() : url_decode(part.substr(eq + 1)));
        }
        q = amp == std::string_view::npos ? std::string_view{} : q.substr(amp + 1);
    }
    return out;
}

} // namespace

std::string recorded_request::query_value(const std::string& key) const {
    for (const auto& [k, v] : query) {
        if (k == key) return v;
    }
    return {};
}

std::string recorded_request::header(const std::string& name) const {
    for (const auto& [k, v] : headers) {
        if (iequals(k, name)) return v;
    }
    return {};
}

struct scripted_server::impl {
    explicit impl(asio::io_context& ioc) : acceptor(ioc), gate(ioc, asio::steady_timer::time_point::max()) {}
    tcp::acceptor acceptor;
    asio::steady_timer gate;
    std::shared_ptr<asio::ssl::context> tls;
    std::vector<step> script;
    std::size_t next = 0;
    std::vector<recorded_request> requests;
    std::vector<std::string> failures;
    std::size_t connections = 0;
    std::size_t gates_opened = 0;
    std::size_t gates_used = 0;
    bool stopped = false;
    std::set<tcp::socket*> sockets;
    unsigned short port = 0;

    void check(const expected_request& e, const recorded_request& r) {
        auto fail = [&](const std::string& what) {
            failures.push_back("request " + std::to_string(requests.size()) + " (" + r.method + " " + r.target +
                               "): " + what);
        };
        if (!e.method.empty() && e.method != r.method) fail("method, expected " + e.method);
        if (!e.path.empty() && e.path != r.path) fail("path, expected " + e.path);
        for (const auto& [k, v] : e.query) {
            bool found = false;
            for (const auto& [rk, rv] : r.query) {
                if (rk == k) {
                    found = true;
                    if (rv != v) fail("query " + k + "=" + rv + ", expected " + v);
                }
            }
            if (!found) fail("query " + k + " missing");
        }
        for (const auto& k : e.query_absent) {
            for (const auto& [rk, rv] : r.query) {
                if (rk == k) fail("query " + k + " present");
            }
        }
        for (const auto& [k, v] : e.headers) {
            auto got = r.header(k);
            if (got != v) fail("header " + k + ": \"" + got + "\", expected \"" + v + "\"");
        }
        if (!e.body_contains.empty() && r.body.find(e.body_contains) == std::string::npos) {
            fail("body lacks " + e.body_contains);
        }
    }

    asio::awaitable<bool> wait_gate() {
        while (gates_used >= gates_opened) {
            if (stopped) co_return false;
            auto [ec] = co_await gate.async_wait(asio::as_tuple(asio::use_awaitable));
            (void)ec;
        }
        ++gates_used;
        co_return !stopped;
    }
};

namespace {

template <class Stream>
asio::awaitable<void> answer(std::shared_ptr<scripted_server::impl> im, Stream& s,
                             const http::request<http::string_body>& req, const reply& a) {
    auto& sock = beast::get_lowest_layer(s);
    boost::system::error_code ignored;
    if (a.fail == fault::close_before_reply) {
        sock.close(ignored);
        co_return;
    }
    if (a.fail == fault::hang) {
        // Stays until stop() closes the socket: read returns an error then.
        beast::flat_buffer b;
        http::request<http::string_body> more;
        co_await http::async_read(s, b, more, asio::as_tuple(asio::use_awaitable));
        sock.close(ignored);
        co_return;
    }
    bool has_type = false;
    for (const auto& [k, v] : a.headers) {
        has_type = has_type || iequals(k, "Content-Type");
    }
    if (a.fail == fault::close_mid_body) {
        std::string head = "HTTP/1.1 " + std::to_string(a.status) + " X\r\nContent-Type: application/json\r\n" +
                           "Content-Length: " + std::to_string(a.body.size()) + "\r\n\r\n" +
                           a.body.substr(0, a.body.size() / 2);
        co_await asio::async_write(s, asio::buffer(head), asio::as_tuple(asio::use_awaitable));
        sock.close(ignored);
        co_return;
    }
    if (a.stream.empty()) {
        http::response<http::string_body> res{static_cast<http::status>(a.status), req.version()};
        if (!has_type) res.set(http::field::content_type, "application/json");
        for (const auto& [k, v] : a.headers) res.set(k, v);
        res.body() = a.body;
        res.keep_alive(req.keep_alive());
        res.prepare_payload();
        auto [ec, n] = co_await http::async_write(s, res, asio::as_tuple(asio::use_awaitable));
        (void)n;
        if (ec || a.close_after || !req.keep_alive()) sock.close(ignored);
        co_return;
    }
    http::response<http::empty_body> res{static_cast<http::status>(a.status), req.version()};
    if (!has_type) res.set(http::field::content_type, "application/json");
    for (const auto& [k, v] : a.headers) res.set(k, v);
    res.chunked(true);
    http::response_serializer<http::empty_body> sr{res};
    auto [hec, hn] = co_await http::async_write_header(s, sr, asio::as_tuple(asio::use_awaitable));
    (void)hn;
    if (hec) co_return;
    for (const auto& piece : a.stream) {
        if (piece.wait_gate) {
            bool go = co_await im->wait_gate();
            if (!go) co_return;
        }
        auto [ec, n] = co_await asio::async_write(s, http::make_chunk(asio::buffer(piece.data)),
                                                  asio::as_tuple(asio::use_awaitable));
        (void)n;
        if (ec) co_return;
    }
    if (a.hold_open) {
        beast::flat_buffer b;
        http::request<http::string_body> more;
        co_await http::async_read(s, b, more, asio::as_tuple(asio::use_awaitable));
        sock.close(ignored);
        co_return;
    }
    co_await asio::async_write(s, http::make_chunk_last(), asio::as_tuple(asio::use_awaitable));
    if (a.close_after) sock.close(ignored);
}

template <class Stream>
asio::awaitable<void> serve(std::shared_ptr<scripted_server::impl> im, Stream& s, std::size_t id,
                            std::string user, std::vector<std::string> groups) {
    beast::flat_buffer buf;
    for (;;) {
        http::request<http::string_body> req;
        auto [ec, n] = co_await http::async_read(s, buf, req, asio::as_tuple(asio::use_awaitable));
        (void)n;
        if (ec || im->stopped) co_return;
        recorded_request r;
        r.method = std::string(req.method_string());
        r.target = std::string(req.target());
        auto q = r.target.find('?');
        r.path = r.target.substr(0, q);
        if (q != std::string::npos) r.query = parse_query(std::string_view(r.target).substr(q + 1));
        for (const auto& f : req) r.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
        r.body = req.body();
        r.connection = id;
        r.client_cert_user = user;
        r.client_cert_groups = groups;
        reply a;
        if (im->next < im->script.size()) {
            const auto& st = im->script[im->next++];
            im->check(st.expect, r);
            a = st.answer;
        } else {
            im->failures.push_back("request beyond the script: " + r.method + " " + r.target);
            a.status = 500;
            a.body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"InternalError","code":500,"message":"beyond script"})";
        }
        im->requests.push_back(std::move(r));
        co_await answer(im, s, req, a);
        if (!beast::get_lowest_layer(s).is_open()) co_return;
    }
}

asio::awaitable<void> session(std::shared_ptr<scripted_server::impl> im, tcp::socket sock) {
    std::size_t id = ++im->connections;
    if (!im->tls) {
        im->sockets.insert(&sock);
        co_await serve(im, sock, id, {}, {});
        im->sockets.erase(&sock);
        co_return;
    }
    asio::ssl::stream<tcp::socket> s(std::move(sock), *im->tls);
    im->sockets.insert(&s.next_layer());
    auto [ec] = co_await s.async_handshake(asio::ssl::stream_base::server, asio::as_tuple(asio::use_awaitable));
    if (!ec) {
        // Named first: g++ 12 destroys `?:` temporaries of a co_await operand twice
        // (docs/toolchain.md).
        auto peer = io::verified_peer_identity(s.native_handle());
        std::string user = peer ? peer->user : std::string();
        std::vector<std::string> groups = peer ? peer->groups : std::vector<std::string>{};
        auto op = serve(im, s, id, std::move(user), std::move(groups));
        co_await std::move(op);
    }
    im->sockets.erase(&s.next_layer());
}

asio::awaitable<void> accept_loop(std::shared_ptr<scripted_server::impl> im) {
    for (;;) {
        auto [ec, sock] = co_await im->acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
        if (ec || im->stopped) co_return;
        asio::co_spawn(im->acceptor.get_executor(), session(im, std::move(sock)), asio::detached);
    }
}

} // namespace

scripted_server::scripted_server(asio::io_context& ioc, std::vector<step> script)
    : scripted_server(ioc, std::move(script), nullptr) {}

scripted_server::scripted_server(asio::io_context& ioc, std::vector<step> script,
                                 std::shared_ptr<asio::ssl::context> tls)
    : impl_(std::make_shared<impl>(ioc)) {
    impl_->script = std::move(script);
    impl_->tls = std::move(tls);
    tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), 0);
    impl_->acceptor.open(ep.protocol());
    impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
    impl_->acceptor.bind(ep);
    impl_->acceptor.listen();
    impl_->port = impl_->acceptor.local_endpoint().port();
    asio::co_spawn(ioc, accept_loop(impl_), asio::detached);
}

scripted_server::~scripted_server() { stop(); }

unsigned short scripted_server::port() const noexcept { return impl_->port; }
std::string scripted_server::url() const {
    return std::string(impl_->tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(impl_->port);
}
void scripted_server::add(step s) { impl_->script.push_back(std::move(s)); }
void scripted_server::open_gate() {
    ++impl_->gates_opened;
    impl_->gate.cancel();
}
const std::vector<recorded_request>& scripted_server::requests() const noexcept { return impl_->requests; }
const std::vector<std::string>& scripted_server::failures() const noexcept { return impl_->failures; }
std::size_t scripted_server::connections() const noexcept { return impl_->connections; }
std::size_t scripted_server::remaining() const noexcept { return impl_->script.size() - impl_->next; }

void scripted_server::stop() {
    if (impl_->stopped) return;
    impl_->stopped = true;
    boost::system::error_code ignored;
    impl_->acceptor.close(ignored);
    impl_->gate.cancel();
    for (auto* s : impl_->sockets) {
        s->shutdown(tcp::socket::shutdown_both, ignored);
        s->close(ignored);
    }
}

} // namespace kcoro::test
