// Validation rules of pkg/apis/core/validation (and coordination, apps
// status) for the kinds kcoro-apiserver serves, on JSON values. Messages word
// for word; the Go function each part follows is named at it.
#include "store/core_validation.hpp"
#include "store/status_errors.hpp"

#include <kcoro/core/base64.hpp>
#include <kcoro/core/name_validation.hpp>
#include <kcoro/core/object.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cctype>
#include <set>

namespace kcoro::apiserver::validation {
namespace json = boost::json;

std::string quoted(std::string_view s) { return json::serialize(json::value(s)); }

std::vector<std::string> path_segment_name_errors(std::string_view name) {
    if (name == "." || name == "..") return {"may not be '" + std::string(name) + "'"};
    std::vector<std::string> out;
    for (const char* bad : {"/", "%"}) {
        if (name.find(bad) != std::string_view::npos) out.push_back(std::string("may not contain '") + bad + "'");
    }
    return out;
}

json::object& obj_at(json::object& o, std::string_view key) {
    auto& v = o[key];
    if (!v.is_object()) v = json::object{};
    return v.as_object();
}

void set_default(json::object& o, std::string_view key, json::value v) {
    if (!o.contains(key) || o.at(key).is_null()) o[key] = std::move(v);
}

namespace {
constexpr std::size_t max_secret_size = 1024 * 1024;  // core.MaxSecretSize
} // namespace

// --- helpers of pkg/apis/core/validation ---------------------------------------

std::string path_key(std::string_view base, std::string_view key) { return std::string(base) + "[" + std::string(key) + "]"; }
std::string path_index(std::string_view base, std::size_t i) { return std::string(base) + "[" + std::to_string(i) + "]"; }

std::string str_at(const json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string{};
}

std::optional<std::int64_t> int_at(const json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    if (!v) return std::nullopt;
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64());
    return std::nullopt;
}

status_cause field_duplicate(std::string_view field, std::string_view value_repr) {
    return {"FieldValueDuplicate", "Duplicate value: " + std::string(value_repr), std::string(field)};
}
status_cause field_not_found(std::string_view field, std::string_view value_repr) {
    return {"FieldValueNotFound", "Not found: " + std::string(value_repr), std::string(field)};
}
status_cause field_too_long(std::string_view field, std::size_t max) {
    return {"FieldValueTooLong", "Too long: may not be more than " + std::to_string(max) + " bytes", std::string(field)};
}

// validation.IsConfigMapKey
std::vector<std::string> config_map_key_errors(std::string_view key) {
    std::vector<std::string> out;
    if (key.size() > 253) out.push_back("must be no more than 253 characters");
    bool ok = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    });
    if (!ok) {
        out.push_back("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  "
                      "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
    }
    if (key == ".") out.push_back("must not be '.'");
    if (key == "..") out.push_back("must not be '..'");
    if (key.starts_with("..")) out.push_back("must not start with '..'");
    return out;
}

// validation.IsValidPortNum
bool valid_port(std::int64_t p) { return p >= 1 && p <= 65535; }

