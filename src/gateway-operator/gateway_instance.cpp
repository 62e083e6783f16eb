#include "gateway_instance.hpp"

#include <set>

namespace gateway {
namespace json = boost::json;

kcoro::group_version_resource gateway_instances() {
    return {std::string(group), std::string(version), "gatewayinstances"};
}

std::string_view to_string(service_type t) noexcept {
    switch (t) {
    case service_type::cluster_ip: return "ClusterIP";
    case service_type::node_port: return "NodePort";
    case service_type::load_balancer: return "LoadBalancer";
    }
    return "ClusterIP";
}

namespace {

// Kubernetes' rule for env var names (validation.IsEnvVarName): C identifier
// characters plus '-' and '.', not starting with a digit.
bool valid_env_name(std::string_view s) {
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) {
        return false;
    }
    for (char c : s) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                  c == '-' || c == '.';
        if (!ok) {
            return false;
        }
    }
    return true;
}

// A container image reference must not contain whitespace or control
// characters, nor start with a separator; the registry resolves the rest.
bool valid_image(std::string_view s) {
    if (s.empty() || s.size() > 512 || s.front() == ':' || s.front() == '@' || s.front() == '/') {
        return false;
    }
    for (unsigned char c : s) {
        if (c <= ' ' || c == 0x7f) {
            return false;
        }
    }
    return true;
}

std::optional<std::int64_t> as_int(const json::value& v) {
    if (v.is_int64()) return v.get_int64();
    if (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
        return static_cast<std::int64_t>(v.get_uint64());
    }
    if (v.is_double()) {
        double d = v.get_double();
        if (d == static_cast<double>(static_cast<std::int64_t>(d))) return static_cast<std::int64_t>(d);
    }
    return std::nullopt;
}

void int_field(const json::object& spec, std::string_view key, std::int64_t lo, std::int64_t hi,
               std::int32_t& out, std::vector<field_error>& errors) {
    const auto* v = spec.if_contains(key);
    if (!v || v->is_null()) {
        return;  // default stays
    }
    auto i = as_int(*v);
    std::string field = "spec." + std::string(key);
    if (!i) {
        errors.push_back({field, "must be an integer"});
    } else if (*i < lo || *i > hi) {
        errors.push_back({field, "must be between " + std::to_string(lo) + " and " + std::to_string(hi)});
    } else {
        out = static_cast<std::int32_t>(*i);
    }
}

} // namespace

std::variant<gateway_spec, std::vector<field_error>> parse_spec(const json::object& obj) {
    std::vector<field_error> errors;
    gateway_spec spec;
    const auto* sv = obj.if_contains("spec");
    if (!sv || !sv->is_object()) {
        return std::vector<field_error>{{"spec", "required"}};
    }
    const auto& s = sv->get_object();

    if (const auto* img = s.if_contains("image"); !img || !img->is_string()) {
        errors.push_back({"spec.image", "required"});
    } else if (!valid_image(img->get_string())) {
        errors.push_back({"spec.image", "not a valid image reference"});
    } else {
        spec.image = std::string(img->get_string());
    }
    int_field(s, "replicas", 0, 50, spec.replicas, errors);
    int_field(s, "port", 1, 65535, spec.port, errors);

    if (const auto* t = s.if_contains("serviceType"); t && !t->is_null()) {
        std::string_view tv = t->is_string() ? std::string_view(t->get_string()) : std::string_view{};
        if (tv == "ClusterIP") spec.type = service_type::cluster_ip;
        else if (tv == "NodePort") spec.type = service_type::node_port;
        else if (tv == "LoadBalancer") spec.type = service_type::load_balancer;
        else errors.push_back({"spec.serviceType", "must be one of ClusterIP, NodePort, LoadBalancer"});
    }

    if (const auto* r = s.if_contains("resources"); r && !r->is_null()) {
        if (!r->is_object()) {
            errors.push_back({"spec.resources", "must be an object"});
        } else {
            for (const auto& [k, v] : r->get_object()) {
                if (k != "limits" && k != "requests") {
                    errors.push_back({"spec.resources." + std::string(k), "unknown field (limits, requests)"});
                } else if (!v.is_object()) {
                    errors.push_back({"spec.resources." + std::string(k), "must be an object"});
                }
            }
            spec.resources = r->get_object();
        }
    }

    if (const auto* e = s.if_contains("env"); e && !e->is_null()) {
        if (!e->is_array()) {
            errors.push_back({"spec.env", "must be a list"});
        } else {
            std::set<std::string> seen;
            std::size_t i = 0;
            for (const auto& item : e->get_array()) {
                std::string field = "spec.env[" + std::to_string(i++) + "]";
                const auto* io = item.if_object();
                const auto* n = io ? io->if_contains("name") : nullptr;
                if (!n || !n->is_string() || !valid_env_name(n->get_string())) {
                    errors.push_back({field + ".name", "must be a valid environment variable name"});
                    continue;
                }
                std::string name(n->get_string());
                if (!seen.insert(name).second) {
                    errors.push_back({field + ".name", "duplicate name \"" + name + "\""});
                    continue;
                }
                std::string value;
                if (const auto* v = io->if_contains("value"); v && v->is_string()) {
                    value = std::string(v->get_string());
                }
                spec.env.push_back({std::move(name), std::move(value)});
            }
        }
    }

    if (!errors.empty()) {
        return errors;
    }
    return spec;
}

std::string describe(const std::vector<field_error>& errors) {
    std::string out;
    for (const auto& e : errors) {
        if (!out.empty()) {
            out += "; ";
        }
        out += e.field + ": " + e.message;
    }
    return out;
}

} // namespace gateway
