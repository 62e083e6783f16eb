// The verbs: build (pure), send with limiter and retries, decode (pure).
// No Beast here: the transport hides it, so this compiles quickly.
#include <kcoro/client/client.hpp>

#include <kcoro/client/credentials.hpp>
#include <kcoro/client/discovery_client.hpp>
#include <kcoro/core/json_arena.hpp>
#include <kcoro/core/requests.hpp>
#include <kcoro/core/retry_policy.hpp>
#include <kcoro/core/watch_decoder.hpp>

#include <boost/asio/this_coro.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cctype>

namespace kcoro::client {

namespace asio = boost::asio;

result<object_ptr> decode_object_body(std::string_view body) {
    boost::system::error_code ec;
    auto v = boost::json::parse(body, ec, object_arena(body.size()));  // core/json_arena.hpp
    if (ec) {
        return error(kcoro_errc::decode_error, "response body is not JSON: " + ec.message());
    }
    if (!v.is_object()) {
        return error(kcoro_errc::decode_error, "response body is not a JSON object");
    }
    return std::make_shared<const boost::json::object>(std::move(v.as_object()));
}

namespace {

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
            return false;
        }
    }
    return true;
}

std::string header_value(const http_response& r, std::string_view name) {
    for (const auto& [k, v] : r.headers) {
        if (iequals(k, name)) return v;
    }
    return {};
}

} // namespace

client::client(const client_config& cfg, io::clock& clk, client_options opts, std::unique_ptr<transport> t)
    : config_(cfg), clk_(clk), opts_(std::move(opts)), transport_(std::move(t)) {
    if (opts_.qps > 0) {
        limiter_.emplace(opts_.qps, std::max(1, opts_.burst), clk_.now());
    }
    discovery_ = std::make_unique<discovery_client>(*this);
}

client::~client() = default;

result<std::unique_ptr<client>> client::create(const client_config& cfg, io::clock& clk, client_options opts) {
    transport_options t;
    t.server = cfg.server;
    t.tls.ca_pem = cfg.ca_pem;
    t.tls.server_name = cfg.tls_server_name;
    t.tls.insecure_skip_verify = cfg.insecure_skip_tls_verify;
    t.tls.client_cert_pem = cfg.client_cert_pem;
    t.tls.client_key_pem = cfg.client_key_pem;
    t.request_timeout = opts.request_timeout;
    t.user_agent = opts.user_agent;
    t.metrics = opts.metrics;
    t.max_idle_connections = opts.max_idle_connections;
    t.max_connections = opts.max_connections;
    std::shared_ptr<void> keep;
    if (opts.auth) {
        t.auth = *opts.auth;
    } else {
        // Token file, static token or exec plugin, refreshed after a 401.
        auto creds = std::make_shared<credentials>(cfg, clk, opts.env ? *opts.env : environment::process());
        t.auth.bearer_token = [creds]() { return creds->bearer_token(); };
        t.auth.invalidate = [creds] { creds->invalidate(); };
        keep = creds;
    }
    auto tr = http_transport::create(clk, std::move(t));
    if (!tr) {
        return tr.error();
    }
    std::unique_ptr<client> c(new client(cfg, clk, std::move(opts), std::move(*tr)));
    c->credentials_ = std::move(keep);
    return c;
}

std::unique_ptr<client> client::create(const client_config& cfg, io::clock& clk, std::unique_ptr<transport> t,
                                      client_options opts) {
    return std::unique_ptr<client>(new client(cfg, clk, std::move(opts), std::move(t)));
}

asio::awaitable<result<void>> client::wait_for_token_bucket() {
    if (!limiter_) {
        co_return result<void>{};
    }
    auto wait = limiter_->reserve(clk_.now());
    if (wait.count() > 0) {
        auto ec = co_await clk_.sleep_for(wait);
        if (ec) {
            co_return error(kcoro_errc::cancelled, "rate limiter wait cancelled");
        }
    }
    co_return result<void>{};
}

asio::awaitable<result<http_response>> client::send(api_request req) {
    co_return co_await send_with(std::move(req), nullptr);
}

