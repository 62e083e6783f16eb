// The known-field tables follow the Go types (k8s.io/api/{core,apps,
// coordination,events}/v1/types.go, apimachinery meta/v1 types.go); the
// unknown-field reporting follows the strict JSON decoder
// (sigs.k8s.io/json, used by runtime/serializer/json) and
// runtime.DefaultUnstructuredConverter, which drop what the type lacks.
#include "store/builtin_decoder.hpp"

#include <kcoro/core/strategic_merge_patch.hpp>

#include <boost/json/serialize.hpp>

#include <cctype>
#include <map>
#include <string_view>

namespace kcoro::apiserver {
namespace json = boost::json;

namespace {

// A type reference: "s" scalar (any JSON scalar; types are not checked),
// "t" metav1.Time, "mt" metav1.MicroTime, "any" (not descended into),
// "map" (map of anything), "[X]" a list of X, or a struct name.
using fields = std::map<std::string, std::string, std::less<>>;

const std::map<std::string, fields, std::less<>>& types() {
    static const std::map<std::string, fields, std::less<>> t = [] {
        std::map<std::string, fields, std::less<>> m;
        m["ObjectMeta"] = {{"name", "s"}, {"generateName", "s"}, {"namespace", "s"}, {"selfLink", "s"},
                           {"uid", "s"}, {"resourceVersion", "s"}, {"generation", "s"},
                           {"creationTimestamp", "t"}, {"deletionTimestamp", "t"},
                           {"deletionGracePeriodSeconds", "s"}, {"labels", "map"}, {"annotations", "map"},
                           {"ownerReferences", "[OwnerReference]"}, {"finalizers", "[s]"},
                           {"managedFields", "[ManagedFieldsEntry]"}};
        m["OwnerReference"] = {{"apiVersion", "s"}, {"kind", "s"}, {"name", "s"}, {"uid", "s"},
                               {"controller", "s"}, {"blockOwnerDeletion", "s"}};
        m["ManagedFieldsEntry"] = {{"manager", "s"}, {"operation", "s"}, {"apiVersion", "s"}, {"time", "t"},
                                   {"fieldsType", "s"}, {"fieldsV1", "any"}, {"subresource", "s"}};
        m["ObjectReference"] = {{"kind", "s"}, {"namespace", "s"}, {"name", "s"}, {"uid", "s"},
                                {"apiVersion", "s"}, {"resourceVersion", "s"}, {"fieldPath", "s"}};
        m["LocalObjectReference"] = {{"name", "s"}};
        m["LabelSelector"] = {{"matchLabels", "map"}, {"matchExpressions", "[LabelSelectorRequirement]"}};
        m["LabelSelectorRequirement"] = {{"key", "s"}, {"operator", "s"}, {"values", "[s]"}};
        // core/v1
        m["ConfigMap"] = {{"data", "map"}, {"binaryData", "bytesmap"}, {"immutable", "s"}};
        m["Secret"] = {{"data", "bytesmap"}, {"stringData", "map"}, {"type", "s"}, {"immutable", "s"}};
        m["Namespace"] = {{"spec", "NamespaceSpec"}, {"status", "NamespaceStatus"}};
        m["NamespaceSpec"] = {{"finalizers", "[s]"}};
        m["NamespaceStatus"] = {{"phase", "s"}, {"conditions", "[NamespaceCondition]"}};
        m["NamespaceCondition"] = {{"type", "s"}, {"status", "s"}, {"lastTransitionTime", "t"},
                                   {"reason", "s"}, {"message", "s"}};
        m["ServiceAccount"] = {{"secrets", "[ObjectReference]"}, {"imagePullSecrets", "[LocalObjectReference]"},
                               {"automountServiceAccountToken", "s"}};
        m["Service"] = {{"spec", "ServiceSpec"}, {"status", "ServiceStatus"}};
        m["ServiceSpec"] = {{"ports", "[ServicePort]"}, {"selector", "map"}, {"clusterIP", "s"},
                            {"clusterIPs", "[s]"}, {"type", "s"}, {"externalIPs", "[s]"},
                            {"sessionAffinity", "s"}, {"loadBalancerIP", "s"}, {"loadBalancerSourceRanges", "[s]"},
                            {"externalName", "s"}, {"externalTrafficPolicy", "s"}, {"healthCheckNodePort", "s"},
                            {"publishNotReadyAddresses", "s"}, {"sessionAffinityConfig", "any"},
                            {"ipFamilies", "[s]"}, {"ipFamilyPolicy", "s"}, {"allocateLoadBalancerNodePorts", "s"},
                            {"loadBalancerClass", "s"}, {"internalTrafficPolicy", "s"}, {"trafficDistribution", "s"}};
        m["ServicePort"] = {{"name", "s"}, {"protocol", "s"}, {"appProtocol", "s"}, {"port", "s"},
                            {"targetPort", "s"}, {"nodePort", "s"}};
        m["ServiceStatus"] = {{"loadBalancer", "any"}, {"conditions", "[any]"}};
        m["EventSource"] = {{"component", "s"}, {"host", "s"}};
        m["CoreEventSeries"] = {{"count", "s"}, {"lastObservedTime", "mt"}};
        m["Event"] = {{"involvedObject", "ObjectReference"}, {"reason", "s"}, {"message", "s"},
                      {"source", "EventSource"}, {"firstTimestamp", "t"}, {"lastTimestamp", "t"},
                      {"count", "s"}, {"type", "s"}, {"eventTime", "mt"}, {"series", "CoreEventSeries"},
                      {"action", "s"}, {"related", "ObjectReference"}, {"reportingComponent", "s"},
                      {"reportingInstance", "s"}};
        // events.k8s.io/v1
        m["events.Event"] = {{"eventTime", "mt"}, {"series", "CoreEventSeries"}, {"reportingController", "s"},
                             {"reportingInstance", "s"}, {"action", "s"}, {"reason", "s"},
                             {"regarding", "ObjectReference"}, {"related", "ObjectReference"}, {"note", "s"},
                             {"type", "s"}, {"deprecatedSource", "EventSource"},
                             {"deprecatedFirstTimestamp", "t"}, {"deprecatedLastTimestamp", "t"},
                             {"deprecatedCount", "s"}};
        // coordination/v1
        m["Lease"] = {{"spec", "LeaseSpec"}};
        m["LeaseSpec"] = {{"holderIdentity", "s"}, {"leaseDurationSeconds", "s"}, {"acquireTime", "mt"},
                          {"renewTime", "mt"}, {"leaseTransitions", "s"}, {"strategy", "s"},
                          {"preferredHolder", "s"}};
        // apps/v1
        m["Deployment"] = {{"spec", "DeploymentSpec"}, {"status", "DeploymentStatus"}};
        m["DeploymentSpec"] = {{"replicas", "s"}, {"selector", "LabelSelector"}, {"template", "PodTemplateSpec"},
                               {"strategy", "DeploymentStrategy"}, {"minReadySeconds", "s"},
                               {"revisionHistoryLimit", "s"}, {"paused", "s"}, {"progressDeadlineSeconds", "s"}};
        m["DeploymentStrategy"] = {{"type", "s"}, {"rollingUpdate", "RollingUpdateDeployment"}};
        m["RollingUpdateDeployment"] = {{"maxUnavailable", "s"}, {"maxSurge", "s"}};
        m["DeploymentStatus"] = {{"observedGeneration", "s"}, {"replicas", "s"}, {"updatedReplicas", "s"},
                                 {"readyReplicas", "s"}, {"availableReplicas", "s"}, {"unavailableReplicas", "s"},
                                 {"terminatingReplicas", "s"}, {"conditions", "[DeploymentCondition]"},
                                 {"collisionCount", "s"}};
        m["DeploymentCondition"] = {{"type", "s"}, {"status", "s"}, {"lastUpdateTime", "t"},
                                    {"lastTransitionTime", "t"}, {"reason", "s"}, {"message", "s"}};
        m["PodTemplateSpec"] = {{"metadata", "ObjectMeta"}, {"spec", "PodSpec"}};
        m["PodSpec"] = {{"volumes", "[Volume]"}, {"initContainers", "[Container]"}, {"containers", "[Container]"},
                        {"ephemeralContainers", "[EphemeralContainer]"}, {"restartPolicy", "s"},
                        {"terminationGracePeriodSeconds", "s"}, {"activeDeadlineSeconds", "s"},
                        {"dnsPolicy", "s"}, {"nodeSelector", "map"}, {"serviceAccountName", "s"},
                        {"serviceAccount", "s"}, {"automountServiceAccountToken", "s"}, {"nodeName", "s"},
                        {"hostNetwork", "s"}, {"hostPID", "s"}, {"hostIPC", "s"}, {"shareProcessNamespace", "s"},
                        {"securityContext", "any"}, {"imagePullSecrets", "[LocalObjectReference]"},
                        {"hostname", "s"}, {"subdomain", "s"}, {"affinity", "any"}, {"schedulerName", "s"},
                        {"tolerations", "[Toleration]"}, {"hostAliases", "[HostAlias]"},
                        {"priorityClassName", "s"}, {"priority", "s"}, {"dnsConfig", "any"},
                        {"readinessGates", "[PodReadinessGate]"}, {"runtimeClassName", "s"},
                        {"enableServiceLinks", "s"}, {"preemptionPolicy", "s"}, {"overhead", "map"},
                        {"topologySpreadConstraints", "[any]"}, {"setHostnameAsFQDN", "s"}, {"os", "PodOS"},
                        {"hostUsers", "s"}, {"schedulingGates", "[LocalObjectReference]"},
                        {"resourceClaims", "[any]"}, {"resources", "any"}, {"hostnameOverride", "s"}};
        m["Toleration"] = {{"key", "s"}, {"operator", "s"}, {"value", "s"}, {"effect", "s"},
                           {"tolerationSeconds", "s"}};
        m["HostAlias"] = {{"ip", "s"}, {"hostnames", "[s]"}};
        m["PodReadinessGate"] = {{"conditionType", "s"}};
        m["PodOS"] = {{"name", "s"}};
        fields container = {{"name", "s"}, {"image", "s"}, {"command", "[s]"}, {"args", "[s]"},
                            {"workingDir", "s"}, {"ports", "[ContainerPort]"}, {"envFrom", "[any]"},
                            {"env", "[EnvVar]"}, {"resources", "any"}, {"resizePolicy", "[any]"},
                            {"restartPolicy", "s"}, {"restartPolicyRules", "[any]"},
                            {"volumeMounts", "[VolumeMount]"}, {"volumeDevices", "[VolumeDevice]"},
                            {"livenessProbe", "any"}, {"readinessProbe", "any"}, {"startupProbe", "any"},
                            {"lifecycle", "any"}, {"terminationMessagePath", "s"},
                            {"terminationMessagePolicy", "s"}, {"imagePullPolicy", "s"},
                            {"securityContext", "any"}, {"stdin", "s"}, {"stdinOnce", "s"}, {"tty", "s"}};
        m["Container"] = container;
        container["targetContainerName"] = "s";
        m["EphemeralContainer"] = container;
        m["ContainerPort"] = {{"name", "s"}, {"hostPort", "s"}, {"containerPort", "s"}, {"protocol", "s"},
                              {"hostIP", "s"}};
        m["EnvVar"] = {{"name", "s"}, {"value", "s"}, {"valueFrom", "any"}};
        m["VolumeMount"] = {{"name", "s"}, {"readOnly", "s"}, {"recursiveReadOnly", "s"}, {"mountPath", "s"},
                            {"subPath", "s"}, {"mountPropagation", "s"}, {"subPathExpr", "s"}};
        m["VolumeDevice"] = {{"name", "s"}, {"devicePath", "s"}};
        fields volume{{"name", "s"}};
        for (const char* src : {"hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo",
                                "secret", "nfs", "iscsi", "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume",
                                "cinder", "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap",
                                "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected",
                                "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image"}) {
            volume[src] = "any";
        }
        m["Volume"] = volume;
        // The kinds of add_workload_kinds (issue 23): the structures down to
        // the pod template are known; deeper ones the server does not
        // interpret are taken whole ("any").
        m["Pod"] = {{"spec", "PodSpec"}, {"status", "any"}};
        m["ReplicaSet"] = {{"spec", "ReplicaSetSpec"}, {"status", "any"}};
        m["ReplicaSetSpec"] = {{"replicas", "s"}, {"minReadySeconds", "s"}, {"selector", "LabelSelector"},
                               {"template", "PodTemplateSpec"}};
        m["StatefulSet"] = {{"spec", "StatefulSetSpec"}, {"status", "any"}};
        m["StatefulSetSpec"] = {{"replicas", "s"}, {"selector", "LabelSelector"}, {"template", "PodTemplateSpec"},
                                {"volumeClaimTemplates", "[any]"}, {"serviceName", "s"},
                                {"podManagementPolicy", "s"}, {"updateStrategy", "any"},
                                {"revisionHistoryLimit", "s"}, {"minReadySeconds", "s"},
                                {"persistentVolumeClaimRetentionPolicy", "any"}, {"ordinals", "any"}};
        m["DaemonSet"] = {{"spec", "DaemonSetSpec"}, {"status", "any"}};
        m["DaemonSetSpec"] = {{"selector", "LabelSelector"}, {"template", "PodTemplateSpec"},
                              {"updateStrategy", "any"}, {"minReadySeconds", "s"}, {"revisionHistoryLimit", "s"}};
        m["Job"] = {{"spec", "JobSpec"}, {"status", "any"}};
        m["JobSpec"] = {{"parallelism", "s"}, {"completions", "s"}, {"activeDeadlineSeconds", "s"},
                        {"podFailurePolicy", "any"}, {"successPolicy", "any"}, {"backoffLimit", "s"},
                        {"backoffLimitPerIndex", "s"}, {"maxFailedIndexes", "s"}, {"selector", "LabelSelector"},
                        {"manualSelector", "s"}, {"template", "PodTemplateSpec"}, {"ttlSecondsAfterFinished", "s"},
                        {"completionMode", "s"}, {"suspend", "s"}, {"podReplacementPolicy", "s"},
                        {"managedBy", "s"}};
        m["CronJob"] = {{"spec", "CronJobSpec"}, {"status", "any"}};
        m["CronJobSpec"] = {{"schedule", "s"}, {"timeZone", "s"}, {"startingDeadlineSeconds", "s"},
                            {"concurrencyPolicy", "s"}, {"suspend", "s"}, {"jobTemplate", "JobTemplateSpec"},
                            {"successfulJobsHistoryLimit", "s"}, {"failedJobsHistoryLimit", "s"}};
        m["JobTemplateSpec"] = {{"metadata", "ObjectMeta"}, {"spec", "JobSpec"}};
        m["Endpoints"] = {{"subsets", "[any]"}};
        m["EndpointSlice"] = {{"addressType", "s"}, {"endpoints", "[any]"}, {"ports", "[any]"}};
        m["PersistentVolumeClaim"] = {{"spec", "any"}, {"status", "any"}};
        m["Node"] = {{"spec", "any"}, {"status", "any"}};
        m["LimitRange"] = {{"spec", "any"}};
        m["ResourceQuota"] = {{"spec", "any"}, {"status", "any"}};
        m["Ingress"] = {{"spec", "any"}, {"status", "any"}};
        m["NetworkPolicy"] = {{"spec", "any"}};
        m["PolicyRule"] = {{"verbs", "[s]"}, {"apiGroups", "[s]"}, {"resources", "[s]"}, {"resourceNames", "[s]"},
                           {"nonResourceURLs", "[s]"}};
        m["Role"] = {{"rules", "[PolicyRule]"}};
        m["ClusterRole"] = {{"rules", "[PolicyRule]"}, {"aggregationRule", "any"}};
        m["Subject"] = {{"kind", "s"}, {"apiGroup", "s"}, {"name", "s"}, {"namespace", "s"}};
        m["RoleRef"] = {{"apiGroup", "s"}, {"kind", "s"}, {"name", "s"}};
        m["RoleBinding"] = {{"subjects", "[Subject]"}, {"roleRef", "RoleRef"}};
        m["ClusterRoleBinding"] = m["RoleBinding"];
        m["PodDisruptionBudget"] = {{"spec", "PodDisruptionBudgetSpec"}, {"status", "any"}};
        m["PodDisruptionBudgetSpec"] = {{"minAvailable", "s"}, {"selector", "LabelSelector"},
                                        {"maxUnavailable", "s"}, {"unhealthyPodEvictionPolicy", "s"}};
        // apiextensions/v1: the CRD's own validation judges spec and status.
        m["CustomResourceDefinition"] = {{"spec", "any"}, {"status", "any"}};
        return m;
    }();
    return t;
}

// base64.StdEncoding.Decode's CorruptInputError offset, or nullopt.
std::optional<std::size_t> bad_base64_at(std::string_view s) {
    auto is_b64 = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/'; };
    std::size_t i = 0;
    for (; i < s.size(); ++i) {
        if (s[i] == '=') break;
        if (s[i] == '\r' || s[i] == '\n') continue;  // newlines are ignored
        if (!is_b64(s[i])) return i;
    }
    if (i < s.size()) {
        // padding: only at the end of a quantum, and nothing after it
        std::size_t quantum = i % 4;
        if (quantum < 2) return i;
        std::size_t pads = quantum == 2 ? 2 : 1;
        for (std::size_t k = 0; k < pads; ++k) {
            if (i + k >= s.size() || s[i + k] != '=') return std::min(i + k, s.size());
        }
        if (i + pads != s.size()) return i + pads;
        return std::nullopt;
    }
    if (s.size() % 4 != 0) return s.size() - s.size() % 4;  // an incomplete last quantum
    return std::nullopt;
}

struct walker {
    explicit walker(decode_result& o) : out(o) {}
    decode_result& out;
    // For server-side apply's wording: structured-merge-diff paths
    // (".spec.containers[name=\"c\"].x"), list-map items named by their keys.
    const list_strategies* smd = nullptr;
    std::vector<std::string>* smd_unknown = nullptr;
    std::string smd_path;     // current SMD path
    std::string schema_path;  // dotted field names, for the list strategies

