#!/usr/bin/env python3
"""deploy/monitoring's Grafana dashboard, checked without Grafana or a cluster
(meson test monitoring_dashboard, unit suite):

- the shape Grafana imports: title, uid, schemaVersion, a `datasource`
  variable of the Prometheus type that every panel and target uses, the
  job/namespace variables, unique panel ids, a grid position for each panel;
- every panel's query and every variable's label_values() selector, with
  Grafana's variables substituted, parses as PromQL (each written as a
  recording rule and read by `promtool check rules`), selects the job and
  namespace variables, and names only families kcoro exports (the names in
  src/kcoro/server/metrics.cpp and the process collector) or the documented
  sharding series.

The live test (test/monitoring/live_test.py) evaluates the same queries
against a running operator. Skipped (exit 77) without promtool.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import monitoring as mon  # noqa: E402

PANEL_TYPES = {"row", "timeseries", "stat"}
VARIABLES = {"datasource": "datasource", "job": "query", "namespace": "query", "instance": "query",
             "controller": "query"}


def main():
    promtool = shutil.which("promtool")
    if not promtool:
        print("promtool not installed (apt-get install prometheus): skipped")
        return 77
    failures = []
    d = mon.dashboard()
    for key in ("title", "uid", "schemaVersion", "panels", "templating"):
        if key not in d:
            failures.append(f"no {key}")
    if not 36 <= d.get("schemaVersion", 0) <= 41:
        failures.append(f"schemaVersion {d.get('schemaVersion')} is not a current Grafana's (36-41)")

    variables = {v["name"]: v for v in d["templating"]["list"]}
    for name, kind in VARIABLES.items():
        if variables.get(name, {}).get("type") != kind:
            failures.append(f"variable {name}: missing or not of type {kind}")
    if variables.get("datasource", {}).get("query") != "prometheus":
        failures.append("variable datasource does not list Prometheus data sources")
    for name, v in variables.items():
        if v["type"] == "query" and v.get("datasource", {}).get("uid") != "${datasource}":
            failures.append(f"variable {name} does not query ${{datasource}}")

    ids = set()
    panels = mon.dashboard_panels(d)
    for p in panels:
        title = p.get("title")
        if p.get("type") not in PANEL_TYPES:
            failures.append(f"panel {title!r}: type {p.get('type')!r}")
        if p.get("id") in ids:
            failures.append(f"panel {title!r}: duplicate id {p.get('id')}")
        ids.add(p.get("id"))
        g = p.get("gridPos", {})
        if not all(k in g for k in "hwxy") or g["x"] + g["w"] > 24:
            failures.append(f"panel {title!r}: bad gridPos {g}")
        if p["type"] == "row":
            continue
        if p.get("datasource", {}).get("uid") != "${datasource}":
            failures.append(f"panel {title!r}: datasource is not ${{datasource}}")
        if not p.get("targets"):
            failures.append(f"panel {title!r}: no query")
        for t in p.get("targets", []):
            if t.get("datasource", {}).get("uid") != "${datasource}":
                failures.append(f"panel {title!r} {t.get('refId')}: datasource is not ${{datasource}}")

    values = {"job": "gateway-operator-metrics", "namespace": "kcoro-system", "instance": ".*",
              "controller": ".*", "__rate_interval": "1m", "__range": "1h", "__interval": "30s"}
    exprs = list(mon.dashboard_queries(d))
    exprs += [(f"variable {n}", e) for n, e, _ in mon.dashboard_variable_queries(d)]
    known = mon.exported_families() | set(mon.SHARDING_SERIES) | set(mon.SCRAPE_SERIES)
    rules = []
    for where, e in exprs:
        try:
            expr = mon.substitute_grafana(e, values)
            sels = mon.selectors(expr)
        except (KeyError, ValueError) as err:
            failures.append(f"{where}: {err}")
            continue
        rules.append((where, expr))
        for name, matchers in sels:
            if name not in known:
                failures.append(f"{where}: {name} is not a family kcoro exports")
            labels = {m[0] for m in matchers}
            want = {"job"} if where == "variable namespace" else {"job", "namespace"}
            if where != "variable job" and not want <= labels:
                failures.append(f"{where}: the selector of {name} does not select {sorted(want - labels)}")

    # promtool parses each query as a recording rule's expression.
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "dashboard_rules.yaml")
        with open(path, "w") as f:
            f.write("groups:\n  - name: dashboard\n    rules:\n")
            for i, (where, expr) in enumerate(rules):
                f.write(f"      # {where}\n      - record: dashboard:query_{i}\n        expr: {json_str(expr)}\n")
        r = subprocess.run([promtool, "check", "rules", path], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append("promtool check rules on the dashboard's queries:\n" + r.stdout + r.stderr)

    for f in failures:
        print("FAIL -", f)
    if failures:
        return 1
    print(f"ok - dashboard {d['title']!r}: {len(panels)} panels, {len(exprs)} queries parse and select "
          f"exported families")
    return 0


def json_str(s):
    import json
    return json.dumps(s)  # a JSON string is a YAML double-quoted scalar


if __name__ == "__main__":
    sys.exit(main())
