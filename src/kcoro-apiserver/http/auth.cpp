#include "http/auth.hpp"

#include "store/status_errors.hpp"

#include <kcoro/core/yaml.hpp>

#include <boost/json/value.hpp>

#include <algorithm>

namespace kcoro::apiserver::http {

namespace json = boost::json;

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

/// One CSV record with double-quoted fields ("a,b" stays one field).
std::optional<std::vector<std::string>> csv_fields(std::string_view line) {
    std::vector<std::string> out;
    std::string cur;
    bool quoted = false;
    for (char c : line) {
        if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            out.push_back(std::string(trim(cur)));
            cur.clear();
        } else {
            cur.push_back(c);
        }
    }
    if (quoted) {
        return std::nullopt;
    }
    out.push_back(std::string(trim(cur)));
    return out;
}

bool matches(const std::vector<std::string>& list, std::string_view v) {
    return std::any_of(list.begin(), list.end(), [&](const std::string& s) { return s == "*" || s == v; });
}

result<std::vector<std::string>> string_list(const json::object& o, std::string_view key, std::size_t rule) {
    std::vector<std::string> out;
    auto it = o.find(key);
    if (it == o.end() || it->value().is_null()) {
        return out;
    }
    if (it->value().is_string()) {
        out.emplace_back(it->value().get_string());
        return out;
    }
    if (!it->value().is_array()) {
        return error(kcoro_errc::invalid_config,
                     "policy rule " + std::to_string(rule) + ": " + std::string(key) + " must be a list of strings");
    }
    for (const auto& v : it->value().get_array()) {
        if (!v.is_string()) {
            return error(kcoro_errc::invalid_config,
                         "policy rule " + std::to_string(rule) + ": " + std::string(key) + " must be a list of strings");
        }
        out.emplace_back(v.get_string());
    }
    return out;
}

} // namespace

result<token_table> token_table::parse_csv(std::string_view text) {
    token_table t;
    std::size_t line_no = 0;
    while (!text.empty()) {
        auto nl = text.find('\n');
        auto line = trim(text.substr(0, nl));
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        ++line_no;
        if (line.empty() || line.front() == '#') {
            continue;
        }
        auto f = csv_fields(line);
        if (!f || f->size() < 2 || (*f)[0].empty() || (*f)[1].empty()) {
            return error(kcoro_errc::invalid_config,
                         "token file line " + std::to_string(line_no) + ": want token,user[,uid[,\"groups\"]]");
        }
        user_info u{(*f)[1], {}};
        if (f->size() > 2) u.uid = (*f)[2];
        if (f->size() > 3 && !(*f)[3].empty()) {
            auto g = csv_fields((*f)[3]);
            for (auto& s : g.value_or(std::vector<std::string>{})) {
                if (!s.empty()) u.groups.push_back(s);
            }
        }
        t.add((*f)[0], std::move(u));
    }
    return t;
}

const user_info* token_table::find(std::string_view token) const {
    auto it = tokens_.find(token);
    return it == tokens_.end() ? nullptr : &it->second;
}

result<policy> policy::parse(std::string_view text) {
    auto doc = parse_yaml(text);  // YAML is a superset of JSON
    if (!doc) {
        return error(kcoro_errc::invalid_config, "policy: " + doc.error().message());
    }
    const json::object* root = doc->if_object();
    const json::value* rules = root ? root->if_contains("rules") : nullptr;
    if (!rules || !rules->is_array()) {
        return error(kcoro_errc::invalid_config, "policy: want an object with a \"rules\" list");
    }
    policy p;
    std::size_t i = 0;
    for (const auto& rv : rules->get_array()) {
        ++i;
        const auto* o = rv.if_object();
        if (!o) {
            return error(kcoro_errc::invalid_config, "policy rule " + std::to_string(i) + ": not an object");
        }
        policy_rule r;
        auto users = string_list(*o, "users", i);
        auto groups = string_list(*o, "groups", i);
        auto verbs = string_list(*o, "verbs", i);
        auto res = string_list(*o, "resources", i);
        if (!users) return users.error();
        if (!groups) return groups.error();
        if (!verbs) return verbs.error();
        if (!res) return res.error();
        r.users = std::move(*users);
        r.groups = std::move(*groups);
        r.verbs = std::move(*verbs);
        r.resources = std::move(*res);
        if (o->contains("namespaces")) {
            auto ns = string_list(*o, "namespaces", i);
            if (!ns) return ns.error();
            r.namespaces = std::move(*ns);
        }
        if (r.users.empty() && r.groups.empty()) {
            return error(kcoro_errc::invalid_config, "policy rule " + std::to_string(i) + ": no users or groups");
        }
        p.add(std::move(r));
    }
    return p;
}

