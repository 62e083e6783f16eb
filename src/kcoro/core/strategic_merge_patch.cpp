#include <kcoro/core/strategic_merge_patch.hpp>

#include <kcoro/core/json_merge_patch.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <optional>

namespace kcoro {
namespace json = boost::json;

namespace {

constexpr std::string_view directive_marker = "$patch";
constexpr std::string_view retain_keys_directive = "$retainKeys";
constexpr std::string_view delete_from_primitive_prefix = "$deleteFromPrimitiveList/";
constexpr std::string_view set_element_order_prefix = "$setElementOrder/";

error make_status_error(int code, std::string reason, std::string message) {
    status s;
    s.outcome = "Failure";
    s.message = std::move(message);
    s.reason = std::move(reason);
    s.code = code;
    if (code == 422) s.details = status_details{};
    return error::from_status(std::move(s));
}
error bad_request(std::string m) { return make_status_error(400, "BadRequest", std::move(m)); }
error internal(std::string m) { return make_status_error(500, "InternalError", "Internal error occurred: " + m); }

list_strategy keyed(std::string key, std::vector<std::string> ssa_keys = {}) {
    list_strategy s;
    s.type = list_type::map;
    s.map_keys = ssa_keys.empty() ? std::vector<std::string>{key} : std::move(ssa_keys);
    s.merge_key = std::move(key);
    return s;
}

void add_metadata_lists(list_strategies& t) {
    t["metadata.ownerReferences"] = keyed("uid");
    t["metadata.finalizers"] = list_strategy{list_type::set, {}, {}};
}

// corev1.PodSpec and Container patch strategies (k8s.io/api/core/v1 types.go).
void add_pod_spec(list_strategies& t, const std::string& p) {
    for (const char* c : {"containers", "initContainers", "ephemeralContainers"}) {
        std::string cp = p + "." + c;
        t[cp] = keyed("name");
        t[cp + ".ports"] = keyed("containerPort", {"containerPort", "protocol"});
        t[cp + ".env"] = keyed("name");
        t[cp + ".volumeMounts"] = keyed("mountPath");
        t[cp + ".volumeDevices"] = keyed("devicePath");
    }
    t[p + ".volumes"] = keyed("name");
    t[p + ".imagePullSecrets"] = keyed("name");
    t[p + ".hostAliases"] = keyed("ip");
    t[p + ".topologySpreadConstraints"] = keyed("topologyKey", {"topologyKey", "whenUnsatisfiable"});
    t[p + ".schedulingGates"] = keyed("name");
    t[p + ".resourceClaims"] = keyed("name");
    // tolerations, readinessGates: no patch strategy → replaced whole.
}

list_strategies make_table(std::string_view kind) {
    list_strategies t;
    add_metadata_lists(t);
    if (kind == "Pod") {
        add_pod_spec(t, "spec");
        t["status.conditions"] = keyed("type");
    } else if (kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet" || kind == "DaemonSet" ||
               kind == "Job" || kind == "ReplicationController" || kind == "PodTemplate") {
        add_pod_spec(t, kind == "PodTemplate" ? "template.spec" : "spec.template.spec");
        t["status.conditions"] = keyed("type");
    } else if (kind == "CronJob") {
        add_pod_spec(t, "spec.jobTemplate.spec.template.spec");
    } else if (kind == "Service") {
        t["spec.ports"] = keyed("port", {"port", "protocol"});
    } else if (kind == "ServiceAccount") {
        t["secrets"] = keyed("name");
        t["imagePullSecrets"] = keyed("name");
    } else if (kind == "Namespace") {
        t["status.conditions"] = keyed("type");
    }
    return t;
}

bool is_directive(std::string_view k) { return !k.empty() && k[0] == '$'; }

struct merger {
    const list_strategies& table;

