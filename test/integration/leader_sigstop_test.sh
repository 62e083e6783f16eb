#!/bin/bash
# The leader write guard with real processes: two configmap-mirror replicas
# with --leader-elect against the kcoro-apiserver binary, each with its own
# token (so the server's request log tells their requests apart). The leader
# is stopped with SIGSTOP, a parent is created, the standby takes over
# (15 s lease) and creates the child; the new leader is paused too and a
# child deleted; then SIGCONT of the old leader: it must make
# zero writes outside its Lease and Events (the guard refuses them, counted in
# kcoro_leader_write_refused_total) and exit 1 (leadership lost).
# The test's own reads and writes go through kcoro-ctl, built with the tree,
# so the test runs on every machine (kubectl is not a build dependency).
# usage: leader_sigstop_test.sh <kcoro-apiserver> <configmap-mirror> <kcoro-ctl>
set -u
SERVER_BIN=$1
MIRROR_BIN=$2
CTL_BIN=$3

. "$(dirname "$0")/../support/start_apiserver.sh"
TOKENS=$(mktemp)
printf 'token-a,replica-a,uid-a,"system:masters"\ntoken-b,replica-b,uid-b,"system:masters"\n' > "$TOKENS"
start_apiserver "$SERVER_BIN" --tokens "$TOKENS"
rm -f "$TOKENS"
k() { "$CTL_BIN" --kubeconfig "$KCFG" -n default "$@"; }
# A kubeconfig with a bearer token instead of the admin's client certificate.
with_token() {
    grep -v -e 'client-certificate-data' -e 'client-key-data' "$KCFG" | sed "s/^  user:\$/  user:\n    token: $1/" > "$2"
}
with_token token-a "$WORK/kc-a"
with_token token-b "$WORK/kc-b"

FLAGS=(--leader-elect --leader-election-namespace=default --leader-election-id=mirror-lock
       --metrics-bind-address=0 --health-probe-bind-address=0 --log-level=debug)
"$MIRROR_BIN" --kubeconfig "$WORK/kc-a" "${FLAGS[@]}" 2>"$WORK/a.log" &
A=$!
PIDS="$A"
trap 'kill -CONT $PIDS 2>/dev/null; kill $PIDS 2>/dev/null; wait $PIDS 2>/dev/null; kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
wait_for() { # <seconds> <command...>: poll (bounded) until the command succeeds
    local n=$(( $1 * 10 )); shift
    for _ in $(seq 1 "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
    return 1
}
fail() { echo "FAIL - $1"; for f in a b; do echo "--- $f.log (tail)"; tail -20 "$WORK/$f.log"; done; exit 1; }

wait_for 20 grep -q 'successfully acquired lease' "$WORK/a.log" || fail "replica a never led"
"$MIRROR_BIN" --kubeconfig "$WORK/kc-b" "${FLAGS[@]}" 2>"$WORK/b.log" &
B=$!
PIDS="$A $B"
wait_for 10 grep -q 'attempting to acquire leader lease' "$WORK/b.log" || fail "replica b did not start"
echo "ok   - a leads, b stands by"

parent() { # a parent ConfigMap, created by server-side apply
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  labels:\n    app.example.io/managed: "true"\ndata:\n  k: v\n' "$1" \
        > "$WORK/$1.yaml"
    k apply -f "$WORK/$1.yaml" >/dev/null
}
parent p1
wait_for 10 k get configmaps p1-observed || fail "the leader did not mirror p1"
echo "ok   - a mirrors p1"

kill -STOP "$A"
STOPPED_AT=$(wc -l < "$WORK/server.log")
parent p2
wait_for 40 grep -q 'successfully acquired lease' "$WORK/b.log" || fail "b never took over"
wait_for 10 k get configmaps p2-observed || fail "the new leader did not mirror p2"
echo "ok   - a stopped; b took over and mirrors p2"

# Give the old leader something to write when it resumes: with the new
# leader paused too, a child is deleted; the old leader's informer sees it
# and its reconcile would recreate it (the guard must refuse that).
kill -STOP "$B"
k delete configmaps p1-observed >/dev/null || fail "delete p1-observed"
kill -CONT "$A"
wait "$A"
CODE=$?
PIDS="$B"
[ "$CODE" = 1 ] || fail "the old leader exited $CODE, want 1 (leadership lost)"
echo "ok   - the old leader exits 1"
# Every request replica a sent after SIGSTOP: writes other than its Lease and Events are a failure.
WRITES=$(tail -n +"$((STOPPED_AT + 1))" "$WORK/server.log" | python3 -c '
import json, sys
n = 0
for line in sys.stdin:
    try: e = json.loads(line)
    except ValueError: continue
    if e.get("msg") != "request" or e.get("user") != "replica-a": continue
    if e.get("method") in ("GET", "HEAD"): continue
    p = e.get("path", "")
    if "/leases/" in p or p.endswith("/leases") or "/events" in p: continue
    print(e.get("method"), p, e.get("code")); n += 1
sys.exit(0 if n == 0 else 1)') || fail "the old leader wrote after SIGSTOP: $WRITES"
echo "ok   - the old leader made no write after SIGCONT"
kill -CONT "$B"
wait_for 20 k get configmaps p1-observed || fail "the new leader did not repair p1-observed"
echo "ok   - the new leader repairs p1-observed"
if grep -q 'Write refused' "$WORK/a.log"; then
    echo "ok   - (its guard refused $(grep -c 'Write refused' "$WORK/a.log") write(s))"
else
    echo "ok   - (its elector stopped it before any reconcile wrote)"
fi
