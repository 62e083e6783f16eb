#include <kcoro/core/resource_table.hpp>

#include <algorithm>

namespace kcoro {

namespace {

resource_info entry(std::string group, std::string version, std::string plural, std::string kind, bool namespaced,
                    bool status = false, bool scale = false) {
    resource_info r;
    r.gvr = {std::move(group), std::move(version), std::move(plural)};
    r.kind = std::move(kind);
    r.namespaced = namespaced;
    r.has_status = status;
    r.has_scale = scale;
    r.verbs = {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
    return r;
}

} // namespace

resource_table resource_table::builtin() {
    constexpr bool ns = true, cluster = false, status = true, scale = true;
    resource_table t;
    for (auto& r : {
             entry("", "v1", "configmaps", "ConfigMap", ns),
             entry("", "v1", "secrets", "Secret", ns),
             entry("", "v1", "services", "Service", ns, status),
             entry("", "v1", "serviceaccounts", "ServiceAccount", ns),
             entry("", "v1", "pods", "Pod", ns, status),
             entry("", "v1", "endpoints", "Endpoints", ns),
             entry("", "v1", "events", "Event", ns),
             entry("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", ns, status),
             entry("", "v1", "replicationcontrollers", "ReplicationController", ns, status, scale),
             entry("", "v1", "resourcequotas", "ResourceQuota", ns, status),
             entry("", "v1", "limitranges", "LimitRange", ns),
             entry("", "v1", "namespaces", "Namespace", cluster, status),
             entry("", "v1", "nodes", "Node", cluster, status),
             entry("", "v1", "persistentvolumes", "PersistentVolume", cluster, status),
             entry("apps", "v1", "deployments", "Deployment", ns, status, scale),
             entry("apps", "v1", "replicasets", "ReplicaSet", ns, status, scale),
             entry("apps", "v1", "statefulsets", "StatefulSet", ns, status, scale),
             entry("apps", "v1", "daemonsets", "DaemonSet", ns, status),
             entry("apps", "v1", "controllerrevisions", "ControllerRevision", ns),
             entry("batch", "v1", "jobs", "Job", ns, status),
             entry("batch", "v1", "cronjobs", "CronJob", ns, status),
             entry("coordination.k8s.io", "v1", "leases", "Lease", ns),
             entry("events.k8s.io", "v1", "events", "Event", ns),
             entry("networking.k8s.io", "v1", "ingresses", "Ingress", ns, status),
             entry("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", ns),
             entry("networking.k8s.io", "v1", "ingressclasses", "IngressClass", cluster),
             entry("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", ns, status),
             entry("rbac.authorization.k8s.io", "v1", "roles", "Role", ns),
             entry("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", ns),
             entry("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", cluster),
             entry("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", cluster),
             entry("storage.k8s.io", "v1", "storageclasses", "StorageClass", cluster),
             entry("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", ns, status),
             entry("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", cluster,
                   status),
             entry("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
                   "ValidatingWebhookConfiguration", cluster),
             entry("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations",
                   "MutatingWebhookConfiguration", cluster),
         }) {
        t.add(r);
    }
    return t;
}

void resource_table::add(resource_info info) {
    for (auto& e : entries_) {
        if (e.gvr == info.gvr) {
            e = std::move(info);
            return;
        }
    }
    entries_.push_back(std::move(info));
}

const resource_info* resource_table::find(const group_version_resource& gvr) const noexcept {
    for (const auto& e : entries_) {
        if (e.gvr == gvr) return &e;
    }
    return nullptr;
}

const resource_info* resource_table::find(const group_version_kind& gvk) const noexcept {
    for (const auto& e : entries_) {
        if (e.gvr.group == gvk.group && e.gvr.version == gvk.version && e.kind == gvk.kind) return &e;
    }
    return nullptr;
}

} // namespace kcoro
