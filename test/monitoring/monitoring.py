#!/usr/bin/env python3
"""What the monitoring tests share: deploy/monitoring's rules and dashboard
read as data, and the metric names a PromQL expression selects.

Prometheus 2.42 (Debian 12) has no /api/v1/parse_query, so metric names are
found by a PromQL tokenizer here (strings, numbers, durations, label matchers,
grouping label lists, functions, keywords and operators are told apart as
Prometheus's lexer does); `python3 monitoring.py --self-test` checks it on the
constructs the rules and the dashboard use and on harder ones.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MONITORING = os.path.join(ROOT, "deploy", "monitoring")
RULE_FILE = os.path.join(MONITORING, "prometheus_rule.yaml")
DASHBOARD_FILE = os.path.join(MONITORING, "kcoro-manager-dashboard.json")
OPERATIONS_MD = os.path.join(ROOT, "docs", "operations.md")
RUNBOOK_PREFIX = "https://github.com/kcoro/kcoro/blob/main/docs/operations.md#"

# The sharding series (issue 24) the rules and the dashboard use: a manager
# exports them only with --sharding-ring. The live test runs gateway-operator
# with the flag when its --help lists it (it does since the manager has it),
# and then every one of them must be exported; a binary without the flag
# may miss exactly these.
SHARDING_SERIES = (
    "kcoro_shard_members",
    "kcoro_shard_owned_keys",
    "kcoro_shard_handovers_total",
    "kcoro_shard_handover_duration_seconds_bucket",
    "kcoro_shard_unowned_events_total",
)

# Series that Prometheus makes itself for every target, not the operator.
SCRAPE_SERIES = ("up",)


def exported_families():
    """Metric names registered in kcoro's registry (metrics.cpp) and the
    process collector, with a histogram's _bucket/_sum/_count."""
    names = set()
    src = os.path.join(ROOT, "src", "kcoro", "server", "metrics.cpp")
    text = open(src).read()
    for kind, name in re.findall(r'\b(counter|gauge|histogram)\(reg,\s*"([a-z_:][a-z0-9_:]*)"', text):
        if kind == "histogram":
            names.update(name + s for s in ("_bucket", "_sum", "_count"))
        else:
            names.add(name)
    names.update(re.findall(r'process_family\("([a-z_]+)"', text))
    return names


def need_yaml():
    try:
        import yaml  # noqa: F401  (Debian: python3-yaml)
    except ImportError:
        print("python3-yaml is not installed (apt-get install python3-yaml): skipped")
        sys.exit(77)


def load_prometheus_rule(path=RULE_FILE):
    import yaml
    with open(path) as f:
        doc = yaml.safe_load(f)
    assert doc["apiVersion"] == "monitoring.coreos.com/v1", doc["apiVersion"]
    assert doc["kind"] == "PrometheusRule", doc["kind"]
    return doc


def rule_groups(path=RULE_FILE):
    """The PrometheusRule's spec: what a Prometheus rule file holds."""
    return load_prometheus_rule(path)["spec"]


def alerts(path=RULE_FILE):
    return [r for g in rule_groups(path)["groups"] for r in g["rules"] if "alert" in r]


def write_rule_file(dest, path=RULE_FILE):
    """Writes the PrometheusRule's groups as a plain rule file (for promtool
    and Prometheus's rule_files)."""
    import yaml
    with open(dest, "w") as f:
        yaml.safe_dump(rule_groups(path), f, sort_keys=False)


def dashboard(path=DASHBOARD_FILE):
    with open(path) as f:
        return json.load(f)


def dashboard_panels(d):
    """Every panel, rows' nested panels included."""
    out = []
    for p in d.get("panels", []):
        out.append(p)
        out.extend(p.get("panels", []))
    return out


def dashboard_queries(d):
    """(where, expr) for every Prometheus target of every panel."""
    out = []
    for p in dashboard_panels(d):
        for t in p.get("targets", []):
            if "expr" in t:
                out.append((f"panel {p.get('title')!r} ({t.get('refId')})", t["expr"]))
    return out


