// Requests handed to an in-process handler; no sockets, no Beast.
#include <kcoro/client/memory_transport.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <deque>
#include <exception>

namespace kcoro::client {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;

namespace {

constexpr auto tuple_awaitable = asio::as_tuple(asio::use_awaitable);


void set_header(io::http_headers& h, std::string_view name, std::string value) {
    for (auto& [k, v] : h) {
        if (k.size() == name.size() &&
            std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) {
                return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
            })) {
            v = std::move(value);
            return;
        }
    }
    h.emplace_back(std::string(name), std::move(value));
}

std::optional<int> parse_seconds(std::string_view v) {
    if (v.empty() || v.size() > 6) return std::nullopt;
    int secs = 0;
    for (char c : v) {
        if (c < '0' || c > '9') return std::nullopt;
        secs = secs * 10 + (c - '0');
    }
    return secs;
}

http_response to_response(unsigned status, std::string content_type, io::http_headers headers, std::string body) {
    http_response out;
    out.status = static_cast<int>(status);
    out.content_type = std::move(content_type);
    out.body = std::move(body);
    if (auto ra = io::find_header(headers, "retry-after"); !ra.empty()) {
        out.retry_after_seconds = parse_seconds(ra);
    }
    if (!out.content_type.empty() && io::find_header(headers, "content-type").empty()) {
        headers.emplace_back("Content-Type", out.content_type);
    }
    out.headers = std::move(headers);
    return out;
}

error dropped() {
    return error(make_error_code(boost::system::errc::connection_reset),
                 "read: connection reset (closed without an answer)");
}

// One handler call, run to its end whoever waits for it.
struct pending_reply {
    explicit pending_reply(const asio::any_io_executor& ex) : wake(ex, asio::steady_timer::time_point::max()) {}
    std::optional<io::http_reply> reply;
    std::string failure;  // the handler threw (a bug): its what()
    bool done = false;
    asio::steady_timer wake;
};

asio::awaitable<void> call(io::http_handler h, io::http_request req, std::shared_ptr<pending_reply> p) {
    try {
        auto op = h(std::move(req));
        p->reply = co_await std::move(op);
    } catch (const std::exception& e) {
        p->failure = e.what();
    }
}

asio::awaitable<boost::system::error_code> wait_timer(asio::steady_timer& t) {
    auto [ec] = co_await t.async_wait(tuple_awaitable);
    co_return ec;
}

} // namespace

// A stream's chunks between the body coroutine (writer) and the reader.
struct memory_transport::stream_state {
    explicit stream_state(const asio::any_io_executor& ex)
        : stop(ex, asio::steady_timer::time_point::max()), wake(ex, asio::steady_timer::time_point::max()) {}
    std::deque<std::string> chunks;
    bool body_done = false;  // the body coroutine returned
    bool closed = false;     // no more chunks accepted (reader closed, or close_streams)
    bool cut = false;        // the reader gets a reset after what it has
    bool woken = false;
    asio::steady_timer stop;  // cancelled to end the body coroutine
    asio::steady_timer wake;  // cancelled to wake the reader

    void notify() {
        woken = true;
        wake.cancel();
    }
    void end(bool cut_it) {
        if (cut_it && !cut) {
            cut = true;
            chunks.clear();  // in flight: lost with the connection
        }
        if (!closed) {
            closed = true;
            stop.cancel();
        }
        notify();
    }
};

namespace {

using stream_state = memory_transport::stream_state;

class queue_writer final : public io::http_stream_writer {
public:
    explicit queue_writer(std::shared_ptr<stream_state> st) : st_(std::move(st)) {}
    asio::awaitable<bool> write(std::string chunk) override {
        if (st_->closed) co_return false;
        if (!chunk.empty()) {
            st_->chunks.push_back(std::move(chunk));
            st_->notify();
        }
        co_return true;
    }

private:
    std::shared_ptr<stream_state> st_;
};

asio::awaitable<void> run_body(std::function<asio::awaitable<void>(io::http_stream_writer&)> body,
                               std::shared_ptr<stream_state> st) {
    queue_writer w(st);
    try {
        auto op = body(w);
        co_await std::move(op);
    } catch (const std::exception&) {
        // A body that throws ends the stream, as http_server does.
    }
}

asio::awaitable<void> drive_body(std::function<asio::awaitable<void>(io::http_stream_writer&)> body,
                                 std::shared_ptr<stream_state> st) {
    auto op = run_body(std::move(body), st) || wait_timer(st->stop);
    co_await std::move(op);
    st->body_done = true;
    st->notify();
}

class memory_body_stream final : public body_stream {
public:
    explicit memory_body_stream(std::shared_ptr<stream_state> st) : st_(std::move(st)) {}
    ~memory_body_stream() override { close(); }

