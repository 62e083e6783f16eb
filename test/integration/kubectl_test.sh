#!/bin/bash
# kubectl against kcoro-apiserver: starts the server with --write-kubeconfig,
# then runs the machine's kubectl with default flags and checks its output.
# usage: kubectl_test.sh <kcoro-apiserver binary> <test/data/apiserver dir>
set -u
SERVER_BIN=$1
DATA=$2
KUBECTL=${KUBECTL:-kubectl}
command -v "$KUBECTL" >/dev/null || { echo "kubectl not found: skipped"; exit 77; }

. "$(dirname "$0")/../support/start_apiserver.sh"
start_apiserver "$SERVER_BIN" --simulate-delay 200 --bookmark-interval 1000

. "$(dirname "$0")/../support/kubectl_checks.sh"

out=$(k version); expect "version" "Server Version: v1.32" "$out"
out=$(k apply -f "$DATA/widgets_crd.yaml"); expect "apply CRD" "customresourcedefinition.apiextensions.k8s.io/widgets.example.kcoro.dev created" "$out"
out=$(k wait --for condition=established --timeout=10s crd/widgets.example.kcoro.dev); expect "CRD established" "condition met" "$out"
out=$(k apply -f "$DATA/widget.yaml"); expect "apply CR (client-side)" "widget.example.kcoro.dev/w1 created" "$out"
out=$(k get widgets); expect "get widgets" "^w1 " "$out"
out=$(k get wd w1 -o json); expect "get -o json" '"color": "blue"' "$out"
out=$(k get widget w1 -o jsonpath='{.metadata.annotations}'); expect "last-applied annotation" "kubectl.kubernetes.io/last-applied-configuration" "$out"
sed 's/color: blue/color: red/' "$DATA/widget.yaml" > "$WORK/widget2.yaml"
out=$(k apply -f "$WORK/widget2.yaml"); expect "apply changed CR" "widget.example.kcoro.dev/w1 configured" "$out"
out=$(k get widget w1 -o jsonpath='{.spec.color}'); expect "applied value" "^red$" "$out"
sed 's/color: blue/color: green/' "$DATA/widget.yaml" > "$WORK/widget3.yaml"
out=$(k apply --server-side --force-conflicts -f "$WORK/widget3.yaml"); expect "apply --server-side" "widget.example.kcoro.dev/w1 serverside-applied" "$out"
out=$(k get widget w1 -o jsonpath='{.spec.color}'); expect "server-side applied value" "^green$" "$out"
out=$(k describe widget w1); expect "describe" "Name: +w1" "$out"

out=$(k apply -f "$DATA/configmap.yaml"); expect "apply configmap" "configmap/cm1 created" "$out"
out=$(k apply --server-side -f "$DATA/deployment.yaml"); expect "apply --server-side deployment" "deployment.apps/web serverside-applied" "$out"
out=$(k patch configmap cm1 --type=merge -p '{"data":{"a":"1"}}'); expect "patch merge" "configmap/cm1 patched" "$out"
out=$(k patch configmap cm1 --type=json -p '[{"op":"add","path":"/data/b","value":"2"}]'); expect "patch json" "configmap/cm1 patched" "$out"
out=$(k patch deployment web -p '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}}}'); expect "patch strategic" "deployment.apps/web patched" "$out"
out=$(k get deployment web -o jsonpath='{.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].ports[0].containerPort}'); expect "strategic merge kept the port" "^nginx:1.28 80$" "$out"
out=$(k get configmap cm1 -o jsonpath='{.data.a}{.data.b}{.data.greeting}'); expect "patched values" "^12hello$" "$out"
out=$(k get configmaps); expect "get configmaps (table)" "cm1" "$out"
# Default output is the server's Table (as=Table): the built-in columns.
expect "get configmaps: server-side columns" "^NAME +DATA +AGE" "$out"
expect "get configmaps: row" "^cm1 +3 +[0-9]+s" "$out"
out=$(k get deployment web); expect "get deployment: server-side columns" "^NAME +READY +UP-TO-DATE +AVAILABLE +AGE" "$out"
out=$(k get namespaces); expect "get namespaces: status column" "^default +Active +" "$out"
# kubectl scale goes through the deployments/scale subresource (discovery's
# autoscaling/v1 Scale entry, then a merge patch of the Scale).
gen=$(k get deployment web -o jsonpath='{.metadata.generation}')
out=$(k scale deploy/web --replicas=3); expect "scale" "deployment.apps/web scaled" "$out"
out=$(k get deployment web -o jsonpath='{.spec.replicas}'); expect "scaled replicas" "^3$" "$out"
out=$(k get deployment web -o jsonpath='{.metadata.generation}'); expect "scale bumps generation" "^$((gen + 1))$" "$out"
out=$(k get --raw /apis/apps/v1/namespaces/default/deployments/web/scale); expect "scale subresource" '"selector":"app=web"' "$out"
out=$(k scale deploy/web --replicas=2 --resource-version=1); expect "scale with a stale resourceVersion" "Expected resource version to be 1" "$out"
out=$(k describe deployment web); expect "describe deployment" "Replicas: +3 desired" "$out"

