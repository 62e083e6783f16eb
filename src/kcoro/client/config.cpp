#include <kcoro/client/config.hpp>

#include <kcoro/core/kubeconfig.hpp>

#include <algorithm>
#include <cctype>

namespace kcoro::client {
namespace {

error invalid(std::string msg) { return error(kcoro_errc::invalid_config, std::move(msg)); }

std::string trim(std::string s) {
    auto not_space = [](unsigned char c) { return !std::isspace(c); };
    s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
    s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
    return s;
}

// `data` when set, else the file's contents; errors name the entry and field.
result<std::string> data_or_file(const std::string& data, const std::string& file, const kubeconfig_origin& origin,
                                 std::string_view field, const environment& env) {
    if (!data.empty() || file.empty()) {
        return data;
    }
    auto contents = env.read_file(file);
    if (!contents) {
        return invalid(origin.describe(field, contents.error().message()));
    }
    return std::move(*contents);
}

std::vector<std::string> split_list(std::string_view list) {
    std::vector<std::string> out;
    while (!list.empty()) {
        auto colon = list.find(':');
        std::string item(list.substr(0, colon));
        if (!item.empty() && std::find(out.begin(), out.end(), item) == out.end()) {
            out.push_back(std::move(item)); // client-go drops empty and repeated entries
        }
        if (colon == std::string_view::npos) {
            break;
        }
        list.remove_prefix(colon + 1);
    }
    return out;
}

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) {
        out += (out.empty() ? "" : ", ") + s;
    }
    return out;
}

result<client_config> from_resolved(const resolved_kubeconfig& r, const std::vector<std::string>& files,
                                    const environment& env) {
    client_config c;
    c.server = r.cluster.server;
    c.tls_server_name = r.cluster.tls_server_name;
    c.insecure_skip_tls_verify = r.cluster.insecure_skip_tls_verify;
    auto ca = data_or_file(r.cluster.certificate_authority_data, r.cluster.certificate_authority, r.cluster.origin,
                           "certificate-authority", env);
    if (!ca) {
        return ca.error();
    }
    c.ca_pem = std::move(*ca);
    const kubeconfig_user& u = r.user;
    c.token = u.token;
    c.token_file = u.token_file;
    if (!c.token_file.empty()) { // fail now rather than on the first request
        auto t = env.read_file(c.token_file);
        if (!t) {
            return invalid(u.origin.describe("tokenFile", t.error().message()));
        }
    }
    auto cert = data_or_file(u.client_certificate_data, u.client_certificate, u.origin, "client-certificate", env);
    if (!cert) {
        return cert.error();
    }
    c.client_cert_pem = std::move(*cert);
    auto key = data_or_file(u.client_key_data, u.client_key, u.origin, "client-key", env);
    if (!key) {
        return key.error();
    }
    c.client_key_pem = std::move(*key);
    if (u.exec) {
        c.exec = exec_config{u.exec->api_version, u.exec->command,     u.exec->args,
                             u.exec->env,         u.exec->install_hint, u.exec->provide_cluster_info};
    }
    if (!r.context.ns.empty()) {
        c.ns = r.context.ns;
    }
    c.source = "kubeconfig " + join(files) + " (context " + r.context_name + ")";
    return c;
}

} // namespace

result<client_config> kubeconfig_config(const std::vector<std::string>& files, const std::string& context,
                                        const environment& env) {
    std::vector<kubeconfig_source> sources;
    std::vector<std::string> found;
    for (const auto& f : files) {
        auto contents = env.read_file(f);
        if (!contents) {
            if (is_file_not_found(contents.error()) && files.size() > 1) {
                continue; // a KUBECONFIG list may name files that do not exist
            }
            return invalid("kubeconfig " + f + ": " + contents.error().message());
        }
        sources.push_back({f, std::move(*contents)});
        found.push_back(f);
    }
    if (sources.empty()) {
        return invalid("kubeconfig " + join(files) + ": none of the files exist");
    }
    auto merged = load_kubeconfigs(sources);
    if (!merged) {
        return merged.error();
    }
    auto resolved = resolve_kubeconfig(*merged, context);
    if (!resolved) {
        return resolved.error();
    }
    return from_resolved(*resolved, found, env);
}

result<client_config> in_cluster_config(const environment& env) {
    auto host = env.get("KUBERNETES_SERVICE_HOST").value_or("");
    auto port = env.get("KUBERNETES_SERVICE_PORT").value_or("");
    if (host.empty() || port.empty()) {
        return invalid("in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set "
                       "(not running in a pod?)");
    }
    client_config c;
    bool ipv6 = host.find(':') != std::string::npos && host.front() != '[';
    c.server = "https://" + (ipv6 ? "[" + host + "]" : host) + ":" + port;
    const std::string& sa = env.service_account_dir;
    c.token_file = sa + "/token";
    auto token = env.read_file(c.token_file);
    if (!token) {
        return invalid("in-cluster: " + token.error().message());
    }
    if (trim(*token).empty()) {
        return invalid("in-cluster: " + c.token_file + " is empty");
    }
    if (auto ca = env.read_file(sa + "/ca.crt")) {
        c.ca_pem = std::move(*ca);
    } // else: the system store, as client-go (which only logs the failure)
    if (auto ns = env.read_file(sa + "/namespace")) {
        if (auto t = trim(*ns); !t.empty()) {
            c.ns = t;
        }
    }
    c.source = "in-cluster";
    return c;
}

result<client_config> load_config(const load_options& opts, const environment& env) {
    if (!opts.kubeconfig.empty()) {
        return kubeconfig_config({opts.kubeconfig}, opts.context, env);
    }
    auto list = env.get("KUBECONFIG").value_or("");
    std::optional<error> in_cluster_error;
    if (list.empty() && env.get("KUBERNETES_SERVICE_HOST") && env.get("KUBERNETES_SERVICE_PORT")) {
        auto c = in_cluster_config(env);
        if (c) {
            return c;
        }
        in_cluster_error = c.error();
    }
    std::vector<std::string> files = split_list(list);
    if (files.empty()) {
        if (env.home.empty()) {
            return in_cluster_error ? *in_cluster_error
                                    : invalid("no configuration: no --kubeconfig, KUBECONFIG, in-cluster "
                                              "environment or home directory");
        }
        std::string path = env.home + "/.kube/config";
        auto probe = env.read_file(path);
        if (!probe && is_file_not_found(probe.error())) {
            if (in_cluster_error) {
                return *in_cluster_error;
            }
            return invalid("no configuration: no --kubeconfig, KUBECONFIG or in-cluster environment "
                           "(KUBERNETES_SERVICE_HOST/_PORT), and " + path + " does not exist");
        }
        files.push_back(path);
    }
    return kubeconfig_config(files, opts.context, env);
}

} // namespace kcoro::client
