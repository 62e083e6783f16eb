// kube-apiserver's printers for more built-in kinds: the column definitions of
// AddHandlers and the print functions of pkg/printers/internalversion/
// printers.go (kubernetes v1.32), read here from the objects' JSON. The
// column descriptions that printers.go takes from SwaggerDoc() are the doc
// comments of k8s.io/api v0.32 (types_swagger_doc_generated.go) it names.
#include "http/builtin_printers.hpp"

#include <kcoro/core/object.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace kcoro::apiserver::http {

namespace json = boost::json;

namespace {

// metav1.ObjectMeta{}.SwaggerDoc()["name"] and ["creationTimestamp"], as in table.cpp.
constexpr std::string_view name_doc =
    "Name must be unique within a namespace. Is required when creating resources, although some resources may "
    "allow a client to request the generation of an appropriate name automatically. Name is primarily intended "
    "for creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
constexpr std::string_view creation_doc =
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It "
    "is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More "
    "info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
constexpr std::string_view containers_doc = "Names of each container in the template.";
constexpr std::string_view images_doc = "Images referenced by each container in the template.";
constexpr std::string_view label_selectors_url =
    "More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors";

// --- reading the JSON ---------------------------------------------------------

/// The value at `path`; nullptr when absent or null (a nil pointer in Go).
const json::value* get(const json::object& o, std::initializer_list<std::string_view> path) {
    const auto* v = find_path(o, path);
    return v != nullptr && !v->is_null() ? v : nullptr;
}

const json::object* object_at(const json::object& o, std::initializer_list<std::string_view> path) {
    const auto* v = get(o, path);
    return v != nullptr ? v->if_object() : nullptr;
}

const json::array* array_at(const json::object& o, std::initializer_list<std::string_view> path) {
    const auto* v = get(o, path);
    return v != nullptr ? v->if_array() : nullptr;
}

std::size_t len_at(const json::object& o, std::initializer_list<std::string_view> path) {
    const auto* a = array_at(o, path);
    return a != nullptr ? a->size() : 0;
}

std::string str_at(const json::object& o, std::initializer_list<std::string_view> path) {
    const auto* v = get(o, path);
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string{};
}

std::optional<std::int64_t> opt_int(const json::value* v) {
    if (v == nullptr) return std::nullopt;
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64());
    if (v->is_double()) return static_cast<std::int64_t>(v->get_double());
    return std::nullopt;
}

std::int64_t int_at(const json::object& o, std::initializer_list<std::string_view> path, std::int64_t dflt = 0) {
    return opt_int(get(o, path)).value_or(dflt);
}

bool bool_at(const json::object& o, std::initializer_list<std::string_view> path) {
    const auto* v = get(o, path);
    return v != nullptr && v->is_bool() && v->get_bool();
}

/// A quantity (resource.Quantity) or IntOrString as text.
std::string scalar_text(const json::value* v) {
    if (v == nullptr) return {};
    if (v->is_string()) return std::string(v->get_string());
    if (auto i = opt_int(v)) return std::to_string(*i);
    return {};
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i != 0) out += sep;
        out += items[i];
    }
    return out;
}

std::string fmt_since(wall_time now, wall_time t) {
    return human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - t));
}

/// translateTimestampSince: "<unknown>" for a zero (absent) time.
std::string since(std::string_view ts, wall_time now) {
    auto t = parse_rfc3339(ts);
    return t ? fmt_since(now, *t) : std::string("<unknown>");
}

std::string age(const json::object& obj, wall_time now) { return since(creation_timestamp_of(obj), now); }

// --- printers.go helpers ----------------------------------------------------------

/// labels.FormatLabels: sorted "k=v" pairs, "<none>" when empty.
std::string format_labels(const json::object* m) {
    if (m == nullptr || m->empty()) return "<none>";
    std::map<std::string, std::string> sorted;
    for (const auto& kv : *m) {
        sorted[std::string(kv.key())] = kv.value().is_string() ? std::string(kv.value().get_string()) : std::string{};
    }
    std::vector<std::string> parts;
    for (const auto& [k, v] : sorted) parts.push_back(k + "=" + v);
    return join(parts, ",");
}

/// metav1.FormatLabelSelector: LabelSelectorAsSelector(...).String(), the
/// requirements sorted by key, values sorted; "<none>" when empty or nil,
/// "<error>" for an unknown operator.
std::string format_label_selector(const json::object* sel) {
    if (sel == nullptr) return "<none>";
    struct requirement {
        std::string key;
        std::string text;
    };
    std::vector<requirement> reqs;
    if (const auto* ml = sel->if_contains("matchLabels"); ml != nullptr && ml->is_object()) {
        for (const auto& kv : ml->get_object()) {
            std::string v = kv.value().is_string() ? std::string(kv.value().get_string()) : std::string{};
            reqs.push_back({std::string(kv.key()), std::string(kv.key()) + "=" + v});
        }
    }
    if (const auto* me = sel->if_contains("matchExpressions"); me != nullptr && me->is_array()) {
        for (const auto& e : me->get_array()) {
            const auto* eo = e.if_object();
            if (eo == nullptr) continue;
            auto key = str_at(*eo, {"key"});
            auto op = str_at(*eo, {"operator"});
            std::vector<std::string> values;
            if (const auto* vs = array_at(*eo, {"values"})) {
                for (const auto& v : *vs) {
                    if (v.is_string()) values.emplace_back(v.get_string());
                }
            }
            std::sort(values.begin(), values.end());
            if (op == "In") {
                reqs.push_back({key, key + " in (" + join(values, ",") + ")"});
            } else if (op == "NotIn") {
                reqs.push_back({key, key + " notin (" + join(values, ",") + ")"});
            } else if (op == "Exists") {
                reqs.push_back({key, key});
            } else if (op == "DoesNotExist") {
                reqs.push_back({key, "!" + key});
            } else {
                return "<error>";
            }
        }
    }
    if (reqs.empty()) return "<none>";
    std::stable_sort(reqs.begin(), reqs.end(), [](const requirement& a, const requirement& b) { return a.key < b.key; });
    std::vector<std::string> parts;
    for (const auto& r : reqs) parts.push_back(r.text);
    return join(parts, ",");
}

/// layoutContainerCells: container names and images, comma separated.
std::pair<std::string, std::string> container_cells(const json::array* containers) {
    std::vector<std::string> names;
    std::vector<std::string> images;
    if (containers != nullptr) {
        for (const auto& c : *containers) {
            const auto* co = c.if_object();
            names.push_back(co != nullptr ? str_at(*co, {"name"}) : std::string{});
            images.push_back(co != nullptr ? str_at(*co, {"image"}) : std::string{});
        }
    }
    return {join(names, ","), join(images, ",")};
}

