// Streaming answers (watch): a dedicated connection whose body is read as it
// arrives, never waiting for the end of an endless stream (docs/toolchain.md, Beast).
#include "detail/connection.hpp"

#include <array>

namespace kcoro::client {

using namespace detail;

namespace {

using stream_parser = http::response_parser<http::buffer_body>;

template <class Stream>
asio::awaitable<result<void>> send_and_read_header(Stream& s, beast::flat_buffer& buf,
                                                   http::request<http::string_body>& msg, stream_parser& p) {
    auto [wec, wn] = co_await http::async_write(s, msg, asio::as_tuple(asio::use_awaitable));
    (void)wn;
    if (wec) {
        co_return error(wec, "write: " + wec.message());
    }
    auto [rec, rn] = co_await http::async_read_header(s, buf, p, asio::as_tuple(asio::use_awaitable));
    (void)rn;
    if (rec) {
        co_return error(rec, "read header: " + rec.message());
    }
    co_return result<void>{};
}

template <class Stream>
asio::awaitable<boost::system::error_code> read_piece(Stream& s, beast::flat_buffer& buf, stream_parser& p) {
    auto [ec, n] = co_await http::async_read_some(s, buf, p, asio::as_tuple(asio::use_awaitable));
    (void)n;
    co_return ec;
}

class connection_body_stream final : public body_stream {
public:
    connection_body_stream(std::unique_ptr<connection> c, std::unique_ptr<stream_parser> p)
        : conn_(std::move(c)), parser_(std::move(p)) {}
    ~connection_body_stream() override { close(); }

    asio::awaitable<result<std::string_view>> read_some() override {
        for (;;) {
            if (done_ || !conn_) {
                co_return std::string_view{};
            }
            auto& body = parser_->get().body();
            body.data = chunk_.data();
            body.size = chunk_.size();
            auto op = conn_->visit([&](auto& s) { return read_piece(s, conn_->buffer, *parser_); });
            auto ec = co_await std::move(op);
            std::size_t n = chunk_.size() - body.size;
            if (ec == http::error::need_buffer) {
                ec = {};  // our chunk buffer is full: a normal outcome
            }
            if (ec) {
                close();
                if (ec == asio::error::operation_aborted) {
                    co_return error(kcoro_errc::cancelled, "stream read cancelled");
                }
                co_return error(ec, "stream read: " + ec.message());
            }
            if (parser_->is_done()) {
                done_ = true;
                close();
            }
            if (n > 0) {
                co_return std::string_view(chunk_.data(), n);
            }
        }
    }

    void close() noexcept override {
        if (conn_) {
            conn_->close();
            conn_.reset();
        }
    }

private:
    std::unique_ptr<connection> conn_;
    std::unique_ptr<stream_parser> parser_;
    std::array<char, 16 * 1024> chunk_{};
    bool done_ = false;
};

// Reads a whole (error) body, bounded in size.
asio::awaitable<result<std::string>> drain(body_stream& s, std::size_t limit) {
    std::string out;
    for (;;) {
        auto piece = co_await s.read_some();
        if (!piece) {
            co_return piece.error();
        }
        if (piece->empty()) {
            co_return out;
        }
        out.append(piece->data(), std::min(piece->size(), limit - std::min(limit, out.size())));
        if (out.size() >= limit) {
            co_return out;
        }
    }
}

} // namespace

asio::awaitable<result<std::unique_ptr<body_stream>>> http_transport::open_attempt(const api_request& req,
                                                                               const std::string& token) {
    auto start = clk_.now();
    auto deadline = start + req.timeout.value_or(opts_.request_timeout);
    auto c = co_await connect(deadline);
    if (!c) {
        observe(req, "<error>", start);
        co_return c.error().with_context(describe(req, endpoint_));
    }
    std::unique_ptr<connection> conn = std::move(*c);
    auto msg = make_request(req, endpoint_, opts_, token);
    auto parser = std::make_unique<stream_parser>();
    parser->body_limit(boost::none);
    auto op = conn->visit([&](auto& s) { return send_and_read_header(s, conn->buffer, msg, *parser); });
    auto r = co_await with_deadline(clk_, deadline, std::move(op), "watch");
    if (!r) {
        observe(req, "<error>", start);
        conn->close();
        co_return r.error().with_context(describe(req, endpoint_));
    }
    http_response head;
    copy_header(parser->get().base(), head);
    observe(req, std::to_string(head.status), start);
    auto stream = std::make_unique<connection_body_stream>(std::move(conn), std::move(parser));
    if (head.status < 200 || head.status > 299) {
        auto drain_op = drain(*stream, 1024 * 1024);
        auto body = co_await with_deadline(clk_, deadline, std::move(drain_op), "watch error body");
        if (body) {
            head.body = std::move(*body);
        }
        co_return error_from_response(head).with_context(describe(req, endpoint_));
    }
    co_return std::unique_ptr<body_stream>(std::move(stream));
}

asio::awaitable<result<std::unique_ptr<body_stream>>> http_transport::open_stream(api_request req) {
    for (int auth_try = 0;; ++auth_try) {
        std::string token;
        if (opts_.auth.bearer_token) {
            auto t = co_await opts_.auth.bearer_token();
            if (!t) {
                co_return t.error();
            }
            token = std::move(*t);
        }
        auto r = co_await open_attempt(req, token);
        if (!r && r.error().http_code() == 401 && auth_try == 0 && opts_.auth.invalidate) {
            opts_.auth.invalidate();
            continue;
        }
        co_return r;
    }
}

} // namespace kcoro::client
