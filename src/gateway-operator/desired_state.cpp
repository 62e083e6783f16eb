#include "desired_state.hpp"

#include <kcoro/core/object.hpp>

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

const json::object* find_container(const json::object& deployment) {
    const auto* cs = kcoro::find_path(deployment, {"spec", "template", "spec", "containers"});
    if (!cs || !cs->is_array()) {
        return nullptr;
    }
    for (const auto& c : cs->get_array()) {
        if (const auto* co = c.if_object()) {
            if (const auto* n = co->if_contains("name"); n && n->is_string() && n->get_string() == container_name) {
                return co;
            }
        }
    }
    return nullptr;
}

const json::value& field_or_null(const json::object* o, std::string_view key) {
    static const json::value null_value;
    if (!o) {
        return null_value;
    }
    const auto* v = o->if_contains(key);
    return v ? *v : null_value;
}

// A list field that the API server omits when empty compares equal to [].
bool same_list(const json::value& current, const json::value& desired) {
    bool cur_empty = current.is_null() || (current.is_array() && current.get_array().empty());
    bool des_empty = desired.is_null() || (desired.is_array() && desired.get_array().empty());
    if (cur_empty || des_empty) {
        return cur_empty && des_empty;
    }
    return current == desired;
}

bool same_object(const json::value& current, const json::value& desired) {
    bool cur_empty = current.is_null() || (current.is_object() && current.get_object().empty());
    bool des_empty = desired.is_null() || (desired.is_object() && desired.get_object().empty());
    if (cur_empty || des_empty) {
        return cur_empty && des_empty;
    }
    return current == desired;
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

// The list directive of strategic merge patch: replace the whole list.
json::array replace_list(const json::array& items) {
    json::array out{json::object{{"$patch", "replace"}}};
    for (const auto& i : items) {
        out.push_back(i);
    }
    return out;
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
    if (!spec.resources.empty()) {
        container["resources"] = spec.resources;
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

ownership ownership_of(const json::object& child, std::string_view instance_uid) {
    auto c = kcoro::controller_of(child);
    if (!c) {
        return ownership::unowned;
    }
    return c->uid == instance_uid ? ownership::ours : ownership::foreign;
}

std::optional<json::object> deployment_repair(const json::object& current, const json::object& desired) {
    const auto* want_spec = kcoro::find_path(desired, {"spec"});
    const auto& ws = want_spec->get_object();
    const auto* want_container = find_container(desired);
    const auto* have_container = find_container(current);
    const auto* have_replicas = kcoro::find_path(current, {"spec", "replicas"});
    const auto* have_tmpl_labels = kcoro::find_path(current, {"spec", "template", "metadata", "labels"});
    const auto& want_tmpl_labels =
        kcoro::find_path(desired, {"spec", "template", "metadata", "labels"})->get_object();

    bool replicas_ok = have_replicas && *have_replicas == ws.at("replicas");
    bool labels_ok = have_tmpl_labels && contains_labels(*have_tmpl_labels, want_tmpl_labels);
    bool container_ok = have_container &&
                        field_or_null(have_container, "image") == field_or_null(want_container, "image") &&
                        same_list(field_or_null(have_container, "ports"), field_or_null(want_container, "ports")) &&
                        same_list(field_or_null(have_container, "env"), field_or_null(want_container, "env")) &&
                        same_object(field_or_null(have_container, "resources"),
                                    field_or_null(want_container, "resources"));
    if (replicas_ok && labels_ok && container_ok) {
        return std::nullopt;
    }

    json::object patch_container{{"name", container_name}, {"image", want_container->at("image")}};
    patch_container["ports"] = replace_list(want_container->at("ports").get_array());
    const auto& env = field_or_null(want_container, "env");
    patch_container["env"] = replace_list(env.is_array() ? env.get_array() : json::array{});
    const auto& res = field_or_null(want_container, "resources");
    // $patch: replace on a map replaces it whole (drops limits nobody asked for).
    json::object res_patch = res.is_object() ? res.get_object() : json::object{};
    res_patch["$patch"] = "replace";
    patch_container["resources"] = std::move(res_patch);

    return json::object{
        {"spec",
         json::object{
             {"replicas", ws.at("replicas")},
             {"template", json::object{{"metadata", json::object{{"labels", want_tmpl_labels}}},
                                       {"spec", json::object{{"containers", json::array{patch_container}}}}}},
         }},
    };
}

std::optional<json::object> service_repair(const json::object& current, const json::object& desired) {
    const auto& ws = desired.at("spec").get_object();
    const auto* hs_v = current.if_contains("spec");
    const auto* hs = hs_v ? hs_v->if_object() : nullptr;
    bool type_ok = hs && field_or_null(hs, "type") == ws.at("type");
    bool selector_ok = hs && field_or_null(hs, "selector") == ws.at("selector");
    bool ports_ok = false;
    if (hs) {
        const auto& have_ports = field_or_null(hs, "ports");
        const auto& want_ports = ws.at("ports").get_array();
        if (have_ports.is_array() && have_ports.get_array().size() == want_ports.size()) {
            ports_ok = true;
            for (std::size_t i = 0; i < want_ports.size() && ports_ok; ++i) {
                const auto* hp = have_ports.get_array()[i].if_object();
                const auto& wp = want_ports[i].get_object();
                // Compare only the fields we set: the server adds nodePort etc.
                for (const auto& [k, v] : wp) {
                    if (!hp || field_or_null(hp, k) != v) {
                        ports_ok = false;
                        break;
                    }
                }
            }
        }
    }
    if (type_ok && selector_ok && ports_ok) {
        return std::nullopt;
    }
    json::object selector_patch = ws.at("selector").get_object();
    selector_patch["$patch"] = "replace";
    return json::object{{"spec", json::object{
                                     {"type", ws.at("type")},
                                     {"selector", std::move(selector_patch)},
                                     {"ports", replace_list(ws.at("ports").get_array())},
                                 }}};
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

} // namespace gateway