/// The Containers/Images/Selector wide cells of the workload printers.
json::value template_cell(std::string_view column, const json::array* containers, const json::object* selector) {
    if (column == "Containers") return json::string(container_cells(containers).first);
    if (column == "Images") return json::string(container_cells(containers).second);
    if (column == "Selector") return json::string(format_label_selector(selector));
    return nullptr;
}

/// printBoolPtr.
std::string bool_ptr(const json::value* v) {
    if (v == nullptr || !v->is_bool()) return "<unset>";
    return v->get_bool() ? "True" : "False";
}

/// listWithMoreString.
std::string list_with_more(const std::vector<std::string>& list, bool more, std::size_t count, std::size_t max) {
    auto ret = join(list, ",");
    if (more) return ret + " + " + std::to_string(count - max) + " more...";
    if (ret.empty()) ret = "<unset>";
    return ret;
}

/// net.JoinHostPort.
std::string join_host_port(const std::string& host, std::int64_t port) {
    if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
    return host + ":" + std::to_string(port);
}

// --- pods ---------------------------------------------------------------------

bool restartable_init_container(const json::object* c) {
    return c != nullptr && str_at(*c, {"restartPolicy"}) == "Always";
}

bool condition_true(const json::object& obj, std::initializer_list<std::string_view> conditions, std::string_view type) {
    if (const auto* conds = array_at(obj, conditions)) {
        for (const auto& c : *conds) {
            const auto* co = c.if_object();
            if (co != nullptr && str_at(*co, {"type"}) == type) return str_at(*co, {"status"}) == "True";
        }
    }
    return false;
}

struct pod_summary {
    std::string ready;
    std::string reason;
    std::string restarts;
};

std::optional<wall_time> later(std::optional<wall_time> cur, const json::object& status) {
    const auto* term = object_at(status, {"lastState", "terminated"});
    if (term == nullptr) return cur;
    auto t = parse_rfc3339(str_at(*term, {"finishedAt"}));
    if (t && (!cur || *cur < *t)) return t;
    return cur;
}

/// printPod's Ready, Status and Restarts.
pod_summary summarize_pod(const json::object& pod, wall_time now) {
    std::int64_t restarts = 0;
    std::int64_t restartable_init_restarts = 0;
    std::int64_t total = static_cast<std::int64_t>(len_at(pod, {"spec", "containers"}));
    std::int64_t ready = 0;
    std::optional<wall_time> last_restart;
    std::optional<wall_time> last_restartable_init_restart;

    const auto phase = str_at(pod, {"status", "phase"});
    std::string reason = phase;
    if (auto r = str_at(pod, {"status", "reason"}); !r.empty()) reason = r;
    if (const auto* conds = array_at(pod, {"status", "conditions"})) {
        for (const auto& c : *conds) {
            const auto* co = c.if_object();
            if (co != nullptr && str_at(*co, {"type"}) == "PodScheduled" && str_at(*co, {"reason"}) == "SchedulingGated") {
                reason = "SchedulingGated";
            }
        }
    }

    std::map<std::string, const json::object*> init_containers;
    const auto* init_specs = array_at(pod, {"spec", "initContainers"});
    if (init_specs != nullptr) {
        for (const auto& c : *init_specs) {
            const auto* co = c.if_object();
            if (co == nullptr) continue;
            init_containers[str_at(*co, {"name"})] = co;
            if (restartable_init_container(co)) ++total;
        }
    }
    auto init_spec = [&](const std::string& name) -> const json::object* {
        auto it = init_containers.find(name);
        return it != init_containers.end() ? it->second : nullptr;
    };

    bool initializing = false;
    if (const auto* statuses = array_at(pod, {"status", "initContainerStatuses"})) {
        for (std::size_t i = 0; i < statuses->size(); ++i) {
            const auto* c = (*statuses)[i].if_object();
            if (c == nullptr) continue;
            const auto rc = int_at(*c, {"restartCount"});
            restarts += rc;
            last_restart = later(last_restart, *c);
            const bool restartable = restartable_init_container(init_spec(str_at(*c, {"name"})));
            if (restartable) {
                restartable_init_restarts += rc;
                last_restartable_init_restart = later(last_restartable_init_restart, *c);
            }
            const auto* terminated = object_at(*c, {"state", "terminated"});
            const auto* waiting = object_at(*c, {"state", "waiting"});
            if (terminated != nullptr && int_at(*terminated, {"exitCode"}) == 0) continue;
            if (restartable && bool_at(*c, {"started"})) {
                if (bool_at(*c, {"ready"})) ++ready;
                continue;
            }
            if (terminated != nullptr) {
                auto r = str_at(*terminated, {"reason"});
                if (r.empty()) {
                    auto signal = int_at(*terminated, {"signal"});
                    reason = signal != 0 ? "Init:Signal:" + std::to_string(signal)
                                         : "Init:ExitCode:" + std::to_string(int_at(*terminated, {"exitCode"}));
                } else {
                    reason = "Init:" + r;
                }
            } else if (waiting != nullptr && !str_at(*waiting, {"reason"}).empty() &&
                       str_at(*waiting, {"reason"}) != "PodInitializing") {
                reason = "Init:" + str_at(*waiting, {"reason"});
            } else {
                reason = "Init:" + std::to_string(i) + "/" + std::to_string(init_specs != nullptr ? init_specs->size() : 0);
            }
            initializing = true;
            break;
        }
    }

    if (!initializing || condition_true(pod, {"status", "conditions"}, "Initialized")) {
        restarts = restartable_init_restarts;
        last_restart = last_restartable_init_restart;
        bool has_running = false;
        if (const auto* statuses = array_at(pod, {"status", "containerStatuses"})) {
            for (std::size_t n = statuses->size(); n > 0; --n) {
                const auto* c = (*statuses)[n - 1].if_object();
                if (c == nullptr) continue;
                restarts += int_at(*c, {"restartCount"});
                last_restart = later(last_restart, *c);
                const auto* terminated = object_at(*c, {"state", "terminated"});
                const auto* waiting = object_at(*c, {"state", "waiting"});
                if (waiting != nullptr && !str_at(*waiting, {"reason"}).empty()) {
                    reason = str_at(*waiting, {"reason"});
                } else if (terminated != nullptr && !str_at(*terminated, {"reason"}).empty()) {
                    reason = str_at(*terminated, {"reason"});
                } else if (terminated != nullptr) {
                    auto signal = int_at(*terminated, {"signal"});
                    reason = signal != 0 ? "Signal:" + std::to_string(signal)
                                         : "ExitCode:" + std::to_string(int_at(*terminated, {"exitCode"}));
                } else if (bool_at(*c, {"ready"}) && object_at(*c, {"state", "running"}) != nullptr) {
                    has_running = true;
                    ++ready;
                }
            }
        }
        // Back to "Running" when a container still runs.
        if (reason == "Completed" && has_running) {
            reason = condition_true(pod, {"status", "conditions"}, "Ready") ? "Running" : "NotReady";
        }
    }

    const bool deleting = !deletion_timestamp_of(pod).empty();
    if (deleting && str_at(pod, {"status", "reason"}) == "NodeLost") {  // node.NodeUnreachablePodReason
        reason = "Unknown";
    } else if (deleting && phase != "Succeeded" && phase != "Failed") {
        reason = "Terminating";
    }

    pod_summary s;
    s.ready = std::to_string(ready) + "/" + std::to_string(total);
    s.reason = std::move(reason);
    s.restarts = std::to_string(restarts);
    if (restarts != 0 && last_restart) s.restarts += " (" + fmt_since(now, *last_restart) + " ago)";
    return s;
}

