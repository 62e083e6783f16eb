// Request/response exchanges over pooled keep-alive connections.
#include "detail/connection.hpp"

#include <boost/asio/ssl/error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>

namespace kcoro::client {

using namespace detail;

namespace {

// The peer closed a kept-alive connection: nothing of an answer came back.
bool is_closed_connection(const boost::system::error_code& ec) {
    return ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
           ec == asio::error::broken_pipe || ec == asio::ssl::error::stream_truncated ||
           ec == http::error::partial_message;
}

struct exchange_outcome {
    http_response response;
    bool keep_alive = false;
};

template <class Stream>
asio::awaitable<result<exchange_outcome>> exchange(Stream& s, beast::flat_buffer& buf,
                                                   http::request<http::string_body>& msg, std::size_t limit,
                                                   bool& got_bytes, boost::system::error_code& raw_ec) {
    auto [wec, wn] = co_await http::async_write(s, msg, asio::as_tuple(asio::use_awaitable));
    (void)wn;
    if (wec) {
        raw_ec = wec;
        co_return error(wec, "write: " + wec.message());
    }
    http::response_parser<http::string_body> p;
    p.body_limit(limit);
    auto [rec, rn] = co_await http::async_read(s, buf, p, asio::as_tuple(asio::use_awaitable));
    got_bytes = rn > 0 || p.got_some();
    if (rec) {
        raw_ec = rec;
        co_return error(rec, "read: " + rec.message());
    }
    exchange_outcome out;
    copy_header(p.get().base(), out.response);
    out.keep_alive = p.get().keep_alive();
    out.response.body = std::move(p.get().body());
    co_return out;
}

// As exchange, with a 2xx body handed to `sink` through a fixed buffer as it
// is read, so no answer is ever held whole; other answers are read whole.
template <class Stream>
asio::awaitable<result<exchange_outcome>> exchange_streaming(Stream& s, beast::flat_buffer& buf,
                                                             http::request<http::string_body>& msg,
                                                             std::size_t limit, const body_sink& sink,
                                                             bool& got_bytes, boost::system::error_code& raw_ec) {
    auto [wec, wn] = co_await http::async_write(s, msg, asio::as_tuple(asio::use_awaitable));
    (void)wn;
    if (wec) {
        raw_ec = wec;
        co_return error(wec, "write: " + wec.message());
    }
    http::response_parser<http::buffer_body> p;
    p.body_limit(boost::none);  // streamed: the size of the body costs nothing
    auto [hec, hn] = co_await http::async_read_header(s, buf, p, asio::as_tuple(asio::use_awaitable));
    got_bytes = hn > 0 || p.got_some();
    if (hec) {
        raw_ec = hec;
        co_return error(hec, "read: " + hec.message());
    }
    exchange_outcome out;
    copy_header(p.get().base(), out.response);
    out.keep_alive = p.get().keep_alive();
    if (out.response.status < 200 || out.response.status > 299) {
        // A Status: small, decoded whole by the caller.
        http::response_parser<http::string_body> whole(std::move(p));
        whole.body_limit(limit);
        auto [rec, rn] = co_await http::async_read(s, buf, whole, asio::as_tuple(asio::use_awaitable));
        (void)rn;
        if (rec) {
            raw_ec = rec;
            co_return error(rec, "read: " + rec.message());
        }
        out.response.body = std::move(whole.get().body());
        co_return out;
    }
    std::string chunk(64 * 1024, '\0');
    while (!p.is_done()) {
        p.get().body().data = chunk.data();
        p.get().body().size = chunk.size();
        auto [rec, rn] = co_await http::async_read_some(s, buf, p, asio::as_tuple(asio::use_awaitable));
        (void)rn;
        if (rec == http::error::need_buffer) {
            rec = {};  // the buffer is full: hand it over and read on
        }
        if (rec) {
            raw_ec = rec;
            co_return error(rec, "read: " + rec.message());
        }
        const std::size_t got = chunk.size() - p.get().body().size;
        if (got > 0) {
            if (auto taken = sink(std::string_view(chunk.data(), got)); !taken) {
                co_return taken.error();  // the caller closes the connection
            }
        }
    }
    co_return out;
}

} // namespace

http_transport::http_transport(io::clock& clk, transport_options opts, server_endpoint ep, std::shared_ptr<void> tls)
    : clk_(clk), opts_(std::move(opts)), endpoint_(std::move(ep)), tls_(std::move(tls)) {}

http_transport::~http_transport() { close_idle(); }

void http_transport::close_idle() noexcept {
    for (auto& c : idle_) {
        c->close();
    }
    idle_.clear();
}

result<std::unique_ptr<http_transport>> http_transport::create(io::clock& clk, transport_options opts) {
    auto ep = parse_server_url(opts.server);
    if (!ep) {
        return ep.error();
    }
    std::shared_ptr<void> tls;
    if (ep->tls) {
        if (opts.tls.server_name.empty()) {
            opts.tls.server_name = ep->host;
        }
        auto ctx = io::make_client_tls_context(opts.tls);
        if (!ctx) {
            return ctx.error();
        }
        tls = std::move(*ctx);
    }
    return std::unique_ptr<http_transport>(new http_transport(clk, std::move(opts), std::move(*ep), std::move(tls)));
}

void http_transport::observe(const api_request& req, std::string_view code, steady_time start) {
    if (opts_.metrics) {
        auto secs = std::chrono::duration<double>(clk_.now() - start).count();
        opts_.metrics->observe(req.verb, to_string(req.method), endpoint_.host_header, code, secs);
    }
}

asio::awaitable<result<std::unique_ptr<connection>>> http_transport::connect(steady_time deadline) {
    auto now = clk_.now();
    auto connect_deadline = std::min(deadline, now + opts_.connect_timeout);
    // The handshake budget starts after connect; bounded by the request deadline.
    auto tls_deadline = std::min(deadline, now + opts_.connect_timeout + opts_.tls_handshake_timeout);
    auto* ctx = static_cast<asio::ssl::context*>(tls_.get());
    co_return co_await open_connection(clk_, endpoint_, ctx, opts_.tls.server_name, connect_deadline, tls_deadline);
}

namespace detail {
// One request waiting for a connection: its timer is cancelled to wake it.
struct connection_waiter {
    explicit connection_waiter(const asio::any_io_executor& ex) : timer(ex, asio::steady_timer::time_point::max()) {}
    asio::steady_timer timer;
    bool waiting = true;  // false once woken or gone (deadline, cancellation)
};
} // namespace detail

asio::awaitable<result<void>> http_transport::wait_released() {
    auto w = std::make_shared<connection_waiter>(co_await asio::this_coro::executor);
    waiters_.push_back(w);
    // However the wait ends, this waiter is no longer one to wake.
    struct leave {
        connection_waiter& w;
        ~leave() { w.waiting = false; }
    } left{*w};
    co_await w->timer.async_wait(asio::as_tuple(asio::use_awaitable));
    co_return result<void>{};
}

void http_transport::wake_one_waiter() noexcept {
    while (!waiters_.empty()) {
        auto w = std::move(waiters_.front());
        waiters_.pop_front();
        if (w->waiting) {
            w->waiting = false;
            w->timer.cancel();
            return;
        }
    }
}

asio::awaitable<result<http_response>> http_transport::attempt(const api_request& req, const std::string& token,
                                                               const body_sink* sink) {
    auto start = clk_.now();
    auto deadline = start + req.timeout.value_or(opts_.request_timeout);
    // Under max_connections: wait until a connection is free or idle.
    while (opts_.max_connections > 0 && idle_.empty() && busy_ >= opts_.max_connections) {
        auto wait = wait_released();
        auto waited = co_await with_deadline(clk_, deadline, std::move(wait), "waiting for a connection");
        if (!waited) {
            observe(req, "<error>", start);
            co_return waited.error().with_context(describe(req, endpoint_));
        }
    }
    // The connection this request holds, given back on every way out.
    struct checkout {
        http_transport& t;
        explicit checkout(http_transport& tr) : t(tr) { ++t.busy_; }
        ~checkout() {
            --t.busy_;
            t.wake_one_waiter();
        }
        checkout(const checkout&) = delete;
        checkout& operator=(const checkout&) = delete;
    } held(*this);
    auto msg = make_request(req, endpoint_, opts_, token);
    // Writes are never replayed once sent: a connection closed after the
    // request went out may have committed it (the lost acknowledgement), and
    // the caller must re-read instead (client-go retries only GETs on a reset).
    // A GET is replayed once when a reused connection was closed before any
    // answer (the server closed it while idle, racing our request).
    const bool replayable = req.method == http_method::get;
    for (int tries = 0;; ++tries) {
        std::unique_ptr<connection> conn;
        while (!idle_.empty() && !conn) {
            conn = std::move(idle_.back());
            idle_.pop_back();
            if (conn->idle_peer_closed()) {
                conn->close();
                conn.reset();
            }
        }
        if (!conn) {
            auto c = co_await connect(deadline);
            if (!c) {
                observe(req, "<error>", start);
                co_return c.error().with_context(describe(req, endpoint_));
            }
            conn = std::move(*c);
        }
        bool got_bytes = false;
        boost::system::error_code raw_ec;
        auto op = conn->visit([&](auto& s) {
            return sink ? exchange_streaming(s, conn->buffer, msg, opts_.max_body_bytes, *sink, got_bytes, raw_ec)
                        : exchange(s, conn->buffer, msg, opts_.max_body_bytes, got_bytes, raw_ec);
        });
        auto r = co_await with_deadline(clk_, deadline, std::move(op), "request");
        if (!r) {
            conn->close();
            if (replayable && conn->reused && !got_bytes && is_closed_connection(raw_ec) && tries == 0) {
                continue;
            }
            observe(req, "<error>", start);
            co_return r.error().with_context(describe(req, endpoint_));
        }
        observe(req, std::to_string(r->response.status), start);
        if (r->keep_alive && idle_.size() < opts_.max_idle_connections) {
            conn->reused = true;
            idle_.push_back(std::move(conn));
        } else {
            conn->close();
        }
        co_return std::move(r->response);
    }
}

asio::awaitable<result<http_response>> http_transport::round_trip(api_request req) {
    co_return co_await round_trip_with(std::move(req), nullptr);
}

asio::awaitable<result<http_response>> http_transport::round_trip_streaming(api_request req, body_sink sink) {
    co_return co_await round_trip_with(std::move(req), &sink);
}

asio::awaitable<result<http_response>> http_transport::round_trip_with(api_request req, const body_sink* sink) {
    for (int auth_try = 0;; ++auth_try) {
        std::string token;
        if (opts_.auth.bearer_token) {
            auto t = co_await opts_.auth.bearer_token();
            if (!t) {
                co_return t.error();
            }
            token = std::move(*t);
        }
        auto r = co_await attempt(req, token, sink);
        // A 401 may mean a rotated token: refresh once (client-go does the same
        // for file and exec credentials).
        if (r && r->status == 401 && auth_try == 0 && opts_.auth.invalidate) {
            opts_.auth.invalidate();
            continue;
        }
        co_return r;
    }
}

asio::awaitable<result<http_response>> transport::round_trip_streaming(api_request req, body_sink sink) {
    auto r = co_await round_trip(std::move(req));
    if (r && r->status >= 200 && r->status <= 299) {
        const std::string body = std::move(r->body);
        r->body.clear();
        if (auto taken = sink(body); !taken) {
            co_return taken.error();
        }
    }
    co_return r;
}

asio::awaitable<result<http_response>> transport::send(api_request req) {
    auto r = co_await round_trip(std::move(req));
    if (r && (r->status < 200 || r->status > 299)) {
        co_return error_from_response(*r);
    }
    co_return r;
}

} // namespace kcoro::client
