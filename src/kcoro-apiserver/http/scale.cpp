#include "http/scale.hpp"

#include "store/status_errors.hpp"

#include <kcoro/core/object.hpp>

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <vector>

namespace kcoro::apiserver::http {

namespace json = boost::json;

namespace {

std::string str(const json::value* v) { return v && v->is_string() ? std::string(v->get_string()) : std::string{}; }

} // namespace

result<std::string> label_selector_string(const json::value* selector) {
    if (selector == nullptr || !selector->is_object()) {
        return std::string{};  // labels.Nothing() / Everything() print ""
    }
    // (key, text) pairs sorted by key, as internalSelector.Add sorts them.
    std::vector<std::pair<std::string, std::string>> reqs;
    if (const auto* ml = selector->get_object().if_contains("matchLabels"); ml && ml->is_object()) {
        for (const auto& kv : ml->get_object()) {
            reqs.emplace_back(std::string(kv.key()), std::string(kv.key()) + "=" + str(&kv.value()));
        }
    }
    if (const auto* me = selector->get_object().if_contains("matchExpressions"); me && me->is_array()) {
        for (const auto& e : me->get_array()) {
            if (!e.is_object()) continue;
            const auto& eo = e.get_object();
            std::string key = str(eo.if_contains("key"));
            std::string op = str(eo.if_contains("operator"));
            std::vector<std::string> values;
            if (const auto* vs = eo.if_contains("values"); vs && vs->is_array()) {
                for (const auto& v : vs->get_array()) values.push_back(str(&v));
            }
            std::sort(values.begin(), values.end());
            std::string joined;
            for (std::size_t i = 0; i < values.size(); ++i) joined += (i ? "," : "") + values[i];
            if (op == "In") reqs.emplace_back(key, key + " in (" + joined + ")");
            else if (op == "NotIn") reqs.emplace_back(key, key + " notin (" + joined + ")");
            else if (op == "Exists") reqs.emplace_back(key, key);
            else if (op == "DoesNotExist") reqs.emplace_back(key, "!" + key);
            else return errors::bad_request("\"" + op + "\" is not a valid label selector operator");
        }
    }
    std::stable_sort(reqs.begin(), reqs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string out;
    for (std::size_t i = 0; i < reqs.size(); ++i) out += (i ? "," : "") + reqs[i].second;
    return out;
}

result<json::object> scale_from_deployment(const json::object& d) {
    auto sel = label_selector_string(find_path(d, {"spec", "selector"}));
    if (!sel) return errors::bad_request(sel.error().message());
    json::object md;
    const auto* m = d.if_contains("metadata");
    for (const char* k : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
        if (m && m->is_object()) {
            if (const auto* v = m->get_object().if_contains(k)) md[k] = *v;
        }
    }
    json::object spec;
    if (const auto* r = find_path(d, {"spec", "replicas"}); r && r->is_number() && r->to_number<std::int64_t>() != 0) {
        spec["replicas"] = r->to_number<std::int64_t>();  // omitempty
    }
    json::object status;
    const auto* sr = find_path(d, {"status", "replicas"});
    status["replicas"] = sr && sr->is_number() ? sr->to_number<std::int64_t>() : 0;
    if (!sel->empty()) status["selector"] = *sel;
    return json::object{{"kind", "Scale"},
                        {"apiVersion", "autoscaling/v1"},
                        {"metadata", std::move(md)},
                        {"spec", std::move(spec)},
                        {"status", std::move(status)}};
}

result<json::object> apply_scale(json::object deployment, const json::object& scale, const group_version_resource& gvr) {
    const std::string name(name_of(deployment));
    std::int64_t replicas = 0;
    if (const auto* r = find_path(scale, {"spec", "replicas"}); r && !r->is_null()) {
        if (!r->is_number()) {
            return errors::bad_request("Scale in version \"v1\" cannot be handled as a Scale: json: cannot unmarshal " +
                                       std::string(r->is_string() ? "string" : "value") +
                                       " into Go struct field ScaleSpec.spec.replicas of type int32");
        }
        replicas = r->to_number<std::int64_t>();
    }
    // ValidateScale (pkg/apis/autoscaling/validation).
    if (replicas < 0) {
        return errors::invalid("autoscaling", "Scale", name,
                               {errors::field_invalid("spec.replicas", std::to_string(replicas),
                                                      "must be greater than or equal to 0")});
    }
    const std::string uid(uid_of(scale));
    const std::string live_uid(uid_of(deployment));
    if (!uid.empty() && uid != live_uid) {
        return errors::conflict({gvr.group, gvr.version, gvr.resource + "/scale"}, name,
                                "Precondition failed: UID in precondition: " + uid + ", UID in object meta: " + live_uid);
    }
    json::object* spec = nullptr;
    if (auto* s = deployment.if_contains("spec"); s && s->is_object()) {
        spec = &s->get_object();
    } else {
        deployment["spec"] = json::object{};
        spec = &deployment["spec"].get_object();
    }
    (*spec)["replicas"] = replicas;
    auto& md = mutable_metadata(deployment);
    const std::string rv(resource_version_of(scale));
    if (rv.empty()) {
        md.erase("resourceVersion");  // unconditional (the apps workloads allow it)
    } else {
        md["resourceVersion"] = rv;
    }
    return deployment;
}

} // namespace kcoro::apiserver::http
