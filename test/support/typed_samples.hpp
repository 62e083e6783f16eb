// Objects as a real kube-apiserver (1.30) returns them: server-set metadata,
// managedFields, defaulted fields, status, and fields kcoro's typed structs
// do not declare. Shared by the typed unit tests (round trips) and the
// typed benchmark.
#pragma once

#include <string_view>

namespace kcoro::test::samples {

inline constexpr std::string_view deployment = R"({
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {
    "name": "demo",
    "namespace": "default",
    "uid": "0b6c9a7e-3d7e-4d8e-9a55-6a0f6cbb2f51",
    "resourceVersion": "48213",
    "generation": 3,
    "creationTimestamp": "2026-03-02T09:14:07Z",
    "labels": {"app.kubernetes.io/managed-by": "gateway-operator", "gateway.kcoro.dev/instance": "demo"},
    "annotations": {"deployment.kubernetes.io/revision": "2"},
    "ownerReferences": [
      {"apiVersion": "gateway.kcoro.dev/v1alpha1", "kind": "GatewayInstance", "name": "demo",
       "uid": "5f7d2c1a-9b8e-4f3a-a1d2-7c6b5e4f3a21", "controller": true, "blockOwnerDeletion": true}
    ],
    "managedFields": [
      {"manager": "gateway-operator", "operation": "Update", "apiVersion": "apps/v1",
       "time": "2026-03-02T09:14:07Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app.kubernetes.io/managed-by": {}},
         "f:ownerReferences": {".": {}, "k:{\"uid\":\"5f7d2c1a-9b8e-4f3a-a1d2-7c6b5e4f3a21\"}": {}}},
         "f:spec": {"f:replicas": {}, "f:selector": {}, "f:template": {"f:spec": {"f:containers": {}}}}}},
      {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "apps/v1",
       "time": "2026-03-02T09:15:41Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:metadata": {"f:annotations": {".": {}, "f:deployment.kubernetes.io/revision": {}}},
         "f:status": {"f:availableReplicas": {}, "f:conditions": {}, "f:observedGeneration": {},
           "f:readyReplicas": {}, "f:replicas": {}, "f:updatedReplicas": {}}}, "subresource": "status"}
    ]
  },
  "spec": {
    "replicas": 2,
    "selector": {"matchLabels": {"gateway.kcoro.dev/instance": "demo"}},
    "template": {
      "metadata": {"creationTimestamp": null, "labels": {"gateway.kcoro.dev/instance": "demo"}},
      "spec": {
        "volumes": [{"name": "config", "configMap": {"name": "demo-config", "defaultMode": 420}}],
        "containers": [
          {"name": "gateway", "image": "nginx:1.27",
           "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
           "env": [{"name": "GATEWAY_MODE", "value": "demo"},
                   {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}],
           "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": "10m", "memory": "32Mi"}},
           "volumeMounts": [{"name": "config", "readOnly": true, "mountPath": "/etc/gateway"}],
           "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"},
             "initialDelaySeconds": 5, "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1,
             "failureThreshold": 3},
           "readinessProbe": {"tcpSocket": {"port": 8080}, "timeoutSeconds": 1, "periodSeconds": 10,
             "successThreshold": 1, "failureThreshold": 3},
           "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}],
           "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
           "imagePullPolicy": "IfNotPresent", "stdin": false}
        ],
        "restartPolicy": "Always",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "serviceAccountName": "default",
        "serviceAccount": "default",
        "securityContext": {},
        "schedulerName": "default-scheduler",
        "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
          "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {"matchLabels": {"gateway.kcoro.dev/instance": "demo"}}}],
        "enableServiceLinks": true
      }
    },
    "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
    "revisionHistoryLimit": 10,
    "progressDeadlineSeconds": 600
  },
  "status": {
    "observedGeneration": 3,
    "replicas": 2,
    "updatedReplicas": 2,
    "readyReplicas": 2,
    "availableReplicas": 2,
    "conditions": [
      {"type": "Available", "status": "True", "lastUpdateTime": "2026-03-02T09:14:19Z",
       "lastTransitionTime": "2026-03-02T09:14:19Z", "reason": "MinimumReplicasAvailable",
       "message": "Deployment has minimum availability."},
      {"type": "Progressing", "status": "True", "lastUpdateTime": "2026-03-02T09:15:41Z",
       "lastTransitionTime": "2026-03-02T09:14:07Z", "reason": "NewReplicaSetAvailable",
       "message": "ReplicaSet \"demo-7c9d8f6b5d\" has successfully progressed."}
    ]
  }
})";

