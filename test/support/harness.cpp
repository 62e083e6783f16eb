// The integration tests' harness (harness.hpp).
#include "harness.hpp"

#include <kcoro/client/transport.hpp>

#include <boost/asio/awaitable.hpp>

#include <utility>

namespace kcoro::test {

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

// Counts a request in flight for as long as it lives (a cancelled
// coroutine's frame is destroyed too, so cancellation uncounts it).
struct in_flight_guard {
    explicit in_flight_guard(std::shared_ptr<harness_state> s) : st(std::move(s)) {
        ++st->in_flight;
        ++st->requests;
    }
    ~in_flight_guard() { --st->in_flight; }
    in_flight_guard(const in_flight_guard&) = delete;
    in_flight_guard& operator=(const in_flight_guard&) = delete;
    std::shared_ptr<harness_state> st;
};

// Any transport, with its requests counted in the harness's state.
class counting_transport final : public client::transport {
public:
    counting_transport(std::unique_ptr<client::transport> inner, std::shared_ptr<harness_state> st,
                       client::memory_transport* memory)
        : inner_(std::move(inner)), st_(std::move(st)), memory_(memory) {
        if (memory_) st_->memory.insert(memory_);
    }
    ~counting_transport() override {
        if (memory_) st_->memory.erase(memory_);
    }

    asio::awaitable<result<client::http_response>> round_trip(api_request req) override {
        in_flight_guard g(st_);
        auto op = inner_->round_trip(std::move(req));
        co_return co_await std::move(op);
    }
    asio::awaitable<result<std::unique_ptr<client::body_stream>>> open_stream(api_request req) override {
        in_flight_guard g(st_);
        auto op = inner_->open_stream(std::move(req));
        co_return co_await std::move(op);
    }
    void close_idle() noexcept override { inner_->close_idle(); }

private:
    std::unique_ptr<client::transport> inner_;
    std::shared_ptr<harness_state> st_;
    client::memory_transport* memory_;
};

std::function<asio::awaitable<result<std::string>>()> fixed_token(std::string token) {
    return [token = std::move(token)]() -> asio::awaitable<result<std::string>> { co_return token; };
}

} // namespace

harness::harness(harness_options o) : opts_(std::move(o)) {
    if (opts_.clock == clock_kind::manual) {
        auto m = std::make_unique<io::manual_clock>();
        manual_ = m.get();
        clk_ = std::move(m);
    } else {
        clk_ = std::make_unique<io::system_clock>();
    }
    auto so = opts_.server;
    so.listen = opts_.transport == transport_kind::http;
    srv_ = std::make_unique<apiserver::server>(ioc.get_executor(), *clk_, std::move(so));
    if (auto r = srv_->start(); !r) throw std::runtime_error("kcoro-apiserver did not start: " + r.error().message());
    if (opts_.transport == transport_kind::memory) {
        // close_watches() (a fault) reaches the clients' streams.
        srv_->handler().set_close_streams([st = state_] {
            const auto alive = st->memory;  // closing may run no handler, but copy anyway
            for (auto* t : alive) t->close_streams(client::stream_end::clean);
        });
    }
    client_spec admin;
    admin.groups = {"system:masters"};
    admin_ = make_client(std::move(admin));
}

harness::~harness() {
    owned_.clear();
    for (auto* t : state_->memory) t->close_streams(client::stream_end::clean);
    settle(5s);
    admin_.reset();
    srv_->stop(0ms);
    // The server's loops and sessions end on cancellation: run them out.
    for (int i = 0; i < 100 && ioc.poll() > 0; ++i) {
        if (ioc.stopped()) ioc.restart();
    }
}

io::manual_clock& harness::manual_clock() {
    if (!manual_) throw std::logic_error("harness: manual_clock() with clock_kind::steady");
    return *manual_;
}