// validation.IsValidPortName (IANA_SVC_NAME)
std::vector<std::string> port_name_errors(std::string_view n) {
    std::vector<std::string> out;
    if (n.size() > 15) out.push_back("must be no more than 15 characters");
    bool charset = !n.empty() && std::all_of(n.begin(), n.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
    if (!charset) out.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    if (std::none_of(n.begin(), n.end(), [](char c) { return c >= 'a' && c <= 'z'; })) {
        out.push_back("must contain at least one letter (a-z)");
    }
    if (n.find("--") != std::string_view::npos) out.push_back("must not contain consecutive hyphens");
    if (!n.empty() && (n.front() == '-' || n.back() == '-')) out.push_back("must not begin or end with a hyphen");
    return out;
}


bool one_of(const std::string& v, const std::vector<std::string>& set) {
    return std::find(set.begin(), set.end(), v) != set.end();
}

// Bytes a base64 value decodes to (the sizes count decoded bytes).
std::size_t base64_decoded_size(std::string_view s) {
    while (!s.empty() && s.back() == '=') s.remove_suffix(1);
    return s.size() * 3 / 4;
}


// --- ConfigMap and Secret (ValidateConfigMap, ValidateSecret and their Update) ---

static void immutable_rules(std::vector<status_cause>& causes, const json::object& obj, const json::object* old,
                     std::initializer_list<std::string_view> data_fields) {
    if (!old) return;
    const auto* was = old->if_contains("immutable");
    if (!was || !was->is_bool() || !was->get_bool()) return;
    const auto* now = obj.if_contains("immutable");
    if (!now || !now->is_bool() || !now->get_bool()) {
        causes.push_back(errors::field_forbidden("immutable", "field is immutable when `immutable` is set"));
    }
    for (auto f : data_fields) {
        const auto* a = obj.if_contains(f);
        const auto* b = old->if_contains(f);
        bool a_empty = !a || a->is_null() || (a->is_object() && a->get_object().empty());
        bool b_empty = !b || b->is_null() || (b->is_object() && b->get_object().empty());
        bool same = (a_empty && b_empty) || (a && b && *a == *b);
        if (!same) causes.push_back(errors::field_forbidden(f, "field is immutable when `immutable` is set"));
    }
}

std::vector<status_cause> config_map_rules(json::object& obj, const json::object* old) {
    std::vector<status_cause> causes;
    immutable_rules(causes, obj, old, {"data", "binaryData"});
    std::size_t total = 0;
    const auto* data = obj.if_contains("data");
    const auto* bin = obj.if_contains("binaryData");
    if (data && data->is_object()) {
        for (const auto& kv : data->get_object()) {
            for (const auto& m : config_map_key_errors(kv.key())) {
                causes.push_back(errors::field_invalid(path_key("data", kv.key()), quoted(kv.key()), m));
            }
            if (bin && bin->is_object() && bin->get_object().contains(kv.key())) {
                causes.push_back(errors::field_invalid(path_key("data", kv.key()), quoted(kv.key()),
                                                       "duplicate of key present in binaryData"));
            }
            if (kv.value().is_string()) total += kv.value().get_string().size();
        }
    }
    if (bin && bin->is_object()) {
        for (const auto& kv : bin->get_object()) {
            for (const auto& m : config_map_key_errors(kv.key())) {
                causes.push_back(errors::field_invalid(path_key("binaryData", kv.key()), quoted(kv.key()), m));
            }
            if (kv.value().is_string()) total += base64_decoded_size(kv.value().get_string());
        }
    }
    if (total > max_secret_size) causes.push_back(field_too_long("", max_secret_size));
    return causes;
}

std::vector<status_cause> secret_rules(json::object& obj, const json::object* old) {
    std::vector<status_cause> causes;
    // v1 conversion: stringData entries overwrite data (base64), then go.
    if (auto* sd = obj.if_contains("stringData"); sd && sd->is_object()) {
        // Moved out first: adding "data" may rehash `obj` and leave `sd`
        // dangling (a use-after-free found by libFuzzer).
        const json::object string_data = std::move(sd->get_object());
        obj.stable_erase("stringData");
        auto& data = obj_at(obj, "data");
        for (const auto& kv : string_data) {
            if (kv.value().is_string()) data[kv.key()] = base64_encode(kv.value().get_string());
        }
    }
    set_default(obj, "type", "Opaque");  // SetDefaults_Secret
    immutable_rules(causes, obj, old, {"data"});
    if (old) {
        auto was = str_at(*old, "type");
        auto now = str_at(obj, "type");
        if (was != now) causes.push_back(errors::field_invalid("type", quoted(now), "field is immutable"));
    }
    std::size_t total = 0;
    const json::object* data = nullptr;
    if (const auto* d = obj.if_contains("data"); d && d->is_object()) data = &d->get_object();
    if (data) {
        for (const auto& kv : *data) {
            for (const auto& m : config_map_key_errors(kv.key())) {
                causes.push_back(errors::field_invalid(path_key("data", kv.key()), quoted(kv.key()), m));
            }
            if (kv.value().is_string()) total += base64_decoded_size(kv.value().get_string());
        }
    }
    if (total > max_secret_size) causes.push_back(field_too_long("data", max_secret_size));
    auto has = [&](std::string_view k) { return data && data->contains(k); };
    const std::string type = str_at(obj, "type");
    if (type == "kubernetes.io/service-account-token") {
        const auto* ann = annotations_of(obj);
        const auto* n = ann ? ann->if_contains("kubernetes.io/service-account.name") : nullptr;
        if (!n || !n->is_string() || n->get_string().empty()) {
            causes.push_back(errors::field_required("metadata.annotations[kubernetes.io/service-account.name]"));
        }
    } else if (type == "kubernetes.io/dockercfg") {
        if (!has(".dockercfg")) causes.push_back(errors::field_required("data[.dockercfg]"));
    } else if (type == "kubernetes.io/dockerconfigjson") {
        if (!has(".dockerconfigjson")) causes.push_back(errors::field_required("data[.dockerconfigjson]"));
    } else if (type == "kubernetes.io/basic-auth") {
        if (!has("username") && !has("password")) {
            causes.push_back(errors::field_required("data[username]"));
            causes.push_back(errors::field_required("data[password]"));
        }
    } else if (type == "kubernetes.io/ssh-auth") {
        const auto* k = data ? data->if_contains("ssh-privatekey") : nullptr;
        if (!k || !k->is_string() || k->get_string().empty()) causes.push_back(errors::field_required("data[ssh-privatekey]"));
    } else if (type == "kubernetes.io/tls") {
        if (!has("tls.crt")) causes.push_back(errors::field_required("data[tls.crt]"));
        if (!has("tls.key")) causes.push_back(errors::field_required("data[tls.key]"));
    }
    return causes;
}

// --- Lease (pkg/apis/coordination/validation ValidateLeaseSpec) ------------------

std::vector<status_cause> lease_rules(json::object& obj) {
    std::vector<status_cause> causes;
    const auto* spec = obj.if_contains("spec");
    if (!spec || !spec->is_object()) return causes;
    const auto& sp = spec->get_object();
    if (auto d = int_at(sp, "leaseDurationSeconds"); d && *d <= 0) {
        causes.push_back(errors::field_invalid("spec.leaseDurationSeconds", std::to_string(*d), "must be greater than 0"));
    }
    if (auto t = int_at(sp, "leaseTransitions"); t && *t < 0) {
        causes.push_back(errors::field_invalid("spec.leaseTransitions", std::to_string(*t), "must be greater than or equal to 0"));
    }
    auto strategy = str_at(sp, "strategy");
    if (sp.contains("strategy") && strategy != "OldestEmulationVersion") {
        causes.push_back(errors::field_not_supported("spec.strategy", quoted(strategy), {"OldestEmulationVersion"}));
    }
    if (!str_at(sp, "preferredHolder").empty() && strategy.empty()) {
        causes.push_back(errors::field_forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"));
    }
    return causes;
}

// --- Event (pkg/apis/core/validation/events.go), on the core/v1 form ------------

namespace {

// Go's %#v of a core.ObjectReference (ValidateImmutableField prints the value).
std::string go_object_reference(const json::value* v) {
    const json::object empty;
    const json::object& o = v && v->is_object() ? v->get_object() : empty;
    std::string out = "core.ObjectReference{";
    bool first = true;
    for (const char* f : {"Kind", "Namespace", "Name", "UID", "APIVersion", "ResourceVersion", "FieldPath"}) {
        std::string key(f);
        key = key == "UID" ? "uid" : key == "APIVersion" ? "apiVersion" : key == "ResourceVersion" ? "resourceVersion"
            : key == "FieldPath" ? "fieldPath" : std::string(1, static_cast<char>(std::tolower(key[0]))) + key.substr(1);
        if (!first) out += ", ";
        first = false;
        out += std::string(f) + ":" + quoted(str_at(o, key));
    }
    return out + "}";
}

// ValidateEventUpdate's immutable fields (through events.k8s.io/v1).
void event_update_rules(std::vector<status_cause>& causes, const json::object& ev, const json::object& old) {
    auto same = [&](std::string_view k) {
        const auto* a = ev.if_contains(k);
        const auto* b = old.if_contains(k);
        if (!a || !b) return (!a || a->is_null()) == (!b || b->is_null());
        return *a == *b;
    };
    auto immutable = [&](std::string_view k, std::string shown) {
        causes.push_back(errors::field_invalid(k, shown, "field is immutable"));
    };
    if (!same("series")) {
        if (const auto* series = ev.if_contains("series"); series && series->is_object()) {
            auto count = int_at(series->get_object(), "count").value_or(0);
            if (count < 2) causes.push_back(errors::field_invalid("series.count", "\"\"", "should be at least 2"));
            if (str_at(series->get_object(), "lastObservedTime").empty()) causes.push_back(errors::field_required("series.lastObservedTime"));
        }
    }
    // In ValidateEventUpdate's order (reason is checked twice there: once here).
    if (!same("involvedObject")) immutable("involvedObject", go_object_reference(ev.if_contains("involvedObject")));
    if (!same("reason")) immutable("reason", quoted(str_at(ev, "reason")));
    if (!same("message")) immutable("message", quoted(str_at(ev, "message")));
    if (!same("source")) {
        const auto* src = ev.if_contains("source");
        const json::object empty;
        const auto& so = src && src->is_object() ? src->get_object() : empty;
        immutable("source", "core.EventSource{Component:" + quoted(str_at(so, "component")) + ", Host:" +
                                quoted(str_at(so, "host")) + "}");
    }
    if (!same("firstTimestamp")) immutable("firstTimestamp", quoted(str_at(ev, "firstTimestamp")));
    if (!same("lastTimestamp")) immutable("lastTimestamp", quoted(str_at(ev, "lastTimestamp")));
    if (!same("count")) immutable("count", std::to_string(int_at(ev, "count").value_or(0)));
    if (!same("type")) immutable("type", quoted(str_at(ev, "type")));
    if (!same("eventTime")) immutable("eventTime", quoted(str_at(ev, "eventTime")));
    if (!same("action")) immutable("action", quoted(str_at(ev, "action")));
    if (!same("related")) immutable("related", go_object_reference(ev.if_contains("related")));
    if (!same("reportingComponent")) immutable("reportingController", quoted(str_at(ev, "reportingComponent")));
    if (!same("reportingInstance")) immutable("reportingInstance", quoted(str_at(ev, "reportingInstance")));
}

} // namespace

std::vector<status_cause> event_rules(const json::object& ev, const json::object* old, bool via_events_api) {
    const bool create = old == nullptr;
    std::vector<status_cause> causes;
    const std::string ns(namespace_of(ev));
    std::string inv_ns;
    if (const auto* io = ev.if_contains("involvedObject"); io && io->is_object()) inv_ns = str_at(io->get_object(), "namespace");
    const auto* et = ev.if_contains("eventTime");
    const bool has_event_time = et && et->is_string() && !et->get_string().empty();
    auto inv = [&] { return errors::field_invalid("involvedObject.namespace", quoted(inv_ns), "does not match event.namespace"); };
    const std::string reporting = str_at(ev, "reportingComponent");
    const std::string rc_field = via_events_api ? "reportingController" : "reportingComponent";
    // legacyValidateEvent (create and update alike)
    if (!has_event_time) {
        if (inv_ns.empty()) {
            if (!ns.empty() && ns != "default") causes.push_back(inv());
        } else if (ns != inv_ns) {
            causes.push_back(inv());
        }
    } else {
        if (inv_ns.empty() && ns != "default" && ns != "kube-system") causes.push_back(inv());
        if (reporting.empty()) causes.push_back(errors::field_required(rc_field));
        for (const auto& m : validate_qualified_name(reporting)) {
            causes.push_back(errors::field_invalid(rc_field, quoted(reporting), m));
        }
        auto limit = [&](std::string_view f, std::string_view shown, std::size_t max, bool required) {
            auto v = str_at(ev, f);
            if (required && v.empty()) causes.push_back(errors::field_required(shown));
            if (v.size() > max) {
                causes.push_back(errors::field_invalid(shown, "\"\"", "can have at most " + std::to_string(max) + " characters"));
            }
        };
        limit("reportingInstance", "reportingInstance", 128, true);
        limit("action", "action", 128, true);
        limit("reason", "reason", 128, true);
        limit("message", "message", 1024, false);
    }
    if (!via_events_api) return causes;
    if (!create) {
        event_update_rules(causes, ev, *old);
        return causes;
    }
    // ValidateEventCreate: the strict rules of events.k8s.io/v1.
    if (const auto* series = ev.if_contains("series"); series && series->is_object()) {
        auto count = int_at(series->get_object(), "count").value_or(0);
        if (count < 2) causes.push_back(errors::field_invalid("series.count", "\"\"", "should be at least 2"));
        if (str_at(series->get_object(), "lastObservedTime").empty()) causes.push_back(errors::field_required("series.lastObservedTime"));
    }
    if (!has_event_time) causes.push_back(errors::field_required("eventTime"));
    auto type = str_at(ev, "type");
    if (type != "Normal" && type != "Warning") {
        causes.push_back(errors::field_invalid("type", "\"\"", "has invalid value: " + type));
    }
    auto set_time = [&](std::string_view f) {
        const auto* v = ev.if_contains(f);
        return v && v->is_string() && !v->get_string().empty();
    };
    // The internal (core) field names, as ValidateEventCreate words them.
    if (set_time("firstTimestamp")) causes.push_back(errors::field_invalid("firstTimestamp", "\"\"", "needs to be unset"));
    if (set_time("lastTimestamp")) causes.push_back(errors::field_invalid("lastTimestamp", "\"\"", "needs to be unset"));
    if (int_at(ev, "count").value_or(0) != 0) causes.push_back(errors::field_invalid("count", "\"\"", "needs to be unset"));
    if (const auto* src = ev.if_contains("source"); src && src->is_object() &&
        (!str_at(src->get_object(), "component").empty() || !str_at(src->get_object(), "host").empty())) {
        causes.push_back(errors::field_invalid("source", "\"\"", "needs to be unset"));
    }
    return causes;
}

// --- PodSpec of a template (ValidatePodSpec, the parts kcoro models) -------------

std::vector<status_cause> pod_spec_rules(const json::object& pod, const std::string& base) {
    std::vector<status_cause> causes;
    std::set<std::string> volumes;
    if (const auto* vs = pod.if_contains("volumes"); vs && vs->is_array()) {
        const auto& arr = vs->get_array();
        for (std::size_t i = 0; i < arr.size(); ++i) {
            const auto* v = arr[i].if_object();
            std::string p = path_index(base + ".volumes", i);
            auto name = v ? str_at(*v, "name") : std::string{};
            if (name.empty()) {
                causes.push_back(errors::field_required(p + ".name"));
            } else {
                for (const auto& m : validate_dns1123_label(name)) causes.push_back(errors::field_invalid(p + ".name", quoted(name), m));
                if (!volumes.insert(name).second) causes.push_back(field_duplicate(p + ".name", quoted(name)));
            }
        }
    }
    std::set<std::string> names;
    for (const char* list : {"initContainers", "containers"}) {
        const auto* cs = pod.if_contains(list);
        if (!cs || !cs->is_array()) continue;
        const auto& arr = cs->get_array();
        for (std::size_t i = 0; i < arr.size(); ++i) {
            std::string cp = path_index(base + "." + list, i);
            const auto* c = arr[i].if_object();
            if (!c) continue;
            auto name = str_at(*c, "name");
            if (name.empty()) {
                causes.push_back(errors::field_required(cp + ".name"));
            } else {
                for (const auto& m : validate_dns1123_label(name)) causes.push_back(errors::field_invalid(cp + ".name", quoted(name), m));
                if (!names.insert(name).second) causes.push_back(field_duplicate(cp + ".name", quoted(name)));
            }
            if (str_at(*c, "image").empty()) causes.push_back(errors::field_required(cp + ".image"));
            if (const auto* ps = c->if_contains("ports"); ps && ps->is_array()) {
                std::set<std::string> port_names;
                const auto& pa = ps->get_array();
                for (std::size_t j = 0; j < pa.size(); ++j) {
                    const auto* p = pa[j].if_object();
                    if (!p) continue;
                    std::string pp = path_index(cp + ".ports", j);
                    auto pn = str_at(*p, "name");
                    if (!pn.empty()) {
                        auto msgs = port_name_errors(pn);
                        for (const auto& m : msgs) causes.push_back(errors::field_invalid(pp + ".name", quoted(pn), m));
                        if (msgs.empty() && !port_names.insert(pn).second) causes.push_back(field_duplicate(pp + ".name", quoted(pn)));
                    }
                    auto cport = int_at(*p, "containerPort").value_or(0);
                    if (cport == 0) {
                        causes.push_back(errors::field_required(pp + ".containerPort"));
                    } else if (!valid_port(cport)) {
                        causes.push_back(errors::field_invalid(pp + ".containerPort", std::to_string(cport), port_range_msg));
                    }
                    if (auto hp = int_at(*p, "hostPort").value_or(0); hp != 0 && !valid_port(hp)) {
                        causes.push_back(errors::field_invalid(pp + ".hostPort", std::to_string(hp), port_range_msg));
                    }
                    auto proto = str_at(*p, "protocol");
                    if (proto.empty()) {
                        causes.push_back(errors::field_required(pp + ".protocol"));
                    } else if (!one_of(proto, protocols)) {
                        causes.push_back(errors::field_not_supported(pp + ".protocol", quoted(proto), protocols));
                    }
                }
            }
            if (const auto* es = c->if_contains("env"); es && es->is_array()) {
                const auto& ea = es->get_array();
                for (std::size_t j = 0; j < ea.size(); ++j) {
                    const auto* e = ea[j].if_object();
                    std::string ep = path_index(cp + ".env", j);
                    auto en = e ? str_at(*e, "name") : std::string{};
                    if (en.empty()) {
                        causes.push_back(errors::field_required(ep + ".name"));
                        continue;
                    }
                    // IsRelaxedEnvVarName (RelaxedEnvironmentVariableValidation, on since 1.32).
                    bool ok = std::all_of(en.begin(), en.end(), [](char ch) {
                        auto u = static_cast<unsigned char>(ch);
                        return u >= 0x20 && u < 0x7f && ch != '=';
                    });
                    if (!ok) {
                        causes.push_back(errors::field_invalid(ep + ".name", quoted(en),
                            "a valid environment variable name must consist only of printable ASCII characters other than '='"));
                    }
                }
            }
            if (const auto* ms = c->if_contains("volumeMounts"); ms && ms->is_array()) {
                std::set<std::string> paths;
                const auto& ma = ms->get_array();
                for (std::size_t j = 0; j < ma.size(); ++j) {
                    const auto* m = ma[j].if_object();
                    if (!m) continue;
                    std::string mp = path_index(cp + ".volumeMounts", j);
                    auto mn = str_at(*m, "name");
                    if (mn.empty()) {
                        causes.push_back(errors::field_required(mp + ".name"));
                    } else if (!volumes.count(mn)) {
                        causes.push_back(field_not_found(mp + ".name", quoted(mn)));
                    }
                    auto path = str_at(*m, "mountPath");
                    if (path.empty()) {
                        causes.push_back(errors::field_required(mp + ".mountPath"));
                    } else if (!paths.insert(path).second) {
                        causes.push_back(errors::field_invalid(mp + ".mountPath", quoted(path), "must be unique"));
                    }
                }
            }
            auto pull = str_at(*c, "imagePullPolicy");
            static const std::vector<std::string> pulls{"Always", "IfNotPresent", "Never"};
            if (!pull.empty() && !one_of(pull, pulls)) {
                causes.push_back(errors::field_not_supported(cp + ".imagePullPolicy", quoted(pull), pulls));
            }
            auto tmp = str_at(*c, "terminationMessagePolicy");
            static const std::vector<std::string> tmps{"File", "FallbackToLogsOnError"};
            if (!tmp.empty() && !one_of(tmp, tmps)) {
                causes.push_back(errors::field_not_supported(cp + ".terminationMessagePolicy", quoted(tmp), tmps));
            }
        }
    }
    auto dns = str_at(pod, "dnsPolicy");
    static const std::vector<std::string> dnss{"ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"};
    if (!dns.empty() && !one_of(dns, dnss)) causes.push_back(errors::field_not_supported(base + ".dnsPolicy", quoted(dns), dnss));
    return causes;
}

// ValidateDeploymentStatus (apps/validation), on /status writes.
std::vector<status_cause> deployment_status_rules(const json::object& obj) {
    std::vector<status_cause> causes;
    const auto* st = obj.if_contains("status");
    if (!st || !st->is_object()) return causes;
    const auto& s = st->get_object();
    for (const char* f : {"observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas",
                          "unavailableReplicas", "terminatingReplicas", "collisionCount"}) {
        if (auto v = int_at(s, f); v && *v < 0) {
            causes.push_back(errors::field_invalid(std::string("status.") + f, std::to_string(*v), "must be greater than or equal to 0"));
        }
    }
    auto replicas = int_at(s, "replicas").value_or(0);
    auto updated = int_at(s, "updatedReplicas").value_or(0);
    auto ready = int_at(s, "readyReplicas").value_or(0);
    auto available = int_at(s, "availableReplicas").value_or(0);
    const std::string msg = "cannot be greater than status.replicas";
    if (updated > replicas) causes.push_back(errors::field_invalid("status.updatedReplicas", std::to_string(updated), msg));
    if (ready > replicas) causes.push_back(errors::field_invalid("status.readyReplicas", std::to_string(ready), msg));
    if (available > replicas) causes.push_back(errors::field_invalid("status.availableReplicas", std::to_string(available), msg));
    if (available > ready) {
        causes.push_back(errors::field_invalid("status.availableReplicas", std::to_string(available), "cannot be greater than readyReplicas"));
    }
    return causes;
}

} // namespace kcoro::apiserver::validation