    std::optional<error> merge_map(json::object& orig, const json::object& patch, const std::string& path) {
        if (const auto* d = patch.if_contains(directive_marker)) {
            const auto* ds = d->if_string();
            if (ds && *ds == "replace") {
                json::object fresh;
                json::object rest = patch;
                rest.erase(directive_marker);
                if (auto e = merge_map(fresh, rest, path)) return e;
                orig = std::move(fresh);
                return std::nullopt;
            }
            if (ds && *ds == "delete") {
                orig.clear();
                return std::nullopt;
            }
            if (!ds || *ds != "merge") {
                return internal("unknown patch type: " + json::serialize(*d) + " in map: " + json::serialize(patch));
            }
        }
        if (const auto* rk = patch.if_contains(retain_keys_directive)) {
            const auto* keys = rk->if_array();
            if (!keys) return bad_request("invalid patch: the value of $retainKeys must be a list");
            auto retained = [&](std::string_view k) {
                return std::any_of(keys->begin(), keys->end(),
                                   [&](const json::value& v) { return v.is_string() && v.get_string() == k; });
            };
            for (const auto& [k, v] : patch) {
                (void)v;
                if (!is_directive(k) && !retained(k)) {
                    return make_status_error(422, "Invalid",
                                             "the server rejected our request due to an error in our request");
                }
            }
            for (auto it = orig.begin(); it != orig.end();) {
                it = retained(it->key()) ? it + 1 : orig.erase(it);
            }
        }
        for (const auto& [k, pv] : patch) {
            if (k == directive_marker || k == retain_keys_directive) continue;
            if (k.starts_with(set_element_order_prefix)) {
                // Ordering is not enforced; the directive is validated and dropped.
                if (!pv.is_array()) return bad_request("invalid patch: $setElementOrder must be a list");
                continue;
            }
            if (k.starts_with(delete_from_primitive_prefix)) {
                const auto* del = pv.if_array();
                if (!del) return bad_request("invalid patch: $deleteFromPrimitiveList must be a list of primitives");
                std::string_view field = std::string_view(k).substr(delete_from_primitive_prefix.size());
                if (auto* target = orig.if_contains(field); target && target->is_array()) {
                    auto& arr = target->get_array();
                    for (auto it = arr.begin(); it != arr.end();) {
                        bool gone = std::any_of(del->begin(), del->end(),
                                                [&](const json::value& d) { return json_equal(d, *it); });
                        it = gone ? arr.erase(it) : it + 1;
                    }
                }
                continue;
            }
            if (pv.is_null()) {
                orig.erase(k);
                continue;
            }
            std::string child = path.empty() ? std::string(k) : path + "." + std::string(k);
            auto* ov = orig.if_contains(k);
            if (!ov || ov->kind() != pv.kind() ||
                (!pv.is_object() && !pv.is_array())) {
                // New or replaced value: merge into an empty value so directives never reach the result.
                auto clean = fresh_value(pv, child);
                if (!clean) return clean.error();
                orig[k] = std::move(*clean);
                continue;
            }
            if (pv.is_object()) {
                if (auto e = merge_map(ov->get_object(), pv.get_object(), child)) return e;
            } else {
                if (auto e = merge_list(ov->get_array(), pv.get_array(), child)) return e;
            }
        }
        return std::nullopt;
    }

    result<json::value> fresh_value(const json::value& pv, const std::string& path) {
        if (pv.is_object()) {
            json::object o;
            if (auto e = merge_map(o, pv.get_object(), path)) return *e;
            return json::value(std::move(o));
        }
        if (pv.is_array()) {
            json::array a;
            if (auto e = merge_list(a, pv.get_array(), path)) return *e;
            return json::value(std::move(a));
        }
        return pv;
    }

