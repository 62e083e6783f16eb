# Sourced by the test scripts: start_apiserver <binary> [server flags...]
# starts kcoro-apiserver over TLS on a free port in a fresh $WORK directory,
# waits (bounded) for the kubeconfig it writes once listening ($KCFG), and
# stops the server and removes $WORK on exit. The server's stderr goes to
# $WORK/server.log.
start_apiserver() {
    local bin=$1
    shift
    WORK=$(mktemp -d)
    KCFG=$WORK/kubeconfig
    "$bin" --listen 127.0.0.1:0 --tls --write-kubeconfig "$KCFG" "$@" 2>"$WORK/server.log" &
    SERVER_PID=$!
    trap 'kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
    for _ in $(seq 1 100); do
        [ -s "$KCFG" ] && return 0
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log"; echo "server exited"; exit 1; }
        sleep 0.1
    done
    echo "no kubeconfig"
    exit 1
}
