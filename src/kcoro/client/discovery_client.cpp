#include <kcoro/client/discovery_client.hpp>

#include <kcoro/client/client.hpp>
#include <kcoro/core/discovery.hpp>

#include <sstream>

namespace kcoro::client {

namespace asio = boost::asio;

namespace {

api_request discovery_get(std::string target) {
    api_request r;
    r.method = http_method::get;
    r.target = std::move(target);
    r.verb = "GET";
    return r;
}

} // namespace

discovery_client::discovery_client(client& c, std::chrono::seconds min_refresh_interval)
    : client_(c), min_refresh_interval_(min_refresh_interval) {}

asio::awaitable<result<void>> discovery_client::refresh() {
    discovery_cache fresh;
    auto core = co_await client_.send(discovery_get("/api"));
    if (!core) {
        co_return core.error().with_context("discovery /api");
    }
    auto versions = decode_api_versions(core->body);
    if (!versions) {
        co_return versions.error().with_context("discovery /api");
    }
    for (const auto& v : *versions) {
        auto list = co_await client_.send(discovery_get("/api/" + v));
        if (!list) {
            continue;
        }
        auto res = decode_api_resource_list(list->body);
        if (res) {
            fresh.set_group_version({"", v}, std::move(*res));
        }
    }
    auto apis = co_await client_.send(discovery_get("/apis"));
    if (!apis) {
        co_return apis.error().with_context("discovery /apis");
    }
    auto groups = decode_api_group_list(apis->body);
    if (!groups) {
        co_return groups.error().with_context("discovery /apis");
    }
    for (const auto& g : *groups) {
        // Preferred version first: name resolution follows insertion order.
        std::vector<std::string> order;
        if (!g.preferred_version.empty()) {
            order.push_back(g.preferred_version);
        }
        for (const auto& v : g.versions) {
            if (v != g.preferred_version) {
                order.push_back(v);
            }
        }
        for (const auto& v : order) {
            auto list = co_await client_.send(discovery_get("/apis/" + g.name + "/" + v));
            if (!list) {
                continue;  // an aggregated API that is down: skip it, as kubectl does
            }
            auto res = decode_api_resource_list(list->body);
            if (res) {
                fresh.set_group_version({g.name, v}, std::move(*res));
            }
        }
    }
    cache_ = std::move(fresh);
    last_refresh_ = client_.clock().now();
    ++refreshes_;
    co_return result<void>{};
}

template <class Lookup>
asio::awaitable<result<resource_info>> discovery_client::lookup(Lookup f, std::string what) {
    if (auto hit = f(cache_)) {
        co_return *hit;
    }
    bool may_refresh = !last_refresh_ || client_.clock().now() - *last_refresh_ >= min_refresh_interval_;
    if (may_refresh) {
        auto r = co_await refresh();
        if (!r) {
            co_return r.error();
        }
        if (auto hit = f(cache_)) {
            co_return *hit;
        }
    }
    co_return error(kcoro_errc::unsupported, "the server doesn't have a resource type " + what);
}

// g++ 12 (docs/toolchain.md): the lookups are named before the co_await (a
// capturing lambda temporary in a co_await operand is destroyed twice).
asio::awaitable<result<resource_info>> discovery_client::find(group_version_kind gvk) {
    std::ostringstream what;
    what << gvk;
    auto f = [gvk](const discovery_cache& c) { return c.find(gvk); };
    auto op = lookup(std::move(f), "for " + what.str());
    co_return co_await std::move(op);
}

asio::awaitable<result<resource_info>> discovery_client::find(group_version_resource gvr) {
    std::ostringstream what;
    what << gvr;
    auto f = [gvr](const discovery_cache& c) { return c.find(gvr); };
    auto op = lookup(std::move(f), "\"" + what.str() + "\"");
    co_return co_await std::move(op);
}

asio::awaitable<result<resource_info>> discovery_client::resolve(std::string name) {
    auto f = [name](const discovery_cache& c) { return c.resolve(name); };
    auto op = lookup(std::move(f), "\"" + name + "\"");
    co_return co_await std::move(op);
}

} // namespace kcoro::client