json::value pod_cell(std::string_view column, const json::object& pod, wall_time now) {
    if (column == "Ready") return json::string(summarize_pod(pod, now).ready);
    if (column == "Status") return json::string(summarize_pod(pod, now).reason);
    if (column == "Restarts") return json::string(summarize_pod(pod, now).restarts);
    auto or_none = [](std::string s) { return json::string(s.empty() ? std::string("<none>") : s); };
    if (column == "IP") {
        const auto* ips = array_at(pod, {"status", "podIPs"});
        std::string ip;
        if (ips != nullptr && !ips->empty() && (*ips)[0].is_object()) ip = str_at((*ips)[0].get_object(), {"ip"});
        return or_none(ip);
    }
    if (column == "Node") return or_none(str_at(pod, {"spec", "nodeName"}));
    if (column == "Nominated Node") return or_none(str_at(pod, {"status", "nominatedNodeName"}));
    if (column == "Readiness Gates") {
        const auto* gates = array_at(pod, {"spec", "readinessGates"});
        if (gates == nullptr || gates->empty()) return json::string("<none>");
        std::size_t true_conditions = 0;
        for (const auto& g : *gates) {
            const auto* go = g.if_object();
            if (go == nullptr) continue;
            auto type = str_at(*go, {"conditionType"});
            if (const auto* conds = array_at(pod, {"status", "conditions"})) {
                for (const auto& c : *conds) {
                    const auto* co = c.if_object();
                    if (co != nullptr && str_at(*co, {"type"}) == type) {
                        if (str_at(*co, {"status"}) == "True") ++true_conditions;
                        break;
                    }
                }
            }
        }
        return json::string(std::to_string(true_conditions) + "/" + std::to_string(gates->size()));
    }
    return nullptr;
}

// --- other core/v1 ------------------------------------------------------------

/// formatEndpoints(endpoints, nil).
std::string format_endpoints(const json::object& ep) {
    const auto* subsets = array_at(ep, {"subsets"});
    if (subsets == nullptr || subsets->empty()) return "<none>";
    std::vector<std::string> list;
    const std::size_t max = 3;
    bool more = false;
    std::size_t count = 0;
    for (const auto& s : *subsets) {
        const auto* so = s.if_object();
        if (so == nullptr) continue;
        const auto* addresses = array_at(*so, {"addresses"});
        const std::size_t n_addr = addresses != nullptr ? addresses->size() : 0;
        const auto* ports = array_at(*so, {"ports"});
        if (ports == nullptr || ports->empty()) {
            count += n_addr;
            for (std::size_t i = 0; i < n_addr; ++i) {
                if (list.size() == max) {
                    more = true;
                    break;
                }
                const auto* a = (*addresses)[i].if_object();
                list.push_back(a != nullptr ? str_at(*a, {"ip"}) : std::string{});
            }
            continue;
        }
        for (const auto& p : *ports) {
            const auto* po = p.if_object();
            const std::int64_t port = po != nullptr ? int_at(*po, {"port"}) : 0;
            count += n_addr;
            for (std::size_t i = 0; i < n_addr; ++i) {
                if (list.size() == max) {
                    more = true;
                    break;
                }
                const auto* a = (*addresses)[i].if_object();
                list.push_back(join_host_port(a != nullptr ? str_at(*a, {"ip"}) : std::string{}, port));
            }
        }
    }
    auto ret = join(list, ",");
    if (more) return ret + " + " + std::to_string(count - max) + " more...";
    return ret;
}

/// helper.GetAccessModesAsString: RWO,ROX,RWX,RWOP in that order.
std::string access_modes(const json::array* modes) {
    std::set<std::string> have;
    if (modes != nullptr) {
        for (const auto& m : *modes) {
            if (m.is_string()) have.insert(std::string(m.get_string()));
        }
    }
    std::vector<std::string> out;
    if (have.count("ReadWriteOnce") != 0) out.emplace_back("RWO");
    if (have.count("ReadOnlyMany") != 0) out.emplace_back("ROX");
    if (have.count("ReadWriteMany") != 0) out.emplace_back("RWX");
    if (have.count("ReadWriteOncePod") != 0) out.emplace_back("RWOP");
    return join(out, ",");
}

json::value pvc_cell(std::string_view column, const json::object& pvc) {
    const auto volume_name = str_at(pvc, {"spec", "volumeName"});
    if (column == "Status") {
        return json::string(deletion_timestamp_of(pvc).empty() ? str_at(pvc, {"status", "phase"}) : "Terminating");
    }
    if (column == "Volume") return json::string(volume_name);
    // Quantities are printed as stored (the server keeps the text it was given).
    if (column == "Capacity") {
        return json::string(volume_name.empty() ? std::string{} : scalar_text(get(pvc, {"status", "capacity", "storage"})));
    }
    if (column == "Access Modes") {
        return json::string(volume_name.empty() ? std::string{} : access_modes(array_at(pvc, {"status", "accessModes"})));
    }
    if (column == "StorageClass") {  // helper.GetPersistentVolumeClaimClass
        if (auto beta = annotation_of(pvc, "volume.beta.kubernetes.io/storage-class")) return json::string(*beta);
        return json::string(str_at(pvc, {"spec", "storageClassName"}));
    }
    if (column == "VolumeAttributesClass") {
        const auto* v = get(pvc, {"spec", "volumeAttributesClassName"});
        return json::string(v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string("<unset>"));
    }
    if (column == "VolumeMode") {
        const auto* v = get(pvc, {"spec", "volumeMode"});
        return json::string(v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string("<unset>"));
    }
    return nullptr;
}

