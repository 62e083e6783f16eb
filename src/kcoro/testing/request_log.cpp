#include <kcoro/testing/request_log.hpp>

#include <algorithm>

namespace kcoro::testing {

namespace json = boost::json;

namespace {

std::string text_of(const json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string{};
}

} // namespace

bool request_record::is_write() const noexcept {
    return verb == "create" || verb == "update" || verb == "patch" || verb == "delete" || verb == "deletecollection";
}

std::optional<request_record> request_record::from_log_line(const json::object& line) {
    if (text_of(line, "msg") != "request") return std::nullopt;
    request_record r;
    r.method = text_of(line, "method");
    r.verb = text_of(line, "verb");
    r.group = text_of(line, "group");
    r.resource = text_of(line, "resource");
    r.subresource = text_of(line, "subresource");
    r.namespace_ = text_of(line, "namespace");
    r.name = text_of(line, "name");
    r.user = text_of(line, "user");
    r.user_agent = text_of(line, "userAgent");
    r.path = text_of(line, "path");
    // The fault endpoint is the test's own tool, not API traffic.
    if (r.path.starts_with("/kcoro/")) return std::nullopt;
    if (const auto* c = line.if_contains("code"); c && c->is_number()) {
        r.code = static_cast<int>(c->to_number<std::int64_t>());
    }
    return r;
}

bool request_filter::matches(const request_record& r) const noexcept {
    auto ok = [](const std::string& want, const std::string& have) { return want.empty() || want == have; };
    return ok(verb_, r.verb) && ok(resource_, r.resource) && ok(subresource_, r.subresource) &&
           ok(namespace_, r.namespace_) && ok(name_, r.name) && ok(user_, r.user) &&
           (code_ == 0 || code_ == r.code) && (!writes_only_ || r.is_write());
}

std::size_t request_log::count(const request_filter& f) const {
    return static_cast<std::size_t>(
        std::count_if(records_.begin(), records_.end(), [&](const request_record& r) { return f.matches(r); }));
}

std::size_t request_log::writes(std::string_view resource, int code) const {
    return count(match().resource(std::string(resource)).code(code).writes());
}

std::map<std::pair<std::string, int>, std::size_t> request_log::writes_by_resource_and_code() const {
    std::map<std::pair<std::string, int>, std::size_t> out;
    for (const auto& r : records_) {
        if (r.is_write()) ++out[{r.resource, r.code}];
    }
    return out;
}

std::string request_log::describe() const {
    std::string out;
    for (const auto& r : records_) {
        out += r.method + " " + r.path + " " + std::to_string(r.code) + " " + r.user + "\n";
    }
    return out;
}

} // namespace kcoro::testing
