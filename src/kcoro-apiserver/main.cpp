// kcoro-apiserver: an in-memory Kubernetes API server for tests and demos.
// See docs/apiserver.md. Flags:
//   --listen HOST:PORT        default 127.0.0.1:6443 (port 0 = any)
//   --tls | --plain           default --tls
//   --cert FILE --key FILE    serving certificate (else generated from a fresh CA)
//   --write-kubeconfig PATH   kubeconfig for user "admin" (group system:masters)
//   --policy FILE             authorization policy (JSON/YAML)
//   --authorization-mode=RBAC  authorize by the stored RBAC objects (default AlwaysAllow)
//   --tokens FILE             static tokens CSV (token,user,uid,"groups")
//   --simulate-workloads / --no-simulate-workloads   (on by default)
//   --simulate-pods / --no-simulate-pods   with the simulation, Deployments get
//                             ReplicaSets and Pods that run and turn Ready (on by default)
//   --simulate-delay MS       default 1000
//   --root-ca-publisher / --no-root-ca-publisher   ConfigMap kube-root-ca.crt in
//                             every namespace, as kube-controller-manager writes it (on by default)
//   --service-account-controller / --no-service-account-controller   ServiceAccount
//                             `default` in every namespace, as kube-controller-manager
//                             keeps it (on by default; pods name it when they name none)
//   --history N               retained watch events (default 10000)
//   --watch-cache=false       page resourceVersion=0 lists (default: answered whole, as
//                             kube-apiserver's watch cache does)
//   --seed N                  seed for uids, generated names and tokens (default: random)
//   --bookmark-interval MS    default 60000
//   --load FILE               apply YAML/JSON manifests at start (repeatable)
//   --feature-gates=K=V,...   kube-apiserver's feature gates that kcoro-apiserver
//                             implements: ShardedListAndWatch (KEP-5866, alpha, default false)
// Logs are JSON lines on stderr. SIGINT/SIGTERM: graceful stop, exit 0.
#include "server.hpp"

#include <kcoro/core/yaml.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/json/serialize.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <random>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace kcoro;