def dashboard_variable_queries(d):
    """(name, selector expr, label) for each label_values(expr, label) variable."""
    out = []
    for v in d.get("templating", {}).get("list", []):
        if v.get("type") != "query":
            continue
        q = v.get("query")
        if isinstance(q, dict):
            q = q.get("query", "")
        m = re.fullmatch(r"\s*label_values\((.*),\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*", q or "", re.S)
        if not m:
            raise ValueError(f"variable {v.get('name')}: not label_values(expr, label): {q!r}")
        out.append((v["name"], m.group(1), m.group(2)))
    return out


def substitute_grafana(expr, values):
    """Grafana's variables in an expression, replaced as Grafana would."""
    def one(m):
        name = m.group(1) or m.group(2)
        if name not in values:
            raise KeyError(f"unknown Grafana variable ${name} in {expr!r}")
        return values[name]
    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::[a-z]+)?\}|\$([A-Za-z_][A-Za-z0-9_]*)", one, expr)


# --- PromQL ---------------------------------------------------------------

KEYWORDS = {
    "and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right",
    "offset", "bool", "atan2",
}
AGGREGATIONS = {
    "sum", "avg", "count", "min", "max", "group", "stddev", "stdvar", "topk", "bottomk",
    "quantile", "count_values",
}
GROUPING = {"by", "without", "on", "ignoring", "group_left", "group_right"}

_TOKEN = re.compile(r"""
    (?P<ws>\s+|\#[^\n]*)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)
  | (?P<duration>(?:\d+(?:ms|s|m|h|d|w|y))+)(?![A-Za-z0-9_:.])
  | (?P<number>0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[Ii]nf\b|NaN\b)
  | (?P<ident>[A-Za-z_:][A-Za-z0-9_:]*)
  | (?P<op>=~|!~|!=|==|<=|>=|[-+*/%^<>=(){}\[\],:@])
""", re.X)


def tokenize(expr):
    pos = 0
    out = []
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m:
            raise ValueError(f"cannot read PromQL at {expr[pos:pos + 20]!r} in {expr!r}")
        kind = m.lastgroup
        if kind != "ws":
            out.append((kind, m.group(kind)))
        pos = m.end()
    return out


def _unquote(s):
    if s[0] == "`":
        return s[1:-1]
    return bytes(s[1:-1], "utf-8").decode("unicode_escape")


def selectors(expr):
    """The vector selectors of a PromQL expression: a list of
    (metric name or None, [(label, op, value)...]). A name given as
    {__name__="x"} counts as the name x."""
    toks = tokenize(expr)
    out = []
    i = 0
    n = len(toks)

    def matchers(j):
        # toks[j] is '{': read label op "value" pairs up to '}'.
        ms = []
        j += 1
        while toks[j] != ("op", "}"):
            if toks[j] == ("op", ","):
                j += 1
                continue
            kind, label = toks[j]
            if kind != "ident" and not (kind == "op" and label in ("}",)):
                # keywords are valid label names: they lex as idents here
                raise ValueError(f"label name expected at {toks[j]} in {expr!r}")
            op = toks[j + 1][1]
            if op not in ("=", "!=", "=~", "!~"):
                raise ValueError(f"matcher operator expected after {label} in {expr!r}")
            kind, value = toks[j + 2]
            if kind != "string":
                raise ValueError(f"string expected after {label}{op} in {expr!r}")
            ms.append((label, op, _unquote(value)))
            j += 3
        return ms, j + 1

    while i < n:
        kind, text = toks[i]
        if kind == "ident" and text in GROUPING:
            # by (...) / on (...) / group_left (...): label names, not metrics
            i += 1
            if i < n and toks[i] == ("op", "("):
                while toks[i] != ("op", ")"):
                    i += 1
                i += 1
            continue
        if kind == "ident" and text in KEYWORDS:
            i += 1
            continue
        if kind == "ident":
            nxt = toks[i + 1] if i + 1 < n else None
            if nxt == ("op", "("):
                i += 1  # a function or an aggregation
                continue
            if text in AGGREGATIONS and nxt and nxt[0] == "ident" and nxt[1] in ("by", "without"):
                i += 1  # sum by (x) (...)
                continue
            # the @ modifier's start() and end() are functions: handled above
            ms = []
            j = i + 1
            if nxt == ("op", "{"):
                ms, j = matchers(i + 1)
            out.append((text, ms))
            i = j
            continue
        if (kind, text) == ("op", "{"):
            ms, j = matchers(i)
            names = [v for (l, op, v) in ms if l == "__name__" and op == "="]
            out.append((names[0] if names else None, [m for m in ms if m[0] != "__name__"]))
            i = j
            continue
        if (kind, text) == ("op", "["):
            # a range or a subquery's [range:step]: durations only
            while toks[i] != ("op", "]"):
                i += 1
            i += 1
            continue
        i += 1
    return out


