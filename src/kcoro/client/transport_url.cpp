// The light part of the transport: URL parsing and answer-to-error mapping
// (no Asio/Beast here, so it compiles fast and tests simply).
#include <kcoro/client/transport.hpp>

namespace kcoro::client {

result<server_endpoint> parse_server_url(std::string_view url) {
    auto bad = [&](std::string_view why) {
        return error(kcoro_errc::invalid_config, "server URL \"" + std::string(url) + "\": " + std::string(why));
    };
    server_endpoint ep;
    std::string_view rest;
    if (url.starts_with("https://")) {
        ep.tls = true;
        rest = url.substr(8);
    } else if (url.starts_with("http://")) {
        ep.tls = false;
        rest = url.substr(7);
    } else {
        return bad("scheme must be https:// or http://");
    }
    auto slash = rest.find_first_of("/?#");
    std::string_view authority = rest.substr(0, slash);
    std::string_view path = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);
    if (!path.empty() && path.front() != '/') {
        return bad("query or fragment not allowed");
    }
    if (path.find_first_of("?#") != std::string_view::npos) {
        return bad("query or fragment not allowed");
    }
    while (!path.empty() && path.back() == '/') {
        path.remove_suffix(1);
    }
    if (authority.empty()) {
        return bad("no host");
    }
    if (authority.find('@') != std::string_view::npos) {
        return bad("user info not allowed");
    }
    std::string_view host;
    std::string_view port;
    if (authority.front() == '[') {
        auto close = authority.find(']');
        if (close == std::string_view::npos) {
            return bad("unclosed IPv6 bracket");
        }
        host = authority.substr(1, close - 1);
        auto after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') {
                return bad("garbage after IPv6 address");
            }
            port = after.substr(1);
        }
    } else {
        auto colon = authority.rfind(':');
        host = authority.substr(0, colon);
        if (colon != std::string_view::npos) {
            port = authority.substr(colon + 1);
        }
    }
    if (host.empty()) {
        return bad("no host");
    }
    if (port.empty()) {
        port = ep.tls ? "443" : "80";
    }
    unsigned long p = 0;
    for (char c : port) {
        if (c < '0' || c > '9') {
            return bad("port is not a number");
        }
        p = p * 10 + static_cast<unsigned long>(c - '0');
        if (p > 65535) {
            return bad("port out of range");
        }
    }
    if (p == 0) {
        return bad("port 0");
    }
    ep.host = std::string(host);
    ep.port = std::string(port);
    ep.path_prefix = std::string(path);
    ep.host_header = std::string(authority);
    return ep;
}

error error_from_response(const http_response& r) {
    auto s = decode_status_body(r.body);
    if (!s || (s->code == 0 && s->reason.empty())) {
        s = status_from_http(r.status, r.body);
    }
    if (s->code == 0) {
        s->code = r.status;
    }
    if (r.retry_after_seconds) {
        if (!s->details) {
            s->details.emplace();
        }
        if (s->details->retry_after_seconds == 0) {
            s->details->retry_after_seconds = *r.retry_after_seconds;
        }
    }
    return error::from_status(std::move(*s));
}

} // namespace kcoro::client
