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

FAILS=0
k() { "$KUBECTL" --kubeconfig "$KCFG" --request-timeout=10s "$@" 2>&1; }
expect() {
    if grep -qE -- "$2" <<<"$3"; then
        echo "ok   - $1"
    else
        echo "FAIL - $1: want /$2/, got:"; sed 's/^/       /' <<<"$3"
        FAILS=$((FAILS + 1))
    fi
}

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

# A dry run and a refused create: the answers kubectl prints for a real server.
out=$(k create configmap x --from-literal=a=b); expect "create existing" 'configmaps "x" already exists' "$out"
out=$(k create configmap dry --from-literal=a=b --dry-run=server); expect "create --dry-run=server" "configmap/dry created \(server dry run\)" "$out"
out=$(k get configmap dry 2>&1); expect "dry run stored nothing" 'configmaps "dry" not found' "$out"

if [ "$FAILS" -ne 0 ]; then
    echo "--- server log (tail)"; tail -20 "$WORK/server.log"
    echo "$FAILS check(s) failed"; exit 1
fi
echo "all kubectl create checks passed"