std::string node_address(const json::object& node, std::string_view type) {
    if (const auto* addrs = array_at(node, {"status", "addresses"})) {
        for (const auto& a : *addrs) {
            const auto* ao = a.if_object();
            if (ao != nullptr && str_at(*ao, {"type"}) == type) return str_at(*ao, {"address"});
        }
    }
    return "<none>";
}

json::value node_cell(std::string_view column, const json::object& node) {
    if (column == "Status") {
        std::vector<std::string> status;
        const json::object* ready = nullptr;  // the last Ready condition (conditionMap)
        if (const auto* conds = array_at(node, {"status", "conditions"})) {
            for (const auto& c : *conds) {
                const auto* co = c.if_object();
                if (co != nullptr && str_at(*co, {"type"}) == "Ready") ready = co;
            }
        }
        if (ready != nullptr) status.emplace_back(str_at(*ready, {"status"}) == "True" ? "Ready" : "NotReady");
        if (status.empty()) status.emplace_back("Unknown");
        if (bool_at(node, {"spec", "unschedulable"})) status.emplace_back("SchedulingDisabled");
        return json::string(join(status, ","));
    }
    if (column == "Roles") {  // findNodeRoles
        std::set<std::string> roles;
        if (const auto* labels = labels_of(node)) {
            constexpr std::string_view prefix = "node-role.kubernetes.io/";
            for (const auto& kv : *labels) {
                std::string_view k = kv.key();
                std::string v = kv.value().is_string() ? std::string(kv.value().get_string()) : std::string{};
                if (k.substr(0, prefix.size()) == prefix) {
                    if (k.size() > prefix.size()) roles.insert(std::string(k.substr(prefix.size())));
                } else if (k == "kubernetes.io/role" && !v.empty()) {
                    roles.insert(v);
                }
            }
        }
        if (roles.empty()) return json::string("<none>");
        return json::string(join(std::vector<std::string>(roles.begin(), roles.end()), ","));
    }
    if (column == "Version") return json::string(str_at(node, {"status", "nodeInfo", "kubeletVersion"}));
    if (column == "Internal-IP") return json::string(node_address(node, "InternalIP"));
    if (column == "External-IP") return json::string(node_address(node, "ExternalIP"));
    auto or_unknown = [](std::string s) { return json::string(s.empty() ? std::string("<unknown>") : s); };
    if (column == "OS-Image") return or_unknown(str_at(node, {"status", "nodeInfo", "osImage"}));
    if (column == "Kernel-Version") return or_unknown(str_at(node, {"status", "nodeInfo", "kernelVersion"}));
    if (column == "Container-Runtime") return or_unknown(str_at(node, {"status", "nodeInfo", "containerRuntimeVersion"}));
    return nullptr;
}

/// printResourceQuota's Request and Limit: "resource: used/hard" for each
/// status.hard resource, sorted, "limits.*" ones in Limit.
json::value resource_quota_cell(std::string_view column, const json::object& rq) {
    if (column != "Request" && column != "Limit") return nullptr;
    const bool limits = column == "Limit";
    std::map<std::string, std::string> hard;
    if (const auto* h = object_at(rq, {"status", "hard"})) {
        for (const auto& kv : *h) hard[std::string(kv.key())] = scalar_text(&kv.value());
    }
    const auto* used = object_at(rq, {"status", "used"});
    std::string out;
    for (const auto& [resource, hard_qty] : hard) {
        auto dot = resource.find('.');
        const bool is_limit = dot != std::string::npos && resource.substr(0, dot) == "limits";
        if (is_limit != limits) continue;
        std::string used_qty = "0";  // the zero Quantity
        if (used != nullptr) {
            if (const auto* u = used->if_contains(resource); u != nullptr && !u->is_null()) used_qty = scalar_text(u);
        }
        out += resource + ": " + used_qty + "/" + hard_qty + ", ";
    }
    if (out.size() >= 2) out.resize(out.size() - 2);
    return json::string(out);
}

// --- apps/v1 --------------------------------------------------------------------

// spec.replicas defaults to 1 (SetDefaults_ReplicaSet, SetDefaults_StatefulSet).
std::int64_t desired_replicas(const json::object& obj) { return int_at(obj, {"spec", "replicas"}, 1); }

json::value replica_set_cell(std::string_view column, const json::object& rs) {
    if (column == "Desired") return desired_replicas(rs);
    if (column == "Current") return int_at(rs, {"status", "replicas"});
    if (column == "Ready") return int_at(rs, {"status", "readyReplicas"});
    return template_cell(column, array_at(rs, {"spec", "template", "spec", "containers"}), object_at(rs, {"spec", "selector"}));
}

json::value stateful_set_cell(std::string_view column, const json::object& ss) {
    if (column == "Ready") {
        return json::string(std::to_string(int_at(ss, {"status", "readyReplicas"})) + "/" +
                            std::to_string(desired_replicas(ss)));
    }
    if (column == "Selector") return nullptr;  // not a StatefulSet column
    return template_cell(column, array_at(ss, {"spec", "template", "spec", "containers"}), nullptr);
}

json::value daemon_set_cell(std::string_view column, const json::object& ds) {
    if (column == "Desired") return int_at(ds, {"status", "desiredNumberScheduled"});
    if (column == "Current") return int_at(ds, {"status", "currentNumberScheduled"});
    if (column == "Ready") return int_at(ds, {"status", "numberReady"});
    if (column == "Up-to-date") return int_at(ds, {"status", "updatedNumberScheduled"});
    if (column == "Available") return int_at(ds, {"status", "numberAvailable"});
    if (column == "Node Selector") {
        return json::string(format_labels(object_at(ds, {"spec", "template", "spec", "nodeSelector"})));
    }
    return template_cell(column, array_at(ds, {"spec", "template", "spec", "containers"}), object_at(ds, {"spec", "selector"}));
}

// --- batch/v1 -------------------------------------------------------------------

