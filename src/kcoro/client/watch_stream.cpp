// A watch: body pieces from the transport into client-core's incremental decoder.
#include <kcoro/client/client.hpp>

#include <kcoro/core/watch_decoder.hpp>

namespace kcoro::client {

namespace asio = boost::asio;

struct watch_stream::state {
    state(std::unique_ptr<body_stream> b, std::size_t limit) : body(std::move(b)), decoder(limit) {}
    std::unique_ptr<body_stream> body;
    watch_decoder decoder;
    bool body_ended = false;
    bool closed = false;
};

watch_stream::watch_stream() = default;
watch_stream::watch_stream(std::unique_ptr<body_stream> body, std::size_t max_event_bytes)
    : s_(std::make_unique<state>(std::move(body), max_event_bytes)) {}
watch_stream::watch_stream(watch_stream&&) noexcept = default;
watch_stream& watch_stream::operator=(watch_stream&&) noexcept = default;
watch_stream::~watch_stream() { close(); }

bool watch_stream::is_open() const noexcept { return s_ && !s_->closed; }

void watch_stream::close() noexcept {
    if (s_ && !s_->closed) {
        s_->closed = true;
        if (s_->body) {
            s_->body->close();
        }
    }
}

asio::awaitable<result<std::optional<watch_event>>> watch_stream::next() {
    if (!s_) {
        co_return std::optional<watch_event>{};
    }
    for (;;) {
        // Events already decoded are delivered before the end or an error.
        if (auto ev = s_->decoder.next()) {
            if (!*ev) {
                close();
                co_return ev->error();
            }
            co_return std::optional<watch_event>(std::move(**ev));
        }
        if (s_->closed || s_->body_ended) {
            close();
            co_return std::optional<watch_event>{};
        }
        auto piece = co_await s_->body->read_some();
        if (!piece) {
            close();
            co_return piece.error();
        }
        if (piece->empty()) {
            s_->body_ended = true;
            auto fin = s_->decoder.finish();
            if (!fin) {
                close();
                co_return fin.error();
            }
            continue;
        }
        s_->decoder.feed(*piece);
    }
}

} // namespace kcoro::client
