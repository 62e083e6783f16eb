// Discovery over HTTP: /api and /apis (and each group version's resource
// list) into client-core's pure discovery_cache, refreshed on a miss.
//
// A lookup that misses triggers a full refresh, at most once per
// `min_refresh_interval` (on the client's clock) so that a typo or a CRD
// that does not exist cannot make every call re-read discovery. A group
// version whose resource list fails (an aggregated API that is down) is
// skipped, as kubectl does; /api and /apis themselves must answer.
//
// Lifetime and thread safety: owned by its client, used from the client's
// io_context thread; refreshes are not shared between concurrent callers
// (two concurrent misses may both refresh).
#pragma once

#include <kcoro/core/discovery_cache.hpp>
#include <kcoro/core/error.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/core/time.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kcoro::client {

class client;

class discovery_client {
public:
    explicit discovery_client(client& c, std::chrono::seconds min_refresh_interval = std::chrono::seconds(10));

    // Arguments by value, no defaults: safe however they are called (client.hpp).
    /// The resource serving `gvk`. Not found: kcoro_errc::unsupported
    /// ("the server doesn't have a resource type ...").
    boost::asio::awaitable<result<resource_info>> find(group_version_kind gvk);
    boost::asio::awaitable<result<resource_info>> find(group_version_resource gvr);
    /// kubectl-style name: "cm", "configmaps", "deployments.apps", a CRD's short name.
    boost::asio::awaitable<result<resource_info>> resolve(std::string name);

    /// Reads everything again now.
    boost::asio::awaitable<result<void>> refresh();
    const discovery_cache& cache() const noexcept { return cache_; }
    /// Completed refreshes (for tests and logs).
    int refreshes() const noexcept { return refreshes_; }

private:
    template <class Lookup>
    boost::asio::awaitable<result<resource_info>> lookup(Lookup f, std::string what);

    client& client_;
    std::chrono::seconds min_refresh_interval_;
    discovery_cache cache_;
    std::optional<steady_time> last_refresh_;
    int refreshes_ = 0;
};

} // namespace kcoro::client