    void type(json::value& v, std::string_view ref, const std::string& path) {
        if (ref == "s" || ref == "any" || ref == "map" || v.is_null()) return;
        if (ref == "bytesmap") {
            // map[string][]byte: encoding/json decodes each value as StdEncoding base64.
            if (!v.is_object() || out.error) return;
            for (const auto& kv : v.get_object()) {
                if (!kv.value().is_string()) continue;
                if (auto at = bad_base64_at(kv.value().get_string())) {
                    out.error = "illegal base64 data at input byte " + std::to_string(*at);
                    return;
                }
            }
            return;
        }
        if (ref == "t" || ref == "mt") {
            if (v.is_string() && !out.error) {
                if (auto e = check_go_time(v.get_string(), ref == "mt")) out.error = *e;
            }
            return;
        }
        if (ref.starts_with('[')) {
            auto* arr = v.if_array();
            if (!arr) return;
            std::string_view elem = ref.substr(1, ref.size() - 2);
            const list_strategy* ls = nullptr;
            if (smd) {
                auto li = smd->find(schema_path);
                if (li != smd->end() && li->second.type == list_type::map) ls = &li->second;
            }
            const std::string saved = smd_path;
            for (std::size_t i = 0; i < arr->size(); ++i) {
                if (smd) smd_path = saved + element_name((*arr)[i], ls, i);
                type((*arr)[i], elem, path + "[" + std::to_string(i) + "]");
            }
            smd_path = saved;
            return;
        }
        auto* obj = v.if_object();
        if (!obj) return;
        const auto& t = types();
        auto it = t.find(ref);
        if (it == t.end()) return;
        strct(*obj, it->second, path);
    }