json::value job_cell(std::string_view column, const json::object& job, wall_time now) {
    if (column == "Status") {
        auto has = [&](std::string_view type) { return condition_true(job, {"status", "conditions"}, type); };
        if (has("Complete")) return json::string("Complete");
        if (has("Failed")) return json::string("Failed");
        if (!deletion_timestamp_of(job).empty()) return json::string("Terminating");
        if (has("Suspended")) return json::string("Suspended");
        if (has("FailureTarget")) return json::string("FailureTarget");
        return json::string("Running");
    }
    if (column == "Completions") {
        const auto succeeded = std::to_string(int_at(job, {"status", "succeeded"}));
        if (auto completions = opt_int(get(job, {"spec", "completions"}))) {
            return json::string(succeeded + "/" + std::to_string(*completions));
        }
        const auto parallelism = int_at(job, {"spec", "parallelism"});
        if (parallelism > 1) return json::string(succeeded + "/1 of " + std::to_string(parallelism));
        return json::string(succeeded + "/1");
    }
    if (column == "Duration") {
        auto start = parse_rfc3339(str_at(job, {"status", "startTime"}));
        if (!start) return json::string("");
        auto completion = parse_rfc3339(str_at(job, {"status", "completionTime"}));
        return json::string(fmt_since(completion ? *completion : now, *start));
    }
    return template_cell(column, array_at(job, {"spec", "template", "spec", "containers"}), object_at(job, {"spec", "selector"}));
}

json::value cron_job_cell(std::string_view column, const json::object& cj, wall_time now) {
    if (column == "Schedule") return json::string(str_at(cj, {"spec", "schedule"}));
    if (column == "Timezone") {
        const auto* tz = get(cj, {"spec", "timeZone"});
        return json::string(tz != nullptr && tz->is_string() ? std::string(tz->get_string()) : std::string("<none>"));
    }
    if (column == "Suspend") return json::string(bool_ptr(get(cj, {"spec", "suspend"})));
    if (column == "Active") return static_cast<std::int64_t>(len_at(cj, {"status", "active"}));
    if (column == "Last Schedule") {
        const auto* last = get(cj, {"status", "lastScheduleTime"});
        if (last == nullptr) return json::string("<none>");
        return json::string(since(last->is_string() ? std::string_view(last->get_string()) : std::string_view{}, now));
    }
    return template_cell(column, array_at(cj, {"spec", "jobTemplate", "spec", "template", "spec", "containers"}),
                         object_at(cj, {"spec", "jobTemplate", "spec", "selector"}));
}

// --- discovery, networking, rbac, policy ------------------------------------------

json::value endpoint_slice_cell(std::string_view column, const json::object& es) {
    const std::size_t max = 3;
    if (column == "AddressType") return json::string(str_at(es, {"addressType"}));
    if (column == "Ports") {  // formatDiscoveryPorts
        std::vector<std::string> list;
        bool more = false;
        std::size_t count = 0;
        if (const auto* ports = array_at(es, {"ports"})) {
            for (const auto& p : *ports) {
                const auto* po = p.if_object();
                if (list.size() < max) {
                    std::string num = "*";
                    if (po != nullptr) {
                        if (auto port = opt_int(get(*po, {"port"}))) {
                            num = std::to_string(*port);
                        } else if (const auto* name = get(*po, {"name"}); name != nullptr && name->is_string()) {
                            num = std::string(name->get_string());
                        }
                    }
                    list.push_back(std::move(num));
                } else if (list.size() == max) {
                    more = true;
                }
                ++count;
            }
        }
        return json::string(list_with_more(list, more, count, max));
    }
    if (column == "Endpoints") {  // formatDiscoveryEndpoints
        std::vector<std::string> list;
        bool more = false;
        std::size_t count = 0;
        if (const auto* endpoints = array_at(es, {"endpoints"})) {
            for (const auto& e : *endpoints) {
                const auto* eo = e.if_object();
                if (eo == nullptr) continue;
                if (const auto* addresses = array_at(*eo, {"addresses"})) {
                    for (const auto& a : *addresses) {
                        if (list.size() < max) {
                            list.push_back(a.is_string() ? std::string(a.get_string()) : std::string{});
                        } else if (list.size() == max) {
                            more = true;
                        }
                        ++count;
                    }
                }
            }
        }
        return json::string(list_with_more(list, more, count, max));
    }
    return nullptr;
}

json::value ingress_cell(std::string_view column, const json::object& ing) {
    if (column == "Class") {
        const auto* c = get(ing, {"spec", "ingressClassName"});
        return json::string(c != nullptr && c->is_string() ? std::string(c->get_string()) : std::string("<none>"));
    }
    if (column == "Hosts") {  // formatHosts
        const auto* rules = array_at(ing, {"spec", "rules"});
        std::vector<std::string> list;
        const std::size_t max = 3;
        bool more = false;
        if (rules != nullptr) {
            for (const auto& r : *rules) {
                if (list.size() == max) more = true;
                const auto* ro = r.if_object();
                auto host = ro != nullptr ? str_at(*ro, {"host"}) : std::string{};
                if (!more && !host.empty()) list.push_back(std::move(host));
            }
        }
        if (list.empty()) return json::string("*");
        auto ret = join(list, ",");
        if (more) ret += " + " + std::to_string(rules->size() - max) + " more...";
        return json::string(ret);
    }
    if (column == "Address") {  // ingressLoadBalancerStatusStringer, wide: not clipped
        std::set<std::string> result;
        if (const auto* lbs = array_at(ing, {"status", "loadBalancer", "ingress"})) {
            for (const auto& l : *lbs) {
                const auto* lo = l.if_object();
                if (lo == nullptr) continue;
                if (auto ip = str_at(*lo, {"ip"}); !ip.empty()) {
                    result.insert(ip);
                } else if (auto host = str_at(*lo, {"hostname"}); !host.empty()) {
                    result.insert(host);
                }
            }
        }
        return json::string(join(std::vector<std::string>(result.begin(), result.end()), ","));
    }
    if (column == "Ports") return json::string(len_at(ing, {"spec", "tls"}) != 0 ? "80, 443" : "80");  // formatPorts
    return nullptr;
}

/// printRoleBinding / printClusterRoleBinding.
json::value role_binding_cell(std::string_view column, const json::object& rb) {
    if (column == "Role") {
        return json::string(str_at(rb, {"roleRef", "kind"}) + "/" + str_at(rb, {"roleRef", "name"}));
    }
    // rbac.SubjectsStrings.
    std::string_view subject_kind;
    if (column == "Users") {
        subject_kind = "User";
    } else if (column == "Groups") {
        subject_kind = "Group";
    } else if (column == "ServiceAccounts") {
        subject_kind = "ServiceAccount";
    } else {
        return nullptr;
    }
    std::vector<std::string> out;
    if (const auto* subjects = array_at(rb, {"subjects"})) {
        for (const auto& s : *subjects) {
            const auto* so = s.if_object();
            if (so == nullptr || str_at(*so, {"kind"}) != subject_kind) continue;
            out.push_back(subject_kind == "ServiceAccount" ? str_at(*so, {"namespace"}) + "/" + str_at(*so, {"name"})
                                                   : str_at(*so, {"name"}));
        }
    }
    return json::string(join(out, ", "));
}