asio::awaitable<result<http_response>> client::send_streaming(api_request req, body_sink sink) {
    co_return co_await send_with(std::move(req), &sink);
}

asio::awaitable<result<http_response>> client::send_with(api_request req, const body_sink* sink) {
    retry_policy policy(req, opts_.max_retries);
    // Once part of a body went to the sink, a retry would hand it over twice:
    // the failure is the caller's (an informer relists).
    bool delivered = false;
    body_sink counted;
    if (sink) {
        counted = [&delivered, sink](std::string_view bytes) {
            delivered = true;
            return (*sink)(bytes);
        };
    }
    // Who sends it: the origin the caller's executor carries (the same
    // executor for every attempt).
    const write_origin* origin = nullptr;
    if (guard_ && req.method != http_method::get) {
        const auto ex = co_await asio::this_coro::executor;
        origin = write_origin_of(ex);
    }
    for (;;) {
        if (guard_ && req.method != http_method::get) {
            // Before every attempt: a retry after a stall is checked again.
            if (auto refused = guard_(req, origin)) {
                co_return std::move(*refused);
            }
        }
        auto limited = co_await wait_for_token_bucket();
        if (!limited) {
            co_return limited.error();
        }
        result<http_response> r = error(kcoro_errc::cancelled, "not sent");
        if (sink) {
            r = co_await transport_->round_trip_streaming(req, counted);
        } else {
            r = co_await transport_->round_trip(req);
        }
        if (!r && (is_cancelled(r.error()) || delivered)) {
            co_return r.error();
        }
        auto outcome = r ? attempt_outcome::answered(r->status, header_value(*r, "Retry-After"))
                         : attempt_outcome::failed(r.error().code());
        auto decision = policy.step(outcome, clk_.wall_now());
        if (!decision.retry) {
            if (r && (r->status < 200 || r->status > 299)) {
                // The Status message names the object already, as kubectl shows it.
                co_return error_from_response(*r);
            }
            co_return r;
        }
        auto ec = co_await clk_.sleep_for(decision.delay);
        if (ec) {
            co_return error(kcoro_errc::cancelled, "retry wait cancelled");
        }
    }
}

asio::awaitable<result<object_ptr>> client::send_for_object(result<api_request> req) {
    if (!req) {
        co_return req.error();
    }
    auto r = co_await send(*req);
    if (!r) {
        co_return r.error();
    }
    co_return decode_object_body(r->body);
}

asio::awaitable<result<object_ptr>> client::get(group_version_resource gvr, object_key key, get_options opts) {
    co_return co_await send_for_object(get_request(gvr, key, opts));
}

asio::awaitable<result<list_result>> client::list(group_version_resource gvr, std::string ns, list_options opts) {
    auto req = list_request(gvr, ns, opts);
    if (!req) {
        co_return req.error();
    }
    // Decoded as it streams: the body is never held whole (a list answered
    // from a watch cache is one response whatever the limit).
    list_result out;
    list_stream_decoder::item_sink collect = [&out](object_ptr item) { out.items.push_back(std::move(item)); };
    // g++ 12 (docs/toolchain.md): the sink named first, not built in the operand.
    auto op = list_each(std::move(gvr), std::move(ns), std::move(opts), std::move(collect));
    auto meta = co_await std::move(op);
    if (!meta) {
        co_return meta.error();
    }
    meta->items = std::move(out.items);
    co_return meta;
}

asio::awaitable<result<list_result>> client::list_each(group_version_resource gvr, std::string ns,
                                                       list_options opts, list_stream_decoder::item_sink on_item) {
    auto req = list_request(gvr, ns, opts);
    if (!req) {
        co_return req.error();
    }
    list_stream_decoder decoder(std::move(on_item));
    body_sink sink = [&decoder](std::string_view bytes) { return decoder.write(bytes); };
    auto r = co_await send_streaming(std::move(*req), std::move(sink));
    if (!r) {
        co_return r.error();
    }
    co_return decoder.finish();
}

