#!/bin/bash
# kubectl's imperative creates against kcoro-apiserver (issue 23): kubectl
# 1.32 sends these built-in kinds in protobuf (Content-Type
# application/vnd.kubernetes.protobuf, Accept
# "application/vnd.kubernetes.protobuf,application/json"), which the server
# decodes (store/protobuf_decoder.hpp) and answers in JSON.
# usage: kubectl_create_test.sh <kcoro-apiserver binary>
set -u
SERVER_BIN=$1
KUBECTL=${KUBECTL:-kubectl}
command -v "$KUBECTL" >/dev/null || { echo "kubectl not found: skipped"; exit 77; }

. "$(dirname "$0")/../support/start_apiserver.sh"
start_apiserver "$SERVER_BIN"

. "$(dirname "$0")/../support/kubectl_checks.sh"

# The wire: kubectl really sends protobuf here (so this test proves the decoder, not a JSON fallback).
out=$(k create configmap x --from-literal=a=b -v=8); expect "configmap: protobuf on the wire" \
    "Content-Type: application/vnd.kubernetes.protobuf" "$out"
expect "create configmap" "configmap/x created" "$out"
out=$(k get configmap x -o jsonpath='{.data.a}'); expect "configmap data" "^b$" "$out"

# --from-file: text goes to data, bytes that are not UTF-8 to binaryData (bytes map, base64 in JSON).
printf 'hello' > "$WORK/t.txt"
printf '\300\300\300binary' > "$WORK/bin.dat"
out=$(k create configmap files --from-file="$WORK/t.txt" --from-file=bin="$WORK/bin.dat"); expect "create configmap --from-file" "configmap/files created" "$out"
out=$(k get configmap files -o jsonpath='{.data.t\.txt} {.binaryData.bin}'); expect "data and binaryData" "^hello $(base64 -w0 "$WORK/bin.dat")$" "$out"

out=$(k create namespace foo); expect "create namespace" "namespace/foo created" "$out"
out=$(k get namespace foo -o jsonpath='{.status.phase} {.spec.finalizers[0]}'); expect "namespace defaults" "^Active kubernetes$" "$out"

out=$(k create secret generic s --from-literal=a=b --from-literal=b=c -n foo); expect "create secret" "secret/s created" "$out"
out=$(k get secret s -n foo -o jsonpath='{.type} {.data.a} {.data.b}'); expect "secret type and data" "^Opaque Yg== Yw==$" "$out"
# kubectl checks the pair itself: a real self-signed one (when openssl is there).
if command -v openssl >/dev/null; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$WORK/tls.key" -out "$WORK/tls.crt" \
        -days 1 -subj /CN=t >/dev/null 2>&1
    out=$(k create secret tls t --cert="$WORK/tls.crt" --key="$WORK/tls.key"); expect "create secret tls" "secret/t created" "$out"
    out=$(k get secret t -o jsonpath='{.type}'); expect "secret tls type" "^kubernetes.io/tls$" "$out"
fi
out=$(k create secret docker-registry reg --docker-server=r.example --docker-username=u --docker-password=p)
expect "create secret docker-registry" "secret/reg created" "$out"
out=$(k get secret reg -o jsonpath='{.type}'); expect "docker-registry type" "^kubernetes.io/dockerconfigjson$" "$out"

out=$(k create deployment web --image=nginx); expect "create deployment" "deployment.apps/web created" "$out"
out=$(k get deployment web -o jsonpath='{.spec.replicas} {.spec.selector.matchLabels.app} {.spec.template.spec.containers[0].image} {.spec.strategy.type}')
expect "deployment fields and defaults" "^1 web nginx RollingUpdate$" "$out"
out=$(k create deployment web2 --image=nginx:1.27 --replicas=3 --port=8080 -- sleep 10); expect "create deployment with port and command" "deployment.apps/web2 created" "$out"
out=$(k get deployment web2 -o jsonpath='{.spec.replicas} {.spec.template.spec.containers[0].ports[0].containerPort} {.spec.template.spec.containers[0].command}')
expect "deployment replicas, port, command" '^3 8080 \["sleep","10"\]$' "$out"

out=$(k create serviceaccount sa1); expect "create serviceaccount" "serviceaccount/sa1 created" "$out"
out=$(k create service clusterip svc1 --tcp=5678:8080); expect "create service" "service/svc1 created" "$out"
out=$(k get service svc1 -o jsonpath='{.spec.ports[0].port} {.spec.ports[0].targetPort} {.spec.type}'); expect "service ports" "^5678 8080 ClusterIP$" "$out"