json::value pdb_cell(std::string_view column, const json::object& pdb) {
    auto int_or_string = [&](std::string_view field) {
        const auto* v = get(pdb, {"spec", field});
        return json::string(v != nullptr ? scalar_text(v) : std::string("N/A"));
    };
    if (column == "Min Available") return int_or_string("minAvailable");
    if (column == "Max Unavailable") return int_or_string("maxUnavailable");
    if (column == "Allowed Disruptions") return int_at(pdb, {"status", "disruptionsAllowed"});
    return nullptr;
}

// --- the kinds --------------------------------------------------------------------

enum class kind {
    none, pods, services, endpoints, pvcs, nodes, resource_quotas, service_accounts, replica_sets, stateful_sets,
    daemon_sets, jobs, cron_jobs, endpoint_slices, ingresses, network_policies, role_bindings,
    cluster_role_bindings, pdbs, default_convertor,
};

kind kind_of_resource(std::string_view group, std::string_view resource) {
    if (group.empty()) {
        if (resource == "pods") return kind::pods;
        if (resource == "endpoints") return kind::endpoints;
        if (resource == "persistentvolumeclaims") return kind::pvcs;
        if (resource == "nodes") return kind::nodes;
        if (resource == "resourcequotas") return kind::resource_quotas;
        if (resource == "serviceaccounts") return kind::service_accounts;
        if (resource == "services") return kind::services;
        if (resource == "limitranges") return kind::default_convertor;
    } else if (group == "apps") {
        if (resource == "replicasets") return kind::replica_sets;
        if (resource == "statefulsets") return kind::stateful_sets;
        if (resource == "daemonsets") return kind::daemon_sets;
    } else if (group == "batch") {
        if (resource == "jobs") return kind::jobs;
        if (resource == "cronjobs") return kind::cron_jobs;
    } else if (group == "discovery.k8s.io") {
        if (resource == "endpointslices") return kind::endpoint_slices;
    } else if (group == "networking.k8s.io") {
        if (resource == "ingresses") return kind::ingresses;
        if (resource == "networkpolicies") return kind::network_policies;
    } else if (group == "rbac.authorization.k8s.io") {
        if (resource == "rolebindings") return kind::role_bindings;
        if (resource == "clusterrolebindings") return kind::cluster_role_bindings;
        if (resource == "roles" || resource == "clusterroles") return kind::default_convertor;
    } else if (group == "policy") {
        if (resource == "poddisruptionbudgets") return kind::pdbs;
    }
    return kind::none;
}

// printService, getServiceExternalIP, makePortString (printers.go).
json::value service_cell(std::string_view column, const json::object& obj) {
    auto join = [](const json::value* v) {
        std::string out;
        if (v && v->is_array()) {
            for (const auto& x : v->as_array()) {
                if (x.is_string()) out += (out.empty() ? "" : ",") + std::string(x.get_string());
            }
        }
        return out;
    };
    const std::string type = str_at(obj, {"spec", "type"});
    if (column == "Type") return json::string(type);
    if (column == "Cluster-IP") {
        const auto* ips = find_path(obj, {"spec", "clusterIPs"});
        if (ips && ips->is_array() && !ips->as_array().empty() && ips->as_array()[0].is_string()) return ips->as_array()[0];
        return json::string("<none>");
    }
    if (column == "External-IP") {
        const auto external = join(find_path(obj, {"spec", "externalIPs"}));
        if (type == "ClusterIP" || type == "NodePort") return json::string(external.empty() ? "<none>" : external);
        if (type == "ExternalName") return json::string(str_at(obj, {"spec", "externalName"}));
        if (type == "LoadBalancer") {
            std::set<std::string> lb;  // sets.NewString: sorted, unique
            if (const auto* ing = find_path(obj, {"status", "loadBalancer", "ingress"}); ing && ing->is_array()) {
                for (const auto& i : ing->as_array()) {
                    if (!i.is_object()) continue;
                    auto ip = str_at(i.as_object(), {"ip"});
                    auto host = str_at(i.as_object(), {"hostname"});
                    if (!ip.empty()) lb.insert(ip);
                    else if (!host.empty()) lb.insert(host);
                }
            }
            std::string out;
            for (const auto& x : lb) out += (out.empty() ? "" : ",") + x;
            if (!external.empty()) return json::string(out.empty() ? external : out + "," + external);
            return json::string(out.empty() ? "<pending>" : out);
        }
        return json::string("<unknown>");
    }
    if (column == "Port(s)") {
        std::string out;
        if (const auto* ports = find_path(obj, {"spec", "ports"}); ports && ports->is_array()) {
            for (const auto& p : ports->as_array()) {
                if (!p.is_object()) continue;
                const auto& po = p.as_object();
                const auto port = std::to_string(int_at(po, {"port"}));
                const auto proto = str_at(po, {"protocol"});
                const auto node = int_at(po, {"nodePort"});
                out += (out.empty() ? "" : ",") + (node > 0 ? port + ":" + std::to_string(node) : port) + "/" + proto;
            }
        }
        return json::string(out.empty() ? "<none>" : out);
    }
    if (column == "Selector") {
        const auto* sel = find_path(obj, {"spec", "selector"});
        return json::string(format_labels(sel && sel->is_object() ? &sel->as_object() : nullptr));
    }
    return nullptr;
}

} // namespace

