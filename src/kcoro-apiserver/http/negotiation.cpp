#include "http/negotiation.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <vector>

namespace kcoro::apiserver::http {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

struct clause {
    std::string type;  // "application/json"
    std::string as, g, v;
    double q = 1.0;
    std::size_t order = 0;
};

std::vector<clause> parse_accept(std::string_view accept) {
    std::vector<clause> out;
    std::size_t start = 0;
    while (start <= accept.size()) {
        auto comma = accept.find(',', start);
        auto range = trim(accept.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        start = comma == std::string_view::npos ? accept.size() + 1 : comma + 1;
        if (range.empty()) continue;
        clause c;
        c.order = out.size();
        auto semi = range.find(';');
        c.type = lower(trim(range.substr(0, semi)));
        while (semi != std::string_view::npos) {
            auto next = range.find(';', semi + 1);
            auto param = trim(range.substr(semi + 1, next == std::string_view::npos ? std::string_view::npos : next - semi - 1));
            auto eq = param.find('=');
            if (eq != std::string_view::npos) {
                auto key = lower(trim(param.substr(0, eq)));
                auto val = std::string(trim(param.substr(eq + 1)));
                if (key == "as") c.as = val;
                if (key == "v") c.v = val;
                if (key == "g") c.g = val;
                if (key == "q") {
                    double q = 0;
                    auto [p, ec] = std::from_chars(val.data(), val.data() + val.size(), q);
                    if (ec == std::errc{}) c.q = q;
                }
            }
            semi = next;
        }
        out.push_back(std::move(c));
    }
    // goautoneg.ParseAccept: by quality, more specific ranges first.
    std::stable_sort(out.begin(), out.end(), [](const clause& a, const clause& b) {
        if (a.q != b.q) return a.q > b.q;
        auto wild = [](const std::string& t) { return t == "*/*" ? 2 : t.ends_with("/*") ? 1 : 0; };
        return wild(a.type) < wild(b.type);
    });
    return out;
}

} // namespace

media_choice negotiate(std::string_view accept, bool builtin) {
    if (trim(accept).empty()) return media_choice::json;
    auto clauses = parse_accept(accept);
    if (builtin) {
        // go-restful: some bare type must be one the route produces.
        bool producible = std::any_of(clauses.begin(), clauses.end(), [](const clause& c) {
            return c.type == "*/*" || c.type == "application/json" || c.type == "application/yaml" ||
                   c.type == "application/vnd.kubernetes.protobuf";
        });
        if (!producible) return media_choice::not_acceptable_route;
    }
    for (const auto& c : clauses) {
        if (c.type != "application/json" && c.type != "application/*" && c.type != "*/*") continue;
        if (c.as.empty() && c.g.empty() && c.v.empty()) return media_choice::json;
        if (c.g != "meta.k8s.io" || (c.v != "v1" && c.v != "v1beta1")) continue;
        const bool v1 = c.v == "v1";
        if (c.as == "Table") return v1 ? media_choice::table_v1 : media_choice::table_v1beta1;
        if (c.as == "PartialObjectMetadata") return v1 ? media_choice::partial_v1 : media_choice::partial_v1beta1;
        if (c.as == "PartialObjectMetadataList")
            return v1 ? media_choice::partial_list_v1 : media_choice::partial_list_v1beta1;
        // Another transform (e.g. APIGroupDiscoveryList): not allowed here, skip.
    }
    return media_choice::not_acceptable;
}

std::string not_acceptable_message() {
    return "only the following media types are accepted: " + std::string(served_media_types);
}

std::string route_not_acceptable_message() {
    return "406: Not Acceptable\n\nAvailable representations: " + std::string(served_media_types) +
           ", application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch";
}

} // namespace kcoro::apiserver::http