namespace {

void log_line(const json::object& o) {
    std::string s = json::serialize(o);
    s.push_back('\n');
    std::fwrite(s.data(), 1, s.size(), stderr);
    std::fflush(stderr);
}

void fatal(const std::string& msg) {
    log_line({{"level", "error"}, {"msg", msg}});
    std::exit(1);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        fatal("cannot read " + path);
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// The controllers' passes until nothing changes (bounded).
void settle(apiserver::object_store& store, wall_time now) {
    for (int i = 0; i < 16 && store.gc_step(now); ++i) {
    }
}

/// Creates (or, if present, replaces) each manifest's object.
void load_manifests(apiserver::object_store& store, io::clock& clk, const std::string& path) {
    auto docs = parse_yaml_documents(read_file(path));
    if (!docs) {
        fatal(path + ": " + docs.error().message());
    }
    for (auto& doc : *docs) {
        if (!doc.is_object()) {
            continue;  // empty documents between ---
        }
        auto& obj = doc.get_object();
        const auto* def = store.registry().find_kind(api_version_of(obj), kind_of(obj));
        if (def == nullptr) {
            fatal(path + ": no resource serves " + std::string(api_version_of(obj)) + " " + std::string(kind_of(obj)));
        }
        std::string ns = def->namespaced ? std::string(namespace_of(obj)) : std::string{};
        if (def->namespaced && ns.empty()) {
            ns = "default";
        }
        apiserver::request_context ctx;
        ctx.now = clk.wall_now();
        ctx.user = "kcoro-apiserver";
        ctx.field_manager = "kcoro-apiserver-load";
        std::string name(name_of(obj));
        auto r = store.create(ctx, def->gvr, ns, obj);
        if (!r) {
            fatal(path + ": " + std::string(kind_of(obj)) + " " + name + ": " + r.error().message());
        }
        // A CRD becomes served after the controllers' pass, before the
        // documents that create its resources. Only then: a pass walks every
        // object, and one per document made loading N objects quadratic
        // (30,000 ConfigMaps: minutes).
        if (kind_of(obj) == "CustomResourceDefinition") {
            settle(store, ctx.now);
        }
        log_line({{"level", "info"}, {"msg", "loaded"}, {"kind", kind_of(obj)}, {"name", name}});
    }
    settle(store, clk.wall_now());
}

// --feature-gates=K=V,K=V (component-base featuregate.Set): each value a Go
// strconv.ParseBool; an unknown name is fatal, as kube-apiserver refuses it.
void set_feature_gates(apiserver::server_options& opts, std::string_view list) {
    while (!list.empty()) {
        auto comma = list.find(',');
        auto item = list.substr(0, comma);
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
        if (item.empty()) continue;
        auto eq = item.find('=');
        if (eq == std::string_view::npos) fatal("missing bool value for " + std::string(item));
        auto name = item.substr(0, eq);
        auto v = item.substr(eq + 1);
        bool on = false;
        if (v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True") {
            on = true;
        } else if (v == "0" || v == "f" || v == "F" || v == "false" || v == "FALSE" || v == "False") {
            on = false;
        } else {
            fatal("invalid value of " + std::string(name) + "=" + std::string(v) + ", err: strconv.ParseBool: parsing \"" +
                  std::string(v) + "\": invalid syntax");
        }
        if (name == "ShardedListAndWatch") {
            opts.store.sharded_list_and_watch = on;
        } else {
            fatal("unrecognized feature gate: " + std::string(name));
        }
    }
}

} // namespace

int main(int argc, char** argv) {
    apiserver::server_options opts;
    opts.tls = true;
    opts.port = 6443;
    opts.store.simulate_workloads = true;
    opts.store.simulate_pods = true;
    opts.root_ca_publisher = true;  // a real cluster's kube-controller-manager runs it
    opts.service_account_controller = true;  // likewise
    // uids, generated names and minted tokens differ between runs, as on a
    // real server; --seed makes a run reproducible (the simulation's need).
    opts.store.random_seed = (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
    opts.log = log_line;
    std::string kubeconfig_path, cert_file, key_file;
    std::vector<std::string> loads;
    std::vector<std::string> args(argv + 1, argv + argc);
    auto value = [&](std::size_t& i) -> std::string {
        if (i + 1 >= args.size()) {
            fatal("missing value for " + args[i]);
        }
        return args[++i];
    };
    try {
        for (std::size_t i = 0; i < args.size(); ++i) {
            const auto& a = args[i];
            if (a == "--listen") {
                auto v = value(i);
                auto colon = v.rfind(':');
                if (colon == std::string::npos) fatal("--listen wants HOST:PORT");
                opts.address = v.substr(0, colon);
                if (!opts.address.empty() && opts.address.front() == '[') {
                    opts.address = opts.address.substr(1, opts.address.size() - 2);
                }
                opts.port = static_cast<std::uint16_t>(std::stoul(v.substr(colon + 1)));
            } else if (a == "--tls") {
                opts.tls = true;
            } else if (a == "--plain") {
                opts.tls = false;
            } else if (a == "--cert") {
                cert_file = value(i);
            } else if (a == "--key") {
                key_file = value(i);
            } else if (a == "--write-kubeconfig") {
                kubeconfig_path = value(i);
            } else if (a == "--authorization-mode=RBAC" || a == "--authorization-mode=Node,RBAC") {
                opts.rbac = true;
            } else if (a == "--authorization-mode=AlwaysAllow") {
                opts.rbac = false;
            } else if (a == "--policy") {
                auto p = apiserver::http::policy::parse(read_file(value(i)));
                if (!p) fatal(p.error().message());
                opts.policy = std::move(*p);
            } else if (a == "--tokens") {
                auto t = apiserver::http::token_table::parse_csv(read_file(value(i)));
                if (!t) fatal(t.error().message());
                opts.tokens = std::move(*t);
            } else if (a == "--simulate-workloads") {
                opts.store.simulate_workloads = true;
            } else if (a == "--no-simulate-workloads") {
                opts.store.simulate_workloads = false;
            } else if (a == "--simulate-pods") {
                opts.store.simulate_pods = true;
            } else if (a == "--no-simulate-pods") {
                opts.store.simulate_pods = false;
            } else if (a == "--root-ca-publisher") {
                opts.root_ca_publisher = true;
            } else if (a == "--no-root-ca-publisher") {
                opts.root_ca_publisher = false;
            } else if (a == "--service-account-controller") {
                opts.service_account_controller = true;
            } else if (a == "--no-service-account-controller") {
                opts.service_account_controller = false;
            } else if (a == "--simulate-delay") {
                opts.store.simulate_delay = std::chrono::milliseconds(std::stol(value(i)));
            } else if (a == "--seed") {
                opts.store.random_seed = std::stoull(value(i));
            } else if (a == "--history") {
                opts.store.history_size = std::stoul(value(i));
            } else if (a == "--watch-cache=false" || a == "--watch-cache=true") {
                opts.store.watch_cache = a.ends_with("true");
            } else if (a == "--bookmark-interval") {
                opts.handler.bookmark_interval = std::chrono::milliseconds(std::stol(value(i)));
            } else if (a == "--load") {
                loads.push_back(value(i));
            } else if (a == "--feature-gates" || a.starts_with("--feature-gates=")) {
                set_feature_gates(opts, a == "--feature-gates" ? value(i) : a.substr(a.find('=') + 1));
            } else if (a == "--help" || a == "-h") {
                std::cout << "usage: kcoro-apiserver [--listen HOST:PORT] [--tls|--plain] [--cert F --key F]\n"
                             "  [--write-kubeconfig PATH] [--policy F] [--authorization-mode=RBAC|AlwaysAllow] [--tokens F] [--[no-]simulate-workloads]\n"
                             "  [--[no-]root-ca-publisher] [--[no-]simulate-pods] [--[no-]service-account-controller] [--simulate-delay MS] [--history N] [--watch-cache=false]\n"
                             "  [--bookmark-interval MS] [--load F]... [--seed N]\n"
                             "  [--feature-gates=ShardedListAndWatch=true|false]\n"
                             "feature gates (kube-apiserver's names; only these are known):\n"
                             "  ShardedListAndWatch=true|false (ALPHA - default=false): the shardSelector\n"
                             "    list/watch parameter and ListMeta.shardInfo (KEP-5866, docs/apiserver.md)\n";
                return 0;
            } else {
                fatal("unknown flag " + a);
            }
        }
    } catch (const std::exception& e) {
        fatal(std::string("bad flag value: ") + e.what());
    }
    if (!cert_file.empty() || !key_file.empty()) {
        if (cert_file.empty() || key_file.empty()) fatal("--cert and --key go together");
        opts.cert_pem = read_file(cert_file);
        opts.key_pem = read_file(key_file);
    }
    const bool have_tokens = opts.tokens.has_value();

    asio::io_context io;
    io::system_clock clk;
    apiserver::server srv(io.get_executor(), clk, opts);
    for (const auto& f : loads) {
        load_manifests(srv.store(), clk, f);
    }
    if (auto r = srv.start(); !r) {
        fatal(r.error().message());
    }
    if (!kubeconfig_path.empty()) {
        apiserver::client_credentials c;
        if (opts.tls || have_tokens) {
            auto cr = srv.credentials_for("admin", {"system:masters"});
            if (!cr) fatal(cr.error().message());
            c = std::move(*cr);
        } else {
            c.server = srv.url();
            c.user = "admin";
        }
        std::ofstream out(kubeconfig_path, std::ios::trunc);
        out << apiserver::server::kubeconfig_yaml(c);
        if (!out) fatal("cannot write " + kubeconfig_path);
        log_line({{"level", "info"}, {"msg", "wrote kubeconfig"}, {"path", kubeconfig_path}});
    }
    asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code& ec, int sig) {
        if (ec) return;
        log_line({{"level", "info"}, {"msg", "stopping"}, {"signal", sig}});
        srv.stop(std::chrono::seconds(2));
    });
    io.run();
    log_line({{"level", "info"}, {"msg", "stopped"}});
    return 0;
}