std::vector<table_column> builtin_printer_columns(std::string_view group, std::string_view resource) {
    const auto k = kind_of_resource(group, resource);
    if (k == kind::none) return {};
    std::vector<table_column> cols{{"Name", "string", "name", std::string(name_doc), 0, ""}};
    auto col = [&](std::string name, std::string type, std::string_view description, int priority = 0) {
        cols.push_back({std::move(name), std::move(type), "", std::string(description), priority, ""});
    };
    auto age = [&] { col("Age", "string", creation_doc); };
    auto wide_template = [&](std::string_view selector_doc) {
        col("Containers", "string", containers_doc, 1);
        col("Images", "string", images_doc, 1);
        if (!selector_doc.empty()) col("Selector", "string", selector_doc, 1);
    };
    switch (k) {
    case kind::pods:
        col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic.");
        col("Status", "string", "The aggregate status of the containers in this pod.");
        col("Restarts", "string",
            "The number of times the containers in this pod have been restarted and when the last container in this "
            "pod has restarted.");
        age();
        col("IP", "string", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.", 1);
        col("Node", "string",
            "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling "
            "by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes "
            "responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod "
            "to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename",
            1);
        col("Nominated Node", "string",
            "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled "
            "right away as preemption victims receive their graceful termination periods. This field does not "
            "guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere "
            "if other nodes become available sooner. Scheduler may also decide to give the resources on this node to "
            "a higher priority pod that is created after preemption. As a result, this field may be different than "
            "PodSpec.nodeName when the pod is scheduled.",
            1);
        col("Readiness Gates", "string",
            "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its "
            "containers are ready AND all conditions specified in the readiness gates have status equal to \"True\" "
            "More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates",
            1);
        break;
    case kind::endpoints:
        col("Endpoints", "string",
            "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the "
            "IPs they share. A single address with multiple ports, some of which are ready and some of which are not "
            "(because they come from different containers) will result in the address being displayed in different "
            "subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the "
            "same subset. Sets of addresses and ports that comprise a service.");
        age();
        break;
    case kind::pvcs:
        col("Status", "string", "phase represents the current phase of PersistentVolumeClaim.");
        col("Volume", "string", "volumeName is the binding reference to the PersistentVolume backing this claim.");
        col("Capacity", "string", "capacity represents the actual resources of the underlying volume.");
        col("Access Modes", "string",
            "accessModes contains the actual access modes the volume backing the PVC has. More info: "
            "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1");
        col("StorageClass", "string", "StorageClass of the pvc");
        col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc");
        age();
        col("VolumeMode", "string",
            "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not "
            "included in claim spec.",
            1);
        break;
    case kind::nodes: {
        const std::string_view addresses_doc =
            "List of addresses reachable to the node. Queried from cloud provider, if available. More info: "
            "https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as "
            "mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is "
            "merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. "
            "Consumers should assume that addresses can change during the lifetime of a Node. However, there are some "
            "exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status "
            "or consumers of the downward API (status.hostIP).";
        col("Status", "string", "The status of the node");
        col("Roles", "string", "The roles of the node");
        age();
        col("Version", "string", "Kubelet Version reported by the node.");
        col("Internal-IP", "string", addresses_doc, 1);
        col("External-IP", "string", addresses_doc, 1);
        col("OS-Image", "string", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1);
        col("Kernel-Version", "string", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1);
        col("Container-Runtime", "string",
            "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", 1);
        break;
    }
    case kind::resource_quotas:
        col("Request", "string", "Request represents a minimum amount of cpu/memory that a container may consume.");
        col("Limit", "string",
            "Limits control the maximum amount of cpu/memory that a container may use independent of contention on "
            "the node.");
        age();
        break;
    case kind::services:
        // printers.go serviceColumnDefinitions; descriptions: ServiceSpec's SwaggerDoc.
        col("Type", "string", "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, C"
            "lusterIP, NodePort, and LoadBalancer. \"ClusterIP\" allocates a cluster-internal IP address for load"
            "-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by ma"
            "nual construction of an Endpoints object or EndpointSlice objects. If clusterIP is \"None\", no virt"
            "ual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "
            "\"NodePort\" builds on ClusterIP and allocates a port on every node which routes to the same endpoin"
            "ts as the clusterIP. \"LoadBalancer\" builds on NodePort and creates an external load-balancer (if s"
            "upported in the current cloud) which routes to the same endpoints as the clusterIP. \"ExternalName\""
            " aliases this service to the specified externalName. Several other fields do not apply to ExternalNa"
            "me services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-"
            "services-service-types");
        col("Cluster-IP", "string", "clusterIP is the IP address of the service and is usually assigned randomly. If an address is specif"
            "ied manually, is in-range (as per system configuration), and is not in use, it will be allocated to "
            "the service; otherwise creation of the service will fail. This field may not be changed through upda"
            "tes unless the type field is also being changed to ExternalName (which requires this field to be bla"
            "nk) or the type field is being changed from ExternalName (in which case this field may optionally be"
            " specified, as describe above).  Valid values are \"None\", empty string (\"\"), or a valid IP addre"
            "ss. Setting this to \"None\" makes a \"headless service\" (no virtual IP), which is useful when dire"
            "ct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP"
            ", NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalNam"
            "e, creation will fail. This field will be wiped when updating a Service to type ExternalName. More i"
            "nfo: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxie"
            "s");
        col("External-IP", "string", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for th"
            "is service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that tra"
            "ffic arrives at a node with this IP.  A common example is external load-balancers that are not part "
            "of the Kubernetes system.");
        col("Port(s)", "string", "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/s"
            "ervices-networking/service/#virtual-ips-and-service-proxies");
        age();
        col("Selector", "string", "Route service traffic to pods with label keys and values matching this selector. If empty or not pre"
            "sent, the service is assumed to have an external process managing its endpoints, which Kubernetes wi"
            "ll not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is Exter"
            "nalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/", 1);
        break;
    case kind::service_accounts:
        col("Secrets", "string",
            "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are "
            "allowed to use. Pods are only limited to this list if this service account has a "
            "\"kubernetes.io/enforce-mountable-secrets\" annotation set to \"true\". The "
            "\"kubernetes.io/enforce-mountable-secrets\" annotation is deprecated since v1.32. Prefer separate "
            "namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated "
            "service account token secrets for use outside of pods. Instead, tokens can be requested directly using "
            "the TokenRequest API, or service account token secrets can be manually created. More info: "
            "https://kubernetes.io/docs/concepts/configuration/secret");
        age();
        break;
    case kind::replica_sets:
        col("Desired", "integer",
            "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and "
            "unspecified. Defaults to 1. More info: "
            "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller");
        col("Current", "integer",
            "Replicas is the most recently observed number of replicas. More info: "
            "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller");
        col("Ready", "integer", "The number of ready replicas for this replica set.");
        age();
        wide_template(std::string(
                          "Selector is a label query over pods that should match the replica count. If the selector is "
                          "empty, it is defaulted to the labels present on the pod template. Label keys and values that "
                          "must match in order to be controlled by this replica set. ") +
                      std::string(label_selectors_url));
        break;
    case kind::stateful_sets:
        col("Ready", "string", "Number of the pod with ready state");
        age();
        col("Containers", "string", containers_doc, 1);
        col("Images", "string", images_doc, 1);
        break;
    case kind::daemon_sets:
        col("Desired", "integer",
            "The total number of nodes that should be running the daemon pod (including nodes correctly running the "
            "daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/");
        col("Current", "integer",
            "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More "
            "info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/");
        col("Ready", "integer",
            "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running "
            "and ready.");
        col("Up-to-date", "integer", "The total number of nodes that are running updated daemon pod");
        col("Available", "integer",
            "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running "
            "and available (ready for at least spec.minReadySeconds)");
        col("Node Selector", "string",
            "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a "
            "node's labels for the pod to be scheduled on that node. More info: "
            "https://kubernetes.io/docs/concepts/configuration/assign-pod-node/");
        age();
        wide_template(std::string("A label query over pods that are managed by the daemon set. Must match in order to be "
                                  "controlled. If empty, defaulted to labels on Pod template. ") +
                      std::string(label_selectors_url));
        break;
    case kind::jobs:
        col("Status", "string", "Status of the job.");
        col("Completions", "string",
            "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. "
            "However, it may decrease in reaction to scale down of elastic indexed jobs.");
        col("Duration", "string", "Time required to complete the job.");
        age();
        wide_template(std::string("A label query over pods that should match the pod count. Normally, the system sets "
                                  "this field for you. ") +
                      std::string(label_selectors_url));
        break;
    case kind::cron_jobs:
        col("Schedule", "string", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.");
        col("Timezone", "string",
            "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. "
            "If not specified, this will default to the time zone of the kube-controller-manager process. The set of "
            "valid time zone names and the time zone offset is loaded from the system-wide time zone database by the "
            "API server during CronJob validation and the controller manager during execution. If no system-wide "
            "time zone database can be found a bundled version of the database is used instead. If the time zone "
            "name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the "
            "controller will stop creating new new Jobs and will create a system event with the reason "
            "UnknownTimeZone. More information can be found in "
            "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones");
        col("Suspend", "boolean",
            "This flag tells the controller to suspend subsequent executions, it does not apply to already started "
            "executions.  Defaults to false.");
        col("Active", "integer", "A list of pointers to currently running jobs.");
        col("Last Schedule", "string", "Information when was the last time the job was successfully scheduled.");
        age();
        wide_template(std::string("A label query over pods that should match the pod count. Normally, the system sets "
                                  "this field for you. ") +
                      std::string(label_selectors_url));
        break;
    case kind::endpoint_slices:
        col("AddressType", "string",
            "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice "
            "must be the same type. This field is immutable after creation. The following address types are currently "
            "supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a "
            "Fully Qualified Domain Name.");
        col("Ports", "string",
            "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a "
            "unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined "
            "with a nil port value, it indicates \"all ports\". Each slice may include a maximum of 100 ports.");
        col("Endpoints", "string",
            "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.");
        age();
        break;
    case kind::ingresses:
        col("Class", "string", "The name of the IngressClass resource that should be used for additional configuration");
        col("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule");
        col("Address", "string", "Address is a list containing ingress points for the load-balancer");
        col("Ports", "string", "Ports of TLS configurations that open");
        age();
        break;
    case kind::network_policies:
        col("Pod-Selector", "string",
            "Selects the pods to which this NetworkPolicy object applies.  The array of ingress rules is applied to "
            "any pods selected by this field. Multiple network policies can select the same set of pods.  In this "
            "case, the ingress rules for each are combined additively. This field is NOT optional and follows "
            "standard label selector semantics. An empty podSelector matches all pods in this namespace.");
        age();
        break;
    case kind::role_bindings:
    case kind::cluster_role_bindings: {
        const bool cluster = k == kind::cluster_role_bindings;
        col("Role", "string",
            cluster ? "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be "
                      "resolved, the Authorizer must return an error."
                    : "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. "
                      "If the RoleRef cannot be resolved, the Authorizer must return an error.");
        age();
        const std::string in = cluster ? " in the clusterRoleBinding" : " in the roleBinding";
        col("Users", "string", "Users" + in, 1);
        col("Groups", "string", "Groups" + in, 1);
        col("ServiceAccounts", "string", "ServiceAccounts" + in, 1);
        break;
    }
    case kind::pdbs:
        col("Min Available", "string", "The minimum number of pods that must be available.");
        col("Max Unavailable", "string", "The maximum number of pods that may be unavailable.");
        col("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time.");
        age();
        break;
    case kind::default_convertor:
        col("Created At", "date", creation_doc);
        break;
    case kind::none:
        break;
    }
    return cols;
}

json::value builtin_printer_cell(std::string_view group, std::string_view resource, std::string_view column,
                                 const json::object& obj, wall_time now) {
    const auto k = kind_of_resource(group, resource);
    if (k == kind::none) return nullptr;
    if (column == "Age" && k != kind::default_convertor) return json::string(age(obj, now));
    switch (k) {
    case kind::pods: return pod_cell(column, obj, now);
    case kind::endpoints: return column == "Endpoints" ? json::value(json::string(format_endpoints(obj))) : json::value(nullptr);
    case kind::pvcs: return pvc_cell(column, obj);
    case kind::nodes: return node_cell(column, obj);
    case kind::resource_quotas: return resource_quota_cell(column, obj);
    case kind::services: return service_cell(column, obj);
    case kind::service_accounts:
        return column == "Secrets" ? json::value(static_cast<std::int64_t>(len_at(obj, {"secrets"}))) : json::value(nullptr);
    case kind::replica_sets: return replica_set_cell(column, obj);
    case kind::stateful_sets: return stateful_set_cell(column, obj);
    case kind::daemon_sets: return daemon_set_cell(column, obj);
    case kind::jobs: return job_cell(column, obj, now);
    case kind::cron_jobs: return cron_job_cell(column, obj, now);
    case kind::endpoint_slices: return endpoint_slice_cell(column, obj);
    case kind::ingresses: return ingress_cell(column, obj);
    case kind::network_policies:
        // FormatLabelSelector(&spec.podSelector): never nil, so an absent one is empty.
        if (column != "Pod-Selector") return nullptr;
        if (const auto* sel = object_at(obj, {"spec", "podSelector"})) return json::string(format_label_selector(sel));
        return json::string("<none>");
    case kind::role_bindings:
    case kind::cluster_role_bindings: return role_binding_cell(column, obj);
    case kind::pdbs: return pdb_cell(column, obj);
    case kind::default_convertor: {
        // creationTimestamp.Time.UTC().Format(time.RFC3339); the zero time when absent.
        if (column != "Created At") return nullptr;
        auto t = parse_rfc3339(creation_timestamp_of(obj));
        return json::string(t ? format_rfc3339(*t) : std::string("0001-01-01T00:00:00Z"));
    }
    case kind::none: break;
    }
    return nullptr;
}

} // namespace kcoro::apiserver::http
