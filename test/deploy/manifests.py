"""deploy/'s manifests read without a cluster: the helpers the manifest tests
share (test/monitoring/manifests_test.py, test/deploy/sharding_overlay_test.py).
python3-yaml is imported on use, so a test can report it missing (exit 77)."""
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEPLOY = os.path.join(ROOT, "deploy")


def load_all(path):
    """The non-empty YAML documents of a file."""
    import yaml
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def by_kind(docs, kind, name=None):
    return [d for d in docs if d.get("kind") == kind and (name is None or d["metadata"]["name"] == name)]


def kustomize(kubectl, directory):
    """`kubectl kustomize DIRECTORY`: (documents, None), or (None, its error)."""
    import yaml
    r = subprocess.run([kubectl, "kustomize", directory], capture_output=True, text=True)
    if r.returncode != 0:
        return None, f"kubectl kustomize {directory}: {r.stderr.strip()}"
    return [d for d in yaml.safe_load_all(r.stdout) if d is not None], None


def kustomize_with_component(kubectl, component):
    """deploy/ with `component` included, as an overlay would include it."""
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "kustomization.yaml"), "w") as f:
            f.write("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                    f"resources:\n  - {os.path.relpath(DEPLOY, tmp)}\n"
                    f"components:\n  - {os.path.relpath(component, tmp)}\n")
        return kustomize(kubectl, tmp)