    // fieldpath.PathElement's String(): [k="v",k2=80] for keyed items, [i] otherwise.
    static std::string element_name(const json::value& item, const list_strategy* ls, std::size_t i) {
        const auto* o = item.if_object();
        if (!ls || !o) return "[" + std::to_string(i) + "]";
        std::string out = "[";
        bool first = true;
        for (const auto& k : ls->map_keys) {
            const auto* v = o->if_contains(k);
            if (!v) continue;
            if (!first) out += ",";
            first = false;
            out += k + "=" + json::serialize(*v);
        }
        return out + "]";
    }

    void strct(json::object& obj, const fields& f, const std::string& path) {
        const std::string saved_smd = smd_path, saved_schema = schema_path;
        for (auto it = obj.begin(); it != obj.end();) {
            std::string child = path.empty() ? std::string(it->key()) : path + "." + std::string(it->key());
            if (smd) {
                smd_path = saved_smd + "." + std::string(it->key());
                schema_path = saved_schema.empty() ? std::string(it->key()) : saved_schema + "." + std::string(it->key());
            }
            auto fi = f.find(it->key());
            if (fi == f.end()) {
                if (smd_unknown) smd_unknown->push_back(smd_path);
                out.unknown_fields.push_back(std::move(child));
                it = obj.stable_erase(it);  // the others keep their order
                continue;
            }
            type(it->value(), fi->second, child);
            ++it;
        }
        smd_path = saved_smd;
        schema_path = saved_schema;
    }
};

// The Go type of a served kind.
const fields* root_of(const resource_def& def) {
    const auto& t = types();
    std::string name = def.gvr.group == "events.k8s.io" ? "events." + def.kind : def.kind;
    auto it = t.find(name);
    return it == t.end() ? nullptr : &it->second;
}

// --- time.Parse, for the layouts metav1.Time and MicroTime use -------------------

bool digits(std::string_view s, std::size_t at, std::size_t n) {
    if (s.size() < at + n) return false;
    for (std::size_t i = at; i < at + n; ++i) {
        if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    }
    return true;
}

int num(std::string_view s, std::size_t at, std::size_t n) {
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) v = v * 10 + (s[i] - '0');
    return v;
}

} // namespace

