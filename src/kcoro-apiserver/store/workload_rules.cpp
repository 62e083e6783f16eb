// Pods and the kinds with a pod template. Each rule names the v1.32 Go
// function it follows (pkg/apis/{core,apps,batch}/v1/defaults.go,
// pkg/apis/{apps,batch}/validation/validation.go, pkg/registry/.../strategy.go,
// the Priority and DefaultTolerationSeconds admission plugins).
#include "store/workload_rules.hpp"
#include "store/core_validation.hpp"
#include "store/status_errors.hpp"

#include <kcoro/core/name_validation.hpp>
#include <kcoro/core/object.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <map>

namespace kcoro::apiserver {
namespace json = boost::json;
using namespace validation;

// Go's %#v of a map[string]string, as validation messages print labels.
std::string go_string_map(const json::object* m) {
    std::map<std::string, std::string> sorted;
    if (m) {
        for (const auto& kv : *m) {
            sorted[std::string(kv.key())] = kv.value().is_string() ? std::string(kv.value().get_string()) : "";
        }
    }
    std::string out = "map[string]string{";
    bool first = true;
    for (const auto& [k, v] : sorted) {
        if (!first) out += ", ";
        first = false;
        out += quoted(k) + ":" + quoted(v);
    }
    return out + "}";
}


void default_pod_spec(json::object& pod) {
    set_default(pod, "restartPolicy", "Always");
    set_default(pod, "terminationGracePeriodSeconds", 30);
    set_default(pod, "dnsPolicy", "ClusterFirst");
    set_default(pod, "schedulerName", "default-scheduler");
    set_default(pod, "securityContext", json::object{});
    for (const char* list : {"containers", "initContainers"}) {
        auto* cs = pod.if_contains(list);
        if (!cs || !cs->is_array()) continue;
        for (auto& c : cs->as_array()) {
            if (!c.is_object()) continue;
            auto& co = c.as_object();
            std::string image = co.contains("image") && co.at("image").is_string()
                                    ? std::string(co.at("image").get_string()) : std::string{};
            auto last = image.substr(image.find_last_of('/') == std::string::npos ? 0 : image.find_last_of('/'));
            bool latest = last.find(':') == std::string::npos || image.ends_with(":latest");
            if (image.find('@') != std::string::npos) latest = false;
            set_default(co, "imagePullPolicy", latest ? "Always" : "IfNotPresent");
            set_default(co, "terminationMessagePath", "/dev/termination-log");
            set_default(co, "terminationMessagePolicy", "File");
            set_default(co, "resources", json::object{});
            if (auto* ps = co.if_contains("ports"); ps && ps->is_array()) {
                for (auto& p : ps->as_array()) {
                    if (p.is_object()) set_default(p.as_object(), "protocol", "TCP");
                }
            }
        }
    }
}

// The label selector a metav1.LabelSelector means, as text for our parser.
std::optional<label_selector> selector_of(const json::object& sel) {
    std::string text;
    auto add = [&](const std::string& r) { text += (text.empty() ? "" : ",") + r; };
    if (const auto* ml = sel.if_contains("matchLabels"); ml && ml->is_object()) {
        for (const auto& kv : ml->as_object()) {
            if (!kv.value().is_string()) return std::nullopt;
            add(std::string(kv.key()) + "=" + std::string(kv.value().get_string()));
        }
    }
    if (const auto* me = sel.if_contains("matchExpressions"); me && me->is_array()) {
        for (const auto& e : me->as_array()) {
            if (!e.is_object()) return std::nullopt;
            const auto& eo = e.as_object();
            auto key = eo.contains("key") && eo.at("key").is_string() ? std::string(eo.at("key").get_string()) : "";
            auto op = eo.contains("operator") && eo.at("operator").is_string() ? std::string(eo.at("operator").get_string()) : "";
            std::string values;
            if (const auto* vs = eo.if_contains("values"); vs && vs->is_array()) {
                for (const auto& v : vs->as_array()) {
                    if (!v.is_string()) return std::nullopt;
                    values += (values.empty() ? "" : ",") + std::string(v.get_string());
                }
            }
            if (op == "In") add(key + " in (" + values + ")");
            else if (op == "NotIn") add(key + " notin (" + values + ")");
            else if (op == "Exists") add(key);
            else if (op == "DoesNotExist") add("!" + key);
            else return std::nullopt;
        }
    }
    auto parsed = label_selector::parse(text);
    if (!parsed) return std::nullopt;
    return std::move(*parsed);
}


namespace {

std::vector<status_cause>& append(std::vector<status_cause>& to, std::vector<status_cause> more) {
    to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    return to;
}

const json::object* labels_at(const json::object& tmpl) {
    const auto* md = tmpl.if_contains("metadata");
    if (!md || !md->is_object()) return nullptr;
    const auto* l = md->as_object().if_contains("labels");
    return l && l->is_object() ? &l->as_object() : nullptr;
}

bool empty_selector(const json::object& sel) {
    auto count = [&](std::string_view k) -> std::size_t {
        const auto* v = sel.if_contains(k);
        if (!v) return 0;
        if (v->is_object()) return v->get_object().size();
        if (v->is_array()) return v->get_array().size();
        return 0;
    };
    return count("matchLabels") + count("matchExpressions") == 0;
}

} // namespace

// Go's %#v of a *metav1.LabelSelector, as field errors print it:
// v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}.
std::string go_label_selector(const json::object& sel) {
    auto strings = [](const json::value* v) {
        if (!v || !v->is_array()) return std::string("[]string(nil)");
        std::string out = "[]string{";
        for (std::size_t i = 0; i < v->as_array().size(); ++i) {
            const auto& x = v->as_array()[i];
            out += (i ? ", " : "") + quoted(x.is_string() ? std::string_view(x.get_string()) : std::string_view{});
        }
        return out + "}";
    };
    const auto* ml = sel.if_contains("matchLabels");
    std::string out = "v1.LabelSelector{MatchLabels:";
    out += ml && ml->is_object() ? go_string_map(&ml->as_object()) : std::string("map[string]string(nil)");
    out += ", MatchExpressions:";
    const auto* me = sel.if_contains("matchExpressions");
    if (!me || !me->is_array()) {
        out += "[]v1.LabelSelectorRequirement(nil)";
    } else {
        out += "[]v1.LabelSelectorRequirement{";
        for (std::size_t i = 0; i < me->as_array().size(); ++i) {
            const auto* r = me->as_array()[i].if_object();
            const json::object empty;
            const auto& ro = r ? *r : empty;
            out += std::string(i ? ", " : "") + "v1.LabelSelectorRequirement{Key:" + quoted(str_at(ro, "key")) +
                   ", Operator:" + quoted(str_at(ro, "operator")) + ", Values:" + strings(ro.if_contains("values")) + "}";
        }
        out += "}";
    }
    return out + "}";
}

// The selector checks of the apps kinds (ValidateDeploymentSpec,
// ValidateReplicaSetSpec, ValidateStatefulSetSpec, ValidateDaemonSetSpec):
// required, parses, not empty ("empty selector is invalid for <word>"), and
// matches the template's labels. DaemonSets do not require a selector (a
// missing one selects nothing).
void check_selector(const json::object& spec, std::string_view word, bool selector_required,
                    std::vector<status_cause>& causes) {
    const auto* sel = spec.if_contains("selector");
    const json::object* tmpl = nullptr;
    if (const auto* t = spec.if_contains("template"); t && t->is_object()) tmpl = &t->as_object();
    const json::object* labels = tmpl ? labels_at(*tmpl) : nullptr;
    if (!sel || !sel->is_object()) {
        if (selector_required) {
            causes.push_back(errors::field_required("spec.selector"));
        } else {
            causes.push_back(errors::field_invalid("spec.template.metadata.labels", go_string_map(labels),
                                                   "`selector` does not match template `labels`"));
        }
    } else if (auto parsed = selector_of(sel->as_object()); !parsed) {
        causes.push_back(errors::field_invalid("spec.selector", json::serialize(*sel), "invalid label selector"));
    } else {
        if (empty_selector(sel->as_object())) {
            causes.push_back(errors::field_invalid("spec.selector", go_label_selector(sel->as_object()),
                                                   "empty selector is invalid for " + std::string(word)));
        } else if (!parsed->matches(labels)) {
            causes.push_back(errors::field_invalid("spec.template.metadata.labels", go_string_map(labels),
                                                   "`selector` does not match template `labels`"));
        }
    }
}

namespace {

// The pod template's checks: containers required, ValidatePodSpec's modelled parts.
void check_pod_template(const json::object& spec, std::vector<status_cause>& causes) {
    const json::object* tmpl = nullptr;
    if (const auto* t = spec.if_contains("template"); t && t->is_object()) tmpl = &t->as_object();
    if (!tmpl) return;
    const auto* pod = tmpl->if_contains("spec");
    if (!pod || !pod->is_object()) return;
    const auto& ps = pod->as_object();
    const auto* cs = ps.if_contains("containers");
    if (!cs || !cs->is_array() || cs->as_array().empty()) {
        causes.push_back(errors::field_required("spec.template.spec.containers"));
    }
    append(causes, pod_spec_rules(ps, "spec.template.spec"));
}

void restart_always(const json::object& spec, std::vector<status_cause>& causes) {
    const auto* pod = find_path(spec, {"template", "spec"});
    if (!pod || !pod->is_object()) return;
    if (auto rp = str_at(pod->as_object(), "restartPolicy"); rp != "Always") {
        causes.push_back(errors::field_not_supported("spec.template.spec.restartPolicy", quoted(rp), {"Always"}));
    }
}

void non_negative(const json::object& spec, std::initializer_list<const char*> fields, std::vector<status_cause>& causes) {
    for (const char* f : fields) {
        if (auto v = int_at(spec, f); v && *v < 0) {
            causes.push_back(errors::field_invalid(std::string("spec.") + f, std::to_string(*v),
                                                   "must be greater than or equal to 0"));
        }
    }
}

void immutable(const json::object& spec, const json::object* old, std::string_view field, std::vector<status_cause>& causes) {
    if (!old) return;
    const auto* was = find_path(*old, {"spec", field});
    const auto* now = spec.if_contains(field);
    const json::value null_value;
    if ((was ? *was : null_value) != (now ? *now : null_value)) {
        causes.push_back(errors::field_invalid("spec." + std::string(field),
                                               now ? json::serialize(*now) : "null", "field is immutable"));
    }
}

void default_template(json::object& spec) {
    auto& tmpl = obj_at(spec, "template");
    default_pod_spec(obj_at(tmpl, "spec"));
}

// qos.GetPodQOS (pkg/apis/core/helper/qos): only cpu and memory count.
std::string qos_class(const json::object& pod_spec) {
    bool any = false, guaranteed = true;
    for (const char* list : {"containers", "initContainers"}) {
        const auto* cs = pod_spec.if_contains(list);
        if (!cs || !cs->is_array()) continue;
        for (const auto& c : cs->as_array()) {
            const auto* r = c.is_object() ? c.as_object().if_contains("resources") : nullptr;
            const json::object* req = nullptr;
            const json::object* lim = nullptr;
            if (r && r->is_object()) {
                if (const auto* v = r->as_object().if_contains("requests"); v && v->is_object()) req = &v->as_object();
                if (const auto* v = r->as_object().if_contains("limits"); v && v->is_object()) lim = &v->as_object();
            }
            for (const char* res : {"cpu", "memory"}) {
                const auto* rv = req ? req->if_contains(res) : nullptr;
                const auto* lv = lim ? lim->if_contains(res) : nullptr;
                any = any || rv || lv;
                // Quantities are compared as written (a real server compares values: 1 == 1000m).
                if (!lv || (rv && *rv != *lv)) guaranteed = false;
            }
        }
    }
    if (!any) return "BestEffort";
    return guaranteed ? "Guaranteed" : "Burstable";
}

} // namespace

// --- Pod ---------------------------------------------------------------------------

std::vector<status_cause> pod_rules(json::object& obj, const json::object* old) {
    std::vector<status_cause> causes;
    if (!old) obj["status"] = json::object{};  // before `spec` is taken: a later insert into obj would move it
    auto& spec = obj_at(obj, "spec");
    default_pod_spec(spec);
    if (!old) {
        // SetDefaults_Pod: requests default to limits (pods only, not templates).
        for (const char* list : {"containers", "initContainers"}) {
            auto* cs = spec.if_contains(list);
            if (!cs || !cs->is_array()) continue;
            for (auto& c : cs->as_array()) {
                if (!c.is_object()) continue;
                auto& res = obj_at(c.as_object(), "resources");
                const auto* found = res.if_contains("limits");
                if (!found || !found->is_object()) continue;
                const json::object limits = found->as_object();  // a copy: adding "requests" may move `res`'s values
                auto& req = obj_at(res, "requests");
                for (const auto& kv : limits) {
                    if (!req.contains(kv.key())) req[kv.key()] = kv.value();
                }
            }
        }
        set_default(spec, "enableServiceLinks", true);
        // Priority admission with no PriorityClass and no global default.
        set_default(spec, "priority", 0);
        set_default(spec, "preemptionPolicy", "PreemptLowerPriority");
        // DefaultTolerationSeconds admission: not-ready and unreachable, 300 s.
        auto& tol = spec["tolerations"];
        if (!tol.is_array()) tol = json::array{};
        bool not_ready = false, unreachable = false;
        for (const auto& t : tol.as_array()) {
            if (!t.is_object()) continue;
            auto key = str_at(t.as_object(), "key");
            auto effect = str_at(t.as_object(), "effect");
            bool no_exec = effect == "NoExecute" || effect.empty();
            not_ready = not_ready || ((key == "node.kubernetes.io/not-ready" || key.empty()) && no_exec);
            unreachable = unreachable || ((key == "node.kubernetes.io/unreachable" || key.empty()) && no_exec);
        }
        for (auto [key, have] : {std::pair{"node.kubernetes.io/not-ready", not_ready},
                                 std::pair{"node.kubernetes.io/unreachable", unreachable}}) {
            if (!have) {
                tol.as_array().push_back(json::object{{"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"},
                                                      {"tolerationSeconds", 300}});
            }
        }
        // podStrategy.PrepareForCreate.
        obj["status"] = json::object{{"phase", "Pending"}, {"qosClass", qos_class(spec)}};
    }
    const auto* cs = spec.if_contains("containers");
    if (!cs || !cs->is_array() || cs->as_array().empty()) causes.push_back(errors::field_required("spec.containers"));
    append(causes, pod_spec_rules(spec, "spec"));
    if (auto rp = str_at(spec, "restartPolicy"); rp != "Always" && rp != "OnFailure" && rp != "Never") {
        causes.push_back(errors::field_not_supported("spec.restartPolicy", quoted(rp), {"Always", "OnFailure", "Never"}));
    }
    return causes;
}

// --- apps/v1 ----------------------------------------------------------------------

std::vector<status_cause> replica_set_rules(json::object& obj, const json::object* old) {
    std::vector<status_cause> causes;
    if (!old) obj["status"] = json::object{};  // before `spec` is taken: a later insert into obj would move it
    auto& spec = obj_at(obj, "spec");
    set_default(spec, "replicas", 1);  // SetDefaults_ReplicaSet
    default_template(spec);
    if (!old) obj["status"] = json::object{{"replicas", 0}};  // ReplicaSetStatus.replicas has no omitempty
    non_negative(spec, {"replicas", "minReadySeconds"}, causes);
    check_selector(spec, "deployment", true, causes);  // ValidateReplicaSetSpec says "deployment" too
    check_pod_template(spec, causes);
    restart_always(spec, causes);
    immutable(spec, old, "selector", causes);  // replicaSetStrategy.ValidateUpdate (apps/v1)
    return causes;
}

std::vector<status_cause> stateful_set_rules(json::object& obj, const json::object* old) {
    std::vector<status_cause> causes;
    if (!old) obj["status"] = json::object{};  // before `spec` is taken: a later insert into obj would move it
    auto& spec = obj_at(obj, "spec");
    // SetDefaults_StatefulSet (StatefulSetAutoDeletePVC on; MaxUnavailableStatefulSet off in 1.32).
    set_default(spec, "podManagementPolicy", "OrderedReady");
    auto& strategy = obj_at(spec, "updateStrategy");
    if (str_at(strategy, "type").empty()) {
        strategy["type"] = "RollingUpdate";
        obj_at(strategy, "rollingUpdate");
    }
    if (str_at(strategy, "type") == "RollingUpdate") {
        if (auto* ru = strategy.if_contains("rollingUpdate"); ru && ru->is_object()) set_default(ru->as_object(), "partition", 0);
    }
    auto& retention = obj_at(spec, "persistentVolumeClaimRetentionPolicy");
    set_default(retention, "whenDeleted", "Retain");
    set_default(retention, "whenScaled", "Retain");
    set_default(spec, "replicas", 1);
    set_default(spec, "revisionHistoryLimit", 10);
    default_template(spec);
    if (!old) obj["status"] = json::object{{"replicas", 0}, {"availableReplicas", 0}};
    non_negative(spec, {"replicas", "minReadySeconds"}, causes);
    if (auto p = str_at(spec, "podManagementPolicy"); p != "OrderedReady" && p != "Parallel") {
        causes.push_back(errors::field_invalid("spec.podManagementPolicy", quoted(p),
                                               "must be 'OrderedReady' or 'Parallel'"));
    }
    // Re-read: the defaults above inserted into spec, which moves its values.
    if (auto t = str_at(spec.at("updateStrategy").as_object(), "type"); t != "RollingUpdate" && t != "OnDelete") {
        causes.push_back(errors::field_invalid("spec.updateStrategy", quoted(t), "must be 'RollingUpdate' or 'OnDelete'"));
    }
    check_selector(spec, "statefulset", true, causes);
    check_pod_template(spec, causes);
    restart_always(spec, causes);
    if (old) {
        // ValidateStatefulSetUpdate: only these may change.
        auto fixed = [](const json::value* s) {
            json::object o = s && s->is_object() ? s->as_object() : json::object{};
            for (const char* k : {"replicas", "ordinals", "template", "updateStrategy",
                                  "persistentVolumeClaimRetentionPolicy", "minReadySeconds"}) {
                o.erase(k);
            }
            return o;
        };
        const json::value now(spec);
        if (fixed(&now) != fixed(find_path(*old, {"spec"}))) {
            causes.push_back(errors::field_forbidden(
                "spec", "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
                        "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
        }
    }
    return causes;
}

std::vector<status_cause> daemon_set_rules(json::object& obj, const json::object* old) {
    std::vector<status_cause> causes;
    if (!old) obj["status"] = json::object{};  // before `spec` is taken: a later insert into obj would move it
    auto& spec = obj_at(obj, "spec");
    // SetDefaults_DaemonSet.
    auto& strategy = obj_at(spec, "updateStrategy");
    set_default(strategy, "type", "RollingUpdate");
    if (str_at(strategy, "type") == "RollingUpdate") {
        auto& ru = obj_at(strategy, "rollingUpdate");
        set_default(ru, "maxUnavailable", 1);
        set_default(ru, "maxSurge", 0);
    }
    set_default(spec, "revisionHistoryLimit", 10);
    default_template(spec);
    if (!old) {
        obj["status"] = json::object{{"currentNumberScheduled", 0}, {"numberMisscheduled", 0},
                                     {"desiredNumberScheduled", 0}, {"numberReady", 0}};
    }
    // daemonSetStrategy's TemplateGeneration, which apps/v1 carries in an
    // annotation: 1 on create (or what the client set, when higher), +1
    // whenever an update changes the template, otherwise the stored value.
    {
        constexpr std::string_view key = "deprecated.daemonset.template.generation";
        auto annotation_of = [&](const json::object& o) -> std::int64_t {
            const auto* v = find_path(o, {"metadata", "annotations", key});
            if (!v || !v->is_string()) return 0;
            try {
                return std::stoll(std::string(v->get_string()));
            } catch (...) {
                return 0;
            }
        };
        std::int64_t generation = std::max<std::int64_t>(annotation_of(obj), 1);
        if (old) {
            generation = annotation_of(*old);
            const auto* was = find_path(*old, {"spec", "template"});
            if (!was || *was != spec.at("template")) ++generation;
        }
        auto& annotations = obj_at(obj_at(obj, "metadata"), "annotations");
        annotations[key] = std::to_string(generation);
    }
    check_selector(spec, "daemonset", false, causes);
    check_pod_template(spec, causes);
    restart_always(spec, causes);
    if (find_path(spec, {"template", "spec", "activeDeadlineSeconds"})) {
        causes.push_back(errors::field_forbidden("spec.template.spec.activeDeadlineSeconds",
                                                 "activeDeadlineSeconds in DaemonSet is not Supported"));
    }
    non_negative(spec, {"minReadySeconds"}, causes);
    immutable(spec, old, "selector", causes);
    return causes;
}

// --- batch/v1 ---------------------------------------------------------------------

namespace {

// ValidateJobSpec's restart policy rule (a job's pods must end).
void job_restart_policy(const json::object& pod_spec, const std::string& base, std::vector<status_cause>& causes) {
    auto rp = str_at(pod_spec, "restartPolicy");
    if (rp == "Always" || rp.empty()) {
        causes.push_back(errors::field_required(base + ".restartPolicy", "valid values: \"OnFailure\", \"Never\""));
    } else if (rp != "OnFailure" && rp != "Never") {
        causes.push_back(errors::field_not_supported(base + ".restartPolicy", quoted(rp), {"OnFailure", "Never"}));
    }
}

} // namespace

std::vector<status_cause> job_rules(json::object& obj, const json::object* old) {
    std::vector<status_cause> causes;
    if (!old) obj["status"] = json::object{};  // before `spec` is taken: a later insert into obj would move it
    auto& spec = obj_at(obj, "spec");
    // SetDefaults_Job.
    if (!spec.contains("completions") && !spec.contains("parallelism")) spec["completions"] = 1;
    set_default(spec, "parallelism", 1);
    set_default(spec, "backoffLimit", spec.contains("backoffLimitPerIndex") ? 2147483647 : 6);
    set_default(spec, "completionMode", "NonIndexed");
    set_default(spec, "suspend", false);
    set_default(spec, "podReplacementPolicy", spec.contains("podFailurePolicy") ? "Failed" : "TerminatingOrFailed");
    set_default(spec, "manualSelector", false);
    default_template(spec);
    if (!old) {
        // jobStrategy.PrepareForCreate: generateSelector unless manualSelector.
        if (!(spec.at("manualSelector").is_bool() && spec.at("manualSelector").get_bool())) {
            const std::string uid(uid_of(obj)), name(name_of(obj));
            auto& labels = obj_at(obj_at(obj_at(spec, "template"), "metadata"), "labels");
            for (auto [k, v] : {std::pair{"batch.kubernetes.io/controller-uid", uid},
                                std::pair{"batch.kubernetes.io/job-name", name}, std::pair{"controller-uid", uid},
                                std::pair{"job-name", name}}) {
                if (!labels.contains(k)) labels[k] = v;
            }
            auto& ml = obj_at(obj_at(spec, "selector"), "matchLabels");
            if (!ml.contains("batch.kubernetes.io/controller-uid")) ml["batch.kubernetes.io/controller-uid"] = uid;
        }
        obj["status"] = json::object{};
    }
    // SetDefaults_Job, as the object is read back from storage: a job
    // without labels shows its template's.
    if (const auto* tl = find_path(spec, {"template", "metadata", "labels"}); tl && tl->is_object()) {
        auto& md = obj_at(obj, "metadata");
        const auto* l = md.if_contains("labels");
        if (!l || !l->is_object() || l->as_object().empty()) md["labels"] = *tl;
    }
    non_negative(spec, {"parallelism", "completions", "backoffLimit", "activeDeadlineSeconds", "ttlSecondsAfterFinished"},
                 causes);
    const auto* sel = spec.if_contains("selector");
    if (!sel || !sel->is_object()) {
        causes.push_back(errors::field_required("spec.selector"));
    } else if (auto parsed = selector_of(sel->as_object()); !parsed) {
        causes.push_back(errors::field_invalid("spec.selector", json::serialize(*sel), "invalid label selector"));
    } else if (const auto* t = spec.if_contains("template"); t && t->is_object() && !parsed->matches(labels_at(t->as_object()))) {
        causes.push_back(errors::field_invalid("spec.template.metadata.labels", go_string_map(labels_at(t->as_object())),
                                               "`selector` does not match template `labels`"));
    }
    if (const auto* pod = find_path(spec, {"template", "spec"}); pod && pod->is_object()) {
        const auto* cs = pod->as_object().if_contains("containers");
        if (!cs || !cs->is_array() || cs->as_array().empty()) {
            causes.push_back(errors::field_required("spec.template.spec.containers"));
        }
        append(causes, pod_spec_rules(pod->as_object(), "spec.template.spec"));
        job_restart_policy(pod->as_object(), "spec.template.spec", causes);
    }
    if (auto m = str_at(spec, "completionMode"); m != "NonIndexed" && m != "Indexed") {
        causes.push_back(errors::field_not_supported("spec.completionMode", quoted(m), {"NonIndexed", "Indexed"}));
    }
    // ValidateJobSpecUpdate.
    for (const char* f : {"selector", "completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy",
                          "successPolicy"}) {
        immutable(spec, old, f, causes);
    }
    if (old && !(spec.contains("suspend") && spec.at("suspend") == json::value(true))) {
        immutable(spec, old, "template", causes);
    }
    return causes;
}

std::vector<status_cause> cron_job_rules(json::object& obj, const json::object* old) {
    std::vector<status_cause> causes;
    if (!old) obj["status"] = json::object{};  // before `spec` is taken: a later insert into obj would move it
    auto& spec = obj_at(obj, "spec");
    // SetDefaults_CronJob.
    set_default(spec, "concurrencyPolicy", "Allow");
    set_default(spec, "suspend", false);
    set_default(spec, "successfulJobsHistoryLimit", 3);
    set_default(spec, "failedJobsHistoryLimit", 1);
    auto& job_spec = obj_at(obj_at(spec, "jobTemplate"), "spec");
    default_template(job_spec);
    if (!old) obj["status"] = json::object{};
    // ValidateCronJobCreate: the name leaves room for the jobs' 11-character suffix.
    if (auto n = name_of(obj); !old && n.size() > 52) {
        causes.push_back(errors::field_invalid("metadata.name", quoted(n), "must be no more than 52 characters"));
    }
    if (auto sched = str_at(spec, "schedule"); sched.empty()) {
        causes.push_back(errors::field_required("spec.schedule"));
    } else if (!sched.starts_with('@')) {
        // robfig/cron ParseStandard's field count (the fields' own syntax is not checked here).
        std::vector<std::string> fields;
        std::size_t i = 0;
        while (i < sched.size()) {
            while (i < sched.size() && (sched[i] == ' ' || sched[i] == '\t')) ++i;
            std::size_t j = i;
            while (j < sched.size() && sched[j] != ' ' && sched[j] != '\t') ++j;
            if (j > i) fields.push_back(sched.substr(i, j - i));
            i = j;
        }
        if (fields.size() != 5) {
            std::string list;
            for (const auto& f : fields) list += (list.empty() ? "" : " ") + f;
            causes.push_back(errors::field_invalid("spec.schedule", quoted(sched),
                                                   "expected exactly 5 fields, found " + std::to_string(fields.size()) +
                                                       ": [" + list + "]"));
        }
    }
    if (auto c = str_at(spec, "concurrencyPolicy"); c != "Allow" && c != "Forbid" && c != "Replace") {
        causes.push_back(errors::field_not_supported("spec.concurrencyPolicy", quoted(c), {"Allow", "Forbid", "Replace"}));
    }
    non_negative(spec, {"startingDeadlineSeconds", "successfulJobsHistoryLimit", "failedJobsHistoryLimit"}, causes);
    if (const auto* pod = find_path(job_spec, {"template", "spec"}); pod && pod->is_object()) {
        const auto* cs = pod->as_object().if_contains("containers");
        if (!cs || !cs->is_array() || cs->as_array().empty()) {
            causes.push_back(errors::field_required("spec.jobTemplate.spec.template.spec.containers"));
        }
        append(causes, pod_spec_rules(pod->as_object(), "spec.jobTemplate.spec.template.spec"));
        job_restart_policy(pod->as_object(), "spec.jobTemplate.spec.template.spec", causes);
    }
    return causes;
}

} // namespace kcoro::apiserver