inline constexpr std::string_view gateway_instance = R"({
  "apiVersion": "gateway.kcoro.dev/v1alpha1",
  "kind": "GatewayInstance",
  "metadata": {
    "name": "demo",
    "namespace": "default",
    "uid": "5f7d2c1a-9b8e-4f3a-a1d2-7c6b5e4f3a21",
    "resourceVersion": "48230",
    "generation": 2,
    "creationTimestamp": "2026-03-02T09:14:05Z",
    "labels": {"team": "edge"},
    "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\"apiVersion\":\"gateway.kcoro.dev/v1alpha1\",\"kind\":\"GatewayInstance\",\"metadata\":{\"annotations\":{},\"name\":\"demo\",\"namespace\":\"default\"},\"spec\":{\"env\":[{\"name\":\"GATEWAY_MODE\",\"value\":\"demo\"}],\"image\":\"nginx:1.27\",\"port\":8080,\"replicas\":2,\"serviceType\":\"ClusterIP\"}}\n"},
    "finalizers": ["gateway.kcoro.dev/registration"],
    "managedFields": [
      {"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "gateway.kcoro.dev/v1alpha1",
       "time": "2026-03-02T09:14:05Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}}},
         "f:spec": {".": {}, "f:env": {}, "f:image": {}, "f:port": {}, "f:replicas": {}, "f:serviceType": {}}}},
      {"manager": "gateway-operator", "operation": "Update", "apiVersion": "gateway.kcoro.dev/v1alpha1",
       "time": "2026-03-02T09:14:06Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:metadata": {"f:finalizers": {".": {}, "v:\"gateway.kcoro.dev/registration\"": {}}}}},
      {"manager": "gateway-operator", "operation": "Update", "apiVersion": "gateway.kcoro.dev/v1alpha1",
       "time": "2026-03-02T09:15:42Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:status": {".": {}, "f:conditions": {}, "f:endpoint": {}, "f:observedGeneration": {},
         "f:readyReplicas": {}, "f:registration": {}}}, "subresource": "status"}
    ]
  },
  "spec": {
    "image": "nginx:1.27",
    "replicas": 2,
    "port": 8080,
    "serviceType": "ClusterIP",
    "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": 1}},
    "env": [{"name": "GATEWAY_MODE", "value": "demo"}, {"name": "LOG_LEVEL", "value": "info"}]
  },
  "status": {
    "observedGeneration": 2,
    "readyReplicas": 2,
    "endpoint": "demo.default.svc:8080",
    "registration": "gatewayinstance-5f7d2c1a-9b8e-4f3a-a1d2-7c6b5e4f3a21",
    "conditions": [
      {"type": "Registered", "status": "True", "observedGeneration": 2, "lastTransitionTime": "2026-03-02T09:14:06Z",
       "reason": "Reconciled", "message": "registration gatewayinstance-5f7d2c1a-9b8e-4f3a-a1d2-7c6b5e4f3a21 exists"},
      {"type": "Degraded", "status": "False", "observedGeneration": 2, "lastTransitionTime": "2026-03-02T09:14:06Z",
       "reason": "Reconciled", "message": "no problems"},
      {"type": "Progressing", "status": "False", "observedGeneration": 2, "lastTransitionTime": "2026-03-02T09:15:42Z",
       "reason": "Reconciled", "message": "rollout complete"},
      {"type": "Ready", "status": "True", "observedGeneration": 2, "lastTransitionTime": "2026-03-02T09:15:42Z",
       "reason": "Reconciled", "message": "gateway is available at demo.default.svc:8080"}
    ]
  }
})";