field_validation field_validation_from(std::string_view text) {
    if (text == "Strict") return field_validation::strict;
    if (text == "Ignore") return field_validation::ignore;
    return field_validation::warn;
}

std::optional<std::string> check_go_time(std::string_view v, bool micro) {
    // time.Parse walks the layout element by element; an element that does
    // not match reports the rest of the value against that element.
    const std::string layout = micro ? "2006-01-02T15:04:05.000000Z07:00" : "2006-01-02T15:04:05Z07:00";
    auto quote = [](std::string_view s) { return json::serialize(json::value(s)); };
    auto bad = [&](std::size_t at, std::string_view elem) {
        return "parsing time " + quote(v) + " as " + quote(layout) + ": cannot parse " + quote(v.substr(std::min(at, v.size()))) +
               " as " + quote(elem);
    };
    auto range = [&](std::string_view what) { return "parsing time " + quote(v) + ": " + std::string(what) + " out of range"; };
    std::size_t p = 0;
    // year
    if (!digits(v, 0, 4)) return bad(0, "2006");
    p = 4;
    auto lit = [&](char c, const char* elem) -> std::optional<std::string> {
        if (p >= v.size() || v[p] != c) return bad(p, elem);
        ++p;
        return std::nullopt;
    };
    auto two = [&](const char* elem) -> std::optional<std::string> {
        if (!digits(v, p, 2)) return bad(p, elem);
        p += 2;
        return std::nullopt;
    };
    if (auto e = lit('-', "-")) return e;
    if (auto e = two("01")) return e;
    int month = num(v, p - 2, 2);
    if (auto e = lit('-', "-")) return e;
    if (auto e = two("02")) return e;
    int day = num(v, p - 2, 2);
    if (auto e = lit('T', "T")) return e;
    if (auto e = two("15")) return e;
    int hour = num(v, p - 2, 2);
    if (auto e = lit(':', ":")) return e;
    if (auto e = two("04")) return e;
    int minute = num(v, p - 2, 2);
    if (auto e = lit(':', ":")) return e;
    if (auto e = two("05")) return e;
    int second = num(v, p - 2, 2);
    if (micro) {
        // stdFracSecond0 with 6 digits: exactly '.' and six digits.
        if (v.size() < p + 7 || v[p] != '.' || !digits(v, p + 1, 6)) return bad(p, ".000000");
        p += 7;
    } else if (p < v.size() && (v[p] == '.' || v[p] == ',') && p + 1 < v.size() &&
               std::isdigit(static_cast<unsigned char>(v[p + 1]))) {
        // A fraction the layout does not name is accepted after seconds.
        ++p;
        while (p < v.size() && std::isdigit(static_cast<unsigned char>(v[p]))) ++p;
    }
    // Z07:00
    if (p < v.size() && v[p] == 'Z') {
        ++p;
    } else {
        if (v.size() < p + 6 || (v[p] != '+' && v[p] != '-') || !digits(v, p + 1, 2) || v[p + 3] != ':' ||
            !digits(v, p + 4, 2)) {
            return bad(p, "Z07:00");
        }
        p += 6;
    }
    if (p != v.size()) {
        return "parsing time " + quote(v) + ": extra text: " + quote(v.substr(p));
    }
    if (month < 1 || month > 12) return range("month");
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int year = num(v, 0, 4);
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    int maxd = month == 2 ? (leap ? 29 : 28) : mdays[month - 1];
    if (day < 1 || day > maxd) return range("day");
    if (hour > 23) return range("hour");
    if (minute > 59) return range("minute");
    if (second > 59) return range("second");
    return std::nullopt;
}

