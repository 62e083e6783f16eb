#!/bin/bash
# kubectl auth against kcoro-apiserver with --authorization-mode=RBAC (issue
# 23): whoami, can-i (also --list and for a non-resource path), a Role and a
# RoleBinding granting a user what it lacked, and the Forbidden kubectl prints
# for a user without one. kubectl sends the reviews in protobuf.
# usage: kubectl_auth_test.sh <kcoro-apiserver binary>
set -u
SERVER_BIN=$1
KUBECTL=${KUBECTL:-kubectl}
command -v "$KUBECTL" >/dev/null || { echo "kubectl not found: skipped"; exit 77; }

. "$(dirname "$0")/../support/start_apiserver.sh"
start_apiserver "$SERVER_BIN" --authorization-mode=RBAC

. "$(dirname "$0")/../support/kubectl_checks.sh"

out=$(k auth whoami); expect "whoami: the admin" "^Username +admin$" "$out"
expect "whoami: its groups" '^Groups +\[system:masters system:authenticated\]$' "$out"
out=$(k auth can-i delete nodes); expect "the admin may do anything" "^yes$" "$out"
out=$(k auth can-i list pods --as alice); expect "alice has no binding" "^no$" "$out"
out=$(k auth can-i get /healthz --as alice); expect "a public path" "^yes$" "$out"
out=$(k get pods --as alice); expect "kubectl prints RBAC's Forbidden" \
    'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"' "$out"
out=$(k create role pod-reader --verb=get,list --resource=pods); expect "create role" "role.rbac.authorization.k8s.io/pod-reader created" "$out"
out=$(k create rolebinding alice-reads --role=pod-reader --user=alice); expect "create rolebinding" "created" "$out"
out=$(k auth can-i list pods --as alice); expect "the binding grants list" "^yes$" "$out"
out=$(k auth can-i delete pods --as alice); expect "but not delete" "^no$" "$out"
out=$(k auth can-i list pods --as alice -n kube-system); expect "nor in another namespace" "^no$" "$out"
out=$(k get pods --as alice); expect "alice lists pods" "No resources found in default namespace" "$out"
out=$(k auth can-i --list --as alice); expect "can-i --list shows the role's rule" "^pods +\[\] +\[\] +\[get list\]$" "$out"
expect "can-i --list shows the basic-user rules" "^selfsubjectaccessreviews.authorization.k8s.io " "$out"
out=$(k get clusterrolebindings cluster-admin -o jsonpath='{.subjects[0].name}'); expect "the bootstrap binding" "^system:masters$" "$out"

# kubectl create token: the account's own credential, which RBAC then judges.
out=$(k create serviceaccount robot); expect "create serviceaccount" "serviceaccount/robot created" "$out"
token=$(k create token robot); expect "create token: a JWT" '^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$' "$token"
server=$(k config view --minify -o jsonpath='{.clusters[0].cluster.server}')
t() { "$KUBECTL" --server "$server" --insecure-skip-tls-verify --token "$token" --request-timeout=10s "$@" 2>&1; }
out=$(t auth whoami); expect "the token is the account" "^Username +system:serviceaccount:default:robot$" "$out"
expect "its groups" '^Groups +\[system:serviceaccounts system:serviceaccounts:default system:authenticated\]$' "$out"
out=$(t get pods); expect "the account may not list pods yet" 'User "system:serviceaccount:default:robot" cannot list resource "pods"' "$out"
out=$(k create rolebinding robot-reads --role=pod-reader --serviceaccount=default:robot); expect "bind the account" "created" "$out"
out=$(t get pods); expect "now it may" "No resources found in default namespace" "$out"
out=$(k create token nobody); expect "a token for a missing account" 'serviceaccounts "nobody" not found' "$out"
out=$(k create token robot --duration=1m); expect "too short a token" "may not specify a duration less than 10 minutes" "$out"
out=$(k delete serviceaccount robot); expect "delete the account" "deleted" "$out"
out=$(t get pods); expect "its tokens die with it" "Unauthorized" "$out"

finish "kubectl auth"