inline constexpr std::string_view service = R"({
  "apiVersion": "v1",
  "kind": "Service",
  "metadata": {"name": "demo", "namespace": "default", "uid": "9a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d",
    "resourceVersion": "48215", "creationTimestamp": "2026-03-02T09:14:07Z",
    "labels": {"gateway.kcoro.dev/instance": "demo"}},
  "spec": {
    "ports": [{"name": "http", "protocol": "TCP", "port": 8080, "targetPort": "http", "nodePort": 31080}],
    "selector": {"gateway.kcoro.dev/instance": "demo"},
    "clusterIP": "10.96.14.7",
    "clusterIPs": ["10.96.14.7"],
    "type": "NodePort",
    "sessionAffinity": "None",
    "externalTrafficPolicy": "Cluster",
    "ipFamilies": ["IPv4"],
    "ipFamilyPolicy": "SingleStack",
    "internalTrafficPolicy": "Cluster",
    "trafficDistribution": "PreferClose"
  },
  "status": {"loadBalancer": {}}
})";

inline constexpr std::string_view config_map = R"({
  "apiVersion": "v1",
  "kind": "ConfigMap",
  "metadata": {"name": "gatewayinstance-5f7d", "namespace": "kcoro-system", "uid": "c1d2e3f4-0000-4000-8000-000000000001",
    "resourceVersion": "48212", "creationTimestamp": "2026-03-02T09:14:06Z",
    "labels": {"gateway.kcoro.dev/instance-uid": "5f7d2c1a-9b8e-4f3a-a1d2-7c6b5e4f3a21"}},
  "data": {"endpoint": "demo.default.svc:8080", "name": "demo", "namespace": "default"},
  "binaryData": {"blob": "AAECAwQ="}
})";

inline constexpr std::string_view secret = R"({
  "apiVersion": "v1",
  "kind": "Secret",
  "metadata": {"name": "creds", "namespace": "default", "uid": "d1d2e3f4-0000-4000-8000-000000000002",
    "resourceVersion": "100", "creationTimestamp": "2026-03-02T09:00:00Z"},
  "immutable": false,
  "data": {"password": "czNjcjN0", "username": "YWRtaW4="},
  "type": "Opaque"
})";

inline constexpr std::string_view lease = R"({
  "apiVersion": "coordination.k8s.io/v1",
  "kind": "Lease",
  "metadata": {"name": "gateway-operator.gateway.kcoro.dev", "namespace": "kcoro-system",
    "uid": "e1d2e3f4-0000-4000-8000-000000000003", "resourceVersion": "48300",
    "creationTimestamp": "2026-03-02T09:10:00Z"},
  "spec": {"holderIdentity": "gateway-operator-7c9d8f6b5d-x2x9z_3f1c", "leaseDurationSeconds": 15,
    "acquireTime": "2026-03-02T09:10:00.123456Z", "renewTime": "2026-03-02T09:16:02.654321Z",
    "leaseTransitions": 4}
})";

inline constexpr std::string_view event = R"({
  "apiVersion": "events.k8s.io/v1",
  "kind": "Event",
  "metadata": {"name": "demo.17f8a1b2c3d4e5f6", "namespace": "default", "uid": "f1d2e3f4-0000-4000-8000-000000000004",
    "resourceVersion": "48231", "creationTimestamp": "2026-03-02T09:14:07Z"},
  "eventTime": "2026-03-02T09:14:07.412345Z",
  "series": {"count": 3, "lastObservedTime": "2026-03-02T09:20:07.000001Z"},
  "reportingController": "gateway-operator",
  "reportingInstance": "gateway-operator-7c9d8f6b5d-x2x9z",
  "action": "Create",
  "reason": "CreatedDeployment",
  "regarding": {"kind": "GatewayInstance", "namespace": "default", "name": "demo",
    "uid": "5f7d2c1a-9b8e-4f3a-a1d2-7c6b5e4f3a21", "apiVersion": "gateway.kcoro.dev/v1alpha1", "resourceVersion": "48210"},
  "note": "created Deployment demo",
  "type": "Normal",
  "deprecatedSource": {},
  "deprecatedFirstTimestamp": null,
  "deprecatedLastTimestamp": null
})";

inline constexpr std::string_view namespace_ = R"({
  "apiVersion": "v1",
  "kind": "Namespace",
  "metadata": {"name": "kcoro-system", "uid": "a1d2e3f4-0000-4000-8000-000000000005", "resourceVersion": "12",
    "creationTimestamp": "2026-03-02T09:00:00Z", "labels": {"kubernetes.io/metadata.name": "kcoro-system"}},
  "spec": {"finalizers": ["kubernetes"]},
  "status": {"phase": "Active"}
})";

} // namespace kcoro::test::samples
