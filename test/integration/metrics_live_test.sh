#!/bin/sh
# Runs metrics_live_test (which checks the families and labels of a live
# /metrics scrape) and `promtool check metrics` on that scrape.
# Skipped (exit 77) when promtool (Debian's `prometheus` package) is absent.
# Usage: metrics_live_test.sh <integration_metrics_live_test>
set -eu
if ! command -v promtool >/dev/null 2>&1; then
    echo "promtool not installed (apt-get install prometheus): skipped"
    exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
KCORO_METRICS_OUT="$out" "$1"
test -s "$out"
promtool check metrics < "$out"
echo "promtool check metrics: clean ($(grep -c '^# TYPE' "$out") families)"