    asio::awaitable<result<std::string_view>> read_some() override {
        for (;;) {
            if (!st_->chunks.empty()) {
                current_ = std::move(st_->chunks.front());
                st_->chunks.pop_front();
                co_return std::string_view(current_);
            }
            if (st_->cut) {
                co_return dropped();
            }
            if (st_->body_done || st_->closed) {
                co_return std::string_view{};
            }
            st_->woken = false;
            st_->wake.expires_at(asio::steady_timer::time_point::max());
            co_await wait_timer(st_->wake);
            if (!st_->woken) {
                co_return error(kcoro_errc::cancelled, "stream read cancelled");
            }
        }
    }

    void close() noexcept override {
        if (st_) st_->end(false);
    }

private:
    std::shared_ptr<stream_state> st_;
    std::string current_;
};

// An answer that is not a stream, as a stream (a watch answered with a plain 200).
class whole_body_stream final : public body_stream {
public:
    explicit whole_body_stream(std::string body) : body_(std::move(body)) {}
    asio::awaitable<result<std::string_view>> read_some() override {
        if (done_) co_return std::string_view{};
        done_ = true;
        co_return std::string_view(body_);
    }
    void close() noexcept override { done_ = true; }

private:
    std::string body_;
    bool done_ = false;
};

// Starts the body coroutine of a streaming reply.
std::shared_ptr<stream_state> start_stream(const asio::any_io_executor& ex, io::http_stream& s) {
    auto st = std::make_shared<stream_state>(ex);
    asio::co_spawn(ex, drive_body(std::move(s.body), st), asio::detached);
    return st;
}

asio::awaitable<result<std::string>> drain(body_stream& s) {
    std::string out;
    for (;;) {
        auto piece = co_await s.read_some();
        if (!piece) co_return piece.error();
        if (piece->empty()) co_return out;
        out.append(*piece);
    }
}

// Calls the handler and waits for its reply until `deadline`.
asio::awaitable<result<io::http_reply>> exchange(io::clock& clk, const io::http_handler& h, io::http_request req,
                                                 steady_time deadline) {
    auto ex = co_await asio::this_coro::executor;
    auto p = std::make_shared<pending_reply>(ex);
    auto task = call(h, std::move(req), p);
    asio::co_spawn(ex, std::move(task), [p](std::exception_ptr) {
        p->done = true;
        p->wake.cancel();
    });
    while (!p->done) {
        auto op = wait_timer(p->wake) || clk.sleep_until(deadline);
        auto v = co_await std::move(op);
        if (p->done) break;
        if (v.index() == 1 && !std::get<1>(v)) {
            co_return error(kcoro_errc::deadline_exceeded, "request: deadline exceeded");
        }
        co_return error(kcoro_errc::cancelled, "request: cancelled");
    }
    if (!p->reply) {
        co_return error(make_error_code(boost::system::errc::connection_reset),
                        "read: connection reset (handler failed: " + p->failure + ")");
    }
    co_return std::move(*p->reply);
}

} // namespace

memory_transport::memory_transport(io::clock& clk, io::http_handler handler, memory_transport_options opts)
    : clk_(clk), handler_(std::move(handler)), opts_(std::move(opts)) {}

memory_transport::~memory_transport() = default;

io::http_request memory_transport::make_request(const api_request& req) const {
    io::http_request out;
    out.method = std::string(to_string(req.method));
    out.target = req.target;
    out.remote_address = opts_.remote_address;
    out.headers.emplace_back("Host", opts_.host);
    out.headers.emplace_back("User-Agent", opts_.user_agent);
    out.headers.emplace_back("Accept", "application/json");
    if (!opts_.bearer_token.empty()) {
        out.headers.emplace_back("Authorization", "Bearer " + opts_.bearer_token);
    }
    for (const auto& [k, v] : req.headers) {
        set_header(out.headers, k, v);
    }
    if (!req.body.empty() || req.method == http_method::post || req.method == http_method::put ||
        req.method == http_method::patch) {
        set_header(out.headers, "Content-Type", req.content_type.empty() ? "application/json" : req.content_type);
        out.body = req.body;
    }
    return out;
}

