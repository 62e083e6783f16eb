#!/bin/bash
# Runs kcoro-conformance against a fresh kcoro-apiserver (TLS, admin client
# certificate from --write-kubeconfig) in a temporary directory.
# usage: run_conformance.sh <kcoro-apiserver binary> <kcoro-conformance binary> [conformance args...]
set -u
SERVER_BIN=$1
CONFORMANCE_BIN=$2
shift 2

WORK=$(mktemp -d)
KCFG=$WORK/kubeconfig
# Short bookmark interval so the bookmark scenario is quick; the GC loop
# runs every 100 ms in the binary.
"$SERVER_BIN" --listen 127.0.0.1:0 --tls --write-kubeconfig "$KCFG" --bookmark-interval 300 \
    --no-simulate-workloads 2>"$WORK/server.log" &
SERVER_PID=$!
cleanup() {
    kill "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

# The kubeconfig is written once the server listens (bounded wait).
for _ in $(seq 1 100); do
    [ -s "$KCFG" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log"; echo "server exited"; exit 1; }
    sleep 0.1
done
[ -s "$KCFG" ] || { echo "no kubeconfig"; exit 1; }

"$CONFORMANCE_BIN" --kubeconfig "$KCFG" --bookmark-wait 5 --gc-wait 10 "$@"
rc=$?
if [ $rc -ne 0 ]; then
    echo "--- server log (last 40 lines) ---"
    tail -n 40 "$WORK/server.log"
fi
exit $rc
