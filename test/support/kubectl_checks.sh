# Sourced by the kubectl test scripts after start_apiserver: `k` runs the
# machine's kubectl against the test server (stderr folded in), `expect`
# records one check, `finish` prints the tally and exits non-zero when a
# check failed (with the server log's tail).
FAILS=0
k() { "$KUBECTL" --kubeconfig "$KCFG" --request-timeout=10s "$@" 2>&1; }
# expect <description> <pattern> <output>
expect() {
    if grep -qE -- "$2" <<<"$3"; then
        echo "ok   - $1"
    else
        echo "FAIL - $1: want /$2/, got:"; sed 's/^/       /' <<<"$3"
        FAILS=$((FAILS + 1))
    fi
}
# finish <what was checked>
finish() {
    if [ "$FAILS" -ne 0 ]; then
        echo "--- server log (tail)"; tail -20 "$WORK/server.log"
        echo "$FAILS check(s) failed"; exit 1
    fi
    echo "all $1 checks passed"
}
