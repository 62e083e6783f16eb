// The /metrics endpoint as a pure handler over a metrics_registry: 200 with
// the text exposition format 0.0.4, 404 for any other path.
//
// Lifetime: refers to the registry, which must outlive it. Thread safety: as
// metrics_registry::serialize (any thread).
#pragma once

#include <kcoro/server/http_answer.hpp>
#include <kcoro/server/metrics.hpp>

#include <string_view>

namespace kcoro::server {

/// Content type of the text exposition format.
inline constexpr std::string_view metrics_content_type = "text/plain; version=0.0.4; charset=utf-8";

class metrics_handler {
public:
    explicit metrics_handler(const metrics_registry& registry) noexcept : registry_(registry) {}

    /// Answers a request target ("/metrics", "/metrics?x=y").
    http_answer handle(std::string_view target) const;

private:
    const metrics_registry& registry_;
};

} // namespace kcoro::server