    std::optional<error> merge_list(json::array& orig, const json::array& patch, const std::string& path) {
        auto it = table.find(path);
        if (it == table.end() || it->second.type == list_type::atomic) {
            orig = patch;
            return std::nullopt;
        }
        const list_strategy& s = it->second;
        if (s.type == list_type::set) {
            for (const auto& v : patch) {
                if (v.is_object() || v.is_array()) return internal("cannot merge a list of primitives with a non-primitive");
                bool present = std::any_of(orig.begin(), orig.end(), [&](const json::value& o) { return json_equal(o, v); });
                if (!present) orig.push_back(v);
            }
            return std::nullopt;
        }
        const std::string& key = s.merge_key;
        auto no_key = [&](const json::value& item) {
            return internal("map: " + json::serialize(item) + " does not contain declared merge key: " + key);
        };
        // Special elements first ($patch: delete / replace), as mergeSliceWithSpecialElements.
        json::array items;
        bool replace = false;
        for (const auto& item : patch) {
            const auto* io = item.if_object();
            if (!io) return internal("cannot merge lists of maps with a non-map item: " + json::serialize(item));
            const auto* d = io->if_contains(directive_marker);
            if (!d) {
                items.push_back(item);
                continue;
            }
            const auto* ds = d->if_string();
            if (ds && *ds == "delete") {
                const auto* kv = io->if_contains(key);
                if (!kv) return no_key(item);
                for (auto o = orig.begin(); o != orig.end();) {
                    const auto* oo = o->if_object();
                    const auto* okv = oo ? oo->if_contains(key) : nullptr;
                    o = (okv && json_equal(*okv, *kv)) ? orig.erase(o) : o + 1;
                }
            } else if (ds && *ds == "replace") {
                replace = true;
            } else if (ds && *ds == "merge") {
                return internal("merging lists cannot yet be specified in the patch");
            } else {
                return internal("unknown patch type: " + json::serialize(*d) + " in map: " + json::serialize(item));
            }
        }
        if (replace) orig.clear();
        for (const auto& item : items) {
            const auto& io = item.get_object();
            const auto* kv = io.if_contains(key);
            if (!kv) return no_key(item);
            json::value* match = nullptr;
            for (auto& o : orig) {
                auto* oo = o.if_object();
                const auto* okv = oo ? oo->if_contains(key) : nullptr;
                if (okv && json_equal(*okv, *kv)) {
                    match = &o;
                    break;
                }
            }
            if (match) {
                if (auto e = merge_map(match->get_object(), io, path)) return e;
            } else {
                auto clean = fresh_value(item, path);
                if (!clean) return clean.error();
                orig.push_back(std::move(*clean));
            }
        }
        return std::nullopt;
    }
};

} // namespace

bool supports_strategic_merge(std::string_view api_version) {
    std::string group = group_version::parse(api_version).group;
    if (group.empty() || group.find('.') == std::string::npos) return true;
    return group.ends_with(".k8s.io");
}

const list_strategies& builtin_list_strategies(std::string_view kind) {
    static const std::map<std::string, list_strategies, std::less<>> tables = [] {
        std::map<std::string, list_strategies, std::less<>> m;
        for (const char* k : {"Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob",
                              "ReplicationController", "PodTemplate", "Service", "ServiceAccount", "Namespace"}) {
            m[k] = make_table(k);
        }
        m[""] = make_table("");
        return m;
    }();
    auto it = tables.find(kind);
    return it != tables.end() ? it->second : tables.find("")->second;
}

error strategic_merge_unsupported() {
    return make_status_error(415, "UnsupportedMediaType",
                             "the body of the request was in an unknown format - accepted media types include: "
                             "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
}

result<json::value> apply_strategic_merge_patch(const json::value& original, const json::value& patch,
                                                const list_strategies& strategies) {
    const auto* p = patch.if_object();
    if (!p) return bad_request("json: cannot unmarshal non-object into Go value of type map[string]interface {}");
    json::value out = original.is_object() ? original : json::value(json::object{});
    merger m{strategies};
    if (auto e = m.merge_map(out.get_object(), *p, "")) return *e;
    return out;
}

result<json::value> apply_strategic_merge_patch(const json::object& original, std::string_view patch_text) {
    if (!supports_strategic_merge(api_version_of(original))) return strategic_merge_unsupported();
    boost::system::error_code ec;
    json::value patch = json::parse(patch_text, ec);
    if (ec) return bad_request(ec.message());
    return apply_strategic_merge_patch(json::value(original), patch, builtin_list_strategies(kind_of(original)));
}

} // namespace kcoro
