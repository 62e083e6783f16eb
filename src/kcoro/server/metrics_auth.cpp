#include <kcoro/server/metrics_auth.hpp>

#include <kcoro/client/client.hpp>
#include <kcoro/core/resource.hpp>

#include <cctype>

namespace kcoro::server {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

std::string string_at(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

const json::object* object_at(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v && v->is_object() ? &v->get_object() : nullptr;
}

http_answer text_answer(int status, std::string body) {
    http_answer a;
    a.status = status;
    a.content_type = "text/plain; charset=utf-8";
    a.body = std::move(body);
    a.headers.emplace_back("X-Content-Type-Options", "nosniff");
    return a;
}

} // namespace

std::string_view bearer_token(std::string_view authorization) noexcept {
    constexpr std::string_view scheme = "bearer";
    while (!authorization.empty() && authorization.front() == ' ') authorization.remove_prefix(1);
    if (authorization.size() <= scheme.size() || authorization[scheme.size()] != ' ') return {};
    for (std::size_t i = 0; i < scheme.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(authorization[i])) != scheme[i]) return {};
    }
    auto token = authorization.substr(scheme.size());
    while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
    while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
    return token;
}

json::object make_token_review(std::string_view token) {
    return json::object{{"apiVersion", "authentication.k8s.io/v1"},
                        {"kind", "TokenReview"},
                        {"spec", {{"token", token}}}};
}

reviewed_user read_token_review(const json::object& review) {
    reviewed_user u;
    const auto* status = object_at(review, "status");
    if (!status) return u;
    if (auto* a = status->if_contains("authenticated"); a && a->is_bool()) u.authenticated = a->get_bool();
    u.error = string_at(*status, "error");
    if (const auto* user = object_at(*status, "user")) {
        u.username = string_at(*user, "username");
        u.uid = string_at(*user, "uid");
        if (auto* g = user->if_contains("groups"); g && g->is_array()) {
            for (const auto& x : g->get_array()) {
                if (x.is_string()) u.groups.emplace_back(x.get_string());
            }
        }
        if (const auto* extra = object_at(*user, "extra")) u.extra = *extra;
    }
    return u;
}

json::object make_subject_access_review(const reviewed_user& user, std::string_view path, std::string_view verb) {
    json::array groups;
    for (const auto& g : user.groups) groups.emplace_back(g);
    json::object spec{{"user", user.username},
                      {"groups", std::move(groups)},
                      {"nonResourceAttributes", {{"path", path}, {"verb", verb}}}};
    if (!user.uid.empty()) spec["uid"] = user.uid;
    if (!user.extra.empty()) spec["extra"] = user.extra;
    return json::object{{"apiVersion", "authorization.k8s.io/v1"},
                        {"kind", "SubjectAccessReview"},
                        {"spec", std::move(spec)}};
}

bool read_subject_access_review(const json::object& review, std::string* reason) {
    const auto* status = object_at(review, "status");
    if (!status) return false;
    if (reason) *reason = string_at(*status, "reason");
    auto* a = status->if_contains("allowed");
    return a && a->is_bool() && a->get_bool();
}

metrics_authorizer::metrics_authorizer(client::client& c, io::clock& clk, metrics_auth_options opts)
    : c_(c), clk_(clk), opts_(opts) {}

asio::awaitable<std::optional<http_answer>> metrics_authorizer::check(std::string authorization, std::string path) {
    const std::string token(bearer_token(authorization));
    if (token.empty()) co_return text_answer(401, "Unauthorized\n");
    const std::string key = token + "\n" + path;
    if (auto it = cache_.find(key); it != cache_.end()) {
        if (it->second.expires > clk_.now()) co_return it->second.answer;
        cache_.erase(it);
    }
    auto remember = [&](std::optional<http_answer> answer) {
        if (cache_.size() >= opts_.max_cached) cache_.clear();
        const auto ttl = answer ? opts_.deny_ttl : opts_.allow_ttl;
        cache_[key] = decision{answer, clk_.now() + ttl};
        return answer;
    };

    // Authentication: TokenReview.
    const group_version_resource token_reviews{"authentication.k8s.io", "v1", "tokenreviews"};
    const json::object tr_body = make_token_review(token);
    const create_options opts;
    ++reviews_;
    auto tr = co_await c_.create(token_reviews, "", tr_body, opts);
    if (!tr) co_return text_answer(500, "Authentication failed: " + tr.error().message() + "\n");
    const auto user = read_token_review(**tr);
    if (!user.authenticated) co_return remember(text_answer(401, "Unauthorized\n"));

    // Authorisation: SubjectAccessReview for a GET of the path.
    const group_version_resource access_reviews{"authorization.k8s.io", "v1", "subjectaccessreviews"};
    const json::object sar_body = make_subject_access_review(user, path, "get");
    ++reviews_;
    auto sar = co_await c_.create(access_reviews, "", sar_body, opts);
    if (!sar) co_return text_answer(500, "Authorization failed: " + sar.error().message() + "\n");
    std::string reason;
    if (!read_subject_access_review(**sar, &reason)) {
        co_return remember(text_answer(403, "Authorization denied for user " + user.username + "\n"));
    }
    co_return remember(std::nullopt);
}

} // namespace kcoro::server