asio::awaitable<result<list_result>> client::list_all(group_version_resource gvr, std::string ns,
                                                      list_options opts) {
    if (opts.limit == 0) {
        opts.limit = 500;  // client-go's pager default
    }
    list_result all;
    for (;;) {
        auto page = co_await list(gvr, ns, opts);
        if (!page) {
            co_return page.error();
        }
        for (auto& item : page->items) {
            all.items.push_back(std::move(item));
        }
        all.resource_version = page->resource_version;
        all.kind = page->kind;
        all.api_version = page->api_version;
        if (page->continue_token.empty()) {
            co_return all;
        }
        // Later pages come from the snapshot the continue token names.
        opts.continue_token = page->continue_token;
        opts.resource_version.clear();
        opts.resource_version_match = version_match::unset;
    }
}

asio::awaitable<result<object_ptr>> client::create(group_version_resource gvr, std::string ns,
                                                   boost::json::object obj, create_options opts) {
    co_return co_await send_for_object(create_request(gvr, ns, obj, opts));
}

asio::awaitable<result<object_ptr>> client::update(group_version_resource gvr, boost::json::object obj,
                                                   update_options opts) {
    co_return co_await send_for_object(update_request(gvr, obj, opts));
}

asio::awaitable<result<object_ptr>> client::patch(group_version_resource gvr, object_key key, std::string body,
                                                  patch_options opts) {
    co_return co_await send_for_object(patch_request(gvr, key, std::move(body), opts));
}

asio::awaitable<result<object_ptr>> client::apply(group_version_resource gvr, boost::json::object obj,
                                                  std::string field_manager, bool force) {
    patch_options opts;
    opts.type = patch_type::apply;
    opts.field_manager = std::move(field_manager);
    opts.force = force;
    co_return co_await send_for_object(patch_request(gvr, key_of(obj), boost::json::serialize(obj), opts));
}

asio::awaitable<result<object_ptr>> client::remove(group_version_resource gvr, object_key key,
                                                   delete_options opts) {
    co_return co_await send_for_object(delete_request(gvr, key, opts));
}

asio::awaitable<result<object_ptr>> client::get_status(group_version_resource gvr, object_key key) {
    get_options opts;
    opts.subresource = "status";
    co_return co_await send_for_object(get_request(gvr, key, opts));
}

asio::awaitable<result<object_ptr>> client::update_status(group_version_resource gvr, boost::json::object obj,
                                                          update_options opts) {
    opts.subresource = "status";
    co_return co_await send_for_object(update_request(gvr, obj, opts));
}

asio::awaitable<result<object_ptr>> client::patch_status(group_version_resource gvr, object_key key,
                                                         std::string body, patch_options opts) {
    opts.subresource = "status";
    co_return co_await send_for_object(patch_request(gvr, key, std::move(body), opts));
}

asio::awaitable<result<watch_stream>> client::watch(group_version_resource gvr, std::string ns,
                                                    watch_options opts) {
    auto req = watch_request(gvr, ns, opts);
    if (!req) {
        co_return req.error();
    }
    retry_policy policy(*req, opts_.max_retries);
    for (;;) {
        auto limited = co_await wait_for_token_bucket();
        if (!limited) {
            co_return limited.error();
        }
        auto r = co_await transport_->open_stream(*req);
        if (r) {
            co_return watch_stream(std::move(*r), watch_decoder::default_max_event_bytes);
        }
        const auto& e = r.error();
        if (is_cancelled(e)) {
            co_return e;
        }
        int retry_after = e.api_status() && e.api_status()->details ? e.api_status()->details->retry_after_seconds : 0;
        auto outcome = e.http_code() != 0
                           ? attempt_outcome::answered(e.http_code(), retry_after > 0 ? std::to_string(retry_after)
                                                                                      : std::string())
                           : attempt_outcome::failed(e.code());
        auto decision = policy.step(outcome, clk_.wall_now());
        if (!decision.retry) {
            co_return e;
        }
        auto ec = co_await clk_.sleep_for(decision.delay);
        if (ec) {
            co_return error(kcoro_errc::cancelled, "retry wait cancelled");
        }
    }
}

} // namespace kcoro::client