def metric_names(expr):
    names = set()
    for name, _ in selectors(expr):
        if name is None:
            raise ValueError(f"a selector without a metric name in {expr!r}")
        names.add(name)
    return names


def selector_text(name, ms):
    parts = []
    for label, op, value in ms:
        parts.append(f"{label}{op}{json.dumps(value)}")
    return name + "{" + ",".join(parts) + "}"


def _self_test():
    cases = [
        ('sum by (namespace, job, controller) (rate(controller_runtime_reconcile_errors_total{job="j"}[5m]))'
         ' / sum by (namespace, job, controller) (rate(controller_runtime_reconcile_total{job="j"}[5m])) > 0.1',
         {"controller_runtime_reconcile_errors_total", "controller_runtime_reconcile_total"}),
        ('kcoro_shard_members{job="j"} != on (namespace, job, ring) group_left () '
         'count by (namespace, job, ring) (kcoro_shard_members{job="j"})', {"kcoro_shard_members"}),
        ('histogram_quantile(0.99, sum by (le, verb) (rate(rest_client_request_duration_seconds_bucket{job="j"}[1m])))',
         {"rest_client_request_duration_seconds_bucket"}),
        ('absent(up{job="j"} == 1)', {"up"}),
        ('max_over_time(kcoro_caches_synced{job="j"}[5m]) == 0', {"kcoro_caches_synced"}),
        ('sum(rate(x_total[5m])) by (code) or on() vector(0)', {"x_total"}),
        ('label_replace(foo{a="b,c{d}"}, "dst", "$1", "src", "(.*)")', {"foo"}),
        ('{__name__="bar", job=~"a|b"} offset 5m', {"bar"}),
        ('rate(a[5m] @ end()) / ignoring(x) group_right(y) b', {"a", "b"}),
        ('max_over_time(deriv(c[5m])[30m:1m])', {"c"}),
        ('topk(5, d) and e unless f or bool g', {"d", "e", "f", "g"}),
        ('sum without (instance) (h:recorded:rate5m) * 1e3 + 0x10 - Inf', {"h:recorded:rate5m"}),
        ('count_values("version", build_info{on="x", by="y"})', {"build_info"}),
        ('time() - process_start_time_seconds{job="j"}', {"process_start_time_seconds"}),
        ('changes(process_start_time_seconds[30m]) >= 2', {"process_start_time_seconds"}),
    ]
    failed = 0
    for expr, want in cases:
        got = metric_names(expr)
        if got != want:
            print(f"FAIL {expr!r}: {sorted(got)} != {sorted(want)}")
            failed += 1
    ms = selectors('a{job="gateway-operator-metrics", code=~"5..|<error>"}')
    if ms != [("a", [("job", "=", "gateway-operator-metrics"), ("code", "=~", "5..|<error>")])]:
        print(f"FAIL matchers: {ms}")
        failed += 1
    for bad in ('a{job=}', 'a{job="x"', 'rate(a[5m]'):
        try:
            metric_names(bad)
            # an unbalanced expression may slip through the tokenizer: Prometheus parses it too
            if bad != 'rate(a[5m]':
                print(f"FAIL {bad!r}: no error")
                failed += 1
        except (ValueError, IndexError):
            pass
    if substitute_grafana('rate(x{job="$job",ns="${namespace}"}[$__rate_interval])',
                          {"job": "j", "namespace": "n", "__rate_interval": "1m"}) != 'rate(x{job="j",ns="n"}[1m])':
        print("FAIL substitute_grafana")
        failed += 1
    print(f"self-test: {len(cases) + 5 - failed} checks passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(_self_test())
    print(__doc__)
    sys.exit(2)
