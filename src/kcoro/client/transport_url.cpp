// The light part of the transport: URL parsing and answer-to-error mapping
// (no Asio/Beast here, so it compiles fast and tests simply).
#include <kcoro/client/transport.hpp>

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

#include <string>

namespace kcoro::client {

result<server_endpoint> parse_server_url(std::string_view url) {
    auto bad = [&](std::string_view why) {
        return error(kcoro_errc::invalid_config, "server URL \"" + std::string(url) + "\": " + std::string(why));
    };
    auto u = boost::urls::parse_uri(url);  // RFC 3986
    if (!u) {
        if (!url.starts_with("https://") && !url.starts_with("http://")) {
            return bad("scheme must be https:// or http://");
        }
        return bad("not a valid URL (" + u.error().message() + ")");
    }
    server_endpoint ep;
    if (u->scheme_id() == boost::urls::scheme::https) {
        ep.tls = true;
    } else if (u->scheme_id() == boost::urls::scheme::http) {
        ep.tls = false;
    } else {
        return bad("scheme must be https:// or http://");
    }
    if (u->has_query() || u->has_fragment()) return bad("query or fragment not allowed");
    if (u->has_userinfo()) return bad("user info not allowed");
    if (!u->has_authority() || u->encoded_host().empty()) return bad("no host");
    if (u->host_type() == boost::urls::host_type::ipvfuture) return bad("IPvFuture hosts are not supported");
    std::string_view port = u->port();
    if (port.empty()) port = ep.tls ? "443" : "80";
    if (port.size() > 5 || std::stoul(std::string(port)) > 65535) return bad("port out of range");
    if (std::stoul(std::string(port)) == 0) return bad("port 0");
    std::string_view path = u->encoded_path();
    // Boost.URL 1.81 reads "https://h:abc" as host "h", an empty port and
    // the path "abc"; a path after an authority must start with '/'.
    if (!path.empty() && path.front() != '/') return bad(u->has_port() ? "port is not a number" : "bad path");
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    ep.host = u->host_address();  // decoded, IPv6 without brackets
    ep.port = std::string(port);
    ep.path_prefix = std::string(path);
    ep.host_header = std::string(u->encoded_host_and_port());
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
