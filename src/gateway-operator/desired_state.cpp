#include "desired_state.hpp"

#include <kcoro/core/object.hpp>
#include <kcoro/typed/codec.hpp>

namespace gateway {
namespace json = boost::json;

namespace {

constexpr std::string_view container_name = "gateway";

json::object selector_labels(const json::object& instance) {
    return json::object{{"app.kubernetes.io/name", "gateway"},
                        {"app.kubernetes.io/instance", kcoro::name_of(instance)}};
}

json::object child_labels(const json::object& instance) {
    auto l = selector_labels(instance);
    l["app.kubernetes.io/managed-by"] = "gateway-operator";
    return l;
}

json::object child_metadata(const json::object& instance) {
    json::object m;
    m["name"] = kcoro::name_of(instance);
    m["namespace"] = kcoro::namespace_of(instance);
    m["labels"] = child_labels(instance);
    m["ownerReferences"] = json::array{kcoro::to_json(kcoro::make_controller_reference(instance))};
    return m;
}

json::array env_json(const gateway_spec& spec) {
    json::array env;
    for (const auto& e : spec.env) {
        json::object o{{"name", e.name}};
        if (!e.value.empty()) {
            o["value"] = e.value;  // the API server omits empty values
        }
        env.push_back(std::move(o));
    }
    return env;
}

// True when every key of `want` is in `have` with the same value.
bool contains_labels(const json::value& have, const json::object& want) {
    const auto* h = have.if_object();
    if (!h) {
        return want.empty();
    }
    for (const auto& [k, v] : want) {
        const auto* hv = h->if_contains(k);
        if (!hv || *hv != v) {
            return false;
        }
    }
    return true;
}

} // namespace

std::string registration_name(std::string_view uid) { return "gatewayinstance-" + std::string(uid); }

std::string endpoint_of(std::string_view name, std::string_view ns, std::int32_t port) {
    return std::string(name) + "." + std::string(ns) + ".svc:" + std::to_string(port);
}

json::object desired_deployment(const json::object& instance, const gateway_spec& spec) {
    json::object container{
        {"name", container_name},
        {"image", spec.image},
        {"ports", json::array{json::object{{"name", "http"}, {"containerPort", spec.port}, {"protocol", "TCP"}}}},
    };
    if (!spec.env.empty()) {
        container["env"] = env_json(spec);
    }
    if (auto resources = kcoro::typed::to_object(spec.resources); !resources.empty()) {
        container["resources"] = std::move(resources);  // passed through, quantities as written
    }
    json::object d{
        {"apiVersion", "apps/v1"},
        {"kind", "Deployment"},
        {"metadata", child_metadata(instance)},
        {"spec",
         json::object{
             {"replicas", spec.replicas},
             {"selector", json::object{{"matchLabels", selector_labels(instance)}}},
             {"template", json::object{{"metadata", json::object{{"labels", child_labels(instance)}}},
                                       {"spec", json::object{{"containers", json::array{container}}}}}},
         }},
    };
    return d;
}

json::object desired_service(const json::object& instance, const gateway_spec& spec) {
    return json::object{
        {"apiVersion", "v1"},
        {"kind", "Service"},
        {"metadata", child_metadata(instance)},
        {"spec",
         json::object{
             {"type", to_string(spec.type)},
             {"selector", selector_labels(instance)},
             {"ports", json::array{json::object{
                           {"name", "http"}, {"port", spec.port}, {"targetPort", spec.port}, {"protocol", "TCP"}}}},
         }},
    };
}

json::object desired_registration(const json::object& instance, const gateway_spec& spec,
                                   std::string_view registry_namespace) {
    auto uid = kcoro::uid_of(instance);
    return json::object{
        {"apiVersion", "v1"},
        {"kind", "ConfigMap"},
        {"metadata",
         json::object{
             {"name", registration_name(uid)},
             {"namespace", registry_namespace},
             // No owner reference: the registration outlives nothing by GC;
             // the finalizer is what guarantees its cleanup.
             {"labels", json::object{{uid_label, uid}, {"app.kubernetes.io/managed-by", "gateway-operator"}}},
         }},
        {"data",
         json::object{
             {"namespace", kcoro::namespace_of(instance)},
             {"name", kcoro::name_of(instance)},
             {"uid", uid},
             {"endpoint", endpoint_of(kcoro::name_of(instance), kcoro::namespace_of(instance), spec.port)},
         }},
    };
}

std::optional<json::object> registration_repair(const json::object& current, const json::object& desired) {
    const auto& want_data = desired.at("data").get_object();
    const auto& want_labels = kcoro::find_path(desired, {"metadata", "labels"})->get_object();
    const auto* have_data = current.if_contains("data");
    const auto* have_labels = kcoro::labels_of(current);
    bool data_ok = have_data && contains_labels(*have_data, want_data);
    bool labels_ok = have_labels && contains_labels(json::value(*have_labels), want_labels);
    if (data_ok && labels_ok) {
        return std::nullopt;
    }
    return json::object{{"metadata", json::object{{"labels", want_labels}}}, {"data", want_data}};
}

bool registration_belongs_to(const json::object& cm, std::string_view instance_uid) {
    auto l = kcoro::label_of(cm, uid_label);
    return l && *l == instance_uid;
}

std::optional<kcoro::object_key> registration_instance(const json::object& cm) {
    auto uid = kcoro::label_of(cm, uid_label);
    const auto* data = cm.if_contains("data");
    if (!uid || uid->empty() || !data || !data->is_object()) {
        return std::nullopt;
    }
    const auto* ns = data->get_object().if_contains("namespace");
    const auto* name = data->get_object().if_contains("name");
    if (!ns || !name || !ns->is_string() || !name->is_string() || ns->get_string().empty() ||
        name->get_string().empty()) {
        return std::nullopt;
    }
    return kcoro::object_key{std::string(ns->get_string()), std::string(name->get_string())};
}

std::vector<kcoro::object_ptr> orphaned_registrations(const std::vector<kcoro::object_ptr>& claims,
                                                      std::string_view live_uid,
                                                      const std::function<bool(std::string_view)>& instance_cached) {
    std::vector<kcoro::object_ptr> out;
    for (const auto& cm : claims) {
        auto uid = kcoro::label_of(*cm, uid_label);
        if (!uid || uid->empty() || *uid == live_uid || (instance_cached && instance_cached(*uid))) {
            continue;
        }
        out.push_back(cm);
    }
    return out;
}

} // namespace gateway
