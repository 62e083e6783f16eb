#!/usr/bin/env python3
"""deploy/monitoring's alerts, checked without a cluster (meson test
monitoring_promtool, unit suite):

1. `promtool check rules` on the PrometheusRule's groups;
2. `promtool test rules test/monitoring/alerts_test.yaml`;
3. every alert has a case that fires it and a case that must not (an
   alertname in the tests that no rule has is an error: promtool would
   accept `exp_alerts: []` for it silently);
4. every alert has a severity, a summary, a description and a runbook_url
   whose anchor is a heading of docs/operations.md;
5. every selector of every alert names a family kcoro exports (metrics.cpp),
   a documented sharding series or `up`, and selects
   job="gateway-operator-metrics", so other operators' controller-runtime
   series never fire them.

Skipped (exit 77) when promtool (Debian's prometheus package) or python3-yaml
is missing.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import monitoring as mon  # noqa: E402

JOB = "gateway-operator-metrics"


def github_anchors(markdown_path):
    """The anchors GitHub gives the headings of a Markdown file."""
    anchors = set()
    seen = {}
    in_code = False
    with open(markdown_path) as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def main():
    promtool = shutil.which("promtool")
    if not promtool:
        print("promtool not installed (apt-get install prometheus): skipped")
        return 77
    mon.need_yaml()
    import yaml

    failures = []
    alerts = mon.alerts()
    names = [a["alert"] for a in alerts]
    if len(set(names)) != len(names):
        failures.append(f"duplicate alert names: {names}")

    with tempfile.TemporaryDirectory() as tmp:
        rules = os.path.join(tmp, "rules.yaml")
        mon.write_rule_file(rules)
        shutil.copy(os.path.join(mon.HERE, "alerts_test.yaml"), tmp)
        for cmd in ([promtool, "check", "rules", "rules.yaml"], [promtool, "test", "rules", "alerts_test.yaml"]):
            print("$", " ".join(cmd[1:]), flush=True)
            r = subprocess.run(cmd, cwd=tmp)
            if r.returncode != 0:
                failures.append(f"{' '.join(cmd[1:])} exited {r.returncode}")

    with open(os.path.join(mon.HERE, "alerts_test.yaml")) as f:
        tests = yaml.safe_load(f)
    firing, quiet = set(), set()
    for t in tests["tests"]:
        for case in t.get("alert_rule_test", []):
            name = case["alertname"]
            if name not in names:
                failures.append(f"test {t['name']!r} names {name}, which no rule defines")
            (firing if case.get("exp_alerts") else quiet).add(name)
    for name in names:
        if name not in firing:
            failures.append(f"{name}: no test case fires it")
        if name not in quiet:
            failures.append(f"{name}: no test case where it must not fire")

    anchors = github_anchors(mon.OPERATIONS_MD)
    known = mon.exported_families() | set(mon.SHARDING_SERIES) | set(mon.SCRAPE_SERIES)
    for a in alerts:
        name = a["alert"]
        if a.get("labels", {}).get("severity") not in ("warning", "critical"):
            failures.append(f"{name}: severity label is not warning or critical")
        ann = a.get("annotations", {})
        for key in ("summary", "description", "runbook_url"):
            if not ann.get(key):
                failures.append(f"{name}: no {key} annotation")
        url = ann.get("runbook_url", "")
        if not url.startswith(mon.RUNBOOK_PREFIX):
            failures.append(f"{name}: runbook_url {url!r} is not under {mon.RUNBOOK_PREFIX}")
        else:
            anchor = url[len(mon.RUNBOOK_PREFIX):]
            if anchor != name.lower():
                failures.append(f"{name}: runbook anchor {anchor!r} is not the alert's name in lower case")
            if anchor not in anchors:
                failures.append(f"{name}: docs/operations.md has no heading with the anchor #{anchor}")
        for metric, matchers in mon.selectors(a["expr"]):
            if metric not in known:
                failures.append(f"{name}: {metric} is not a family kcoro exports")
            if ("job", "=", JOB) not in matchers:
                failures.append(f"{name}: the selector of {metric} does not select job={JOB!r}")

    for f in failures:
        print("FAIL -", f)
    if failures:
        return 1
    print(f"ok - {len(names)} alerts: promtool check and test rules pass; each fires in a case and stays "
          f"quiet in another; runbooks and job selectors in place")
    return 0


if __name__ == "__main__":
    sys.exit(main())
