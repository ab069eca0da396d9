#!/usr/bin/env python3
"""The local overlay: deploy/kubernetes's manifests as one file for `podman kube play` on one host.

What podman needs changed, and nothing else:
- host networking, with every endpoint on 127.0.0.1 (the ConfigMap's service names become the loopback,
  and each service binds its own endpoints there, not on every interface of the host), and so no
  declared ports (podman would map them, which it refuses with host networking);
- a StatefulSet becomes a Deployment (podman plays Pods, Deployments and PersistentVolumeClaims), its
  volume claim a hostPath directory under DATA_DIR (`make kube-up` gives it to the services' user);
- an emptyDir is named after its pod (podman makes a named volume of it, which pods would share);
- an httpGet probe becomes the same check by tickwire-probe (podman would run curl in the container,
  which has none);
- Services, NetworkPolicies and the Namespace are left out (no cluster network to route or police).

Usage: overlay.py DATA_DIR > tickwire-local.yaml
"""
import pathlib
import re
import sys

import yaml

MANIFESTS = ["endpoints.yaml", "rates-fetcher.yaml", "converter.yaml", "portfolio.yaml", "price-alerts.yaml", "presenter.yaml"]
PLAYED = {"ConfigMap", "Deployment", "StatefulSet"}


def loopback(value):
    """tcp://converter:7201 or tcp://0.0.0.0:7201 -> tcp://127.0.0.1:7201."""
    return re.sub(r"^(tcp|http)://[^:/]+:", r"\1://127.0.0.1:", value)


def probe_for(container):
    """tickwire-probe on the container's JSON-RPC port (the first it declares)."""
    rpc = next(p["containerPort"] for p in container["ports"] if p["name"] == "rpc")
    return {"exec": {"command": ["tickwire-probe", "--timeout-ms", "2000", f"tcp://127.0.0.1:{rpc}"]}}


def workload(doc, data_dir):
    name = doc["metadata"]["name"]
    spec = doc["spec"]
    pod = spec["template"]["spec"]
    pod["hostNetwork"] = True
    for claim in spec.pop("volumeClaimTemplates", []):
        pod.setdefault("volumes", []).append({
            "name": claim["metadata"]["name"],
            "hostPath": {"path": str(pathlib.Path(data_dir) / name), "type": "DirectoryOrCreate"},
        })
    spec.pop("serviceName", None)
    # podman makes a named volume of each emptyDir, shared by every pod that names it: one per pod.
    for volume in pod.get("volumes", []):
        if "emptyDir" in volume:
            for container in pod["containers"]:
                for mount in container.get("volumeMounts", []):
                    if mount["name"] == volume["name"]:
                        mount["name"] = f"{name}-{volume['name']}"
            volume["name"] = f"{name}-{volume['name']}"
    for container in pod["containers"]:
        container["args"] = [loopback(a) for a in container.get("args", [])]
        for kind in ("readinessProbe", "livenessProbe"):
            probe = container.get(kind)
            if probe and "httpGet" in probe:
                del probe["httpGet"]
                probe.update(probe_for(container))
        # With host networking podman refuses port mappings, which it makes of the declared ports.
        container.pop("ports", None)
    doc["kind"] = "Deployment"
    return doc


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    data_dir = sys.argv[1]
    here = pathlib.Path(__file__).resolve().parent.parent / "base"
    out = []
    for manifest in MANIFESTS:
        for doc in yaml.safe_load_all((here / manifest).read_text()):
            if doc is None or doc["kind"] not in PLAYED:
                continue
            if doc["kind"] == "ConfigMap":
                doc["data"] = {k: loopback(v) for k, v in doc["data"].items()}
                out.append(doc)
            else:
                out.append(workload(doc, data_dir))
    sys.stdout.write("# Made by deploy/kubernetes/local/overlay.py from deploy/kubernetes/base/*.yaml: do not edit.\n")
    yaml.safe_dump_all(out, sys.stdout, sort_keys=False)


if __name__ == "__main__":
    main()