# A CRD with additionalPrinterColumns: kubectl prints them.
cat >"$WORK/gadgets_crd.yaml" <<'EOF'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.kcoro.dev
spec:
  group: example.kcoro.dev
  scope: Namespaced
  names: {kind: Gadget, listKind: GadgetList, plural: gadgets, singular: gadget}
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
EOF
cat >"$WORK/gadget.yaml" <<'EOF'
apiVersion: example.kcoro.dev/v1
kind: Gadget
metadata: {name: g1}
spec: {size: 7}
EOF
out=$(k apply -f "$WORK/gadgets_crd.yaml"); expect "apply CRD with printer columns" "gadgets.example.kcoro.dev created" "$out"
out=$(k wait --for condition=established --timeout=10s crd/gadgets.example.kcoro.dev); expect "gadgets established" "condition met" "$out"
out=$(k apply -f "$WORK/gadget.yaml"); expect "apply gadget" "gadget.example.kcoro.dev/g1 created" "$out"
out=$(k get gadgets); expect "get gadgets: printer columns" "^NAME +SIZE +AGE" "$out"
expect "get gadgets: row" "^g1 +7 +[0-9]+s" "$out"

# An event about cm1: `kubectl describe` finds it with involvedObject.* field selectors.
uid=$(k get configmap cm1 -o jsonpath='{.metadata.uid}')
cat >"$WORK/event.yaml" <<EOF
apiVersion: v1
kind: Event
metadata: {name: cm1.kcoro-test}
involvedObject: {apiVersion: v1, kind: ConfigMap, name: cm1, namespace: default, uid: "$uid"}
reason: Tested
message: kubectl describe shows this event
type: Normal
source: {component: kcoro-test}
EOF
out=$(k create -f "$WORK/event.yaml"); expect "create event" "event/cm1.kcoro-test created" "$out"
out=$(k describe configmap cm1); expect "describe configmap" "Name: +cm1" "$out"
expect "describe configmap: data" "greeting" "$out"
expect "describe configmap: events" "Normal +Tested +.*kcoro-test +kubectl describe shows this event" "$out"
out=$(k get events --field-selector involvedObject.name=cm1,type=Normal); expect "get events --field-selector" "Tested" "$out"
out=$(k get events); expect "get events" "Tested +configmap/cm1 +kubectl describe shows this event" "$out"
out=$(k get events --field-selector spec.nodeName=n1); expect "unsupported field selector" 'field label not supported: spec.nodeName' "$out"
# What client-go's events.k8s.io recorder writes is the same storage:
# `kubectl describe` and `kubectl get events` (core/v1) show it.
cat >"$WORK/event2.yaml" <<EOF
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: cm1.recorder, namespace: default}
eventTime: "2026-01-02T03:04:05.000000Z"
reportingController: kcoro.dev/recorder
reportingInstance: recorder-1
action: Reconcile
reason: Recorded
note: written through events.k8s.io
type: Normal
regarding: {apiVersion: v1, kind: ConfigMap, name: cm1, namespace: default, uid: "$uid"}
EOF
out=$(k create -f "$WORK/event2.yaml"); expect "create events.k8s.io event" "event.events.k8s.io/cm1.recorder created" "$out"
out=$(k describe configmap cm1); expect "describe configmap: recorder event" "Normal +Recorded +.*written through events.k8s.io" "$out"
out=$(k get events --field-selector involvedObject.name=cm1); expect "get events: recorder event" "Recorded" "$out"

# get -w: a watch bounded by timeout; a change made meanwhile must show up.
timeout 8 "$KUBECTL" --kubeconfig "$KCFG" get configmaps -w --output-watch-events --request-timeout=6s >"$WORK/watch.out" 2>&1 &
WATCH_PID=$!
for _ in $(seq 1 50); do grep -q cm1 "$WORK/watch.out" && break; sleep 0.1; done
# `kubectl create configmap` sends protobuf (kubectl_create_test.sh covers it).
k create configmap cm-watched --from-literal=a=b >/dev/null
for _ in $(seq 1 50); do grep -q cm-watched "$WORK/watch.out" && break; sleep 0.1; done
kill "$WATCH_PID" 2>/dev/null; wait "$WATCH_PID" 2>/dev/null
out=$(cat "$WORK/watch.out"); expect "get -w initial" "ADDED +cm1" "$out"
expect "get -w change" "ADDED +cm-watched" "$out"

out=$(k delete widget w1); expect "delete CR" 'widget.example.kcoro.dev "w1" deleted' "$out"
out=$(k get widgets 2>&1); expect "CR gone" "No resources found" "$out"
out=$(k delete configmap cm1 --cascade=foreground); expect "delete --cascade=foreground" 'configmap "cm1" deleted' "$out"
out=$(k get configmap cm1 2>&1); expect "configmap gone" 'configmaps "cm1" not found' "$out"
out=$(k delete deployment web); expect "delete deployment" 'deployment.apps "web" deleted' "$out"

finish "kubectl"
