#include "server.hpp"
#include "http/rbac.hpp"

#include <kcoro/core/base64.hpp>
#include <kcoro/io/tls.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <random>

namespace kcoro::apiserver {

namespace asio = boost::asio;

server::server(asio::any_io_executor ex, io::clock& clk, server_options options)
    : ex_(std::move(ex)), clk_(clk), options_(std::move(options)), store_(options_.store, clk.wall_now()) {
    if (options_.tokens) {
        tokens_ = *options_.tokens;
    }
    access_.set_tokens(tokens_);
    access_.set_policy(options_.policy);
    if (options_.rbac) {
        // --authorization-mode=RBAC: the bootstrap policy, then the stored
        // roles and bindings decide (http/rbac.hpp).
        http::bootstrap_rbac(store_, clk.wall_now());
        access_.set_rbac([this](const http::authz_attributes& a) { return http::rbac_authorize(store_, a); });
    }
    handler_ = std::make_unique<http::api_handler>(store_, clk_, access_, faults_, hub_, options_.handler, options_.log);
    store_.set_commit_hook([this](revision_t rev) {
        handler_->on_commit(rev);
        hub_.notify();
    });
}

server::~server() {
    stop(std::chrono::milliseconds(0));
    store_.set_commit_hook({});
}

result<void> server::start() {
    if (!options_.listen) {
        if (auto r = publish_root_ca(); !r) return r;
        store_.set_service_account_controller(options_.service_account_controller, clk_.wall_now());
        loop_running_ = true;
        asio::co_spawn(ex_, background_loop(), asio::bind_cancellation_slot(loop_cancel_.slot(), asio::detached));
        return {};
    }
    if (options_.tls) {
        if (!options_.ca_cert_pem.empty()) {
            auto ca = io::certificate_authority::from_pem(options_.ca_cert_pem, options_.ca_key_pem);
            if (!ca) return ca.error().with_context("kcoro-apiserver CA");
            ca_ = std::move(*ca);
        } else {
            auto ca = io::certificate_authority::create("kcoro-apiserver-ca");
            if (!ca) return ca.error().with_context("kcoro-apiserver CA");
            ca_ = std::move(*ca);
        }
        ca_pem_ = ca_->cert_pem();
        std::string cert = options_.cert_pem;
        std::string key = options_.key_pem;
        if (cert.empty()) {
            std::vector<std::string> ips{"127.0.0.1", "::1"};
            boost::system::error_code ec;
            auto addr = asio::ip::make_address(options_.address, ec);
            if (!ec && !addr.is_unspecified() && std::find(ips.begin(), ips.end(), options_.address) == ips.end()) {
                ips.push_back(options_.address);
            }
            auto pair = ca_->issue_server({"localhost", "kcoro-apiserver"}, ips);
            if (!pair) return pair.error().with_context("kcoro-apiserver serving certificate");
            cert = pair->cert_pem;
            key = pair->key_pem;
        }
        io::tls_server_options to;
        to.cert_chain_pem = cert;
        to.key_pem = key;
        if (options_.client_cert_auth) {
            to.client_ca_pem = ca_pem_;
            to.mode = io::client_cert_mode::request;
        }
        auto ctx = io::make_server_tls_context(to);
        if (!ctx) return ctx.error().with_context("kcoro-apiserver TLS");
        access_.enable_client_certs(options_.client_cert_auth);
        http_ = std::make_unique<io::http_server>(ex_, clk_, [h = handler_.get()](io::http_request r) {
            return (*h)(std::move(r));
        }, options_.http, *ctx);
    } else {
        http_ = std::make_unique<io::http_server>(ex_, clk_, [h = handler_.get()](io::http_request r) {
            return (*h)(std::move(r));
        }, options_.http);
    }
    boost::system::error_code ec;
    auto addr = asio::ip::make_address(options_.address, ec);
    if (ec) {
        return error(kcoro_errc::invalid_config, "kcoro-apiserver: bad listen address " + options_.address);
    }
    if (auto r = publish_root_ca(); !r) return r;
    store_.set_service_account_controller(options_.service_account_controller, clk_.wall_now());
    auto ep = http_->listen({addr, options_.port});
    if (!ep) {
        return ep.error();
    }
    handler_->options().server_address = options_.address + ":" + std::to_string(ep->port());
    handler_->set_close_streams([this] { http_->close_streams(); });
    loop_running_ = true;
    asio::co_spawn(ex_, background_loop(), asio::bind_cancellation_slot(loop_cancel_.slot(), asio::detached));
    handler_->log({{"level", "info"}, {"msg", "listening"}, {"url", url()}});
    return {};
}

result<void> server::publish_root_ca() {
    if (!options_.root_ca_publisher) return {};
    std::string pem = ca_pem_;
    if (pem.empty()) {
        // Plain HTTP has no serving CA: a cluster still has one, so the
        // ConfigMap holds a CA made for it (nothing it signs is served).
        auto ca = io::certificate_authority::create("kcoro-apiserver-ca");
        if (!ca) return ca.error().with_context("kcoro-apiserver root CA");
        pem = ca->cert_pem();
    }
    store_.set_root_ca(std::move(pem), clk_.wall_now());
    return {};
}

void server::stop(std::chrono::milliseconds grace) {
    if (loop_running_) {
        loop_running_ = false;
        loop_cancel_.emit(asio::cancellation_type::terminal);
    }
    if (http_) {
        http_->stop(grace);
    }
}

asio::awaitable<void> server::background_loop() {
    const std::chrono::nanoseconds interval = std::min(options_.gc_interval, options_.simulate_interval);
    std::chrono::nanoseconds pause = interval;
    for (;;) {
        auto ec = co_await clk_.sleep_for(pause);
        if (ec) {
            co_return;  // stopped: touch nothing of *this
        }
        const auto started = clk_.now();
        const auto now = clk_.wall_now();
        // Cascades (owner gone -> dependents -> their dependents) converge in
        // a few passes; bounded so a bug cannot spin the io_context.
        for (int i = 0; i < 16 && store_.gc_step(now); ++i) {
        }
        store_.simulate_step(now);
        // A pass walks every object (the real garbage collector follows
        // events instead): while writes keep coming, spend at most about a
        // tenth of the time on it, so 20,000 objects under a stream of
        // creates do not halve the server's throughput.
        pause = std::max(interval, 9 * std::chrono::duration_cast<std::chrono::nanoseconds>(clk_.now() - started));
    }
}

std::string server::url() const {
    if (!options_.listen) return "http://kcoro-apiserver.memory";
    std::string host = options_.address;
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    return std::string(options_.tls ? "https://" : "http://") + host + ":" + std::to_string(port());
}

std::uint16_t server::port() const { return http_ ? http_->local_endpoint().port() : 0; }

result<client_credentials> server::credentials_for(std::string_view user, std::vector<std::string> groups) {
    client_credentials c;
    c.server = url();
    c.ca_pem = ca_pem_;
    c.user = std::string(user);
    if (options_.tls && options_.client_cert_auth && ca_) {
        auto pair = ca_->issue_client(user, groups);
        if (!pair) return pair.error();
        c.client_cert_pem = pair->cert_pem;
        c.client_key_pem = pair->key_pem;
        return c;
    }
    // A token made from a counter and the store's seed: unique, not secret
    // (test server).
    std::mt19937_64 rng(options_.store.random_seed + (++token_seq_) * 7919);
    c.token = "kcoro-" + std::to_string(rng()) + "-" + std::to_string(token_seq_);
    tokens_.add(c.token, http::user_info{std::string(user), std::move(groups)});
    access_.set_tokens(tokens_);
    return c;
}

std::string server::kubeconfig_yaml(const client_credentials& c) {
    std::string y;
    y += "apiVersion: v1\nkind: Config\nclusters:\n- name: kcoro\n  cluster:\n    server: " + c.server + "\n";
    if (!c.ca_pem.empty()) {
        y += "    certificate-authority-data: " + base64_encode(c.ca_pem) + "\n";
    }
    y += "contexts:\n- name: kcoro\n  context:\n    cluster: kcoro\n    user: " + (c.user.empty() ? std::string("admin") : c.user) +
         "\n    namespace: default\ncurrent-context: kcoro\nusers:\n- name: " + (c.user.empty() ? std::string("admin") : c.user) +
         "\n  user:\n";
    bool any = false;
    if (!c.token.empty()) {
        y += "    token: " + c.token + "\n";
        any = true;
    }
    if (!c.client_cert_pem.empty()) {
        y += "    client-certificate-data: " + base64_encode(c.client_cert_pem) + "\n";
        y += "    client-key-data: " + base64_encode(c.client_key_pem) + "\n";
        any = true;
    }
    if (!any) {
        y += "    {}\n";
    }
    return y;
}

void server::close_watches() {
    faults_.log("closing all watch streams");
    handler_->close_streams();
}

void server::compact() {
    faults_.log("compacting history at revision " + std::to_string(store_.current_revision()));
    store_.compact();
}

void server::stall_watches(bool on) {
    faults_.set_watch_stall(on);
    hub_.notify();
}

} // namespace kcoro::apiserver
