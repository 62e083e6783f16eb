// Tables written from the public API's field numbers and Go struct tags
// (k8s.io/api v0.32 core/v1, apps/v1, batch/v1, rbac/v1, policy/v1, networking/v1,
// discovery/v1, coordination/v1, events/v1, autoscaling/v1, authorization/v1 and
// authentication/v1 types.go / generated.proto, k8s.io/apimachinery v0.32 pkg/apis/meta/v1). Order is the Go struct's, so
// the decoded JSON keeps Go's key order. Commented numbers are fields of the
// real message that kcoro does not decode yet (skipped with a warning).
#include "store/proto_schema.hpp"

#include <array>
#include <unordered_map>

namespace kcoro::apiserver::proto {

namespace {

using k = field_kind;

// clang-format off
constexpr field_desc ObjectMeta[] = {
    {1, "name", "Name", k::string, "", omit},
    {2, "generateName", "GenerateName", k::string, "", omit},
    {3, "namespace", "Namespace", k::string, "", omit},
    {4, "selfLink", "SelfLink", k::string, "", omit},
    {5, "uid", "UID", k::string, "", omit},
    {6, "resourceVersion", "ResourceVersion", k::string, "", omit},
    {7, "generation", "Generation", k::int64, "", omit},
    {8, "creationTimestamp", "CreationTimestamp", k::time, "", omit},
    {9, "deletionTimestamp", "DeletionTimestamp", k::time, "", ptr|omit},
    {10, "deletionGracePeriodSeconds", "DeletionGracePeriodSeconds", k::int64, "", ptr|omit},
    {11, "labels", "Labels", k::string_map, "", omit},
    {12, "annotations", "Annotations", k::string_map, "", omit},
    {13, "ownerReferences", "OwnerReferences", k::message, "OwnerReference", rep|omit},
    {14, "finalizers", "Finalizers", k::string, "", rep|omit},
    {17, "managedFields", "ManagedFields", k::message, "ManagedFieldsEntry", rep|omit},
};
constexpr field_desc OwnerReference[] = {
    {5, "apiVersion", "APIVersion", k::string, "", 0},
    {1, "kind", "Kind", k::string, "", 0},
    {3, "name", "Name", k::string, "", 0},
    {4, "uid", "UID", k::string, "", 0},
    {6, "controller", "Controller", k::boolean, "", ptr|omit},
    {7, "blockOwnerDeletion", "BlockOwnerDeletion", k::boolean, "", ptr|omit},
};
constexpr field_desc ManagedFieldsEntry[] = {
    {1, "manager", "Manager", k::string, "", omit},
    {2, "operation", "Operation", k::string, "", omit},
    {3, "apiVersion", "APIVersion", k::string, "", omit},
    {4, "time", "Time", k::time, "", ptr|omit},
    {6, "fieldsType", "FieldsType", k::string, "", omit},
    {7, "fieldsV1", "FieldsV1", k::fields_v1, "", ptr|omit},
    {8, "subresource", "Subresource", k::string, "", omit},
};
constexpr field_desc LabelSelector[] = {
    {1, "matchLabels", "MatchLabels", k::string_map, "", omit},
    {2, "matchExpressions", "MatchExpressions", k::message, "LabelSelectorRequirement", rep|omit},
};
constexpr field_desc LabelSelectorRequirement[] = {
    {1, "key", "Key", k::string, "", 0},
    {2, "operator", "Operator", k::string, "", 0},
    {3, "values", "Values", k::string, "", rep|omit},
};
constexpr field_desc Condition[] = {
    {1, "type", "Type", k::string, "", 0},
    {2, "status", "Status", k::string, "", 0},
    {3, "observedGeneration", "ObservedGeneration", k::int64, "", omit},
    {4, "lastTransitionTime", "LastTransitionTime", k::time, "", 0},
    {5, "reason", "Reason", k::string, "", 0},
    {6, "message", "Message", k::string, "", 0},
};
constexpr field_desc ConfigMap[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {4, "immutable", "Immutable", k::boolean, "", ptr|omit},
    {2, "data", "Data", k::string_map, "", omit},
    {3, "binaryData", "BinaryData", k::bytes_map, "", omit},
};
constexpr field_desc Secret[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {5, "immutable", "Immutable", k::boolean, "", ptr|omit},
    {2, "data", "Data", k::bytes_map, "", omit},
    {4, "stringData", "StringData", k::string_map, "", omit},
    {3, "type", "Type", k::string, "", omit},
};
constexpr field_desc Namespace[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "NamespaceSpec", omit},
    {3, "status", "Status", k::message, "NamespaceStatus", omit},
};
constexpr field_desc NamespaceSpec[] = {
    {1, "finalizers", "Finalizers", k::string, "", rep|omit},
};
constexpr field_desc NamespaceStatus[] = {
    {1, "phase", "Phase", k::string, "", omit},
    {2, "conditions", "Conditions", k::message, "NamespaceCondition", rep|omit},
};
constexpr field_desc NamespaceCondition[] = {
    {1, "type", "Type", k::string, "", 0},
    {2, "status", "Status", k::string, "", 0},
    {4, "lastTransitionTime", "LastTransitionTime", k::time, "", omit},
    {5, "reason", "Reason", k::string, "", omit},
    {6, "message", "Message", k::string, "", omit},
};
constexpr field_desc ServiceAccount[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "secrets", "Secrets", k::message, "ObjectReference", rep|omit},
    {3, "imagePullSecrets", "ImagePullSecrets", k::message, "LocalObjectReference", rep|omit},
    {4, "automountServiceAccountToken", "AutomountServiceAccountToken", k::boolean, "", ptr|omit},
};
constexpr field_desc ObjectReference[] = {
    {1, "kind", "Kind", k::string, "", omit},
    {2, "namespace", "Namespace", k::string, "", omit},
    {3, "name", "Name", k::string, "", omit},
    {4, "uid", "UID", k::string, "", omit},
    {5, "apiVersion", "APIVersion", k::string, "", omit},
    {6, "resourceVersion", "ResourceVersion", k::string, "", omit},
    {7, "fieldPath", "FieldPath", k::string, "", omit},
};
constexpr field_desc LocalObjectReference[] = {
    {1, "name", "Name", k::string, "", omit},
};
constexpr field_desc Service[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "ServiceSpec", omit},
    {3, "status", "Status", k::message, "ServiceStatus", omit},
};
constexpr field_desc ServiceSpec[] = {
    {1, "ports", "Ports", k::message, "ServicePort", rep|omit},
    {2, "selector", "Selector", k::string_map, "", omit},
    {3, "clusterIP", "ClusterIP", k::string, "", omit},
    {18, "clusterIPs", "ClusterIPs", k::string, "", rep|omit},
    {4, "type", "Type", k::string, "", omit},
    {5, "externalIPs", "ExternalIPs", k::string, "", rep|omit},
    {7, "sessionAffinity", "SessionAffinity", k::string, "", omit},
    {8, "loadBalancerIP", "LoadBalancerIP", k::string, "", omit},
    {9, "loadBalancerSourceRanges", "LoadBalancerSourceRanges", k::string, "", rep|omit},
    {10, "externalName", "ExternalName", k::string, "", omit},
    {11, "externalTrafficPolicy", "ExternalTrafficPolicy", k::string, "", omit},
    {12, "healthCheckNodePort", "HealthCheckNodePort", k::int32, "", omit},
    {13, "publishNotReadyAddresses", "PublishNotReadyAddresses", k::boolean, "", omit},
    {14, "sessionAffinityConfig", "SessionAffinityConfig", k::message, "SessionAffinityConfig", ptr|omit},
    {19, "ipFamilies", "IPFamilies", k::string, "", rep|omit},
    {17, "ipFamilyPolicy", "IPFamilyPolicy", k::string, "", ptr|omit},
    {20, "allocateLoadBalancerNodePorts", "AllocateLoadBalancerNodePorts", k::boolean, "", ptr|omit},
    {21, "loadBalancerClass", "LoadBalancerClass", k::string, "", ptr|omit},
    {22, "internalTrafficPolicy", "InternalTrafficPolicy", k::string, "", ptr|omit},
    {23, "trafficDistribution", "TrafficDistribution", k::string, "", ptr|omit},
};
constexpr field_desc ServicePort[] = {
    {1, "name", "Name", k::string, "", omit},
    {2, "protocol", "Protocol", k::string, "", omit},
    {6, "appProtocol", "AppProtocol", k::string, "", ptr|omit},
    {3, "port", "Port", k::int32, "", 0},
    {4, "targetPort", "TargetPort", k::int_or_string, "", omit},
    {5, "nodePort", "NodePort", k::int32, "", omit},
};
constexpr field_desc ServiceStatus[] = {
    {1, "loadBalancer", "LoadBalancer", k::message, "LoadBalancerStatus", omit},
    {2, "conditions", "Conditions", k::message, "Condition", rep|omit},
};
constexpr field_desc LoadBalancerStatus[] = {
    {1, "ingress", "Ingress", k::message, "LoadBalancerIngress", rep|omit},
};
constexpr field_desc LoadBalancerIngress[] = {
    {1, "ip", "IP", k::string, "", omit},
    {2, "hostname", "Hostname", k::string, "", omit},
    {3, "ipMode", "IPMode", k::string, "", ptr|omit},
    {4, "ports", "Ports", k::message, "PortStatus", rep|omit},
};
constexpr field_desc PortStatus[] = {
    {1, "port", "Port", k::int32, "", 0},
    {2, "protocol", "Protocol", k::string, "", 0},
    {3, "error", "Error", k::string, "", ptr|omit},
};
constexpr field_desc SessionAffinityConfig[] = {
    {1, "clientIP", "ClientIP", k::message, "ClientIPConfig", ptr|omit},
};
constexpr field_desc ClientIPConfig[] = {
    {1, "timeoutSeconds", "TimeoutSeconds", k::int32, "", ptr|omit},
};
constexpr field_desc Deployment[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "DeploymentSpec", omit},
    {3, "status", "Status", k::message, "DeploymentStatus", omit},
};
constexpr field_desc DeploymentSpec[] = {
    {1, "replicas", "Replicas", k::int32, "", ptr|omit},
    {2, "selector", "Selector", k::message, "LabelSelector", ptr},
    {3, "template", "Template", k::message, "PodTemplateSpec", 0},
    {4, "strategy", "Strategy", k::message, "DeploymentStrategy", omit},
    {5, "minReadySeconds", "MinReadySeconds", k::int32, "", omit},
    {6, "revisionHistoryLimit", "RevisionHistoryLimit", k::int32, "", ptr|omit},
    {7, "paused", "Paused", k::boolean, "", omit},
    {9, "progressDeadlineSeconds", "ProgressDeadlineSeconds", k::int32, "", ptr|omit},
};
constexpr field_desc DeploymentStrategy[] = {
    {1, "type", "Type", k::string, "", omit},
    {2, "rollingUpdate", "RollingUpdate", k::message, "RollingUpdateDeployment", ptr|omit},
};
constexpr field_desc RollingUpdateDeployment[] = {
    {1, "maxUnavailable", "MaxUnavailable", k::int_or_string, "", ptr|omit},
    {2, "maxSurge", "MaxSurge", k::int_or_string, "", ptr|omit},
};
constexpr field_desc DeploymentStatus[] = {
    {1, "observedGeneration", "ObservedGeneration", k::int64, "", omit},
    {2, "replicas", "Replicas", k::int32, "", omit},
    {3, "updatedReplicas", "UpdatedReplicas", k::int32, "", omit},
    {7, "readyReplicas", "ReadyReplicas", k::int32, "", omit},
    {4, "availableReplicas", "AvailableReplicas", k::int32, "", omit},
    {5, "unavailableReplicas", "UnavailableReplicas", k::int32, "", omit},
    {6, "conditions", "Conditions", k::message, "DeploymentCondition", rep|omit},
    {8, "collisionCount", "CollisionCount", k::int32, "", ptr|omit},
};
constexpr field_desc DeploymentCondition[] = {
    {1, "type", "Type", k::string, "", 0},
    {2, "status", "Status", k::string, "", 0},
    {6, "lastUpdateTime", "LastUpdateTime", k::time, "", omit},
    {7, "lastTransitionTime", "LastTransitionTime", k::time, "", omit},
    {4, "reason", "Reason", k::string, "", omit},
    {5, "message", "Message", k::string, "", omit},
};
constexpr field_desc PodTemplateSpec[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "PodSpec", omit},
};
constexpr field_desc PodSpec[] = {
    {1, "volumes", "Volumes", k::message, "Volume", rep|omit},
    {20, "initContainers", "InitContainers", k::message, "Container", rep|omit},
    {2, "containers", "Containers", k::message, "Container", rep},
    {34, "ephemeralContainers", "EphemeralContainers", k::message, "EphemeralContainer", rep|omit},
    {3, "restartPolicy", "RestartPolicy", k::string, "", omit},
    {4, "terminationGracePeriodSeconds", "TerminationGracePeriodSeconds", k::int64, "", ptr|omit},
    {5, "activeDeadlineSeconds", "ActiveDeadlineSeconds", k::int64, "", ptr|omit},
    {6, "dnsPolicy", "DNSPolicy", k::string, "", omit},
    {7, "nodeSelector", "NodeSelector", k::string_map, "", omit},
    {8, "serviceAccountName", "ServiceAccountName", k::string, "", omit},
    {9, "serviceAccount", "DeprecatedServiceAccount", k::string, "", omit},
    {21, "automountServiceAccountToken", "AutomountServiceAccountToken", k::boolean, "", ptr|omit},
    {10, "nodeName", "NodeName", k::string, "", omit},
    {11, "hostNetwork", "HostNetwork", k::boolean, "", omit},
    {12, "hostPID", "HostPID", k::boolean, "", omit},
    {13, "hostIPC", "HostIPC", k::boolean, "", omit},
    {27, "shareProcessNamespace", "ShareProcessNamespace", k::boolean, "", ptr|omit},
    {14, "securityContext", "SecurityContext", k::message, "PodSecurityContext", ptr|omit},
    {15, "imagePullSecrets", "ImagePullSecrets", k::message, "LocalObjectReference", rep|omit},
    {16, "hostname", "Hostname", k::string, "", omit},
    {17, "subdomain", "Subdomain", k::string, "", omit},
    {18, "affinity", "Affinity", k::message, "Affinity", ptr|omit},
    {19, "schedulerName", "SchedulerName", k::string, "", omit},
    {22, "tolerations", "Tolerations", k::message, "Toleration", rep|omit},
    {23, "hostAliases", "HostAliases", k::message, "HostAlias", rep|omit},
    {24, "priorityClassName", "PriorityClassName", k::string, "", omit},
    {25, "priority", "Priority", k::int32, "", ptr|omit},
    {26, "dnsConfig", "DNSConfig", k::message, "PodDNSConfig", ptr|omit},
    {28, "readinessGates", "ReadinessGates", k::message, "PodReadinessGate", rep|omit},
    {29, "runtimeClassName", "RuntimeClassName", k::string, "", ptr|omit},
    {30, "enableServiceLinks", "EnableServiceLinks", k::boolean, "", ptr|omit},
    {31, "preemptionPolicy", "PreemptionPolicy", k::string, "", ptr|omit},
    {32, "overhead", "Overhead", k::quantity_map, "", omit},
    {33, "topologySpreadConstraints", "TopologySpreadConstraints", k::message, "TopologySpreadConstraint", rep|omit},
    {35, "setHostnameAsFQDN", "SetHostnameAsFQDN", k::boolean, "", ptr|omit},
    {36, "os", "OS", k::message, "PodOS", ptr|omit},
    {37, "hostUsers", "HostUsers", k::boolean, "", ptr|omit},
    {38, "schedulingGates", "SchedulingGates", k::message, "PodSchedulingGate", rep|omit},
    {39, "resourceClaims", "ResourceClaims", k::message, "PodResourceClaim", rep|omit},
    {40, "resources", "Resources", k::message, "ResourceRequirements", ptr|omit},
};
constexpr field_desc Container[] = {
    {1, "name", "Name", k::string, "", 0},
    {2, "image", "Image", k::string, "", omit},
    {3, "command", "Command", k::string, "", rep|omit},
    {4, "args", "Args", k::string, "", rep|omit},
    {5, "workingDir", "WorkingDir", k::string, "", omit},
    {6, "ports", "Ports", k::message, "ContainerPort", rep|omit},
    {19, "envFrom", "EnvFrom", k::message, "EnvFromSource", rep|omit},
    {7, "env", "Env", k::message, "EnvVar", rep|omit},
    {8, "resources", "Resources", k::message, "ResourceRequirements", omit},
    {23, "resizePolicy", "ResizePolicy", k::message, "ContainerResizePolicy", rep|omit},
    {24, "restartPolicy", "RestartPolicy", k::string, "", ptr|omit},
    {9, "volumeMounts", "VolumeMounts", k::message, "VolumeMount", rep|omit},
    {21, "volumeDevices", "VolumeDevices", k::message, "VolumeDevice", rep|omit},
    {10, "livenessProbe", "LivenessProbe", k::message, "Probe", ptr|omit},
    {11, "readinessProbe", "ReadinessProbe", k::message, "Probe", ptr|omit},
    {22, "startupProbe", "StartupProbe", k::message, "Probe", ptr|omit},
    {12, "lifecycle", "Lifecycle", k::message, "Lifecycle", ptr|omit},
    {13, "terminationMessagePath", "TerminationMessagePath", k::string, "", omit},
    {20, "terminationMessagePolicy", "TerminationMessagePolicy", k::string, "", omit},
    {14, "imagePullPolicy", "ImagePullPolicy", k::string, "", omit},
    {15, "securityContext", "SecurityContext", k::message, "SecurityContext", ptr|omit},
    {16, "stdin", "Stdin", k::boolean, "", omit},
    {17, "stdinOnce", "StdinOnce", k::boolean, "", omit},
    {18, "tty", "TTY", k::boolean, "", omit},
};
constexpr field_desc ContainerPort[] = {
    {1, "name", "Name", k::string, "", omit},
    {2, "hostPort", "HostPort", k::int32, "", omit},
    {3, "containerPort", "ContainerPort", k::int32, "", 0},
    {4, "protocol", "Protocol", k::string, "", omit},
    {5, "hostIP", "HostIP", k::string, "", omit},
};
constexpr field_desc EnvVar[] = {
    {1, "name", "Name", k::string, "", 0},
    {2, "value", "Value", k::string, "", omit},
    {3, "valueFrom", "ValueFrom", k::message, "EnvVarSource", ptr|omit},
};
constexpr field_desc EnvVarSource[] = {
    {1, "fieldRef", "FieldRef", k::message, "ObjectFieldSelector", ptr|omit},
    {2, "resourceFieldRef", "ResourceFieldRef", k::message, "ResourceFieldSelector", ptr|omit},
    {3, "configMapKeyRef", "ConfigMapKeyRef", k::message, "ConfigMapKeySelector", ptr|omit},
    {4, "secretKeyRef", "SecretKeyRef", k::message, "SecretKeySelector", ptr|omit},
};
constexpr field_desc ConfigMapKeySelector[] = {
    {1, "", "LocalObjectReference", k::message, "LocalObjectReference", inl},
    {2, "key", "Key", k::string, "", 0},
    {3, "optional", "Optional", k::boolean, "", ptr|omit},
};
constexpr field_desc SecretKeySelector[] = {
    {1, "", "LocalObjectReference", k::message, "LocalObjectReference", inl},
    {2, "key", "Key", k::string, "", 0},
    {3, "optional", "Optional", k::boolean, "", ptr|omit},
};
constexpr field_desc ObjectFieldSelector[] = {
    {1, "apiVersion", "APIVersion", k::string, "", omit},
    {2, "fieldPath", "FieldPath", k::string, "", 0},
};
constexpr field_desc ResourceFieldSelector[] = {
    {1, "containerName", "ContainerName", k::string, "", omit},
    {2, "resource", "Resource", k::string, "", 0},
    {3, "divisor", "Divisor", k::quantity, "", omit},
};
constexpr field_desc EnvFromSource[] = {
    {1, "prefix", "Prefix", k::string, "", omit},
    {2, "configMapRef", "ConfigMapRef", k::message, "ConfigMapEnvSource", ptr|omit},
    {3, "secretRef", "SecretRef", k::message, "SecretEnvSource", ptr|omit},
};
constexpr field_desc ConfigMapEnvSource[] = {
    {1, "", "LocalObjectReference", k::message, "LocalObjectReference", inl},
    {2, "optional", "Optional", k::boolean, "", ptr|omit},
};
constexpr field_desc SecretEnvSource[] = {
    {1, "", "LocalObjectReference", k::message, "LocalObjectReference", inl},
    {2, "optional", "Optional", k::boolean, "", ptr|omit},
};
constexpr field_desc ResourceRequirements[] = {
    {1, "limits", "Limits", k::quantity_map, "", omit},
    {2, "requests", "Requests", k::quantity_map, "", omit},
    {3, "claims", "Claims", k::message, "ResourceClaim", rep|omit},
};
constexpr field_desc ResourceClaim[] = {
    {1, "name", "Name", k::string, "", 0},
    {2, "request", "Request", k::string, "", omit},
};
constexpr field_desc VolumeMount[] = {
    {1, "name", "Name", k::string, "", 0},
    {2, "readOnly", "ReadOnly", k::boolean, "", omit},
    {7, "recursiveReadOnly", "RecursiveReadOnly", k::string, "", ptr|omit},
    {3, "mountPath", "MountPath", k::string, "", 0},
    {4, "subPath", "SubPath", k::string, "", omit},
    {5, "mountPropagation", "MountPropagation", k::string, "", ptr|omit},
    {6, "subPathExpr", "SubPathExpr", k::string, "", omit},
};
constexpr field_desc Volume[] = {
    {1, "name", "Name", k::string, "", 0},
    {2, "", "VolumeSource", k::message, "VolumeSource", inl},
};
constexpr field_desc VolumeSource[] = {
    {1, "hostPath", "HostPath", k::message, "HostPathVolumeSource", ptr|omit},
    {2, "emptyDir", "EmptyDir", k::message, "EmptyDirVolumeSource", ptr|omit},
    // 3 gcePersistentDisk: GCEPersistentDiskVolumeSource not decoded
    // 4 awsElasticBlockStore: AWSElasticBlockStoreVolumeSource not decoded
    // 5 gitRepo: GitRepoVolumeSource not decoded
    {6, "secret", "Secret", k::message, "SecretVolumeSource", ptr|omit},
    {7, "nfs", "NFS", k::message, "NFSVolumeSource", ptr|omit},
    // 8 iscsi: ISCSIVolumeSource not decoded
    // 9 glusterfs: GlusterfsVolumeSource not decoded
    {10, "persistentVolumeClaim", "PersistentVolumeClaim", k::message, "PersistentVolumeClaimVolumeSource", ptr|omit},
    // 11 rbd: RBDVolumeSource not decoded
    // 12 flexVolume: FlexVolumeSource not decoded
    // 13 cinder: CinderVolumeSource not decoded
    // 14 cephfs: CephFSVolumeSource not decoded
    // 15 flocker: FlockerVolumeSource not decoded
    {16, "downwardAPI", "DownwardAPI", k::message, "DownwardAPIVolumeSource", ptr|omit},
    // 17 fc: FCVolumeSource not decoded
    // 18 azureFile: AzureFileVolumeSource not decoded
    {19, "configMap", "ConfigMap", k::message, "ConfigMapVolumeSource", ptr|omit},
    // 20 vsphereVolume: VsphereVirtualDiskVolumeSource not decoded
    // 21 quobyte: QuobyteVolumeSource not decoded
    // 22 azureDisk: AzureDiskVolumeSource not decoded
    // 23 photonPersistentDisk: PhotonPersistentDiskVolumeSource not decoded
    {26, "projected", "Projected", k::message, "ProjectedVolumeSource", ptr|omit},
    // 24 portworxVolume: PortworxVolumeSource not decoded
    // 25 scaleIO: ScaleIOVolumeSource not decoded
    // 27 storageos: StorageOSVolumeSource not decoded
    {28, "csi", "CSI", k::message, "CSIVolumeSource", ptr|omit},
    {29, "ephemeral", "Ephemeral", k::message, "EphemeralVolumeSource", ptr|omit},
    {30, "image", "Image", k::message, "ImageVolumeSource", ptr|omit},
};
constexpr field_desc EmptyDirVolumeSource[] = {
    {1, "medium", "Medium", k::string, "", omit},
    {2, "sizeLimit", "SizeLimit", k::quantity, "", ptr|omit},
};
constexpr field_desc ConfigMapVolumeSource[] = {
    {1, "", "LocalObjectReference", k::message, "LocalObjectReference", inl},
    {2, "items", "Items", k::message, "KeyToPath", rep|omit},
    {3, "defaultMode", "DefaultMode", k::int32, "", ptr|omit},
    {4, "optional", "Optional", k::boolean, "", ptr|omit},
};
constexpr field_desc SecretVolumeSource[] = {
    {1, "secretName", "SecretName", k::string, "", omit},
    {2, "items", "Items", k::message, "KeyToPath", rep|omit},
    {3, "defaultMode", "DefaultMode", k::int32, "", ptr|omit},
    {4, "optional", "Optional", k::boolean, "", ptr|omit},
};
constexpr field_desc KeyToPath[] = {
    {1, "key", "Key", k::string, "", 0},
    {2, "path", "Path", k::string, "", 0},
    {3, "mode", "Mode", k::int32, "", ptr|omit},
};
constexpr field_desc Probe[] = {
    {1, "", "ProbeHandler", k::message, "ProbeHandler", inl},
    {2, "initialDelaySeconds", "InitialDelaySeconds", k::int32, "", omit},
    {3, "timeoutSeconds", "TimeoutSeconds", k::int32, "", omit},
    {4, "periodSeconds", "PeriodSeconds", k::int32, "", omit},
    {5, "successThreshold", "SuccessThreshold", k::int32, "", omit},
    {6, "failureThreshold", "FailureThreshold", k::int32, "", omit},
    {7, "terminationGracePeriodSeconds", "TerminationGracePeriodSeconds", k::int64, "", ptr|omit},
};
constexpr field_desc ProbeHandler[] = {
    {1, "exec", "Exec", k::message, "ExecAction", ptr|omit},
    {2, "httpGet", "HTTPGet", k::message, "HTTPGetAction", ptr|omit},
    {3, "tcpSocket", "TCPSocket", k::message, "TCPSocketAction", ptr|omit},
    {4, "grpc", "GRPC", k::message, "GRPCAction", ptr|omit},
};
constexpr field_desc ExecAction[] = {
    {1, "command", "Command", k::string, "", rep|omit},
};
constexpr field_desc HTTPGetAction[] = {
    {1, "path", "Path", k::string, "", omit},
    {2, "port", "Port", k::int_or_string, "", 0},
    {3, "host", "Host", k::string, "", omit},
    {4, "scheme", "Scheme", k::string, "", omit},
    {5, "httpHeaders", "HTTPHeaders", k::message, "HTTPHeader", rep|omit},
};
constexpr field_desc HTTPHeader[] = {
    {1, "name", "Name", k::string, "", 0},
    {2, "value", "Value", k::string, "", 0},
};
constexpr field_desc TCPSocketAction[] = {
    {1, "port", "Port", k::int_or_string, "", 0},
    {2, "host", "Host", k::string, "", omit},
};
constexpr field_desc GRPCAction[] = {
    {1, "port", "Port", k::int32, "", 0},
    {2, "service", "Service", k::string, "", ptr},
};
constexpr field_desc Toleration[] = {
    {1, "key", "Key", k::string, "", omit},
    {2, "operator", "Operator", k::string, "", omit},
    {3, "value", "Value", k::string, "", omit},
    {4, "effect", "Effect", k::string, "", omit},
    {5, "tolerationSeconds", "TolerationSeconds", k::int64, "", ptr|omit},
};
constexpr field_desc DeleteOptions[] = {
    {1, "gracePeriodSeconds", "GracePeriodSeconds", k::int64, "", ptr|omit},
    {2, "preconditions", "Preconditions", k::message, "Preconditions", ptr|omit},
    {3, "orphanDependents", "OrphanDependents", k::boolean, "", ptr|omit},
    {4, "propagationPolicy", "PropagationPolicy", k::string, "", ptr|omit},
    {5, "dryRun", "DryRun", k::string, "", rep|omit},
    {6, "ignoreStoreReadErrorWithClusterBreakingPotential", "IgnoreStoreReadErrorWithClusterBreakingPotential", k::boolean, "", ptr|omit},
};
constexpr field_desc Preconditions[] = {
    {1, "uid", "UID", k::string, "", ptr|omit},
};
constexpr field_desc PodOS[] = {
    {1, "name", "Name", k::string, "", 0},
};
constexpr field_desc PodReadinessGate[] = {
    {1, "conditionType", "ConditionType", k::string, "", 0},
};
constexpr field_desc HostAlias[] = {
    {1, "ip", "IP", k::string, "", 0},
    {2, "hostnames", "Hostnames", k::string, "", rep|omit},
};
constexpr field_desc PodSchedulingGate[] = {
    {1, "name", "Name", k::string, "", 0},
};
constexpr field_desc PodSecurityContext[] = {
    {1, "seLinuxOptions", "SELinuxOptions", k::message, "SELinuxOptions", ptr|omit},
    {8, "windowsOptions", "WindowsOptions", k::message, "WindowsSecurityContextOptions", ptr|omit},
    {2, "runAsUser", "RunAsUser", k::int64, "", ptr|omit},
    {6, "runAsGroup", "RunAsGroup", k::int64, "", ptr|omit},
    {3, "runAsNonRoot", "RunAsNonRoot", k::boolean, "", ptr|omit},
    {4, "supplementalGroups", "SupplementalGroups", k::int64, "", rep|omit},
    {12, "supplementalGroupsPolicy", "SupplementalGroupsPolicy", k::string, "", ptr|omit},
    {5, "fsGroup", "FSGroup", k::int64, "", ptr|omit},
    {7, "sysctls", "Sysctls", k::message, "Sysctl", rep|omit},
    {9, "fsGroupChangePolicy", "FSGroupChangePolicy", k::string, "", ptr|omit},
    {10, "seccompProfile", "SeccompProfile", k::message, "SeccompProfile", ptr|omit},
    {11, "appArmorProfile", "AppArmorProfile", k::message, "AppArmorProfile", ptr|omit},
    {13, "seLinuxChangePolicy", "SELinuxChangePolicy", k::string, "", ptr|omit},
};
constexpr field_desc SecurityContext[] = {
    {1, "capabilities", "Capabilities", k::message, "Capabilities", ptr|omit},
    {2, "privileged", "Privileged", k::boolean, "", ptr|omit},
    {3, "seLinuxOptions", "SELinuxOptions", k::message, "SELinuxOptions", ptr|omit},
    {10, "windowsOptions", "WindowsOptions", k::message, "WindowsSecurityContextOptions", ptr|omit},
    {4, "runAsUser", "RunAsUser", k::int64, "", ptr|omit},
    {8, "runAsGroup", "RunAsGroup", k::int64, "", ptr|omit},
    {5, "runAsNonRoot", "RunAsNonRoot", k::boolean, "", ptr|omit},
    {6, "readOnlyRootFilesystem", "ReadOnlyRootFilesystem", k::boolean, "", ptr|omit},
    {7, "allowPrivilegeEscalation", "AllowPrivilegeEscalation", k::boolean, "", ptr|omit},
    {9, "procMount", "ProcMount", k::string, "", ptr|omit},
    {11, "seccompProfile", "SeccompProfile", k::message, "SeccompProfile", ptr|omit},
    {12, "appArmorProfile", "AppArmorProfile", k::message, "AppArmorProfile", ptr|omit},
};
constexpr field_desc Capabilities[] = {
    {1, "add", "Add", k::string, "", rep|omit},
    {2, "drop", "Drop", k::string, "", rep|omit},
};
constexpr field_desc SELinuxOptions[] = {
    {1, "user", "User", k::string, "", omit},
    {2, "role", "Role", k::string, "", omit},
    {3, "type", "Type", k::string, "", omit},
    {4, "level", "Level", k::string, "", omit},
};
constexpr field_desc SeccompProfile[] = {
    {1, "type", "Type", k::string, "", 0},
    {2, "localhostProfile", "LocalhostProfile", k::string, "", ptr|omit},
};
constexpr field_desc AppArmorProfile[] = {
    {1, "type", "Type", k::string, "", 0},
    {2, "localhostProfile", "LocalhostProfile", k::string, "", ptr|omit},
};
constexpr field_desc WindowsSecurityContextOptions[] = {
    {1, "gmsaCredentialSpecName", "GMSACredentialSpecName", k::string, "", ptr|omit},
    {2, "gmsaCredentialSpec", "GMSACredentialSpec", k::string, "", ptr|omit},
    {3, "runAsUserName", "RunAsUserName", k::string, "", ptr|omit},
    {4, "hostProcess", "HostProcess", k::boolean, "", ptr|omit},
};
constexpr field_desc Sysctl[] = {
    {1, "name", "Name", k::string, "", 0},
    {2, "value", "Value", k::string, "", 0},
};
constexpr field_desc Affinity[] = {
    {1, "nodeAffinity", "NodeAffinity", k::message, "NodeAffinity", ptr|omit},
    {2, "podAffinity", "PodAffinity", k::message, "PodAffinity", ptr|omit},
    {3, "podAntiAffinity", "PodAntiAffinity", k::message, "PodAntiAffinity", ptr|omit},
};
constexpr field_desc NodeAffinity[] = {
    {1, "requiredDuringSchedulingIgnoredDuringExecution", "RequiredDuringSchedulingIgnoredDuringExecution", k::message, "NodeSelector", ptr|omit},
    {2, "preferredDuringSchedulingIgnoredDuringExecution", "PreferredDuringSchedulingIgnoredDuringExecution", k::message, "PreferredSchedulingTerm", rep|omit},
};
constexpr field_desc NodeSelector[] = {
    {1, "nodeSelectorTerms", "NodeSelectorTerms", k::message, "NodeSelectorTerm", rep},
};
constexpr field_desc NodeSelectorTerm[] = {
    {1, "matchExpressions", "MatchExpressions", k::message, "NodeSelectorRequirement", rep|omit},
    {2, "matchFields", "MatchFields", k::message, "NodeSelectorRequirement", rep|omit},
};
constexpr field_desc NodeSelectorRequirement[] = {
    {1, "key", "Key", k::string, "", 0},
    {2, "operator", "Operator", k::string, "", 0},
    {3, "values", "Values", k::string, "", rep|omit},
};
constexpr field_desc PreferredSchedulingTerm[] = {
    {1, "weight", "Weight", k::int32, "", 0},
    {2, "preference", "Preference", k::message, "NodeSelectorTerm", 0},
};
constexpr field_desc PodAffinity[] = {
    {1, "requiredDuringSchedulingIgnoredDuringExecution", "RequiredDuringSchedulingIgnoredDuringExecution", k::message, "PodAffinityTerm", rep|omit},
    {2, "preferredDuringSchedulingIgnoredDuringExecution", "PreferredDuringSchedulingIgnoredDuringExecution", k::message, "WeightedPodAffinityTerm", rep|omit},
};
constexpr field_desc PodAntiAffinity[] = {
    {1, "requiredDuringSchedulingIgnoredDuringExecution", "RequiredDuringSchedulingIgnoredDuringExecution", k::message, "PodAffinityTerm", rep|omit},
    {2, "preferredDuringSchedulingIgnoredDuringExecution", "PreferredDuringSchedulingIgnoredDuringExecution", k::message, "WeightedPodAffinityTerm", rep|omit},
};
constexpr field_desc PodAffinityTerm[] = {
    {1, "labelSelector", "LabelSelector", k::message, "LabelSelector", ptr|omit},
    {2, "namespaces", "Namespaces", k::string, "", rep|omit},
    {3, "topologyKey", "TopologyKey", k::string, "", 0},
    {4, "namespaceSelector", "NamespaceSelector", k::message, "LabelSelector", ptr|omit},
    {5, "matchLabelKeys", "MatchLabelKeys", k::string, "", rep|omit},
    {6, "mismatchLabelKeys", "MismatchLabelKeys", k::string, "", rep|omit},
};
constexpr field_desc WeightedPodAffinityTerm[] = {
    {1, "weight", "Weight", k::int32, "", 0},
    {2, "podAffinityTerm", "PodAffinityTerm", k::message, "PodAffinityTerm", 0},
};
constexpr field_desc Lifecycle[] = {
    {1, "postStart", "PostStart", k::message, "LifecycleHandler", ptr|omit},
    {2, "preStop", "PreStop", k::message, "LifecycleHandler", ptr|omit},
};
constexpr field_desc LifecycleHandler[] = {
    {1, "exec", "Exec", k::message, "ExecAction", ptr|omit},
    {2, "httpGet", "HTTPGet", k::message, "HTTPGetAction", ptr|omit},
    {3, "tcpSocket", "TCPSocket", k::message, "TCPSocketAction", ptr|omit},
    {4, "sleep", "Sleep", k::message, "SleepAction", ptr|omit},
};
constexpr field_desc SleepAction[] = {
    {1, "seconds", "Seconds", k::int64, "", 0},
};
constexpr field_desc ContainerResizePolicy[] = {
    {1, "resourceName", "ResourceName", k::string, "", 0},
    {2, "restartPolicy", "RestartPolicy", k::string, "", 0},
};
constexpr field_desc TopologySpreadConstraint[] = {
    {1, "maxSkew", "MaxSkew", k::int32, "", 0},
    {2, "topologyKey", "TopologyKey", k::string, "", 0},
    {3, "whenUnsatisfiable", "WhenUnsatisfiable", k::string, "", 0},
    {4, "labelSelector", "LabelSelector", k::message, "LabelSelector", ptr|omit},
    {5, "minDomains", "MinDomains", k::int32, "", ptr|omit},
    {6, "nodeAffinityPolicy", "NodeAffinityPolicy", k::string, "", ptr|omit},
    {7, "nodeTaintsPolicy", "NodeTaintsPolicy", k::string, "", ptr|omit},
    {8, "matchLabelKeys", "MatchLabelKeys", k::string, "", rep|omit},
};
constexpr field_desc PodDNSConfig[] = {
    {1, "nameservers", "Nameservers", k::string, "", rep|omit},
    {2, "searches", "Searches", k::string, "", rep|omit},
    {3, "options", "Options", k::message, "PodDNSConfigOption", rep|omit},
};
constexpr field_desc PodDNSConfigOption[] = {
    {1, "name", "Name", k::string, "", omit},
    {2, "value", "Value", k::string, "", ptr|omit},
};
constexpr field_desc VolumeDevice[] = {
    {1, "name", "Name", k::string, "", 0},
    {2, "devicePath", "DevicePath", k::string, "", 0},
};
constexpr field_desc EphemeralContainer[] = {
    {1, "", "EphemeralContainerCommon", k::message, "EphemeralContainerCommon", inl},
    {2, "targetContainerName", "TargetContainerName", k::string, "", omit},
};
constexpr field_desc EphemeralContainerCommon[] = {
    {1, "name", "Name", k::string, "", 0},
    {2, "image", "Image", k::string, "", omit},
    {3, "command", "Command", k::string, "", rep|omit},
    {4, "args", "Args", k::string, "", rep|omit},
    {5, "workingDir", "WorkingDir", k::string, "", omit},
    {6, "ports", "Ports", k::message, "ContainerPort", rep|omit},
    {19, "envFrom", "EnvFrom", k::message, "EnvFromSource", rep|omit},
    {7, "env", "Env", k::message, "EnvVar", rep|omit},
    {8, "resources", "Resources", k::message, "ResourceRequirements", omit},
    {23, "resizePolicy", "ResizePolicy", k::message, "ContainerResizePolicy", rep|omit},
    {24, "restartPolicy", "RestartPolicy", k::string, "", ptr|omit},
    {9, "volumeMounts", "VolumeMounts", k::message, "VolumeMount", rep|omit},
    {21, "volumeDevices", "VolumeDevices", k::message, "VolumeDevice", rep|omit},
    {10, "livenessProbe", "LivenessProbe", k::message, "Probe", ptr|omit},
    {11, "readinessProbe", "ReadinessProbe", k::message, "Probe", ptr|omit},
    {22, "startupProbe", "StartupProbe", k::message, "Probe", ptr|omit},
    {12, "lifecycle", "Lifecycle", k::message, "Lifecycle", ptr|omit},
    {13, "terminationMessagePath", "TerminationMessagePath", k::string, "", omit},
    {20, "terminationMessagePolicy", "TerminationMessagePolicy", k::string, "", omit},
    {14, "imagePullPolicy", "ImagePullPolicy", k::string, "", omit},
    {15, "securityContext", "SecurityContext", k::message, "SecurityContext", ptr|omit},
    {16, "stdin", "Stdin", k::boolean, "", omit},
    {17, "stdinOnce", "StdinOnce", k::boolean, "", omit},
    {18, "tty", "TTY", k::boolean, "", omit},
};
constexpr field_desc PodResourceClaim[] = {
    {1, "name", "Name", k::string, "", 0},
    {3, "resourceClaimName", "ResourceClaimName", k::string, "", ptr|omit},
    {4, "resourceClaimTemplateName", "ResourceClaimTemplateName", k::string, "", ptr|omit},
};
constexpr field_desc PersistentVolumeClaimVolumeSource[] = {
    {1, "claimName", "ClaimName", k::string, "", 0},
    {2, "readOnly", "ReadOnly", k::boolean, "", omit},
};
constexpr field_desc HostPathVolumeSource[] = {
    {1, "path", "Path", k::string, "", 0},
    {2, "type", "Type", k::string, "", ptr|omit},
};
constexpr field_desc DownwardAPIVolumeSource[] = {
    {1, "items", "Items", k::message, "DownwardAPIVolumeFile", rep|omit},
    {2, "defaultMode", "DefaultMode", k::int32, "", ptr|omit},
};
constexpr field_desc DownwardAPIVolumeFile[] = {
    {1, "path", "Path", k::string, "", 0},
    {2, "fieldRef", "FieldRef", k::message, "ObjectFieldSelector", ptr|omit},
    {3, "resourceFieldRef", "ResourceFieldRef", k::message, "ResourceFieldSelector", ptr|omit},
    {4, "mode", "Mode", k::int32, "", ptr|omit},
};
constexpr field_desc ProjectedVolumeSource[] = {
    {1, "sources", "Sources", k::message, "VolumeProjection", rep},
    {2, "defaultMode", "DefaultMode", k::int32, "", ptr|omit},
};
constexpr field_desc VolumeProjection[] = {
    {1, "secret", "Secret", k::message, "SecretProjection", ptr|omit},
    {2, "downwardAPI", "DownwardAPI", k::message, "DownwardAPIProjection", ptr|omit},
    {3, "configMap", "ConfigMap", k::message, "ConfigMapProjection", ptr|omit},
    {4, "serviceAccountToken", "ServiceAccountToken", k::message, "ServiceAccountTokenProjection", ptr|omit},
    {5, "clusterTrustBundle", "ClusterTrustBundle", k::message, "ClusterTrustBundleProjection", ptr|omit},
};
constexpr field_desc ServiceAccountTokenProjection[] = {
    {1, "audience", "Audience", k::string, "", rep|omit},
    {2, "expirationSeconds", "ExpirationSeconds", k::int64, "", ptr|omit},
    {3, "path", "Path", k::string, "", 0},
};
constexpr field_desc ConfigMapProjection[] = {
    {1, "", "LocalObjectReference", k::message, "LocalObjectReference", inl},
    {2, "items", "Items", k::message, "KeyToPath", rep|omit},
    {4, "optional", "Optional", k::boolean, "", ptr|omit},
};
constexpr field_desc SecretProjection[] = {
    {1, "", "LocalObjectReference", k::message, "LocalObjectReference", inl},
    {2, "items", "Items", k::message, "KeyToPath", rep|omit},
    {4, "optional", "Optional", k::boolean, "", ptr|omit},
};
constexpr field_desc DownwardAPIProjection[] = {
    {1, "items", "Items", k::message, "DownwardAPIVolumeFile", rep|omit},
};
constexpr field_desc ClusterTrustBundleProjection[] = {
    {1, "name", "Name", k::string, "", rep|ptr|omit},
    {2, "signerName", "SignerName", k::string, "", rep|ptr|omit},
    {3, "labelSelector", "LabelSelector", k::message, "LabelSelector", rep|ptr|omit},
    {5, "optional", "Optional", k::boolean, "", ptr|omit},
    {4, "path", "Path", k::string, "", rep},
};
constexpr field_desc CSIVolumeSource[] = {
    {1, "driver", "Driver", k::string, "", 0},
    {2, "readOnly", "ReadOnly", k::boolean, "", ptr|omit},
    {3, "fsType", "FSType", k::string, "", ptr|omit},
    {4, "volumeAttributes", "VolumeAttributes", k::string_map, "", omit},
    {5, "nodePublishSecretRef", "NodePublishSecretRef", k::message, "LocalObjectReference", ptr|omit},
};
constexpr field_desc NFSVolumeSource[] = {
    {1, "server", "Server", k::string, "", 0},
    {2, "path", "Path", k::string, "", 0},
    {3, "readOnly", "ReadOnly", k::boolean, "", omit},
};
constexpr field_desc ImageVolumeSource[] = {
    {1, "reference", "Reference", k::string, "", omit},
    {2, "pullPolicy", "PullPolicy", k::string, "", omit},
};
constexpr field_desc EphemeralVolumeSource[] = {
    {1, "volumeClaimTemplate", "VolumeClaimTemplate", k::message, "PersistentVolumeClaimTemplate", ptr|omit},
};
constexpr field_desc PersistentVolumeClaimTemplate[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "PersistentVolumeClaimSpec", 0},
};
constexpr field_desc PersistentVolumeClaimSpec[] = {
    {1, "accessModes", "AccessModes", k::string, "", rep|omit},
    {4, "selector", "Selector", k::message, "LabelSelector", ptr|omit},
    {2, "resources", "Resources", k::message, "VolumeResourceRequirements", omit},
    {3, "volumeName", "VolumeName", k::string, "", omit},
    {5, "storageClassName", "StorageClassName", k::string, "", ptr|omit},
    {6, "volumeMode", "VolumeMode", k::string, "", ptr|omit},
    {7, "dataSource", "DataSource", k::message, "TypedLocalObjectReference", ptr|omit},
    {8, "dataSourceRef", "DataSourceRef", k::message, "TypedObjectReference", ptr|omit},
    {9, "volumeAttributesClassName", "VolumeAttributesClassName", k::string, "", ptr|omit},
};
constexpr field_desc VolumeResourceRequirements[] = {
    {1, "limits", "Limits", k::quantity_map, "", omit},
    {2, "requests", "Requests", k::quantity_map, "", omit},
};
constexpr field_desc TypedLocalObjectReference[] = {
    {1, "apiGroup", "APIGroup", k::string, "", ptr},
    {2, "kind", "Kind", k::string, "", 0},
    {3, "name", "Name", k::string, "", 0},
};
constexpr field_desc TypedObjectReference[] = {
    {1, "apiGroup", "APIGroup", k::string, "", ptr},
    {2, "kind", "Kind", k::string, "", 0},
    {3, "name", "Name", k::string, "", 0},
    {4, "namespace", "Namespace", k::string, "", ptr|omit},
};
constexpr field_desc ContainerUser[] = {
    {1, "linux", "Linux", k::message, "LinuxContainerUser", ptr|omit},
};
constexpr field_desc LinuxContainerUser[] = {
    {1, "uid", "UID", k::int64, "", 0},
    {2, "gid", "GID", k::int64, "", 0},
    {3, "supplementalGroups", "SupplementalGroups", k::int64, "", rep|omit},
};
constexpr field_desc PodResourceClaimStatus[] = {
    {1, "name", "Name", k::string, "", 0},
    {2, "resourceClaimName", "ResourceClaimName", k::string, "", ptr|omit},
};
constexpr field_desc Lease[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "LeaseSpec", omit},
};
constexpr field_desc LeaseSpec[] = {
    {1, "holderIdentity", "HolderIdentity", k::string, "", ptr|omit},
    {2, "leaseDurationSeconds", "LeaseDurationSeconds", k::int32, "", ptr|omit},
    {3, "acquireTime", "AcquireTime", k::micro_time, "", ptr|omit},
    {4, "renewTime", "RenewTime", k::micro_time, "", ptr|omit},
    {5, "leaseTransitions", "LeaseTransitions", k::int32, "", ptr|omit},
    {6, "strategy", "Strategy", k::string, "", ptr|omit},
    {7, "preferredHolder", "PreferredHolder", k::string, "", ptr|omit},
};
// core/v1 Event (client-go's record.EventRecorder writes these).
constexpr field_desc Event[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", 0},
    {2, "involvedObject", "InvolvedObject", k::message, "ObjectReference", 0},
    {3, "reason", "Reason", k::string, "", omit},
    {4, "message", "Message", k::string, "", omit},
    {5, "source", "Source", k::message, "EventSource", omit},
    {6, "firstTimestamp", "FirstTimestamp", k::time, "", omit},
    {7, "lastTimestamp", "LastTimestamp", k::time, "", omit},
    {8, "count", "Count", k::int32, "", omit},
    {9, "type", "Type", k::string, "", omit},
    {10, "eventTime", "EventTime", k::micro_time, "", omit},
    {11, "series", "Series", k::message, "EventSeries", ptr|omit},
    {12, "action", "Action", k::string, "", omit},
    {13, "related", "Related", k::message, "ObjectReference", ptr|omit},
    {14, "reportingComponent", "ReportingController", k::string, "", 0},
    {15, "reportingInstance", "ReportingInstance", k::string, "", 0},
};
constexpr field_desc EventSource[] = {
    {1, "component", "Component", k::string, "", omit},
    {2, "host", "Host", k::string, "", omit},
};
constexpr field_desc EventSeries[] = {
    {1, "count", "Count", k::int32, "", omit},
    {2, "lastObservedTime", "LastObservedTime", k::micro_time, "", omit},
};
// events.k8s.io/v1 Event (client-go's tools/events recorder writes these).
constexpr field_desc EventsV1Event[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", 0},
    {2, "eventTime", "EventTime", k::micro_time, "", 0},
    {3, "series", "Series", k::message, "EventsV1EventSeries", ptr|omit},
    {4, "reportingController", "ReportingController", k::string, "", omit},
    {5, "reportingInstance", "ReportingInstance", k::string, "", omit},
    {6, "action", "Action", k::string, "", omit},
    {7, "reason", "Reason", k::string, "", omit},
    {8, "regarding", "Regarding", k::message, "ObjectReference", omit},
    {9, "related", "Related", k::message, "ObjectReference", ptr|omit},
    {10, "note", "Note", k::string, "", omit},
    {11, "type", "Type", k::string, "", omit},
    {12, "deprecatedSource", "DeprecatedSource", k::message, "EventSource", omit},
    {13, "deprecatedFirstTimestamp", "DeprecatedFirstTimestamp", k::time, "", omit},
    {14, "deprecatedLastTimestamp", "DeprecatedLastTimestamp", k::time, "", omit},
    {15, "deprecatedCount", "DeprecatedCount", k::int32, "", omit},
};
constexpr field_desc EventsV1EventSeries[] = {
    {1, "count", "Count", k::int32, "", 0},
    {2, "lastObservedTime", "LastObservedTime", k::micro_time, "", 0},
};
// autoscaling/v1 Scale (the deployments/scale subresource; client-go's UpdateScale).
constexpr field_desc Scale[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "ScaleSpec", omit},
    {3, "status", "Status", k::message, "ScaleStatus", omit},
};
constexpr field_desc ScaleSpec[] = {
    {1, "replicas", "Replicas", k::int32, "", omit},
};
constexpr field_desc ScaleStatus[] = {
    {1, "replicas", "Replicas", k::int32, "", 0},
    {2, "selector", "Selector", k::string, "", omit},
};
// core/v1 Pod (kubectl run): PodSpec above, PodStatus.
constexpr field_desc Pod[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "PodSpec", omit},
    {3, "status", "Status", k::message, "PodStatus", omit},
};
constexpr field_desc PodStatus[] = {
    {1, "phase", "Phase", k::string, "", omit},
    {2, "conditions", "Conditions", k::message, "PodCondition", rep|omit},
    {3, "message", "Message", k::string, "", omit},
    {4, "reason", "Reason", k::string, "", omit},
    {11, "nominatedNodeName", "NominatedNodeName", k::string, "", omit},
    {5, "hostIP", "HostIP", k::string, "", omit},
    {16, "hostIPs", "HostIPs", k::message, "HostIP", rep|omit},
    {6, "podIP", "PodIP", k::string, "", omit},
    {12, "podIPs", "PodIPs", k::message, "PodIP", rep|omit},
    {7, "startTime", "StartTime", k::time, "", ptr|omit},
    {10, "initContainerStatuses", "InitContainerStatuses", k::message, "ContainerStatus", rep|omit},
    {8, "containerStatuses", "ContainerStatuses", k::message, "ContainerStatus", rep|omit},
    {9, "qosClass", "QOSClass", k::string, "", omit},
    {13, "ephemeralContainerStatuses", "EphemeralContainerStatuses", k::message, "ContainerStatus", rep|omit},
    {14, "resize", "Resize", k::string, "", omit},
    {15, "resourceClaimStatuses", "ResourceClaimStatuses", k::message, "PodResourceClaimStatus", rep|omit},
};
constexpr field_desc PodCondition[] = {
    {1, "type", "Type", k::string, "", 0},
    {2, "status", "Status", k::string, "", 0},
    {3, "lastProbeTime", "LastProbeTime", k::time, "", omit},
    {4, "lastTransitionTime", "LastTransitionTime", k::time, "", omit},
    {5, "reason", "Reason", k::string, "", omit},
    {6, "message", "Message", k::string, "", omit},
};
constexpr field_desc HostIP[] = {
    {1, "ip", "IP", k::string, "", 0},
};
constexpr field_desc PodIP[] = {
    {1, "ip", "IP", k::string, "", 0},
};
constexpr field_desc ContainerStatus[] = {
    {1, "name", "Name", k::string, "", 0},
    {2, "state", "State", k::message, "ContainerState", omit},
    {3, "lastState", "LastTerminationState", k::message, "ContainerState", omit},
    {4, "ready", "Ready", k::boolean, "", 0},
    {5, "restartCount", "RestartCount", k::int32, "", 0},
    {6, "image", "Image", k::string, "", 0},
    {7, "imageID", "ImageID", k::string, "", 0},
    {8, "containerID", "ContainerID", k::string, "", omit},
    {9, "started", "Started", k::boolean, "", ptr|omit},
    {10, "allocatedResources", "AllocatedResources", k::quantity_map, "", omit},
    {11, "resources", "Resources", k::message, "ResourceRequirements", ptr|omit},
    {12, "volumeMounts", "VolumeMounts", k::message, "VolumeMountStatus", rep|omit},
    {13, "user", "User", k::message, "ContainerUser", ptr|omit},
    {14, "allocatedResourcesStatus", "AllocatedResourcesStatus", k::message, "ResourceStatus", rep|omit},
};
constexpr field_desc ContainerState[] = {
    {1, "waiting", "Waiting", k::message, "ContainerStateWaiting", ptr|omit},
    {2, "running", "Running", k::message, "ContainerStateRunning", ptr|omit},
    {3, "terminated", "Terminated", k::message, "ContainerStateTerminated", ptr|omit},
};
constexpr field_desc ContainerStateWaiting[] = {
    {1, "reason", "Reason", k::string, "", omit},
    {2, "message", "Message", k::string, "", omit},
};
constexpr field_desc ContainerStateRunning[] = {
    {1, "startedAt", "StartedAt", k::time, "", omit},
};
constexpr field_desc ContainerStateTerminated[] = {
    {1, "exitCode", "ExitCode", k::int32, "", 0},
    {2, "signal", "Signal", k::int32, "", omit},
    {3, "reason", "Reason", k::string, "", omit},
    {4, "message", "Message", k::string, "", omit},
    {5, "startedAt", "StartedAt", k::time, "", omit},
    {6, "finishedAt", "FinishedAt", k::time, "", omit},
    {7, "containerID", "ContainerID", k::string, "", omit},
};
constexpr field_desc VolumeMountStatus[] = {
    {1, "name", "Name", k::string, "", 0},
    {2, "mountPath", "MountPath", k::string, "", 0},
    {3, "readOnly", "ReadOnly", k::boolean, "", omit},
    {4, "recursiveReadOnly", "RecursiveReadOnly", k::string, "", ptr|omit},
};
constexpr field_desc ResourceStatus[] = {
    {1, "name", "Name", k::string, "", 0},
    {2, "resources", "Resources", k::message, "ResourceHealth", rep|omit},
};
constexpr field_desc ResourceHealth[] = {
    {1, "resourceID", "ResourceID", k::string, "", 0},
    {2, "health", "Health", k::string, "", omit},
};
// core/v1 PersistentVolumeClaim (also a StatefulSet's volumeClaimTemplates).
constexpr field_desc PersistentVolumeClaim[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "PersistentVolumeClaimSpec", omit},
    {3, "status", "Status", k::message, "PersistentVolumeClaimStatus", omit},
};
constexpr field_desc PersistentVolumeClaimStatus[] = {
    {1, "phase", "Phase", k::string, "", omit},
    {2, "accessModes", "AccessModes", k::string, "", rep|omit},
    {3, "capacity", "Capacity", k::quantity_map, "", omit},
    {4, "conditions", "Conditions", k::message, "PersistentVolumeClaimCondition", rep|omit},
    {5, "allocatedResources", "AllocatedResources", k::quantity_map, "", omit},
    {7, "allocatedResourceStatuses", "AllocatedResourceStatuses", k::string_map, "", omit},
    {8, "currentVolumeAttributesClassName", "CurrentVolumeAttributesClassName", k::string, "", ptr|omit},
    {9, "modifyVolumeStatus", "ModifyVolumeStatus", k::message, "ModifyVolumeStatus", ptr|omit},
};
constexpr field_desc PersistentVolumeClaimCondition[] = {
    {1, "type", "Type", k::string, "", 0},
    {2, "status", "Status", k::string, "", 0},
    {3, "lastProbeTime", "LastProbeTime", k::time, "", omit},
    {4, "lastTransitionTime", "LastTransitionTime", k::time, "", omit},
    {5, "reason", "Reason", k::string, "", omit},
    {6, "message", "Message", k::string, "", omit},
};
constexpr field_desc ModifyVolumeStatus[] = {
    {1, "targetVolumeAttributesClassName", "TargetVolumeAttributesClassName", k::string, "", omit},
    {2, "status", "Status", k::string, "", 0},
};
// core/v1 Endpoints.
constexpr field_desc Endpoints[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "subsets", "Subsets", k::message, "EndpointSubset", rep|omit},
};
constexpr field_desc EndpointSubset[] = {
    {1, "addresses", "Addresses", k::message, "EndpointAddress", rep|omit},
    {2, "notReadyAddresses", "NotReadyAddresses", k::message, "EndpointAddress", rep|omit},
    {3, "ports", "Ports", k::message, "EndpointPort", rep|omit},
};
constexpr field_desc EndpointAddress[] = {
    {1, "ip", "IP", k::string, "", 0},
    {3, "hostname", "Hostname", k::string, "", omit},
    {4, "nodeName", "NodeName", k::string, "", ptr|omit},
    {2, "targetRef", "TargetRef", k::message, "ObjectReference", ptr|omit},
};
constexpr field_desc EndpointPort[] = {
    {1, "name", "Name", k::string, "", omit},
    {2, "port", "Port", k::int32, "", 0},
    {3, "protocol", "Protocol", k::string, "", omit},
    {4, "appProtocol", "AppProtocol", k::string, "", ptr|omit},
};
// core/v1 ResourceQuota (kubectl create quota) and LimitRange; ResourceLists are quantity maps.
constexpr field_desc ResourceQuota[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "ResourceQuotaSpec", omit},
    {3, "status", "Status", k::message, "ResourceQuotaStatus", omit},
};
constexpr field_desc ResourceQuotaSpec[] = {
    {1, "hard", "Hard", k::quantity_map, "", omit},
    {2, "scopes", "Scopes", k::string, "", rep|omit},
    {3, "scopeSelector", "ScopeSelector", k::message, "ScopeSelector", ptr|omit},
};
constexpr field_desc ScopeSelector[] = {
    {1, "matchExpressions", "MatchExpressions", k::message, "ScopedResourceSelectorRequirement", rep|omit},
};
constexpr field_desc ScopedResourceSelectorRequirement[] = {
    {1, "scopeName", "ScopeName", k::string, "", 0},
    {2, "operator", "Operator", k::string, "", 0},
    {3, "values", "Values", k::string, "", rep|omit},
};
constexpr field_desc ResourceQuotaStatus[] = {
    {1, "hard", "Hard", k::quantity_map, "", omit},
    {2, "used", "Used", k::quantity_map, "", omit},
};
constexpr field_desc LimitRange[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "LimitRangeSpec", omit},
};
constexpr field_desc LimitRangeSpec[] = {
    {1, "limits", "Limits", k::message, "LimitRangeItem", rep},
};
constexpr field_desc LimitRangeItem[] = {
    {1, "type", "Type", k::string, "", 0},
    {2, "max", "Max", k::quantity_map, "", omit},
    {3, "min", "Min", k::quantity_map, "", omit},
    {4, "default", "Default", k::quantity_map, "", omit},
    {5, "defaultRequest", "DefaultRequest", k::quantity_map, "", omit},
    {6, "maxLimitRequestRatio", "MaxLimitRequestRatio", k::quantity_map, "", omit},
};
// core/v1 Node (the kubelet's registration, tests' fake nodes).
constexpr field_desc Node[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "NodeSpec", omit},
    {3, "status", "Status", k::message, "NodeStatus", omit},
};
constexpr field_desc NodeSpec[] = {
    {1, "podCIDR", "PodCIDR", k::string, "", omit},
    {7, "podCIDRs", "PodCIDRs", k::string, "", rep|omit},
    {3, "providerID", "ProviderID", k::string, "", omit},
    {4, "unschedulable", "Unschedulable", k::boolean, "", omit},
    {5, "taints", "Taints", k::message, "Taint", rep|omit},
    {6, "configSource", "ConfigSource", k::message, "NodeConfigSource", ptr|omit},
    {2, "externalID", "DoNotUseExternalID", k::string, "", omit},
};
constexpr field_desc Taint[] = {
    {1, "key", "Key", k::string, "", 0},
    {2, "value", "Value", k::string, "", omit},
    {3, "effect", "Effect", k::string, "", 0},
    {4, "timeAdded", "TimeAdded", k::time, "", ptr|omit},
};
constexpr field_desc NodeConfigSource[] = {
    {2, "configMap", "ConfigMap", k::message, "ConfigMapNodeConfigSource", ptr|omit},
};
constexpr field_desc ConfigMapNodeConfigSource[] = {
    {1, "namespace", "Namespace", k::string, "", 0},
    {2, "name", "Name", k::string, "", 0},
    {3, "uid", "UID", k::string, "", omit},
    {4, "resourceVersion", "ResourceVersion", k::string, "", omit},
    {5, "kubeletConfigKey", "KubeletConfigKey", k::string, "", 0},
};
constexpr field_desc NodeStatus[] = {
    {1, "capacity", "Capacity", k::quantity_map, "", omit},
    {2, "allocatable", "Allocatable", k::quantity_map, "", omit},
    {3, "phase", "Phase", k::string, "", omit},
    {4, "conditions", "Conditions", k::message, "NodeCondition", rep|omit},
    {5, "addresses", "Addresses", k::message, "NodeAddress", rep|omit},
    {6, "daemonEndpoints", "DaemonEndpoints", k::message, "NodeDaemonEndpoints", omit},
    {7, "nodeInfo", "NodeInfo", k::message, "NodeSystemInfo", omit},
    {8, "images", "Images", k::message, "ContainerImage", rep|omit},
    {9, "volumesInUse", "VolumesInUse", k::string, "", rep|omit},
    {10, "volumesAttached", "VolumesAttached", k::message, "AttachedVolume", rep|omit},
    {11, "config", "Config", k::message, "NodeConfigStatus", ptr|omit},
    {12, "runtimeHandlers", "RuntimeHandlers", k::message, "NodeRuntimeHandler", rep|omit},
    // The struct tag says "bytes,13,rep"; generated.proto has an optional message.
    {13, "features", "Features", k::message, "NodeFeatures", ptr|omit},
};
constexpr field_desc NodeCondition[] = {
    {1, "type", "Type", k::string, "", 0},
    {2, "status", "Status", k::string, "", 0},
    {3, "lastHeartbeatTime", "LastHeartbeatTime", k::time, "", omit},
    {4, "lastTransitionTime", "LastTransitionTime", k::time, "", omit},
    {5, "reason", "Reason", k::string, "", omit},
    {6, "message", "Message", k::string, "", omit},
};
constexpr field_desc NodeAddress[] = {
    {1, "type", "Type", k::string, "", 0},
    {2, "address", "Address", k::string, "", 0},
};
constexpr field_desc NodeDaemonEndpoints[] = {
    {1, "kubeletEndpoint", "KubeletEndpoint", k::message, "DaemonEndpoint", omit},
};
constexpr field_desc DaemonEndpoint[] = {
    {1, "Port", "Port", k::int32, "", 0},  // capitalized in JSON too (an old unquoted tag)
};
constexpr field_desc NodeSystemInfo[] = {
    {1, "machineID", "MachineID", k::string, "", 0},
    {2, "systemUUID", "SystemUUID", k::string, "", 0},
    {3, "bootID", "BootID", k::string, "", 0},
    {4, "kernelVersion", "KernelVersion", k::string, "", 0},
    {5, "osImage", "OSImage", k::string, "", 0},
    {6, "containerRuntimeVersion", "ContainerRuntimeVersion", k::string, "", 0},
    {7, "kubeletVersion", "KubeletVersion", k::string, "", 0},
    {8, "kubeProxyVersion", "KubeProxyVersion", k::string, "", 0},
    {9, "operatingSystem", "OperatingSystem", k::string, "", 0},
    {10, "architecture", "Architecture", k::string, "", 0},
};
constexpr field_desc ContainerImage[] = {
    {1, "names", "Names", k::string, "", rep},
    {2, "sizeBytes", "SizeBytes", k::int64, "", omit},
};
constexpr field_desc AttachedVolume[] = {
    {1, "name", "Name", k::string, "", 0},
    {2, "devicePath", "DevicePath", k::string, "", 0},
};
constexpr field_desc NodeConfigStatus[] = {
    {1, "assigned", "Assigned", k::message, "NodeConfigSource", ptr|omit},
    {2, "active", "Active", k::message, "NodeConfigSource", ptr|omit},
    {3, "lastKnownGood", "LastKnownGood", k::message, "NodeConfigSource", ptr|omit},
    {4, "error", "Error", k::string, "", omit},
};
constexpr field_desc NodeRuntimeHandler[] = {
    {1, "name", "Name", k::string, "", 0},
    {2, "features", "Features", k::message, "NodeRuntimeHandlerFeatures", ptr|omit},
};
constexpr field_desc NodeRuntimeHandlerFeatures[] = {
    {1, "recursiveReadOnlyMounts", "RecursiveReadOnlyMounts", k::boolean, "", ptr|omit},
    {2, "userNamespaces", "UserNamespaces", k::boolean, "", ptr|omit},
};
constexpr field_desc NodeFeatures[] = {
    {1, "supplementalGroupsPolicy", "SupplementalGroupsPolicy", k::boolean, "", ptr|omit},
};
// batch/v1 Job and CronJob (kubectl create job / cronjob).
constexpr field_desc Job[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "JobSpec", omit},
    {3, "status", "Status", k::message, "JobStatus", omit},
};
constexpr field_desc JobSpec[] = {
    {1, "parallelism", "Parallelism", k::int32, "", ptr|omit},
    {2, "completions", "Completions", k::int32, "", ptr|omit},
    {3, "activeDeadlineSeconds", "ActiveDeadlineSeconds", k::int64, "", ptr|omit},
    {11, "podFailurePolicy", "PodFailurePolicy", k::message, "PodFailurePolicy", ptr|omit},
    {16, "successPolicy", "SuccessPolicy", k::message, "SuccessPolicy", ptr|omit},
    {7, "backoffLimit", "BackoffLimit", k::int32, "", ptr|omit},
    {12, "backoffLimitPerIndex", "BackoffLimitPerIndex", k::int32, "", ptr|omit},
    {13, "maxFailedIndexes", "MaxFailedIndexes", k::int32, "", ptr|omit},
    {4, "selector", "Selector", k::message, "LabelSelector", ptr|omit},
    {5, "manualSelector", "ManualSelector", k::boolean, "", ptr|omit},
    {6, "template", "Template", k::message, "PodTemplateSpec", 0},
    {8, "ttlSecondsAfterFinished", "TTLSecondsAfterFinished", k::int32, "", ptr|omit},
    {9, "completionMode", "CompletionMode", k::string, "", ptr|omit},
    {10, "suspend", "Suspend", k::boolean, "", ptr|omit},
    {14, "podReplacementPolicy", "PodReplacementPolicy", k::string, "", ptr|omit},
    {15, "managedBy", "ManagedBy", k::string, "", ptr|omit},
};
constexpr field_desc PodFailurePolicy[] = {
    {1, "rules", "Rules", k::message, "PodFailurePolicyRule", rep},
};
constexpr field_desc PodFailurePolicyRule[] = {
    {1, "action", "Action", k::string, "", 0},
    {2, "onExitCodes", "OnExitCodes", k::message, "PodFailurePolicyOnExitCodesRequirement", ptr|omit},
    {3, "onPodConditions", "OnPodConditions", k::message, "PodFailurePolicyOnPodConditionsPattern", rep|omit},
};
constexpr field_desc PodFailurePolicyOnExitCodesRequirement[] = {
    {1, "containerName", "ContainerName", k::string, "", ptr|omit},
    {2, "operator", "Operator", k::string, "", 0},
    {3, "values", "Values", k::int32, "", rep},
};
constexpr field_desc PodFailurePolicyOnPodConditionsPattern[] = {
    {1, "type", "Type", k::string, "", 0},
    {2, "status", "Status", k::string, "", 0},
};
constexpr field_desc SuccessPolicy[] = {
    {1, "rules", "Rules", k::message, "SuccessPolicyRule", rep},
};
constexpr field_desc SuccessPolicyRule[] = {
    {1, "succeededIndexes", "SucceededIndexes", k::string, "", ptr|omit},
    {2, "succeededCount", "SucceededCount", k::int32, "", ptr|omit},
};
constexpr field_desc JobStatus[] = {
    {1, "conditions", "Conditions", k::message, "JobCondition", rep|omit},
    {2, "startTime", "StartTime", k::time, "", ptr|omit},
    {3, "completionTime", "CompletionTime", k::time, "", ptr|omit},
    {4, "active", "Active", k::int32, "", omit},
    {5, "succeeded", "Succeeded", k::int32, "", omit},
    {6, "failed", "Failed", k::int32, "", omit},
    {11, "terminating", "Terminating", k::int32, "", ptr|omit},
    {7, "completedIndexes", "CompletedIndexes", k::string, "", omit},
    {10, "failedIndexes", "FailedIndexes", k::string, "", ptr|omit},
    {8, "uncountedTerminatedPods", "UncountedTerminatedPods", k::message, "UncountedTerminatedPods", ptr|omit},
    {9, "ready", "Ready", k::int32, "", ptr|omit},
};
constexpr field_desc JobCondition[] = {
    {1, "type", "Type", k::string, "", 0},
    {2, "status", "Status", k::string, "", 0},
    {3, "lastProbeTime", "LastProbeTime", k::time, "", omit},
    {4, "lastTransitionTime", "LastTransitionTime", k::time, "", omit},
    {5, "reason", "Reason", k::string, "", omit},
    {6, "message", "Message", k::string, "", omit},
};
constexpr field_desc UncountedTerminatedPods[] = {
    {1, "succeeded", "Succeeded", k::string, "", rep|omit},
    {2, "failed", "Failed", k::string, "", rep|omit},
};
constexpr field_desc CronJob[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "CronJobSpec", omit},
    {3, "status", "Status", k::message, "CronJobStatus", omit},
};
constexpr field_desc CronJobSpec[] = {
    {1, "schedule", "Schedule", k::string, "", 0},
    {8, "timeZone", "TimeZone", k::string, "", ptr|omit},
    {2, "startingDeadlineSeconds", "StartingDeadlineSeconds", k::int64, "", ptr|omit},
    {3, "concurrencyPolicy", "ConcurrencyPolicy", k::string, "", omit},
    {4, "suspend", "Suspend", k::boolean, "", ptr|omit},
    {5, "jobTemplate", "JobTemplate", k::message, "JobTemplateSpec", 0},
    {6, "successfulJobsHistoryLimit", "SuccessfulJobsHistoryLimit", k::int32, "", ptr|omit},
    {7, "failedJobsHistoryLimit", "FailedJobsHistoryLimit", k::int32, "", ptr|omit},
};
constexpr field_desc JobTemplateSpec[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "JobSpec", omit},
};
constexpr field_desc CronJobStatus[] = {
    {1, "active", "Active", k::message, "ObjectReference", rep|omit},
    {4, "lastScheduleTime", "LastScheduleTime", k::time, "", ptr|omit},
    {5, "lastSuccessfulTime", "LastSuccessfulTime", k::time, "", ptr|omit},
};
// rbac.authorization.k8s.io/v1 (kubectl create role / clusterrole / rolebinding / clusterrolebinding).
constexpr field_desc Role[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "rules", "Rules", k::message, "PolicyRule", rep},
};
constexpr field_desc ClusterRole[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "rules", "Rules", k::message, "PolicyRule", rep},
    {3, "aggregationRule", "AggregationRule", k::message, "AggregationRule", ptr|omit},
};
constexpr field_desc PolicyRule[] = {
    {1, "verbs", "Verbs", k::string, "", rep},
    {2, "apiGroups", "APIGroups", k::string, "", rep|omit},
    {3, "resources", "Resources", k::string, "", rep|omit},
    {4, "resourceNames", "ResourceNames", k::string, "", rep|omit},
    {5, "nonResourceURLs", "NonResourceURLs", k::string, "", rep|omit},
};
constexpr field_desc AggregationRule[] = {
    {1, "clusterRoleSelectors", "ClusterRoleSelectors", k::message, "LabelSelector", rep|omit},
};
constexpr field_desc RoleBinding[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "subjects", "Subjects", k::message, "Subject", rep|omit},
    {3, "roleRef", "RoleRef", k::message, "RoleRef", 0},
};
constexpr field_desc ClusterRoleBinding[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "subjects", "Subjects", k::message, "Subject", rep|omit},
    {3, "roleRef", "RoleRef", k::message, "RoleRef", 0},
};
constexpr field_desc Subject[] = {
    {1, "kind", "Kind", k::string, "", 0},
    {2, "apiGroup", "APIGroup", k::string, "", omit},
    {3, "name", "Name", k::string, "", 0},
    {4, "namespace", "Namespace", k::string, "", omit},
};
constexpr field_desc RoleRef[] = {
    {1, "apiGroup", "APIGroup", k::string, "", 0},
    {2, "kind", "Kind", k::string, "", 0},
    {3, "name", "Name", k::string, "", 0},
};
// policy/v1 PodDisruptionBudget (kubectl create poddisruptionbudget); conditions are metav1.Condition.
constexpr field_desc PodDisruptionBudget[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "PodDisruptionBudgetSpec", omit},
    {3, "status", "Status", k::message, "PodDisruptionBudgetStatus", omit},
};
constexpr field_desc PodDisruptionBudgetSpec[] = {
    {1, "minAvailable", "MinAvailable", k::int_or_string, "", ptr|omit},
    {2, "selector", "Selector", k::message, "LabelSelector", ptr|omit},
    {3, "maxUnavailable", "MaxUnavailable", k::int_or_string, "", ptr|omit},
    {4, "unhealthyPodEvictionPolicy", "UnhealthyPodEvictionPolicy", k::string, "", ptr|omit},
};
constexpr field_desc PodDisruptionBudgetStatus[] = {
    {1, "observedGeneration", "ObservedGeneration", k::int64, "", omit},
    // 2 disruptedPods: map[string]metav1.Time not decoded (no map-of-Time kind)
    {3, "disruptionsAllowed", "DisruptionsAllowed", k::int32, "", 0},
    {4, "currentHealthy", "CurrentHealthy", k::int32, "", 0},
    {5, "desiredHealthy", "DesiredHealthy", k::int32, "", 0},
    {6, "expectedPods", "ExpectedPods", k::int32, "", 0},
    {7, "conditions", "Conditions", k::message, "Condition", rep|omit},
};
// networking.k8s.io/v1 Ingress (kubectl create ingress).
constexpr field_desc Ingress[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "IngressSpec", omit},
    {3, "status", "Status", k::message, "IngressStatus", omit},
};
constexpr field_desc IngressSpec[] = {
    {4, "ingressClassName", "IngressClassName", k::string, "", ptr|omit},
    {1, "defaultBackend", "DefaultBackend", k::message, "IngressBackend", ptr|omit},
    {2, "tls", "TLS", k::message, "IngressTLS", rep|omit},
    {3, "rules", "Rules", k::message, "IngressRule", rep|omit},
};
constexpr field_desc IngressBackend[] = {
    {4, "service", "Service", k::message, "IngressServiceBackend", ptr|omit},
    {3, "resource", "Resource", k::message, "TypedLocalObjectReference", ptr|omit},
};
constexpr field_desc IngressServiceBackend[] = {
    {1, "name", "Name", k::string, "", 0},
    {2, "port", "Port", k::message, "ServiceBackendPort", omit},
};
constexpr field_desc ServiceBackendPort[] = {
    {1, "name", "Name", k::string, "", omit},
    {2, "number", "Number", k::int32, "", omit},
};
constexpr field_desc IngressTLS[] = {
    {1, "hosts", "Hosts", k::string, "", rep|omit},
    {2, "secretName", "SecretName", k::string, "", omit},
};
constexpr field_desc IngressRule[] = {
    {1, "host", "Host", k::string, "", omit},
    {2, "", "IngressRuleValue", k::message, "IngressRuleValue", inl},
};
constexpr field_desc IngressRuleValue[] = {
    {1, "http", "HTTP", k::message, "HTTPIngressRuleValue", ptr|omit},
};
constexpr field_desc HTTPIngressRuleValue[] = {
    {1, "paths", "Paths", k::message, "HTTPIngressPath", rep},
};
constexpr field_desc HTTPIngressPath[] = {
    {1, "path", "Path", k::string, "", omit},
    {3, "pathType", "PathType", k::string, "", ptr},
    {2, "backend", "Backend", k::message, "IngressBackend", 0},
};
constexpr field_desc IngressStatus[] = {
    {1, "loadBalancer", "LoadBalancer", k::message, "IngressLoadBalancerStatus", omit},
};
constexpr field_desc IngressLoadBalancerStatus[] = {
    {1, "ingress", "Ingress", k::message, "IngressLoadBalancerIngress", rep|omit},
};
constexpr field_desc IngressLoadBalancerIngress[] = {
    {1, "ip", "IP", k::string, "", omit},
    {2, "hostname", "Hostname", k::string, "", omit},
    {4, "ports", "Ports", k::message, "IngressPortStatus", rep|omit},
};
constexpr field_desc IngressPortStatus[] = {
    {1, "port", "Port", k::int32, "", 0},
    {2, "protocol", "Protocol", k::string, "", 0},
    {3, "error", "Error", k::string, "", ptr|omit},
};
// networking.k8s.io/v1 NetworkPolicy (no status in v1).
constexpr field_desc NetworkPolicy[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "NetworkPolicySpec", omit},
};
constexpr field_desc NetworkPolicySpec[] = {
    {1, "podSelector", "PodSelector", k::message, "LabelSelector", 0},
    {2, "ingress", "Ingress", k::message, "NetworkPolicyIngressRule", rep|omit},
    {3, "egress", "Egress", k::message, "NetworkPolicyEgressRule", rep|omit},
    {4, "policyTypes", "PolicyTypes", k::string, "", rep|omit},
};
constexpr field_desc NetworkPolicyIngressRule[] = {
    {1, "ports", "Ports", k::message, "NetworkPolicyPort", rep|omit},
    {2, "from", "From", k::message, "NetworkPolicyPeer", rep|omit},
};
constexpr field_desc NetworkPolicyEgressRule[] = {
    {1, "ports", "Ports", k::message, "NetworkPolicyPort", rep|omit},
    {2, "to", "To", k::message, "NetworkPolicyPeer", rep|omit},
};
constexpr field_desc NetworkPolicyPort[] = {
    {1, "protocol", "Protocol", k::string, "", ptr|omit},
    {2, "port", "Port", k::int_or_string, "", ptr|omit},
    // The struct tag says "bytes,3"; generated.proto and the generated code
    // have an optional int32 (varint).
    {3, "endPort", "EndPort", k::int32, "", ptr|omit},
};
constexpr field_desc NetworkPolicyPeer[] = {
    {1, "podSelector", "PodSelector", k::message, "LabelSelector", ptr|omit},
    {2, "namespaceSelector", "NamespaceSelector", k::message, "LabelSelector", ptr|omit},
    {3, "ipBlock", "IPBlock", k::message, "IPBlock", ptr|omit},
};
constexpr field_desc IPBlock[] = {
    {1, "cidr", "CIDR", k::string, "", 0},
    {2, "except", "Except", k::string, "", rep|omit},
};
// apps/v1 ReplicaSet, StatefulSet, DaemonSet.
constexpr field_desc ReplicaSet[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "ReplicaSetSpec", omit},
    {3, "status", "Status", k::message, "ReplicaSetStatus", omit},
};
constexpr field_desc ReplicaSetSpec[] = {
    {1, "replicas", "Replicas", k::int32, "", ptr|omit},
    {4, "minReadySeconds", "MinReadySeconds", k::int32, "", omit},
    {2, "selector", "Selector", k::message, "LabelSelector", ptr},
    {3, "template", "Template", k::message, "PodTemplateSpec", omit},
};
constexpr field_desc ReplicaSetStatus[] = {
    {1, "replicas", "Replicas", k::int32, "", 0},
    {2, "fullyLabeledReplicas", "FullyLabeledReplicas", k::int32, "", omit},
    {4, "readyReplicas", "ReadyReplicas", k::int32, "", omit},
    {5, "availableReplicas", "AvailableReplicas", k::int32, "", omit},
    {3, "observedGeneration", "ObservedGeneration", k::int64, "", omit},
    {6, "conditions", "Conditions", k::message, "ReplicaSetCondition", rep|omit},
};
constexpr field_desc ReplicaSetCondition[] = {
    {1, "type", "Type", k::string, "", 0},
    {2, "status", "Status", k::string, "", 0},
    {3, "lastTransitionTime", "LastTransitionTime", k::time, "", omit},
    {4, "reason", "Reason", k::string, "", omit},
    {5, "message", "Message", k::string, "", omit},
};
constexpr field_desc StatefulSet[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "StatefulSetSpec", omit},
    {3, "status", "Status", k::message, "StatefulSetStatus", omit},
};
constexpr field_desc StatefulSetSpec[] = {
    {1, "replicas", "Replicas", k::int32, "", ptr|omit},
    {2, "selector", "Selector", k::message, "LabelSelector", ptr},
    {3, "template", "Template", k::message, "PodTemplateSpec", 0},
    {4, "volumeClaimTemplates", "VolumeClaimTemplates", k::message, "PersistentVolumeClaim", rep|omit},
    {5, "serviceName", "ServiceName", k::string, "", 0},
    {6, "podManagementPolicy", "PodManagementPolicy", k::string, "", omit},
    {7, "updateStrategy", "UpdateStrategy", k::message, "StatefulSetUpdateStrategy", omit},
    {8, "revisionHistoryLimit", "RevisionHistoryLimit", k::int32, "", ptr|omit},
    {9, "minReadySeconds", "MinReadySeconds", k::int32, "", omit},
    {10, "persistentVolumeClaimRetentionPolicy", "PersistentVolumeClaimRetentionPolicy", k::message, "StatefulSetPersistentVolumeClaimRetentionPolicy", ptr|omit},
    {11, "ordinals", "Ordinals", k::message, "StatefulSetOrdinals", ptr|omit},
};
constexpr field_desc StatefulSetUpdateStrategy[] = {
    {1, "type", "Type", k::string, "", omit},
    {2, "rollingUpdate", "RollingUpdate", k::message, "RollingUpdateStatefulSetStrategy", ptr|omit},
};
constexpr field_desc RollingUpdateStatefulSetStrategy[] = {
    {1, "partition", "Partition", k::int32, "", ptr|omit},
    {2, "maxUnavailable", "MaxUnavailable", k::int_or_string, "", ptr|omit},
};
constexpr field_desc StatefulSetPersistentVolumeClaimRetentionPolicy[] = {
    {1, "whenDeleted", "WhenDeleted", k::string, "", omit},
    {2, "whenScaled", "WhenScaled", k::string, "", omit},
};
constexpr field_desc StatefulSetOrdinals[] = {
    {1, "start", "Start", k::int32, "", 0},
};
constexpr field_desc StatefulSetStatus[] = {
    {1, "observedGeneration", "ObservedGeneration", k::int64, "", omit},
    {2, "replicas", "Replicas", k::int32, "", 0},
    {3, "readyReplicas", "ReadyReplicas", k::int32, "", omit},
    {4, "currentReplicas", "CurrentReplicas", k::int32, "", omit},
    {5, "updatedReplicas", "UpdatedReplicas", k::int32, "", omit},
    {6, "currentRevision", "CurrentRevision", k::string, "", omit},
    {7, "updateRevision", "UpdateRevision", k::string, "", omit},
    {9, "collisionCount", "CollisionCount", k::int32, "", ptr|omit},
    {10, "conditions", "Conditions", k::message, "StatefulSetCondition", rep|omit},
    {11, "availableReplicas", "AvailableReplicas", k::int32, "", 0},
};
constexpr field_desc StatefulSetCondition[] = {
    {1, "type", "Type", k::string, "", 0},
    {2, "status", "Status", k::string, "", 0},
    {3, "lastTransitionTime", "LastTransitionTime", k::time, "", omit},
    {4, "reason", "Reason", k::string, "", omit},
    {5, "message", "Message", k::string, "", omit},
};
constexpr field_desc DaemonSet[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "DaemonSetSpec", omit},
    {3, "status", "Status", k::message, "DaemonSetStatus", omit},
};
constexpr field_desc DaemonSetSpec[] = {
    {1, "selector", "Selector", k::message, "LabelSelector", ptr},
    {2, "template", "Template", k::message, "PodTemplateSpec", 0},
    {3, "updateStrategy", "UpdateStrategy", k::message, "DaemonSetUpdateStrategy", omit},
    {4, "minReadySeconds", "MinReadySeconds", k::int32, "", omit},
    {6, "revisionHistoryLimit", "RevisionHistoryLimit", k::int32, "", ptr|omit},
};
constexpr field_desc DaemonSetUpdateStrategy[] = {
    {1, "type", "Type", k::string, "", omit},
    {2, "rollingUpdate", "RollingUpdate", k::message, "RollingUpdateDaemonSet", ptr|omit},
};
constexpr field_desc RollingUpdateDaemonSet[] = {
    {1, "maxUnavailable", "MaxUnavailable", k::int_or_string, "", ptr|omit},
    {2, "maxSurge", "MaxSurge", k::int_or_string, "", ptr|omit},
};
constexpr field_desc DaemonSetStatus[] = {
    {1, "currentNumberScheduled", "CurrentNumberScheduled", k::int32, "", 0},
    {2, "numberMisscheduled", "NumberMisscheduled", k::int32, "", 0},
    {3, "desiredNumberScheduled", "DesiredNumberScheduled", k::int32, "", 0},
    {4, "numberReady", "NumberReady", k::int32, "", 0},
    {5, "observedGeneration", "ObservedGeneration", k::int64, "", omit},
    {6, "updatedNumberScheduled", "UpdatedNumberScheduled", k::int32, "", omit},
    {7, "numberAvailable", "NumberAvailable", k::int32, "", omit},
    {8, "numberUnavailable", "NumberUnavailable", k::int32, "", omit},
    {9, "collisionCount", "CollisionCount", k::int32, "", ptr|omit},
    {10, "conditions", "Conditions", k::message, "DaemonSetCondition", rep|omit},
};
constexpr field_desc DaemonSetCondition[] = {
    {1, "type", "Type", k::string, "", 0},
    {2, "status", "Status", k::string, "", 0},
    {3, "lastTransitionTime", "LastTransitionTime", k::time, "", omit},
    {4, "reason", "Reason", k::string, "", omit},
    {5, "message", "Message", k::string, "", omit},
};
// discovery.k8s.io/v1 EndpointSlice (its EndpointPort differs from core/v1's).
constexpr field_desc EndpointSlice[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {4, "addressType", "AddressType", k::string, "", 0},
    {2, "endpoints", "Endpoints", k::message, "Endpoint", rep},
    {3, "ports", "Ports", k::message, "DiscoveryV1EndpointPort", rep},
};
constexpr field_desc Endpoint[] = {
    {1, "addresses", "Addresses", k::string, "", rep},
    {2, "conditions", "Conditions", k::message, "EndpointConditions", omit},
    {3, "hostname", "Hostname", k::string, "", ptr|omit},
    {4, "targetRef", "TargetRef", k::message, "ObjectReference", ptr|omit},
    {5, "deprecatedTopology", "DeprecatedTopology", k::string_map, "", omit},
    {6, "nodeName", "NodeName", k::string, "", ptr|omit},
    {7, "zone", "Zone", k::string, "", ptr|omit},
    {8, "hints", "Hints", k::message, "EndpointHints", ptr|omit},
};
constexpr field_desc EndpointConditions[] = {
    {1, "ready", "Ready", k::boolean, "", ptr|omit},
    {2, "serving", "Serving", k::boolean, "", ptr|omit},
    {3, "terminating", "Terminating", k::boolean, "", ptr|omit},
};
constexpr field_desc EndpointHints[] = {
    {1, "forZones", "ForZones", k::message, "ForZone", rep|omit},
};
constexpr field_desc ForZone[] = {
    {1, "name", "Name", k::string, "", 0},
};
constexpr field_desc DiscoveryV1EndpointPort[] = {
    {1, "name", "Name", k::string, "", ptr|omit},
    {2, "protocol", "Protocol", k::string, "", ptr|omit},
    {3, "port", "Port", k::int32, "", ptr|omit},
    {4, "appProtocol", "AppProtocol", k::string, "", ptr|omit},
};
// authorization.k8s.io/v1 reviews (kubectl auth can-i, can-i --list).
constexpr field_desc SubjectAccessReview[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "SubjectAccessReviewSpec", 0},
    {3, "status", "Status", k::message, "SubjectAccessReviewStatus", omit},
};
constexpr field_desc SelfSubjectAccessReview[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "SelfSubjectAccessReviewSpec", 0},
    {3, "status", "Status", k::message, "SubjectAccessReviewStatus", omit},
};
constexpr field_desc LocalSubjectAccessReview[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "SubjectAccessReviewSpec", 0},
    {3, "status", "Status", k::message, "SubjectAccessReviewStatus", omit},
};
constexpr field_desc ResourceAttributes[] = {
    {1, "namespace", "Namespace", k::string, "", omit},
    {2, "verb", "Verb", k::string, "", omit},
    {3, "group", "Group", k::string, "", omit},
    {4, "version", "Version", k::string, "", omit},
    {5, "resource", "Resource", k::string, "", omit},
    {6, "subresource", "Subresource", k::string, "", omit},
    {7, "name", "Name", k::string, "", omit},
    {8, "fieldSelector", "FieldSelector", k::message, "FieldSelectorAttributes", ptr|omit},
    {9, "labelSelector", "LabelSelector", k::message, "LabelSelectorAttributes", ptr|omit},
};
constexpr field_desc LabelSelectorAttributes[] = {
    {1, "rawSelector", "RawSelector", k::string, "", omit},
    {2, "requirements", "Requirements", k::message, "LabelSelectorRequirement", rep|omit},
};
constexpr field_desc FieldSelectorAttributes[] = {
    {1, "rawSelector", "RawSelector", k::string, "", omit},
    {2, "requirements", "Requirements", k::message, "FieldSelectorRequirement", rep|omit},
};
// metav1.FieldSelectorRequirement.
constexpr field_desc FieldSelectorRequirement[] = {
    {1, "key", "Key", k::string, "", 0},
    {2, "operator", "Operator", k::string, "", 0},
    {3, "values", "Values", k::string, "", rep|omit},
};
constexpr field_desc NonResourceAttributes[] = {
    {1, "path", "Path", k::string, "", omit},
    {2, "verb", "Verb", k::string, "", omit},
};
constexpr field_desc SubjectAccessReviewSpec[] = {
    {1, "resourceAttributes", "ResourceAttributes", k::message, "ResourceAttributes", ptr|omit},
    {2, "nonResourceAttributes", "NonResourceAttributes", k::message, "NonResourceAttributes", ptr|omit},
    {3, "user", "User", k::string, "", omit},
    {4, "groups", "Groups", k::string, "", rep|omit},
    // 5 extra: map[string]ExtraValue not decoded (no map-of-[]string kind)
    {6, "uid", "UID", k::string, "", omit},
};
constexpr field_desc SelfSubjectAccessReviewSpec[] = {
    {1, "resourceAttributes", "ResourceAttributes", k::message, "ResourceAttributes", ptr|omit},
    {2, "nonResourceAttributes", "NonResourceAttributes", k::message, "NonResourceAttributes", ptr|omit},
};
constexpr field_desc SubjectAccessReviewStatus[] = {
    {1, "allowed", "Allowed", k::boolean, "", 0},
    {4, "denied", "Denied", k::boolean, "", omit},
    {2, "reason", "Reason", k::string, "", omit},
    {3, "evaluationError", "EvaluationError", k::string, "", omit},
};
constexpr field_desc SelfSubjectRulesReview[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "SelfSubjectRulesReviewSpec", 0},
    {3, "status", "Status", k::message, "SubjectRulesReviewStatus", omit},
};
constexpr field_desc SelfSubjectRulesReviewSpec[] = {
    {1, "namespace", "Namespace", k::string, "", omit},
};
constexpr field_desc SubjectRulesReviewStatus[] = {
    {1, "resourceRules", "ResourceRules", k::message, "ResourceRule", rep},
    {2, "nonResourceRules", "NonResourceRules", k::message, "NonResourceRule", rep},
    // The struct tag says "bytes,3,rep"; generated.proto and the generated
    // code have an optional bool (varint).
    {3, "incomplete", "Incomplete", k::boolean, "", 0},
    {4, "evaluationError", "EvaluationError", k::string, "", omit},
};
constexpr field_desc ResourceRule[] = {
    {1, "verbs", "Verbs", k::string, "", rep},
    {2, "apiGroups", "APIGroups", k::string, "", rep|omit},
    {3, "resources", "Resources", k::string, "", rep|omit},
    {4, "resourceNames", "ResourceNames", k::string, "", rep|omit},
};
constexpr field_desc NonResourceRule[] = {
    {1, "verbs", "Verbs", k::string, "", rep},
    {2, "nonResourceURLs", "NonResourceURLs", k::string, "", rep|omit},
};
// authentication.k8s.io/v1 TokenRequest (serviceaccounts/token: kubectl create token).
constexpr field_desc TokenRequest[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "TokenRequestSpec", 0},
    {3, "status", "Status", k::message, "TokenRequestStatus", omit},
};
constexpr field_desc TokenRequestSpec[] = {
    {1, "audiences", "Audiences", k::string, "", rep},
    {4, "expirationSeconds", "ExpirationSeconds", k::int64, "", ptr},
    {3, "boundObjectRef", "BoundObjectRef", k::message, "BoundObjectReference", ptr},
};
constexpr field_desc BoundObjectReference[] = {
    {1, "kind", "Kind", k::string, "", omit},
    {2, "apiVersion", "APIVersion", k::string, "", omit},
    {3, "name", "Name", k::string, "", omit},
    {4, "uid", "UID", k::string, "", omit},
};
constexpr field_desc TokenRequestStatus[] = {
    {1, "token", "Token", k::string, "", 0},
    {2, "expirationTimestamp", "ExpirationTimestamp", k::time, "", 0},
};
// authentication.k8s.io/v1 TokenReview and SelfSubjectReview (kubectl auth whoami).
constexpr field_desc TokenReview[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "spec", "Spec", k::message, "TokenReviewSpec", 0},
    {3, "status", "Status", k::message, "TokenReviewStatus", omit},
};
constexpr field_desc TokenReviewSpec[] = {
    {1, "token", "Token", k::string, "", omit},
    {2, "audiences", "Audiences", k::string, "", rep|omit},
};
constexpr field_desc TokenReviewStatus[] = {
    {1, "authenticated", "Authenticated", k::boolean, "", omit},
    {2, "user", "User", k::message, "UserInfo", omit},
    {4, "audiences", "Audiences", k::string, "", rep|omit},
    {3, "error", "Error", k::string, "", omit},
};
constexpr field_desc UserInfo[] = {
    {1, "username", "Username", k::string, "", omit},
    {2, "uid", "UID", k::string, "", omit},
    {3, "groups", "Groups", k::string, "", rep|omit},
    // 4 extra: map[string]ExtraValue not decoded (no map-of-[]string kind)
};
constexpr field_desc SelfSubjectReview[] = {
    {1, "metadata", "ObjectMeta", k::message, "ObjectMeta", omit},
    {2, "status", "Status", k::message, "SelfSubjectReviewStatus", omit},
};
constexpr field_desc SelfSubjectReviewStatus[] = {
    {1, "userInfo", "UserInfo", k::message, "UserInfo", omit},
};
// clang-format on