bool policy::allows(const user_info& user, std::string_view verb, std::string_view resource,
                    std::string_view ns) const {
    for (const auto& r : rules_) {
        bool who = matches(r.users, user.name) ||
                   std::any_of(user.groups.begin(), user.groups.end(), [&](const std::string& g) { return matches(r.groups, g); });
        if (!who || !matches(r.verbs, verb) || !matches(r.resources, resource)) {
            continue;
        }
        if (r.namespaces && !matches(*r.namespaces, ns)) {
            continue;
        }
        return true;
    }
    return false;
}

error unauthorized() {
    status s;
    s.outcome = "Failure";
    s.message = "Unauthorized";
    s.reason = "Unauthorized";
    s.code = 401;
    return error::from_status(std::move(s));
}

error forbidden(const user_info& user, const access_request& req) {
    std::string res = req.gvr.resource + (req.subresource.empty() ? "" : "/" + req.subresource);
    std::string subject = errors::qualified_resource(req.gvr);
    if (!req.subresource.empty()) subject += "/" + req.subresource;
    std::string msg = subject;
    if (!req.name.empty()) msg += " \"" + req.name + "\"";
    msg += " is forbidden: User \"" + user.name + "\" cannot " + req.verb + " resource \"" + res +
           "\" in API group \"" + req.gvr.group + "\"";
    msg += req.ns.empty() ? " at the cluster scope" : " in the namespace \"" + req.ns + "\"";
    status s;
    s.outcome = "Failure";
    s.message = std::move(msg);
    s.reason = "Forbidden";
    s.code = 403;
    status_details d;
    d.name = req.name;
    d.group = req.gvr.group;
    d.kind = req.gvr.resource;
    s.details = std::move(d);
    return error::from_status(std::move(s));
}

error forbidden_path(const user_info& user, std::string_view verb, std::string_view path) {
    // apierrors.NewForbidden with an empty GroupResource: "forbidden: <msg>".
    status s;
    s.outcome = "Failure";
    s.message = "forbidden: User \"" + user.name + "\" cannot " + std::string(verb) + " path \"" +
                std::string(path) + "\"";
    s.reason = "Forbidden";
    s.code = 403;
    s.details = status_details{};
    return error::from_status(std::move(s));
}

result<user_info> access_control::authenticate(std::string_view authorization,
                                               const std::optional<user_info>& cert_user) const {
    if (!enabled()) {
        return user_info{"system:anonymous", {"system:unauthenticated"}};
    }
    constexpr std::string_view bearer = "Bearer ";
    if (authorization.size() > bearer.size() && authorization.substr(0, bearer.size()) == bearer) {
        if (auto u = authenticate_bearer(trim(authorization.substr(bearer.size())))) return std::move(*u);
        return unauthorized();  // a wrong token is never anonymous
    }
    if (client_certs_ && cert_user) {
        auto out = *cert_user;
        out.groups.push_back(std::string(authenticated_group));
        return out;
    }
    // No credentials: the anonymous authenticator (authenticator/config.go
    // appends it last when --anonymous-auth is on, the default).
    return user_info{std::string(anonymous_user), {std::string(unauthenticated_group)}};
}

std::optional<user_info> access_control::authenticate_bearer(std::string_view token) const {
    std::optional<user_info> out;
    if (const auto* u = tokens_.find(token)) {
        out = *u;
    } else if (bearer_) {
        out = bearer_(token);
    }
    if (out) out->groups.push_back(std::string(authenticated_group));
    return out;
}

