#!/usr/bin/env python3
"""deploy/monitoring's manifests, checked without a cluster (meson test
monitoring_manifests, unit suite):

- every YAML file parses (python3-yaml) into objects with apiVersion, kind and
  a name, namespaced ones in kcoro-system; the Component lists every one of
  them, and the files it names exist;
- the ServiceMonitor selects deploy/operator/metrics_service.yaml (labels,
  port name, namespace) and scrapes HTTPS, which the patch turns on in the
  Deployment of deploy/operator/deployment.yaml; the job it gives (the
  Service's name) is the one the alerts and the dashboard select;
- the RBAC binds the operator's ServiceAccount (deploy/rbac);
- with kubectl on PATH: `kubectl kustomize` of the component alone (the
  monitoring objects, no Deployment) and of deploy/ with the component (the
  Deployment gains --metrics-secure once), output parsed and compared. Without
  kubectl that part is reported as not run; the rest still runs.

Skipped (exit 77) without python3-yaml.
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "deploy"))
import monitoring as mon  # noqa: E402
from manifests import by_kind, load_all  # noqa: E402
import manifests  # noqa: E402

CLUSTER_SCOPED = {"ClusterRole", "ClusterRoleBinding", "Namespace", "CustomResourceDefinition"}
failures = []


def fail(msg):
    print("FAIL -", msg)
    failures.append(msg)


def kustomize(docs_error):
    """The documents of a manifests.kustomize* call; [] and a failure on its error."""
    docs, error = docs_error
    if error:
        fail(error)
        return []
    return docs


def main():
    mon.need_yaml()
    d = mon.MONITORING
    kz = load_all(os.path.join(d, "kustomization.yaml"))[0]
    if kz.get("apiVersion") != "kustomize.config.k8s.io/v1alpha1" or kz.get("kind") != "Component":
        fail("deploy/monitoring/kustomization.yaml is not a kustomize Component")
    resources = kz.get("resources", [])
    patches = [p["path"] for p in kz.get("patches", [])]
    generated = [f for g in kz.get("configMapGenerator", []) for f in g.get("files", [])]
    for f in resources + patches + generated:
        if not os.path.exists(os.path.join(d, f)):
            fail(f"the component names {f}, which does not exist")
    yamls = sorted(f for f in os.listdir(d) if f.endswith(".yaml") and f != "kustomization.yaml")
    for f in yamls:
        if f not in resources and f not in patches:
            fail(f"{f} is in deploy/monitoring but the component does not use it")

    objects = []
    for f in resources:
        for o in load_all(os.path.join(d, f)):
            if not (o.get("apiVersion") and o.get("kind") and o.get("metadata", {}).get("name")):
                fail(f"{f}: an object without apiVersion, kind or name")
                continue
            ns = o["metadata"].get("namespace")
            if o["kind"] in CLUSTER_SCOPED:
                if ns:
                    fail(f"{f}: cluster-scoped {o['kind']} with a namespace")
            elif ns != "kcoro-system":
                fail(f"{f}: {o['kind']} {o['metadata']['name']} not in kcoro-system")
            objects.append(o)
    for f in generated:
        try:
            mon.dashboard(os.path.join(d, f))
        except ValueError as e:
            fail(f"{f}: not JSON: {e}")

    deploy = os.path.join(mon.ROOT, "deploy")
    service = load_all(os.path.join(deploy, "operator", "metrics_service.yaml"))[0]
    deployment = load_all(os.path.join(deploy, "operator", "deployment.yaml"))[0]
    sa = load_all(os.path.join(deploy, "rbac", "service_account.yaml"))[0]

    sm = by_kind(objects, "ServiceMonitor")
    if len(sm) != 1:
        fail(f"{len(sm)} ServiceMonitors, want 1")
    else:
        sm = sm[0]["spec"]
        labels = service["metadata"].get("labels", {})
        for k, v in sm["selector"]["matchLabels"].items():
            if labels.get(k) != v:
                fail(f"the ServiceMonitor selects {k}={v}; the metrics Service has {labels}")
        if service["metadata"]["namespace"] not in sm.get("namespaceSelector", {}).get("matchNames", []):
            fail("the ServiceMonitor does not look in the metrics Service's namespace")
        ports = {p["name"] for p in service["spec"]["ports"]}
        for ep in sm["endpoints"]:
            if ep["port"] not in ports:
                fail(f"the ServiceMonitor scrapes port {ep['port']}; the Service has {ports}")
            if ep.get("scheme") != "https":
                fail("the ServiceMonitor does not scrape the secure endpoint (scheme https)")
        job = service["metadata"]["name"]
        for a in mon.alerts():
            for name, matchers in mon.selectors(a["expr"]):
                if ("job", "=", job) not in matchers:
                    fail(f"alert {a['alert']}: {name} does not select job={job} (the ServiceMonitor's job)")
        dash_job = [v for v in mon.dashboard()["templating"]["list"] if v["name"] == "job"][0]
        if dash_job.get("current", {}).get("value") != job:
            fail(f"the dashboard's default job is not {job}")

    for p in kz.get("patches", []):
        t = p.get("target", {})
        if (t.get("kind"), t.get("name")) != ("Deployment", deployment["metadata"]["name"]):
            fail(f"patch {p['path']} targets {t}, not the operator's Deployment")
        ops = load_all(os.path.join(d, p["path"]))[0]
        for op in ops:
            if op["path"] == "/spec/template/spec/containers/0/args/-":
                if "args" not in deployment["spec"]["template"]["spec"]["containers"][0]:
                    fail("the patch appends to args the Deployment's container does not have")
                if op["value"] in deployment["spec"]["template"]["spec"]["containers"][0]["args"]:
                    fail(f"the Deployment already has {op['value']}")

    for b in by_kind(objects, "ClusterRoleBinding", "gateway-operator-metrics-auth"):
        subj = b["subjects"][0]
        if (subj["name"], subj["namespace"]) != (sa["metadata"]["name"], sa["metadata"]["namespace"]):
            fail(f"the metrics-auth binding names {subj}, not the operator's ServiceAccount")
    if not by_kind(objects, "ClusterRoleBinding", "gateway-operator-metrics-auth"):
        fail("no ClusterRoleBinding gateway-operator-metrics-auth")

    kubectl = shutil.which("kubectl")
    if not kubectl:
        print("note - kubectl not on PATH: `kubectl kustomize` not checked")
    else:
        alone = kustomize(manifests.kustomize(kubectl, d))
        kinds = sorted(o["kind"] for o in alone)
        want = sorted([o["kind"] for o in objects] + ["ConfigMap"] * len(kz.get("configMapGenerator", [])))
        if kinds != want:
            fail(f"kubectl kustomize deploy/monitoring: kinds {kinds}, want {want}")
        cm = by_kind(alone, "ConfigMap", "gateway-operator-dashboard")
        if not cm or cm[0]["metadata"].get("labels", {}).get("grafana_dashboard") != "1":
            fail("no ConfigMap gateway-operator-dashboard labelled grafana_dashboard=1")
        elif json.loads(cm[0]["data"]["kcoro-manager-dashboard.json"]) != mon.dashboard():
            fail("the dashboard ConfigMap does not hold the dashboard")
        # deploy/ with the component, as an overlay would include it.
        both = kustomize(manifests.kustomize_with_component(kubectl, d))
        deps = by_kind(both, "Deployment", deployment["metadata"]["name"])
        if len(deps) != 1:
            fail("deploy/ with the component: no operator Deployment")
        else:
            args = deps[0]["spec"]["template"]["spec"]["containers"][0]["args"]
            if args.count("--metrics-secure") != 1 or args[:-1] != deployment["spec"]["template"]["spec"]["containers"][0]["args"]:
                fail(f"deploy/ with the component: args {args}")
        base = kustomize(manifests.kustomize(kubectl, deploy))
        if len(both) != len(base) + len(alone):
            fail(f"deploy/ with the component has {len(both)} objects, not {len(base)} + {len(alone)}")
        if not failures:
            print(f"ok - kubectl kustomize: the component alone ({len(alone)} objects) and deploy/ with it "
                  f"({len(both)}; the Deployment with --metrics-secure)")

    if failures:
        return 1
    print(f"ok - deploy/monitoring: {len(objects)} objects and the dashboard, consistent with deploy/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