#define KCORO_MESSAGE(name) message_desc{#name, name}
// A plain array: std::array's deduction guide folds over every element (clang stops at 256).
constexpr message_desc messages[] = {
    KCORO_MESSAGE(ObjectMeta), KCORO_MESSAGE(OwnerReference), KCORO_MESSAGE(ManagedFieldsEntry),
    KCORO_MESSAGE(LabelSelector), KCORO_MESSAGE(LabelSelectorRequirement), KCORO_MESSAGE(Condition),
    KCORO_MESSAGE(ConfigMap), KCORO_MESSAGE(Secret), KCORO_MESSAGE(Namespace), KCORO_MESSAGE(NamespaceSpec),
    KCORO_MESSAGE(NamespaceStatus), KCORO_MESSAGE(NamespaceCondition), KCORO_MESSAGE(ServiceAccount),
    KCORO_MESSAGE(ObjectReference), KCORO_MESSAGE(LocalObjectReference), KCORO_MESSAGE(Service),
    KCORO_MESSAGE(ServiceSpec), KCORO_MESSAGE(ServicePort), KCORO_MESSAGE(ServiceStatus),
    KCORO_MESSAGE(LoadBalancerStatus), KCORO_MESSAGE(LoadBalancerIngress), KCORO_MESSAGE(PortStatus),
    KCORO_MESSAGE(SessionAffinityConfig), KCORO_MESSAGE(ClientIPConfig), KCORO_MESSAGE(Deployment),
    KCORO_MESSAGE(DeploymentSpec), KCORO_MESSAGE(DeploymentStrategy), KCORO_MESSAGE(RollingUpdateDeployment),
    KCORO_MESSAGE(DeploymentStatus), KCORO_MESSAGE(DeploymentCondition), KCORO_MESSAGE(PodTemplateSpec),
    KCORO_MESSAGE(PodSpec), KCORO_MESSAGE(Container), KCORO_MESSAGE(ContainerPort), KCORO_MESSAGE(EnvVar),
    KCORO_MESSAGE(EnvVarSource), KCORO_MESSAGE(ConfigMapKeySelector), KCORO_MESSAGE(SecretKeySelector),
    KCORO_MESSAGE(ObjectFieldSelector), KCORO_MESSAGE(ResourceFieldSelector), KCORO_MESSAGE(EnvFromSource),
    KCORO_MESSAGE(ConfigMapEnvSource), KCORO_MESSAGE(SecretEnvSource), KCORO_MESSAGE(ResourceRequirements),
    KCORO_MESSAGE(ResourceClaim), KCORO_MESSAGE(VolumeMount), KCORO_MESSAGE(Volume),
    KCORO_MESSAGE(VolumeSource), KCORO_MESSAGE(EmptyDirVolumeSource), KCORO_MESSAGE(ConfigMapVolumeSource),
    KCORO_MESSAGE(SecretVolumeSource), KCORO_MESSAGE(KeyToPath), KCORO_MESSAGE(Probe),
    KCORO_MESSAGE(ProbeHandler), KCORO_MESSAGE(ExecAction), KCORO_MESSAGE(HTTPGetAction),
    KCORO_MESSAGE(HTTPHeader), KCORO_MESSAGE(TCPSocketAction), KCORO_MESSAGE(GRPCAction),
    KCORO_MESSAGE(Toleration), KCORO_MESSAGE(DeleteOptions), KCORO_MESSAGE(Preconditions),
    KCORO_MESSAGE(PodOS), KCORO_MESSAGE(PodReadinessGate), KCORO_MESSAGE(HostAlias),
    KCORO_MESSAGE(PodSchedulingGate), KCORO_MESSAGE(PodSecurityContext), KCORO_MESSAGE(SecurityContext),
    KCORO_MESSAGE(Capabilities), KCORO_MESSAGE(SELinuxOptions), KCORO_MESSAGE(SeccompProfile),
    KCORO_MESSAGE(AppArmorProfile), KCORO_MESSAGE(WindowsSecurityContextOptions), KCORO_MESSAGE(Sysctl),
    KCORO_MESSAGE(Affinity), KCORO_MESSAGE(NodeAffinity), KCORO_MESSAGE(NodeSelector),
    KCORO_MESSAGE(NodeSelectorTerm), KCORO_MESSAGE(NodeSelectorRequirement),
    KCORO_MESSAGE(PreferredSchedulingTerm), KCORO_MESSAGE(PodAffinity), KCORO_MESSAGE(PodAntiAffinity),
    KCORO_MESSAGE(PodAffinityTerm), KCORO_MESSAGE(WeightedPodAffinityTerm), KCORO_MESSAGE(Lifecycle),
    KCORO_MESSAGE(LifecycleHandler), KCORO_MESSAGE(SleepAction), KCORO_MESSAGE(ContainerResizePolicy),
    KCORO_MESSAGE(TopologySpreadConstraint), KCORO_MESSAGE(PodDNSConfig), KCORO_MESSAGE(PodDNSConfigOption),
    KCORO_MESSAGE(VolumeDevice), KCORO_MESSAGE(EphemeralContainer), KCORO_MESSAGE(EphemeralContainerCommon),
    KCORO_MESSAGE(PodResourceClaim), KCORO_MESSAGE(PersistentVolumeClaimVolumeSource),
    KCORO_MESSAGE(HostPathVolumeSource), KCORO_MESSAGE(DownwardAPIVolumeSource),
    KCORO_MESSAGE(DownwardAPIVolumeFile), KCORO_MESSAGE(ProjectedVolumeSource),
    KCORO_MESSAGE(VolumeProjection), KCORO_MESSAGE(ServiceAccountTokenProjection),
    KCORO_MESSAGE(ConfigMapProjection), KCORO_MESSAGE(SecretProjection), KCORO_MESSAGE(DownwardAPIProjection),
    KCORO_MESSAGE(ClusterTrustBundleProjection), KCORO_MESSAGE(CSIVolumeSource),
    KCORO_MESSAGE(NFSVolumeSource), KCORO_MESSAGE(ImageVolumeSource), KCORO_MESSAGE(EphemeralVolumeSource),
    KCORO_MESSAGE(PersistentVolumeClaimTemplate), KCORO_MESSAGE(PersistentVolumeClaimSpec),
    KCORO_MESSAGE(VolumeResourceRequirements), KCORO_MESSAGE(TypedLocalObjectReference),
    KCORO_MESSAGE(TypedObjectReference), KCORO_MESSAGE(ContainerUser), KCORO_MESSAGE(LinuxContainerUser),
    KCORO_MESSAGE(PodResourceClaimStatus), KCORO_MESSAGE(Lease), KCORO_MESSAGE(LeaseSpec),
    KCORO_MESSAGE(Event), KCORO_MESSAGE(EventSource), KCORO_MESSAGE(EventSeries),
    KCORO_MESSAGE(EventsV1Event), KCORO_MESSAGE(EventsV1EventSeries), KCORO_MESSAGE(Scale),
    KCORO_MESSAGE(ScaleSpec), KCORO_MESSAGE(ScaleStatus),
    KCORO_MESSAGE(Pod), KCORO_MESSAGE(PodStatus), KCORO_MESSAGE(PodCondition), KCORO_MESSAGE(HostIP),
    KCORO_MESSAGE(PodIP), KCORO_MESSAGE(ContainerStatus), KCORO_MESSAGE(ContainerState),
    KCORO_MESSAGE(ContainerStateWaiting), KCORO_MESSAGE(ContainerStateRunning),
    KCORO_MESSAGE(ContainerStateTerminated), KCORO_MESSAGE(VolumeMountStatus), KCORO_MESSAGE(ResourceStatus),
    KCORO_MESSAGE(ResourceHealth), KCORO_MESSAGE(PersistentVolumeClaim),
    KCORO_MESSAGE(PersistentVolumeClaimStatus), KCORO_MESSAGE(PersistentVolumeClaimCondition),
    KCORO_MESSAGE(ModifyVolumeStatus), KCORO_MESSAGE(Endpoints), KCORO_MESSAGE(EndpointSubset),
    KCORO_MESSAGE(EndpointAddress), KCORO_MESSAGE(EndpointPort), KCORO_MESSAGE(Job), KCORO_MESSAGE(JobSpec),
    KCORO_MESSAGE(PodFailurePolicy), KCORO_MESSAGE(PodFailurePolicyRule),
    KCORO_MESSAGE(PodFailurePolicyOnExitCodesRequirement),
    KCORO_MESSAGE(PodFailurePolicyOnPodConditionsPattern), KCORO_MESSAGE(SuccessPolicy),
    KCORO_MESSAGE(SuccessPolicyRule), KCORO_MESSAGE(JobStatus), KCORO_MESSAGE(JobCondition),
    KCORO_MESSAGE(UncountedTerminatedPods), KCORO_MESSAGE(CronJob), KCORO_MESSAGE(CronJobSpec),
    KCORO_MESSAGE(JobTemplateSpec), KCORO_MESSAGE(CronJobStatus), KCORO_MESSAGE(Role),
    KCORO_MESSAGE(ClusterRole), KCORO_MESSAGE(PolicyRule), KCORO_MESSAGE(AggregationRule),
    KCORO_MESSAGE(RoleBinding), KCORO_MESSAGE(ClusterRoleBinding), KCORO_MESSAGE(Subject),
    KCORO_MESSAGE(RoleRef), KCORO_MESSAGE(PodDisruptionBudget), KCORO_MESSAGE(PodDisruptionBudgetSpec),
    KCORO_MESSAGE(PodDisruptionBudgetStatus), KCORO_MESSAGE(Ingress), KCORO_MESSAGE(IngressSpec),
    KCORO_MESSAGE(IngressBackend), KCORO_MESSAGE(IngressServiceBackend), KCORO_MESSAGE(ServiceBackendPort),
    KCORO_MESSAGE(IngressTLS), KCORO_MESSAGE(IngressRule), KCORO_MESSAGE(IngressRuleValue),
    KCORO_MESSAGE(HTTPIngressRuleValue), KCORO_MESSAGE(HTTPIngressPath), KCORO_MESSAGE(IngressStatus),
    KCORO_MESSAGE(IngressLoadBalancerStatus), KCORO_MESSAGE(IngressLoadBalancerIngress),
    KCORO_MESSAGE(IngressPortStatus), KCORO_MESSAGE(ReplicaSet), KCORO_MESSAGE(ReplicaSetSpec),
    KCORO_MESSAGE(ReplicaSetStatus), KCORO_MESSAGE(ReplicaSetCondition), KCORO_MESSAGE(StatefulSet),
    KCORO_MESSAGE(StatefulSetSpec), KCORO_MESSAGE(StatefulSetUpdateStrategy),
    KCORO_MESSAGE(RollingUpdateStatefulSetStrategy),
    KCORO_MESSAGE(StatefulSetPersistentVolumeClaimRetentionPolicy), KCORO_MESSAGE(StatefulSetOrdinals),
    KCORO_MESSAGE(StatefulSetStatus), KCORO_MESSAGE(StatefulSetCondition), KCORO_MESSAGE(DaemonSet),
    KCORO_MESSAGE(DaemonSetSpec), KCORO_MESSAGE(DaemonSetUpdateStrategy),
    KCORO_MESSAGE(RollingUpdateDaemonSet), KCORO_MESSAGE(DaemonSetStatus), KCORO_MESSAGE(DaemonSetCondition),
    KCORO_MESSAGE(EndpointSlice), KCORO_MESSAGE(Endpoint), KCORO_MESSAGE(EndpointConditions),
    KCORO_MESSAGE(EndpointHints), KCORO_MESSAGE(ForZone), KCORO_MESSAGE(DiscoveryV1EndpointPort),
    KCORO_MESSAGE(SubjectAccessReview), KCORO_MESSAGE(SelfSubjectAccessReview),
    KCORO_MESSAGE(LocalSubjectAccessReview), KCORO_MESSAGE(ResourceAttributes),
    KCORO_MESSAGE(LabelSelectorAttributes), KCORO_MESSAGE(FieldSelectorAttributes),
    KCORO_MESSAGE(FieldSelectorRequirement), KCORO_MESSAGE(NonResourceAttributes),
    KCORO_MESSAGE(SubjectAccessReviewSpec), KCORO_MESSAGE(SelfSubjectAccessReviewSpec),
    KCORO_MESSAGE(SubjectAccessReviewStatus), KCORO_MESSAGE(SelfSubjectRulesReview),
    KCORO_MESSAGE(SelfSubjectRulesReviewSpec), KCORO_MESSAGE(SubjectRulesReviewStatus),
    KCORO_MESSAGE(ResourceRule), KCORO_MESSAGE(NonResourceRule), KCORO_MESSAGE(TokenRequest),
    KCORO_MESSAGE(TokenRequestSpec), KCORO_MESSAGE(BoundObjectReference), KCORO_MESSAGE(TokenRequestStatus),
    KCORO_MESSAGE(TokenReview),
    KCORO_MESSAGE(TokenReviewSpec), KCORO_MESSAGE(TokenReviewStatus), KCORO_MESSAGE(UserInfo),
    KCORO_MESSAGE(SelfSubjectReview), KCORO_MESSAGE(SelfSubjectReviewStatus),
    KCORO_MESSAGE(ResourceQuota), KCORO_MESSAGE(ResourceQuotaSpec), KCORO_MESSAGE(ScopeSelector),
    KCORO_MESSAGE(ScopedResourceSelectorRequirement), KCORO_MESSAGE(ResourceQuotaStatus),
    KCORO_MESSAGE(LimitRange), KCORO_MESSAGE(LimitRangeSpec), KCORO_MESSAGE(LimitRangeItem),
    KCORO_MESSAGE(Node), KCORO_MESSAGE(NodeSpec), KCORO_MESSAGE(Taint), KCORO_MESSAGE(NodeConfigSource),
    KCORO_MESSAGE(ConfigMapNodeConfigSource), KCORO_MESSAGE(NodeStatus), KCORO_MESSAGE(NodeCondition),
    KCORO_MESSAGE(NodeAddress), KCORO_MESSAGE(NodeDaemonEndpoints), KCORO_MESSAGE(DaemonEndpoint),
    KCORO_MESSAGE(NodeSystemInfo), KCORO_MESSAGE(ContainerImage), KCORO_MESSAGE(AttachedVolume),
    KCORO_MESSAGE(NodeConfigStatus), KCORO_MESSAGE(NodeRuntimeHandler), KCORO_MESSAGE(NodeRuntimeHandlerFeatures),
    KCORO_MESSAGE(NodeFeatures), KCORO_MESSAGE(NetworkPolicy), KCORO_MESSAGE(NetworkPolicySpec),
    KCORO_MESSAGE(NetworkPolicyIngressRule), KCORO_MESSAGE(NetworkPolicyEgressRule),
    KCORO_MESSAGE(NetworkPolicyPort), KCORO_MESSAGE(NetworkPolicyPeer), KCORO_MESSAGE(IPBlock),
};
#undef KCORO_MESSAGE

