#include <kcoro/server/health.hpp>

#include <set>
#include <sstream>
#include <vector>

namespace kcoro::server {

namespace {

constexpr std::string_view text_plain = "text/plain; charset=utf-8";

int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string unescape(std::string_view s, bool plus_is_space) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size()) {
            int hi = hex_value(s[i + 1]);
            int lo = hex_value(s[i + 2]);
            if (hi >= 0 && lo >= 0) {
                out += static_cast<char>(hi * 16 + lo);
                i += 2;
                continue;
            }
        }
        out += (plus_is_space && s[i] == '+') ? ' ' : s[i];
    }
    return out;
}

// path.Clean for the part after the set's path: collapses "//", drops "."
// and resolves ".."; always starts with '/', no trailing '/' except "/".
std::string clean_path(std::string_view p) {
    std::vector<std::string_view> parts;
    std::size_t i = 0;
    while (i <= p.size()) {
        auto j = p.find('/', i);
        if (j == std::string_view::npos) j = p.size();
        auto seg = p.substr(i, j - i);
        if (seg == "..") {
            if (!parts.empty()) parts.pop_back();
        } else if (!seg.empty() && seg != ".") {
            parts.push_back(seg);
        }
        i = j + 1;
    }
    std::string out;
    for (auto s : parts) {
        out += '/';
        out += s;
    }
    return out.empty() ? "/" : out;
}

// Go's %q for plain names: quotes, escaping '"' and '\'.
std::string quoted(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    out += '"';
    return out;
}

http_answer plain(int status, std::string body, bool nosniff) {
    http_answer a;
    a.status = status;
    a.content_type = std::string(text_plain);
    a.body = std::move(body);
    if (nosniff) a.headers.emplace_back("X-Content-Type-Options", "nosniff");
    return a;
}

} // namespace

http_answer not_found_answer() { return plain(404, "404 page not found\n", true); }

std::string query_unescape(std::string_view s) { return unescape(s, true); }

std::vector<std::string> query_values(std::string_view query, std::string_view key) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i <= query.size()) {
        auto j = query.find('&', i);
        if (j == std::string_view::npos) j = query.size();
        auto pair = query.substr(i, j - i);
        if (!pair.empty()) {
            auto eq = pair.find('=');
            auto k = query_unescape(pair.substr(0, eq));
            if (k == key) out.push_back(eq == std::string_view::npos ? std::string() : query_unescape(pair.substr(eq + 1)));
        }
        i = j + 1;
    }
    return out;
}

bool query_has(std::string_view query, std::string_view key) { return !query_values(query, key).empty(); }

void check_set::add(std::string name, health_check check) { checks_[std::move(name)] = std::move(check); }

http_answer check_set::handle(std::string_view rest, std::string_view query) const {
    const std::string path = clean_path(unescape(rest, false));

    if (path != "/") {
        const std::string name = path.substr(1);
        if (checks_.empty() && name == "ping") return plain(200, "ok", false);
        auto it = checks_.find(name);
        if (it == checks_.end()) return not_found_answer();
        auto failure = it->second ? it->second() : std::optional<std::string>("check not set");
        if (failure) return plain(500, "internal server error: " + *failure + "\n", true);
        return plain(200, "ok", false);
    }

    auto excl = query_values(query, "exclude");
    std::set<std::string> excluded(excl.begin(), excl.end());
    bool failed = false;
    std::ostringstream verbose;
    for (auto& [name, check] : checks_) {
        if (excluded.erase(name) > 0) {
            verbose << "[+]" << name << " excluded: ok\n";
            continue;
        }
        auto failure = check ? check() : std::optional<std::string>("check not set");
        if (failure) {
            // The reason is withheld: this endpoint is public.
            verbose << "[-]" << name << " failed: reason withheld\n";
            failed = true;
        } else {
            verbose << "[+]" << name << " ok\n";
        }
    }
    if (checks_.empty()) verbose << "[+]ping ok\n";
    if (!excluded.empty()) {
        verbose << "warn: some health checks cannot be excluded: no matches for ";
        bool first = true;
        for (auto& e : excluded) {
            if (!first) verbose << ',';
            verbose << quoted(e);
            first = false;
        }
        verbose << '\n';
    }

    if (!failed && !query_has(query, "verbose")) return plain(200, "ok", true);
    // Always verbose on failure.
    verbose << (failed ? "healthz check failed\n" : "healthz check passed\n");
    return plain(failed ? 500 : 200, std::move(verbose).str(), true);
}

http_answer health_handler::handle(std::string_view target) const {
    auto q = target.find('?');
    auto path = target.substr(0, q);
    auto query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
    auto under = [&](std::string_view base) {
        return path.substr(0, base.size()) == base && (path.size() == base.size() || path[base.size()] == '/');
    };
    if (under("/healthz")) return healthz_.handle(path.substr(8), query);
    if (under("/readyz")) return readyz_.handle(path.substr(7), query);
    return not_found_answer();
}

std::optional<std::string> watchdog::check(steady_time now) const {
    auto stalled = now - last_progress_;
    if (stalled <= max_stall_) return std::nullopt;
    using ms = std::chrono::milliseconds;
    std::ostringstream out;
    out << "event loop made no progress for " << std::chrono::duration_cast<ms>(stalled).count() << "ms (limit "
        << std::chrono::duration_cast<ms>(max_stall_).count() << "ms)";
    return std::move(out).str();
}

} // namespace kcoro::server