authz_decision access_control::decide(const authz_attributes& a) const {
    // system:public-info-viewer (rbac/bootstrappolicy/policy.go), bound to
    // system:authenticated and system:unauthenticated: GET on these paths.
    constexpr std::string_view public_info[] = {"/healthz", "/livez", "/readyz", "/version", "/version/"};
    if (!enabled()) return {true, ""};
    const bool anonymous = a.user.name == anonymous_user;
    if (policy_) {
        if (!a.resource_request) {
            const bool open = !anonymous || (a.verb == "get" && std::find(std::begin(public_info), std::end(public_info),
                                                                          a.path) != std::end(public_info));
            return {open, ""};
        }
        std::string res = a.resource + (a.subresource.empty() ? "" : "/" + a.subresource);
        return {policy_->allows(a.user, a.verb, res, a.ns), ""};
    }
    // authorizerfactory.NewPrivilegedGroups(system:masters), first in the chain.
    if (std::find(a.user.groups.begin(), a.user.groups.end(), "system:masters") != a.user.groups.end()) return {true, ""};
    if (rbac_) return rbac_(a);
    // AlwaysAllow for the authenticated; RBAC's bootstrap policy for anonymous.
    if (!anonymous) return {true, ""};
    if (!a.resource_request && a.verb == "get" &&
        std::find(std::begin(public_info), std::end(public_info), a.path) != std::end(public_info)) {
        return {true, ""};
    }
    return {false, ""};
}

result<void> access_control::authorize(const user_info& user, const access_request& req) const {
    authz_attributes a;
    a.user = user;
    a.verb = req.verb;
    a.group = req.gvr.group;
    a.resource = req.gvr.resource;
    a.subresource = req.subresource;
    a.ns = req.ns;
    a.name = req.name;
    if (decide(a).allowed) return {};
    return forbidden(user, req);
}

result<void> access_control::authorize_path(const user_info& user, std::string_view verb,
                                            std::string_view path) const {
    authz_attributes a;
    a.user = user;
    a.verb = std::string(verb);
    a.resource_request = false;
    a.path = std::string(path);
    if (decide(a).allowed) return {};
    return forbidden_path(user, verb, path);
}

result<user_info> access_control::impersonate(const user_info& requestor, std::string_view name,
                                              const std::vector<std::string>& groups) const {
    // impersonation.go: every requested user, service account and group needs
    // `impersonate` on it; the first refusal is the answer.
    constexpr std::string_view sa_prefix = "system:serviceaccount:";
    user_info out;
    out.name = std::string(name);
    const bool groups_given = !groups.empty();
    if (name.substr(0, sa_prefix.size()) == sa_prefix && name.find(':', sa_prefix.size()) != std::string_view::npos) {
        auto rest = name.substr(sa_prefix.size());
        auto colon = rest.find(':');
        std::string ns(rest.substr(0, colon));
        access_request ar{"impersonate", {"", "v1", "serviceaccounts"}, "", ns, std::string(rest.substr(colon + 1))};
        if (auto a = authorize(requestor, ar); !a) return a.error();
        if (!groups_given) out.groups = {"system:serviceaccounts", "system:serviceaccounts:" + ns};
    } else {
        access_request ar{"impersonate", {"", "v1", "users"}, "", "", std::string(name)};
        if (auto a = authorize(requestor, ar); !a) return a.error();
    }
    for (const auto& g : groups) {
        access_request ar{"impersonate", {"", "v1", "groups"}, "", "", g};
        if (auto a = authorize(requestor, ar); !a) return a.error();
        out.groups.push_back(g);
    }
    const bool has_auth_group = std::any_of(out.groups.begin(), out.groups.end(), [](const std::string& g) {
        return g == authenticated_group || g == unauthenticated_group;
    });
    if (out.name != anonymous_user) {
        if (!has_auth_group) out.groups.push_back(std::string(authenticated_group));
    } else if (std::find(out.groups.begin(), out.groups.end(), unauthenticated_group) == out.groups.end()) {
        out.groups.push_back(std::string(unauthenticated_group));
    }
    return out;
}

} // namespace kcoro::apiserver::http
