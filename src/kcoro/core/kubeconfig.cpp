#include <kcoro/core/kubeconfig.hpp>

#include <kcoro/core/base64.hpp>
#include <kcoro/core/yaml.hpp>

#include "yaml_scalar.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <set>

namespace kcoro {
namespace {

namespace json = boost::json;

std::string dir_of(std::string_view path) {
    auto slash = path.rfind('/');
    if (slash == std::string_view::npos) {
        return {};
    }
    return slash == 0 ? std::string("/") : std::string(path.substr(0, slash));
}

// client-go's ResolvePath: relative paths are relative to the kubeconfig's directory.
std::string resolve_path(const std::string& dir, std::string p) {
    if (p.empty() || p[0] == '/' || dir.empty()) {
        return p;
    }
    return dir == "/" ? "/" + p : dir + "/" + p;
}

std::string file_error(std::string_view file, std::string_view what) {
    return "kubeconfig " + std::string(file) + ": " + std::string(what);
}

// Reads typed fields of one entry; the first problem is kept and reported
// with the entry's origin and the field's name.
class field_reader {
public:
    field_reader(const kubeconfig_origin& origin, std::string prefix, std::optional<error>& err)
        : origin_(origin), prefix_(std::move(prefix)), err_(err) {}

    void fail(std::string_view field, std::string_view what) {
        if (!err_) {
            err_ = error(kcoro_errc::invalid_config, origin_.describe(prefix_ + std::string(field), what));
        }
    }
    const json::value* get(const json::object& o, std::string_view key) {
        auto* v = o.if_contains(key);
        return (v && !v->is_null()) ? v : nullptr;
    }
    std::string str(const json::object& o, std::string_view key) {
        auto* v = get(o, key);
        if (!v) {
            return {};
        }
        if (!v->is_string()) {
            fail(key, "expected a string");
            return {};
        }
        return std::string(v->get_string());
    }
    bool boolean(const json::object& o, std::string_view key) {
        auto* v = get(o, key);
        if (!v) {
            return false;
        }
        if (v->is_bool()) {
            return v->get_bool();
        }
        // Plain scalars arrive as text (yaml_options::plain_scalars_as_strings);
        // a bool field reads them as go-yaml does: yes/on/y are true too.
        if (v->is_string()) {
            auto b = detail::yaml::resolve_plain(v->get_string());
            if (b.is_bool()) {
                return b.get_bool();
            }
        }
        fail(key, "expected true or false");
        return false;
    }
    std::string data(const json::object& o, std::string_view key) {
        std::string text = str(o, key);
        auto bytes = base64_decode(text);
        if (!bytes) {
            fail(key, "not valid base64");
            return {};
        }
        return *bytes;
    }
    const json::object* object(const json::object& o, std::string_view key) {
        auto* v = get(o, key);
        if (v && !v->is_object()) {
            fail(key, "expected a mapping");
            return nullptr;
        }
        return v ? &v->get_object() : nullptr;
    }
    const json::array* array(const json::object& o, std::string_view key) {
        auto* v = get(o, key);
        if (v && !v->is_array()) {
            fail(key, "expected a list");
            return nullptr;
        }
        return v ? &v->get_array() : nullptr;
    }

private:
    const kubeconfig_origin& origin_;
    std::string prefix_;
    std::optional<error>& err_;
};

void read_cluster(const json::object& o, kubeconfig_cluster& c, const std::string& dir, std::optional<error>& err) {
    field_reader r(c.origin, "", err);
    c.server = r.str(o, "server");
    c.certificate_authority = resolve_path(dir, r.str(o, "certificate-authority"));
    c.certificate_authority_data = r.data(o, "certificate-authority-data");
    c.tls_server_name = r.str(o, "tls-server-name");
    c.insecure_skip_tls_verify = r.boolean(o, "insecure-skip-tls-verify");
    c.proxy_url = r.str(o, "proxy-url");
}

void read_exec(const json::object& o, kubeconfig_exec& x, const kubeconfig_origin& origin, const std::string& dir,
               std::optional<error>& err) {
    field_reader r(origin, "exec: ", err);
    x.api_version = r.str(o, "apiVersion");
    x.command = r.str(o, "command");
    if (x.command.find('/') != std::string::npos) { // "./bin/plugin", not "aws" (PATH lookup)
        x.command = resolve_path(dir, x.command);
    }
    x.install_hint = r.str(o, "installHint");
    x.provide_cluster_info = r.boolean(o, "provideClusterInfo");
    x.interactive_mode = r.str(o, "interactiveMode");
    if (auto* args = r.array(o, "args")) {
        for (std::size_t i = 0; i < args->size(); ++i) {
            if (!(*args)[i].is_string()) {
                r.fail("args[" + std::to_string(i) + "]", "expected a string");
                return;
            }
            x.args.emplace_back((*args)[i].get_string());
        }
    }
    if (auto* env = r.array(o, "env")) {
        for (std::size_t i = 0; i < env->size(); ++i) {
            std::string field = "env[" + std::to_string(i) + "]";
            if (!(*env)[i].is_object()) {
                r.fail(field, "expected a mapping with name and value");
                return;
            }
            field_reader er(origin, "exec: " + field + ": ", err);
            std::string name = er.str((*env)[i].get_object(), "name");
            if (name.empty()) {
                er.fail("name", "missing");
                return;
            }
            x.env.emplace_back(std::move(name), er.str((*env)[i].get_object(), "value"));
        }
    }
}

void read_user(const json::object& o, kubeconfig_user& u, const std::string& dir, std::optional<error>& err) {
    field_reader r(u.origin, "", err);
    u.token = r.str(o, "token");
    u.token_file = resolve_path(dir, r.str(o, "tokenFile"));
    u.client_certificate = resolve_path(dir, r.str(o, "client-certificate"));
    u.client_certificate_data = r.data(o, "client-certificate-data");
    u.client_key = resolve_path(dir, r.str(o, "client-key"));
    u.client_key_data = r.data(o, "client-key-data");
    if (auto* exec = r.object(o, "exec")) {
        u.exec.emplace();
        read_exec(*exec, *u.exec, u.origin, dir, err);
    }
    u.has_auth_provider = r.get(o, "auth-provider") != nullptr;
    u.has_basic_auth = r.get(o, "username") != nullptr || r.get(o, "password") != nullptr;
    u.has_impersonation = r.get(o, "as") != nullptr || r.get(o, "as-groups") != nullptr ||
                          r.get(o, "as-uid") != nullptr || r.get(o, "as-user-extra") != nullptr;
}

void read_context(const json::object& o, kubeconfig_context& c, std::optional<error>& err) {
    field_reader r(c.origin, "", err);
    c.cluster = r.str(o, "cluster");
    c.user = r.str(o, "user");
    c.ns = r.str(o, "namespace");
}

// Reads one of the named lists ("clusters" with entries {name, cluster: {...}}).
template <class Entry, class Read>
void read_list(const json::object& root, std::string_view path, const char* list, const char* inner,
               std::vector<Entry>& out, std::optional<error>& err, Read read) {
    auto* v = root.if_contains(list);
    if (!v || v->is_null()) {
        return;
    }
    if (!v->is_array()) {
        err = error(kcoro_errc::invalid_config, file_error(path, std::string(list) + ": expected a list"));
        return;
    }
    std::set<std::string, std::less<>> seen;
    for (std::size_t i = 0; i < v->get_array().size() && !err; ++i) {
        Entry e;
        e.origin = kubeconfig_origin{std::string(path), list, i, {}};
        const json::value& item = v->get_array()[i];
        field_reader r(e.origin, "", err);
        if (!item.is_object()) {
            err = error(kcoro_errc::invalid_config,
                        file_error(path, std::string(list) + "[" + std::to_string(i) + "]: expected a mapping"));
            return;
        }
        e.origin.name = r.str(item.get_object(), "name");
        if (err) {
            return;
        }
        if (e.origin.name.empty()) {
            r.fail("name", "missing");
            return;
        }
        if (!seen.insert(e.origin.name).second) {
            r.fail("name", "duplicate name in " + std::string(list));
            return;
        }
        if (auto* body = r.object(item.get_object(), inner)) {
            read(*body, e);
        }
        out.push_back(std::move(e));
    }
}

std::string files_of(const kubeconfig& c) {
    std::string out;
    for (const auto& f : c.files) {
        out += (out.empty() ? "" : ", ") + f;
    }
    return out.empty() ? std::string("(none)") : out;
}

template <class Entry>
const Entry* find_named(const std::vector<Entry>& v, std::string_view name) noexcept {
    for (const auto& e : v) {
        if (e.origin.name == name) {
            return &e;
        }
    }
    return nullptr;
}

} // namespace

std::string kubeconfig_origin::describe(std::string_view field, std::string_view what) const {
    std::string out = "kubeconfig " + file + ": " + list + "[" + std::to_string(index) + "]";
    if (!name.empty()) {
        out += " \"" + name + "\"";
    }
    if (!field.empty()) {
        out += ": " + std::string(field);
    }
    return out + ": " + std::string(what);
}

const kubeconfig_cluster* kubeconfig::find_cluster(std::string_view name) const noexcept {
    return find_named(clusters, name);
}
const kubeconfig_user* kubeconfig::find_user(std::string_view name) const noexcept {
    return find_named(users, name);
}
const kubeconfig_context* kubeconfig::find_context(std::string_view name) const noexcept {
    return find_named(contexts, name);
}

result<kubeconfig> parse_kubeconfig(std::string_view path, std::string_view contents) {
    kubeconfig out;
    out.files.emplace_back(path);
    auto doc = parse_yaml(contents, yaml_options{.plain_scalars_as_strings = true});
    if (!doc) {
        return error(kcoro_errc::invalid_config, file_error(path, doc.error().message()));
    }
    if (doc->is_null()) {
        return out; // an empty file is an empty config
    }
    if (!doc->is_object()) {
        return error(kcoro_errc::invalid_config, file_error(path, "not a mapping (a kubeconfig is a YAML or JSON object)"));
    }
    const json::object& root = doc->get_object();
    std::optional<error> err;
    if (auto* cc = root.if_contains("current-context"); cc && !cc->is_null()) {
        if (!cc->is_string()) {
            return error(kcoro_errc::invalid_config, file_error(path, "current-context: expected a string"));
        }
        out.current_context = std::string(cc->get_string());
        out.current_context_file = std::string(path);
    }
    std::string dir = dir_of(path);
    read_list(root, path, "clusters", "cluster", out.clusters, err,
              [&](const json::object& o, kubeconfig_cluster& c) { read_cluster(o, c, dir, err); });
    if (!err) {
        read_list(root, path, "users", "user", out.users, err,
                  [&](const json::object& o, kubeconfig_user& u) { read_user(o, u, dir, err); });
    }
    if (!err) {
        read_list(root, path, "contexts", "context", out.contexts, err,
                  [&](const json::object& o, kubeconfig_context& c) { read_context(o, c, err); });
    }
    if (err) {
        return *err;
    }
    return out;
}

kubeconfig merge_kubeconfigs(std::vector<kubeconfig> configs) {
    kubeconfig out;
    for (auto& c : configs) {
        out.files.insert(out.files.end(), c.files.begin(), c.files.end());
        if (out.current_context.empty()) {
            out.current_context = c.current_context;
            out.current_context_file = c.current_context_file;
        }
        for (auto& e : c.clusters) {
            if (!out.find_cluster(e.origin.name)) {
                out.clusters.push_back(std::move(e));
            }
        }
        for (auto& e : c.users) {
            if (!out.find_user(e.origin.name)) {
                out.users.push_back(std::move(e));
            }
        }
        for (auto& e : c.contexts) {
            if (!out.find_context(e.origin.name)) {
                out.contexts.push_back(std::move(e));
            }
        }
    }
    return out;
}

result<kubeconfig> load_kubeconfigs(const std::vector<kubeconfig_source>& sources) {
    std::vector<kubeconfig> parsed;
    parsed.reserve(sources.size());
    for (const auto& s : sources) {
        auto c = parse_kubeconfig(s.path, s.contents);
        if (!c) {
            return c.error();
        }
        parsed.push_back(std::move(*c));
    }
    return merge_kubeconfigs(std::move(parsed));
}

result<resolved_kubeconfig> resolve_kubeconfig(const kubeconfig& config, std::string_view context_override) {
    auto invalid = [](std::string msg) { return error(kcoro_errc::invalid_config, std::move(msg)); };
    resolved_kubeconfig out;
    out.context_name = context_override.empty() ? config.current_context : std::string(context_override);
    if (out.context_name.empty()) {
        return invalid(file_error(files_of(config), "no current-context is set and no context was given"));
    }
    const kubeconfig_context* ctx = config.find_context(out.context_name);
    if (!ctx) {
        if (!context_override.empty()) {
            return invalid(file_error(files_of(config), "context \"" + out.context_name + "\" (from --context) not found"));
        }
        return invalid(file_error(config.current_context_file,
                                  "current-context: context \"" + out.context_name + "\" not found"));
    }
    out.context = *ctx;
    if (ctx->cluster.empty()) {
        return invalid(ctx->origin.describe("cluster", "missing"));
    }
    const kubeconfig_cluster* cl = config.find_cluster(ctx->cluster);
    if (!cl) {
        return invalid(ctx->origin.describe("cluster", "cluster \"" + ctx->cluster + "\" not found"));
    }
    out.cluster = *cl;
    auto& c = out.cluster;
    if (c.server.empty()) {
        return invalid(c.origin.describe("server", "missing"));
    }
    if (c.server.find("://") == std::string::npos) {
        c.server = "https://" + c.server; // client-go defaults a bare host:port to https
    } else if (c.server.rfind("https://", 0) != 0 && c.server.rfind("http://", 0) != 0) {
        return invalid(c.origin.describe("server", "\"" + c.server + "\": only https:// and http:// are supported"));
    }
    while (c.server.size() > 8 && c.server.back() == '/') {
        c.server.pop_back();
    }
    if (c.insecure_skip_tls_verify && (!c.certificate_authority.empty() || !c.certificate_authority_data.empty())) {
        return invalid(c.origin.describe("insecure-skip-tls-verify",
                                         "cannot be combined with certificate-authority(-data), as in client-go"));
    }
    if (!c.proxy_url.empty()) {
        return invalid(c.origin.describe("proxy-url", "not supported by kcoro"));
    }
    if (ctx->user.empty()) {
        return out; // anonymous
    }
    const kubeconfig_user* u = config.find_user(ctx->user);
    if (!u) {
        return invalid(ctx->origin.describe("user", "user \"" + ctx->user + "\" not found"));
    }
    out.user = *u;
    if (u->has_auth_provider) {
        return invalid(u->origin.describe("auth-provider", "not supported by kcoro (use an exec plugin)"));
    }
    if (u->has_basic_auth) {
        return invalid(u->origin.describe("username", "basic authentication is not supported by kcoro"));
    }
    if (u->has_impersonation) {
        return invalid(u->origin.describe("as", "impersonation is not supported by kcoro"));
    }
    bool has_cert = !u->client_certificate.empty() || !u->client_certificate_data.empty();
    bool has_key = !u->client_key.empty() || !u->client_key_data.empty();
    if (has_cert && !has_key) {
        return invalid(u->origin.describe("client-key", "missing (client-certificate is set)"));
    }
    if (has_key && !has_cert) {
        return invalid(u->origin.describe("client-certificate", "missing (client-key is set)"));
    }
    if (u->exec) {
        const auto& x = *u->exec;
        if (x.command.empty()) {
            return invalid(u->origin.describe("exec: command", "missing"));
        }
        if (x.api_version != "client.authentication.k8s.io/v1" &&
            x.api_version != "client.authentication.k8s.io/v1beta1") {
            return invalid(u->origin.describe(
                "exec: apiVersion",
                "\"" + x.api_version + "\" is not client.authentication.k8s.io/v1 or v1beta1"));
        }
        if (x.interactive_mode == "Always") {
            return invalid(u->origin.describe("exec: interactiveMode",
                                              "Always needs a terminal; kcoro runs plugins non-interactively"));
        }
        if (!x.interactive_mode.empty() && x.interactive_mode != "Never" && x.interactive_mode != "IfAvailable") {
            return invalid(u->origin.describe("exec: interactiveMode",
                                              "\"" + x.interactive_mode + "\" is not Never, IfAvailable or Always"));
        }
    }
    return out;
}

} // namespace kcoro