void memory_transport::observe(const api_request& req, std::string_view code, steady_time start) {
    if (opts_.metrics) {
        auto secs = std::chrono::duration<double>(clk_.now() - start).count();
        opts_.metrics->observe(req.verb, to_string(req.method), opts_.host, code, secs);
    }
}

asio::awaitable<result<io::http_reply>> memory_transport::deliver(const api_request& req, steady_time start) {
    const auto deadline = start + req.timeout.value_or(opts_.request_timeout);
    ++requests_;
    auto http_req = make_request(req);
    auto op = exchange(clk_, handler_, std::move(http_req), deadline);
    auto r = co_await std::move(op);
    if (!r) {
        observe(req, "<error>", start);
    }
    co_return r;
}

asio::awaitable<result<http_response>> memory_transport::round_trip(api_request req) {
    const auto start = clk_.now();
    auto op = deliver(req, start);
    auto r = co_await std::move(op);
    if (!r) {
        co_return r.error();
    }
    if (auto* resp = std::get_if<io::http_response>(&*r)) {
        observe(req, std::to_string(resp->status), start);
        co_return to_response(resp->status, std::move(resp->content_type), std::move(resp->headers),
                              std::move(resp->body));
    }
    if (auto* s = std::get_if<io::http_stream>(&*r)) {
        // A streamed answer to a plain request: read it whole.
        auto ex = co_await asio::this_coro::executor;
        auto st = start_stream(ex, *s);
        memory_body_stream body(st);
        auto all = co_await drain(body);
        if (!all) {
            observe(req, "<error>", start);
            co_return all.error();
        }
        observe(req, std::to_string(s->status), start);
        co_return to_response(s->status, std::move(s->content_type), std::move(s->headers), std::move(*all));
    }
    observe(req, "<error>", start);
    co_return dropped();
}

asio::awaitable<result<std::unique_ptr<body_stream>>> memory_transport::open_stream(api_request req) {
    const auto start = clk_.now();
    auto op = deliver(req, start);
    auto r = co_await std::move(op);
    if (!r) {
        co_return r.error();
    }
    if (auto* resp = std::get_if<io::http_response>(&*r)) {
        observe(req, std::to_string(resp->status), start);
        auto head = to_response(resp->status, std::move(resp->content_type), std::move(resp->headers),
                                std::move(resp->body));
        if (head.status < 200 || head.status > 299) {
            co_return error_from_response(head);
        }
        co_return std::unique_ptr<body_stream>(new whole_body_stream(std::move(head.body)));
    }
    auto* s = std::get_if<io::http_stream>(&*r);
    if (s == nullptr) {
        observe(req, "<error>", start);
        co_return dropped();
    }
    observe(req, std::to_string(s->status), start);
    auto ex = co_await asio::this_coro::executor;
    auto st = start_stream(ex, *s);
    if (s->status < 200 || s->status > 299) {
        memory_body_stream body(st);
        auto all = co_await drain(body);
        auto head = to_response(s->status, std::move(s->content_type), std::move(s->headers),
                                all ? std::move(*all) : std::string());
        co_return error_from_response(head);
    }
    // Forget the streams that ended, keep this one.
    streams_.remove_if([](const std::weak_ptr<stream_state>& w) { return w.expired(); });
    streams_.push_back(st);
    co_return std::unique_ptr<body_stream>(new memory_body_stream(std::move(st)));
}

void memory_transport::close_streams(stream_end how) {
    for (auto& w : streams_) {
        if (auto st = w.lock()) st->end(how == stream_end::cut);
    }
    streams_.clear();
}

std::size_t memory_transport::open_streams() const noexcept {
    std::size_t n = 0;
    for (const auto& w : streams_) {
        if (auto st = w.lock(); st && !st->closed && !st->body_done) ++n;
    }
    return n;
}

} // namespace kcoro::client
