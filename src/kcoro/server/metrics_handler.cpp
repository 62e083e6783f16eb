#include <kcoro/server/metrics_handler.hpp>

namespace kcoro::server {

http_answer metrics_handler::handle(std::string_view target) const {
    auto path = target.substr(0, target.find('?'));
    // controller-runtime's metrics server serves exactly /metrics.
    if (path != "/metrics") return not_found_answer();
    http_answer a;
    a.status = 200;
    a.content_type = std::string(metrics_content_type);
    a.body = registry_.serialize();
    return a;
}

} // namespace kcoro::server
