#include <kcoro/server/bind_address.hpp>

namespace kcoro::server {

result<bind_address> split_bind_address(std::string_view text) {
    auto bad = [](const char* why) { return error(kcoro_errc::invalid_config, why); };
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad("want \":port\" or \"host:port\"");
    std::string_view host = text.substr(0, colon);
    std::string_view port_text = text.substr(colon + 1);
    if (port_text.empty() || port_text.size() > 5) return bad("bad port");
    unsigned port = 0;
    for (char ch : port_text) {
        if (ch < '0' || ch > '9') return bad("bad port");
        port = port * 10 + static_cast<unsigned>(ch - '0');
    }
    if (port > 65535) return bad("port out of range");
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    return bind_address{std::string(host), static_cast<std::uint16_t>(port)};
}

} // namespace kcoro::server
