#!/bin/bash
# Runs kcoro-conformance against a fresh kcoro-apiserver (TLS, admin client
# certificate from --write-kubeconfig) in a temporary directory.
# usage: run_conformance.sh <kcoro-apiserver binary> <kcoro-conformance binary> [conformance args...]
set -u
SERVER_BIN=$1
CONFORMANCE_BIN=$2
shift 2

. "$(dirname "$0")/../support/start_apiserver.sh"
# Short bookmark interval so the bookmark scenario is quick; the GC loop
# runs every 100 ms in the binary.
# ShardedListAndWatch on, so the sharded-list-and-watch scenario runs (it
# skips itself on a server that does not echo shardInfo).
# RBAC as on a real cluster (the access-reviews scenario; the admin is in system:masters).
start_apiserver "$SERVER_BIN" --bookmark-interval 300 --no-simulate-workloads --feature-gates=ShardedListAndWatch=true \
    --authorization-mode=RBAC

"$CONFORMANCE_BIN" --kubeconfig "$KCFG" --bookmark-wait 5 --gc-wait 10 "$@"
rc=$?
if [ $rc -ne 0 ]; then
    echo "--- server log (last 40 lines) ---"
    tail -n 40 "$WORK/server.log"
fi
exit $rc
