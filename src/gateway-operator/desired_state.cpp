#include "desired_state.hpp"

#include <algorithm>

namespace gateway {

namespace k8s = kcoro::k8s;

namespace {

constexpr std::string_view container_name = "gateway";

std::map<std::string, std::string> selector_labels(const gateway_instance& gi) {
    return {{"app.kubernetes.io/name", "gateway"}, {"app.kubernetes.io/instance", gi.metadata.name}};
}

std::map<std::string, std::string> child_labels(const gateway_instance& gi) {
    auto l = selector_labels(gi);
    l["app.kubernetes.io/managed-by"] = "gateway-operator";
    return l;
}

// A child's metadata: its name and namespace are the instance's; apply_owned
// adds the controller owner reference.
kcoro::typed::object_meta child_metadata(const gateway_instance& gi) {
    kcoro::typed::object_meta m;
    m.name = gi.metadata.name;
    m.namespace_ = gi.metadata.namespace_;
    m.labels = child_labels(gi);
    return m;
}

// Every entry of `want` is in `have` with the same value.
bool contains_all(const std::map<std::string, std::string>& have, const std::map<std::string, std::string>& want) {
    return std::all_of(want.begin(), want.end(), [&](const auto& kv) {
        auto it = have.find(kv.first);
        return it != have.end() && it->second == kv.second;
    });
}

} // namespace

std::string registration_name(std::string_view uid) { return "gatewayinstance-" + std::string(uid); }

std::string endpoint_of(std::string_view name, std::string_view ns, std::int32_t port) {
    return std::string(name) + "." + std::string(ns) + ".svc:" + std::to_string(port);
}

k8s::deployment desired_deployment(const gateway_instance& gi) {
    const auto& spec = gi.spec;
    k8s::container c;
    c.name = std::string(container_name);
    c.image = spec.image;
    k8s::container_port http;
    http.name = "http";
    http.container_port_ = spec.port;
    http.protocol = "TCP";
    c.ports.push_back(std::move(http));
    for (const auto& e : spec.env) {
        k8s::env_var v;
        v.name = e.name;
        v.value = e.value;  // empty: omitted, as the API server stores it
        c.env.push_back(std::move(v));
    }
    c.resources = spec.resources;  // passed through, quantities as written

    k8s::deployment d;
    d.metadata = child_metadata(gi);
    d.spec.replicas = spec.replicas;
    d.spec.selector.match_labels = selector_labels(gi);
    d.spec.template_.metadata.labels = child_labels(gi);
    d.spec.template_.spec.containers.push_back(std::move(c));
    return d;
}

k8s::service desired_service(const gateway_instance& gi) {
    k8s::service s;
    s.metadata = child_metadata(gi);
    s.spec.type = std::string(to_string(gi.spec.type));
    s.spec.selector = selector_labels(gi);
    k8s::service_port http;
    http.name = "http";
    http.protocol = "TCP";
    http.port = gi.spec.port;
    http.target_port = gi.spec.port;
    s.spec.ports.push_back(std::move(http));
    return s;
}

k8s::config_map desired_registration(const gateway_instance& gi, std::string_view registry_namespace) {
    const auto& uid = gi.metadata.uid;
    k8s::config_map cm;
    cm.metadata.name = registration_name(uid);
    cm.metadata.namespace_ = std::string(registry_namespace);
    // No owner reference: the registration outlives nothing by GC; the
    // finalizer is what guarantees its cleanup.
    cm.metadata.labels = {{std::string(uid_label), uid}, {"app.kubernetes.io/managed-by", "gateway-operator"}};
    cm.data = {{"namespace", gi.metadata.namespace_},
               {"name", gi.metadata.name},
               {"uid", uid},
               {"endpoint", endpoint_of(gi.metadata.name, gi.metadata.namespace_, gi.spec.port)}};
    return cm;
}

std::optional<k8s::config_map> registration_repair(const k8s::config_map& current, const k8s::config_map& desired) {
    if (contains_all(current.data, desired.data) && contains_all(current.metadata.labels, desired.metadata.labels)) {
        return std::nullopt;
    }
    k8s::config_map patch;
    patch.metadata.labels = desired.metadata.labels;
    patch.data = desired.data;
    return patch;
}

bool registration_belongs_to(const k8s::config_map& cm, std::string_view instance_uid) {
    auto it = cm.metadata.labels.find(std::string(uid_label));
    return it != cm.metadata.labels.end() && it->second == instance_uid;
}

std::optional<kcoro::object_key> registration_instance(const k8s::config_map& cm) {
    auto uid = cm.metadata.labels.find(std::string(uid_label));
    auto ns = cm.data.find("namespace");
    auto name = cm.data.find("name");
    if (uid == cm.metadata.labels.end() || uid->second.empty() || ns == cm.data.end() || ns->second.empty() ||
        name == cm.data.end() || name->second.empty()) {
        return std::nullopt;
    }
    return kcoro::object_key{ns->second, name->second};
}

std::vector<k8s::config_map> orphaned_registrations(const std::vector<k8s::config_map>& claims,
                                                    std::string_view live_uid,
                                                    const std::function<bool(std::string_view)>& instance_cached) {
    std::vector<k8s::config_map> out;
    for (const auto& cm : claims) {
        auto uid = cm.metadata.labels.find(std::string(uid_label));
        if (uid == cm.metadata.labels.end() || uid->second.empty() || uid->second == live_uid ||
            (instance_cached && instance_cached(uid->second))) {
            continue;
        }
        out.push_back(cm);
    }
    return out;
}

} // namespace gateway
