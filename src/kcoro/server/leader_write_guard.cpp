#include <kcoro/server/leader_write_guard.hpp>

#include <string>

namespace kcoro::server {

namespace {

std::string_view path_of(std::string_view target) noexcept {
    return target.substr(0, target.find('?'));
}

/// "/api/v1/namespaces/<ns>/events[/name]" or the events.k8s.io form.
bool is_events(std::string_view path) noexcept {
    for (std::string_view prefix : {std::string_view("/api/v1/namespaces/"),
                                    std::string_view("/apis/events.k8s.io/v1/namespaces/")}) {
        if (!path.starts_with(prefix)) continue;
        auto rest = path.substr(prefix.size());
        auto slash = rest.find('/');
        if (slash == std::string_view::npos) return false;
        rest = rest.substr(slash + 1);
        return rest == "events" || rest.starts_with("events/");
    }
    return false;
}

} // namespace

bool leader_write_exempt(const api_request& req, std::string_view lease_namespace,
                         std::string_view lease_name) noexcept {
    const auto path = path_of(req.target);
    if (path == "/apis/authentication.k8s.io/v1/tokenreviews" ||
        path == "/apis/authorization.k8s.io/v1/subjectaccessreviews") {
        return true;
    }
    if (is_events(path)) return true;
    try {
        const std::string leases =
            "/apis/coordination.k8s.io/v1/namespaces/" + std::string(lease_namespace) + "/leases";
        // The collection only for the create of our Lease (POST).
        if (path == leases) return req.method == http_method::post;
        return path == leases + "/" + std::string(lease_name);
    } catch (...) {
        return false;  // allocation failure: guard it
    }
}

bool shard_write_exempt(const api_request& req, std::string_view lease_namespace, std::string_view ring) noexcept {
    if (ring.empty()) return false;
    const auto path = path_of(req.target);
    try {
        const std::string leases =
            "/apis/coordination.k8s.io/v1/namespaces/" + std::string(lease_namespace) + "/leases";
        if (path == leases) return req.method == http_method::post;
        const std::string prefix = leases + "/" + std::string(ring) + "-";
        return path.starts_with(prefix) && path.find('/', prefix.size()) == std::string_view::npos;
    } catch (...) {
        return false;
    }
}

bool write_allowed(const api_request& req, const client::write_origin* origin, const write_guard_state& s) noexcept {
    if (!s.leader_elect && !s.sharding) return true;
    if (leader_write_exempt(req, s.lease_namespace, s.lease_name)) return true;
    if (s.sharding && shard_write_exempt(req, s.lease_namespace, s.ring)) return true;
    if (origin) {
        switch (origin->gate) {
        case client::write_gate::shard: return !s.sharding || s.shard_valid;
        case client::write_gate::leader: return !s.leader_elect || s.leader_valid;
        }
    }
    return (s.leader_elect && s.leader_valid) || (s.sharding && s.shard_valid);
}

} // namespace kcoro::server
