#!/usr/bin/env python3
"""deploy/sharding, the sharded gateway-operator overlay, checked without a
cluster (meson test deploy_sharding_overlay, unit suite):

- a kustomize Component whose files exist and are all used;
- its patch targets deploy/operator/deployment.yaml's Deployment, sets two or
  more replicas and appends --sharding-ring=<ring> (a DNS-1123 label of at
  most 46 characters, as the manager validates) once;
- the shard Leases are allowed: a Role in the leader-election namespace
  (--leader-election-namespace) granting get, list, create, update and delete on
  coordination.k8s.io leases, bound to the operator's ServiceAccount;
- a PodDisruptionBudget selecting the Deployment's pods, letting at most one
  go at a time; the pods' grace period leaves room for the clean leave;
- with kubectl on PATH: `kubectl kustomize` of deploy/ with the component
  (the Deployment with the replicas and the flag, and the added objects).

Skipped (exit 77) without python3-yaml.
"""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manifests import DEPLOY, by_kind, kustomize, kustomize_with_component, load_all  # noqa: E402

SHARDING = os.path.join(DEPLOY, "sharding")
failures = []


def fail(msg):
    print("FAIL -", msg)
    failures.append(msg)


def main():
    try:
        import yaml  # noqa: F401  (Debian: python3-yaml)
    except ImportError:
        print("python3-yaml is not installed: skipped")
        return 77
    kz = load_all(os.path.join(SHARDING, "kustomization.yaml"))[0]
    if (kz.get("apiVersion"), kz.get("kind")) != ("kustomize.config.k8s.io/v1alpha1", "Component"):
        fail("deploy/sharding/kustomization.yaml is not a kustomize Component")
    resources = kz.get("resources", [])
    patches = kz.get("patches", [])
    used = resources + [p["path"] for p in patches]
    for f in used:
        if not os.path.exists(os.path.join(SHARDING, f)):
            fail(f"the component names {f}, which does not exist")
    for f in sorted(os.listdir(SHARDING)):
        if f.endswith(".yaml") and f != "kustomization.yaml" and f not in used:
            fail(f"{f} is in deploy/sharding but the component does not use it")

    deployment = load_all(os.path.join(DEPLOY, "operator", "deployment.yaml"))[0]
    sa = load_all(os.path.join(DEPLOY, "rbac", "service_account.yaml"))[0]
    pod = deployment["spec"]["template"]
    base_args = pod["spec"]["containers"][0]["args"]
    flags = dict(a[2:].split("=", 1) for a in base_args if a.startswith("--") and "=" in a)
    lease_ns = flags.get("leader-election-namespace", deployment["metadata"]["namespace"])

    replicas, ring = None, None
    for p in patches:
        t = p.get("target", {})
        if (t.get("kind"), t.get("name")) != ("Deployment", deployment["metadata"]["name"]):
            fail(f"patch {p['path']} targets {t}, not the operator's Deployment")
        for op in load_all(os.path.join(SHARDING, p["path"]))[0]:
            if op["path"] == "/spec/replicas":
                replicas = op["value"]
            elif op["path"] == "/spec/template/spec/containers/0/args/-":
                if op["value"] in base_args:
                    fail(f"the Deployment already has {op['value']}")
                if op["value"].startswith("--sharding-ring="):
                    ring = op["value"].split("=", 1)[1]
    if not isinstance(replicas, int) or replicas < 2:
        fail(f"the patch sets replicas to {replicas!r}: a ring needs two or more")
    if ring is None:
        fail("the patch does not add --sharding-ring")
    elif not re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", ring) or len(ring) > 46:
        fail(f"--sharding-ring={ring}: not a DNS-1123 label of at most 46 characters")

    objects = [o for f in resources for o in load_all(os.path.join(SHARDING, f))]
    roles = by_kind(objects, "Role")
    granted = set()
    for r in roles:
        if r["metadata"].get("namespace") != lease_ns:
            fail(f"Role {r['metadata']['name']} is in {r['metadata'].get('namespace')}, the Leases in {lease_ns}")
            continue
        for rule in r.get("rules", []):
            if "coordination.k8s.io" in rule.get("apiGroups", []) and "leases" in rule.get("resources", []):
                granted |= set(rule.get("verbs", []))
    missing = {"get", "list", "create", "update", "delete"} - granted
    if missing:
        fail(f"the shard Leases need {sorted(missing)} on coordination.k8s.io leases in {lease_ns}")
    role_names = {r["metadata"]["name"] for r in roles}
    bound = False
    for b in by_kind(objects, "RoleBinding"):
        if b["roleRef"]["kind"] != "Role" or b["roleRef"]["name"] not in role_names:
            fail(f"RoleBinding {b['metadata']['name']} refers to {b['roleRef']}, not the component's Role")
        for s in b.get("subjects", []):
            if (s.get("kind"), s.get("name"), s.get("namespace")) == (
                    "ServiceAccount", sa["metadata"]["name"], sa["metadata"]["namespace"]):
                bound = True
    if not bound:
        fail("no RoleBinding gives the operator's ServiceAccount the shard Lease Role")

    pdbs = by_kind(objects, "PodDisruptionBudget")
    if len(pdbs) != 1:
        fail(f"{len(pdbs)} PodDisruptionBudgets, want 1")
    else:
        spec = pdbs[0]["spec"]
        labels = pod["metadata"].get("labels", {})
        for k, v in spec["selector"]["matchLabels"].items():
            if labels.get(k) != v:
                fail(f"the PodDisruptionBudget selects {k}={v}; the pods have {labels}")
        if pdbs[0]["metadata"].get("namespace") != deployment["metadata"]["namespace"]:
            fail("the PodDisruptionBudget is not in the Deployment's namespace")
        if spec.get("maxUnavailable") != 1 and not (
                isinstance(replicas, int) and spec.get("minAvailable") == replicas - 1):
            fail(f"the PodDisruptionBudget lets {spec} go at once, want one at a time")
    # The clean leave (SIGTERM: drop, drain, release) must end before SIGKILL;
    # a reconcile that outlives it leaves its range to the Lease expiry.
    grace = pod["spec"].get("terminationGracePeriodSeconds", 30)
    if grace < 30:
        fail(f"terminationGracePeriodSeconds {grace}: too short for the drain and the release")

    kubectl = shutil.which("kubectl")
    if not kubectl:
        print("note - kubectl not on PATH: `kubectl kustomize` not checked")
    else:
        both, error = kustomize_with_component(kubectl, SHARDING)
        alone, base_error = kustomize(kubectl, DEPLOY)
        if error or base_error:
            fail(error or base_error)
        else:
            deps = by_kind(both, "Deployment")
            if len(deps) != 1:
                fail("deploy/ with the component: not one Deployment")
            else:
                args = deps[0]["spec"]["template"]["spec"]["containers"][0]["args"]
                if deps[0]["spec"]["replicas"] != replicas or args != base_args + [f"--sharding-ring={ring}"]:
                    fail(f"deploy/ with the component: replicas {deps[0]['spec']['replicas']}, args {args}")
            if len(both) != len(alone) + len(objects):
                fail(f"deploy/ with the component has {len(both)} objects, not {len(alone)} + {len(objects)}")
            if not failures:
                print(f"ok - kubectl kustomize: deploy/ with the component ({len(both)} objects; "
                      f"{replicas} replicas, --sharding-ring={ring})")

    if failures:
        return 1
    print(f"ok - deploy/sharding: ring {ring}, {replicas} replicas, Lease RBAC in {lease_ns}, one disruption at a time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
