#include "http/pretty.hpp"

namespace kcoro::apiserver::http {

std::string indent_json(std::string_view in) {
    while (!in.empty() && (in.back() == '\n' || in.back() == '\r')) in.remove_suffix(1);
    std::string out;
    out.reserve(in.size() * 2);
    int depth = 0;
    bool in_string = false;
    auto newline = [&](int d) {
        out.push_back('\n');
        out.append(static_cast<std::size_t>(d) * 2, ' ');
    };
    for (std::size_t i = 0; i < in.size(); ++i) {
        char c = in[i];
        if (in_string) {
            out.push_back(c);
            if (c == '\\' && i + 1 < in.size()) {
                out.push_back(in[++i]);
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        switch (c) {
        case '"':
            in_string = true;
            out.push_back(c);
            break;
        case '{':
        case '[': {
            out.push_back(c);
            const char close = c == '{' ? '}' : ']';
            if (i + 1 < in.size() && in[i + 1] == close) {
                out.push_back(close);  // json.Indent keeps an empty value compact
                ++i;
            } else {
                newline(++depth);
            }
            break;
        }
        case '}':
        case ']':
            newline(--depth);
            out.push_back(c);
            break;
        case ',':
            out.push_back(c);
            newline(depth);
            break;
        case ':':
            out += ": ";
            break;
        case ' ':
        case '\t':
        case '\n':
        case '\r':
            break;  // compact input has none outside strings
        default:
            out.push_back(c);
        }
    }
    return out;
}

bool wants_pretty(std::string_view query, std::string_view user_agent) {
    // url.Values.Get: the first `pretty` parameter; empty falls through to
    // the User-Agent.
    while (!query.empty()) {
        auto amp = query.find('&');
        auto kv = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
        auto eq = kv.find('=');
        if (kv.substr(0, eq) != "pretty") continue;
        auto v = eq == std::string_view::npos ? std::string_view{} : kv.substr(eq + 1);
        if (v.empty()) break;
        // strconv.ParseBool; an unparsable value is false.
        return v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True";
    }
    return user_agent.starts_with("curl") || user_agent.starts_with("Wget") || user_agent.starts_with("Mozilla/5.0");
}

} // namespace kcoro::apiserver::http