decode_result decode_builtin(const resource_def& def, json::object& obj) {
    decode_result r;
    if (def.schema || !def.crd_name.empty()) return r;  // custom resources: the schema prunes
    const fields* root = root_of(def);
    if (!root) return r;
    fields top = *root;
    top.emplace("apiVersion", "s");
    top.emplace("kind", "s");
    top.emplace("metadata", "ObjectMeta");
    walker(r).strct(obj, top, "");
    return r;
}

std::optional<std::string> apply_configuration_error(const resource_def& def, const json::object& config) {
    if (def.schema || !def.crd_name.empty()) return std::nullopt;
    const fields* root = root_of(def);
    if (!root) return std::nullopt;
    fields top = *root;
    top.emplace("apiVersion", "s");
    top.emplace("kind", "s");
    top.emplace("metadata", "ObjectMeta");
    json::object copy = config;
    decode_result r;
    std::vector<std::string> paths;
    walker w(r);
    w.smd = &builtin_list_strategies(def.kind);
    w.smd_unknown = &paths;
    w.strct(copy, top, "");
    if (paths.empty()) return std::nullopt;
    // structuredmerge.go: "failed to create typed patch object (ns/name; gvk): <ValidationErrors>"
    std::string gvk = def.gvr.group + "/" + def.gvr.version + ", Kind=" + def.kind;
    const json::object* meta = nullptr;
    if (const auto* m = config.if_contains("metadata"); m && m->is_object()) meta = &m->get_object();
    auto meta_str = [&](std::string_view k) {
        const auto* v = meta ? meta->if_contains(k) : nullptr;
        return v && v->is_string() ? std::string(v->get_string()) : std::string{};
    };
    std::string msg = "failed to create typed patch object (" + meta_str("namespace") + "/" + meta_str("name") + "; " + gvk + "): ";
    if (paths.size() == 1) return msg + paths[0] + ": field not declared in schema";
    msg += "errors:";
    for (const auto& p : paths) msg += "\n  " + p + ": field not declared in schema";
    return msg;
}

std::string strict_decoding_error(const std::vector<std::string>& unknown) {
    std::string out = "strict decoding error: ";
    for (std::size_t i = 0; i < unknown.size(); ++i) {
        if (i) out += ", ";
        out += "unknown field " + json::serialize(json::value(unknown[i]));
    }
    return out;
}

} // namespace kcoro::apiserver