struct kind_entry {
    std::string_view group, kind, message;
};
// The kinds kcoro serves and decodes from protobuf.
constexpr std::array kinds{
    kind_entry{"", "ConfigMap", "ConfigMap"},       kind_entry{"", "Secret", "Secret"},
    kind_entry{"", "Namespace", "Namespace"},       kind_entry{"", "ServiceAccount", "ServiceAccount"},
    kind_entry{"", "Service", "Service"},           kind_entry{"apps", "Deployment", "Deployment"},
    kind_entry{"coordination.k8s.io", "Lease", "Lease"}, kind_entry{"", "Event", "Event"},
    kind_entry{"events.k8s.io", "Event", "EventsV1Event"}, kind_entry{"autoscaling", "Scale", "Scale"},
    kind_entry{"", "Pod", "Pod"},
    kind_entry{"", "PersistentVolumeClaim", "PersistentVolumeClaim"},
    kind_entry{"", "Endpoints", "Endpoints"},
    kind_entry{"batch", "Job", "Job"},
    kind_entry{"batch", "CronJob", "CronJob"},
    kind_entry{"rbac.authorization.k8s.io", "Role", "Role"},
    kind_entry{"rbac.authorization.k8s.io", "ClusterRole", "ClusterRole"},
    kind_entry{"rbac.authorization.k8s.io", "RoleBinding", "RoleBinding"},
    kind_entry{"rbac.authorization.k8s.io", "ClusterRoleBinding", "ClusterRoleBinding"},
    kind_entry{"policy", "PodDisruptionBudget", "PodDisruptionBudget"},
    kind_entry{"networking.k8s.io", "Ingress", "Ingress"},
    kind_entry{"networking.k8s.io", "NetworkPolicy", "NetworkPolicy"},
    kind_entry{"", "ResourceQuota", "ResourceQuota"},
    kind_entry{"", "LimitRange", "LimitRange"},
    kind_entry{"", "Node", "Node"},
    kind_entry{"apps", "ReplicaSet", "ReplicaSet"},
    kind_entry{"apps", "StatefulSet", "StatefulSet"},
    kind_entry{"apps", "DaemonSet", "DaemonSet"},
    kind_entry{"discovery.k8s.io", "EndpointSlice", "EndpointSlice"},
    kind_entry{"authorization.k8s.io", "SubjectAccessReview", "SubjectAccessReview"},
    kind_entry{"authorization.k8s.io", "SelfSubjectAccessReview", "SelfSubjectAccessReview"},
    kind_entry{"authorization.k8s.io", "LocalSubjectAccessReview", "LocalSubjectAccessReview"},
    kind_entry{"authorization.k8s.io", "SelfSubjectRulesReview", "SelfSubjectRulesReview"},
    kind_entry{"authentication.k8s.io", "TokenReview", "TokenReview"},
    kind_entry{"authentication.k8s.io", "TokenRequest", "TokenRequest"},
    kind_entry{"authentication.k8s.io", "SelfSubjectReview", "SelfSubjectReview"},
    // Registered in every group version (metav1.AddToGroupVersion).
    kind_entry{"*", "DeleteOptions", "DeleteOptions"},
};

} // namespace

const message_desc* find_message(std::string_view name) {
    // Looked up for every nested message of every body: an index, built once.
    static const std::unordered_map<std::string_view, const message_desc*> index = [] {
        std::unordered_map<std::string_view, const message_desc*> m;
        for (const auto& d : messages) m.emplace(d.name, &d);
        return m;
    }();
    auto it = index.find(name);
    return it == index.end() ? nullptr : it->second;
}

const message_desc* message_for_kind(std::string_view group, std::string_view kind) {
    for (const auto& e : kinds) {
        if ((e.group == group || e.group == "*") && e.kind == kind) return find_message(e.message);
    }
    return nullptr;
}

} // namespace kcoro::apiserver::proto