# The kinds of issue 23: kubectl's generators write them in protobuf too.
out=$(k run pod1 --image=nginx); expect "run" "pod/pod1 created" "$out"  # kubectl run writes JSON
out=$(k get pod pod1 -o jsonpath='{.status.phase} {.spec.restartPolicy} {.metadata.labels.run} {.spec.containers[0].imagePullPolicy}')
expect "pod defaults" "^Pending Always pod1 Always$" "$out"
out=$(k get pods); expect "get pods prints the pod's row" "^pod1 +0/1 +Pending +0 +[0-9]+s$" "$(grep pod1 <<<"$out")"
out=$(k get pods -o wide); expect "get pods -o wide" "^NAME +READY +STATUS +RESTARTS +AGE +IP +NODE +NOMINATED NODE +READINESS GATES$" "$(head -1 <<<"$out")"
out=$(k create job j1 --image=busybox -v=8 -- echo hi); expect "create job: protobuf on the wire" "Content-Type: application/vnd.kubernetes.protobuf" "$out"
expect "create job" "job.batch/j1 created" "$out"
out=$(k get job j1 -o jsonpath='{.spec.completions} {.spec.backoffLimit} {.spec.template.spec.restartPolicy} {.spec.template.metadata.labels.job-name} {.spec.template.spec.containers[0].command}')
expect "job defaults and generated labels" '^1 6 Never j1 \["echo","hi"\]$' "$out"
out=$(k create cronjob cj1 --image=busybox --schedule='*/5 * * * *'); expect "create cronjob" "cronjob.batch/cj1 created" "$out"
out=$(k get cronjob cj1 -o jsonpath='{.spec.schedule} {.spec.concurrencyPolicy} {.spec.jobTemplate.spec.template.spec.restartPolicy}')
expect "cronjob defaults" '^\*/5 \* \* \* \* Allow OnFailure$' "$out"
out=$(k create role r1 --verb=get,list --resource=pods,deployments.apps); expect "create role" "role.rbac.authorization.k8s.io/r1 created" "$out"
out=$(k get role r1 -o jsonpath='{.rules[0].apiGroups} {.rules[0].resources} {.rules[1].apiGroups}'); expect "role rules" '^\[""\] \["pods"\] \["apps"\]$' "$out"
out=$(k create rolebinding rb1 --role=r1 --user=alice --serviceaccount=default:sa1); expect "create rolebinding" "rolebinding.rbac.authorization.k8s.io/rb1 created" "$out"
out=$(k get rolebinding rb1 -o jsonpath='{.roleRef.apiGroup} {.subjects[0].kind} {.subjects[1].namespace}'); expect "rolebinding" "^rbac.authorization.k8s.io User default$" "$out"
out=$(k get rolebindings -o wide); expect "get rolebindings -o wide" "^rb1 +Role/r1 .*alice +default/sa1$" "$(grep rb1 <<<"$out")"
out=$(k create clusterrole cr1 --verb=get --resource=nodes); expect "create clusterrole" "clusterrole.rbac.authorization.k8s.io/cr1 created" "$out"
out=$(k create clusterrolebinding crb1 --clusterrole=cr1 --group=devs); expect "create clusterrolebinding" "clusterrolebinding.rbac.authorization.k8s.io/crb1 created" "$out"
out=$(k create poddisruptionbudget pdb1 --selector=app=web --min-available=1); expect "create pdb" "poddisruptionbudget.policy/pdb1 created" "$out"
out=$(k get pdb pdb1 -o jsonpath='{.spec.minAvailable} {.status.disruptionsAllowed}'); expect "pdb" "^1 0$" "$out"
out=$(k create ingress ing1 --rule="example.com/=svc1:5678"); expect "create ingress" "ingress.networking.k8s.io/ing1 created" "$out"
out=$(k get ingress ing1 -o jsonpath='{.spec.rules[0].host} {.spec.rules[0].http.paths[0].pathType} {.spec.rules[0].http.paths[0].backend.service.port.number}')
expect "ingress" "^example.com Exact 5678$" "$out"
out=$(k create quota q1 --hard=pods=10,cpu=2 --scopes=BestEffort); expect "create quota (protobuf)" "resourcequota/q1 created" "$out"
out=$(k get quota q1 -o jsonpath='{.spec.hard.pods} {.spec.scopes[0]}'); expect "quota" "^10 BestEffort$" "$out"
out=$(k get all); expect "get all lists pods, jobs, cronjobs, deployments" "pod/pod1" "$out"
expect "get all: jobs" "job.batch/j1" "$out"; expect "get all: cronjobs" "cronjob.batch/cj1" "$out"
out=$(k delete pod pod1); expect "delete pod" 'pod "pod1" deleted' "$out"
out=$(k run bad --image=nginx --restart=Always --overrides='{"spec":{"restartPolicy":"Sometimes"}}'); expect "a bad restartPolicy is refused" 'spec.restartPolicy: Unsupported value: "Sometimes"' "$out"

# A dry run and a refused create: the answers kubectl prints for a real server.
out=$(k create configmap x --from-literal=a=b); expect "create existing" 'configmaps "x" already exists' "$out"
out=$(k create configmap dry --from-literal=a=b --dry-run=server); expect "create --dry-run=server" "configmap/dry created \(server dry run\)" "$out"
out=$(k get configmap dry 2>&1); expect "dry run stored nothing" 'configmaps "dry" not found' "$out"

finish "kubectl create"