std::unique_ptr<client::client> harness::make_client(client_spec spec) {
    std::string token = spec.token;
    if (token.empty() && opts_.authenticate) {
        auto cred = srv_->credentials_for(spec.user, spec.groups);
        if (!cred) throw std::runtime_error("harness: no credentials for " + spec.user);
        token = cred->token;
    }
    client::client_config cfg;
    cfg.server = srv_->url();
    cfg.token = token;
    if (opts_.transport == transport_kind::memory) {
        client::memory_transport_options mo;
        mo.bearer_token = token;
        mo.user_agent = spec.user_agent;
        mo.remote_address = spec.user + ":0";
        mo.metrics = spec.metrics;
        auto* srv = srv_.get();
        auto t = std::make_unique<client::memory_transport>(
            *clk_, [srv](io::http_request r) { return srv->handler()(std::move(r)); }, mo);
        auto* raw = t.get();
        auto counted = std::make_unique<counting_transport>(std::move(t), state_, raw);
        return client::client::create(cfg, *clk_, std::move(counted), spec.options);
    }
    client::transport_options to;
    to.server = cfg.server;
    to.user_agent = spec.user_agent;
    to.metrics = spec.metrics;
    if (!token.empty()) to.auth.bearer_token = fixed_token(token);
    auto t = client::http_transport::create(*clk_, std::move(to));
    if (!t) throw std::runtime_error("harness: " + t.error().message());
    auto counted = std::make_unique<counting_transport>(std::move(*t), state_, nullptr);
    return client::client::create(cfg, *clk_, std::move(counted), spec.options);
}

std::unique_ptr<client::client> harness::http_client(std::string url, client::client_options co) {
    client::transport_options to;
    to.server = url;
    auto t = client::http_transport::create(*clk_, std::move(to));
    if (!t) throw std::runtime_error("harness: " + t.error().message());
    client::client_config cfg;
    cfg.server = std::move(url);
    auto counted = std::make_unique<counting_transport>(std::move(*t), state_, nullptr);
    return client::client::create(cfg, *clk_, std::move(counted), co);
}

bool harness::settle(std::chrono::milliseconds bound) {
    const auto end = std::chrono::steady_clock::now() + bound;
    for (;;) {
        if (ioc.stopped()) ioc.restart();
        while (ioc.poll() > 0) {
            if (ioc.stopped()) ioc.restart();
        }
        if (state_->in_flight == 0) return true;
        // In process, with a manual clock, nothing but the clock can move a
        // request that waits now: do not spin until the bound.
        if (opts_.transport == transport_kind::memory && manual_) return false;
        if (std::chrono::steady_clock::now() > end) return false;
        // Sockets or real timers: wait for the next handler.
        if (ioc.stopped()) ioc.restart();
        ioc.run_one_for(20ms);
    }
}

server::manager_options harness::manager_options() const {
    server::manager_options o;
    o.metrics_bind_address = "0";
    o.health_probe_bind_address = "0";
    return o;
}

server::manager_setup harness::manager_setup(std::string name, client::client* c) {
    server::manager_setup s;
    s.name = name;
    s.io_context = &ioc;
    s.clock = clk_.get();
    if (!c) {
        client_spec spec;
        spec.user = name;
        owned_.push_back(make_client(std::move(spec)));
        c = owned_.back().get();
    }
    s.client = c;
    s.handle_signals = false;
    s.identity = std::move(name);
    s.random = [] { return 0.5; };
    return s;
}

std::unique_ptr<server::manager> harness::make_manager(server::manager_options o, server::manager_setup s) {
    auto m = server::manager::create(std::move(o), std::move(s));
    if (!m) throw std::runtime_error("harness: manager::create: " + m.error().message());
    return std::move(*m);
}

std::size_t harness::open_streams() const {
    if (opts_.transport == transport_kind::http) return srv_->http_server()->streaming_count();
    std::size_t n = 0;
    for (const auto* t : state_->memory) n += t->open_streams();
    return n;
}

void harness::close_watches() { srv_->close_watches(); }

} // namespace kcoro::test
