#!/bin/sh
# Lints the exposition of a fully populated metrics registry with Prometheus'
# own checker. Skipped (exit 77) where promtool is not installed
# (Debian: apt-get install prometheus).
dump="$1"
if ! command -v promtool >/dev/null 2>&1; then
  echo "promtool not found (apt-get install prometheus): skipping"
  exit 77
fi
out=$("$dump") || { echo "metrics dump failed" >&2; exit 1; }
for family in controller_runtime_reconcile_total workqueue_depth rest_client_requests_total \
              leader_election_master_status process_open_fds kcoro_events_dropped_total; do
  echo "$out" | grep -q "^# TYPE $family " || { echo "family $family missing" >&2; exit 1; }
done
echo "$out" | promtool check metrics
