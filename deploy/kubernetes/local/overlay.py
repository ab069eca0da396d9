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

With --postgres, the PostgreSQL overlay (deploy/kubernetes/postgres) the same way: its PostgreSQL StatefulSet,
bound to 127.0.0.1 only and on POSTGRES_PORT (not 5432, which a host's own PostgreSQL may hold), and the portfolio
patched as the overlay patches it, with one replica (two would bind the same ports of the one host); the Secret's
values are put in the environment that names them (podman 4.3 reads a Kubernetes Secret's values as JSON, and
refuses them), its URL's host and port the loopback's POSTGRES_PORT.

Usage: overlay.py [--postgres] DATA_DIR > tickwire-local.yaml
"""
import pathlib
import re
import sys

import yaml

MANIFESTS = ["endpoints.yaml", "rates-fetcher.yaml", "converter.yaml", "portfolio.yaml", "price-alerts.yaml", "presenter.yaml"]
PLAYED = {"ConfigMap", "Deployment", "StatefulSet"}
# PostgreSQL's port on the host (inside a cluster it is 5432): Debian's postgresql package starts its own cluster on
# 5432, scripts/postgres-test.sh's servers use 25432 and 25433, test-deploy.sh's image check 25439. kube-play.sh
# checks that it is free and test-kube-play.sh logs in on it.
POSTGRES_PORT = 25435


def loopback(value):
    """tcp://converter:7201 or tcp://0.0.0.0:7201 -> tcp://127.0.0.1:7201, each endpoint in the value (the presenter's
    plugins: price-alerts=tcp://price-alerts:7501,tcp://price-alerts:7502)."""
    return re.sub(r"\b(tcp|http)://[^:/,\s]+:", r"\1://127.0.0.1:", value)


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


def patched(doc, patch):
    """The base's portfolio with the PostgreSQL overlay's patch: its containers' env variables replaced or added (by
    name, as a strategic merge does, a null field left out), one replica."""
    containers = {c["name"]: c for c in doc["spec"]["template"]["spec"]["containers"]}
    for change in patch["spec"]["template"]["spec"]["containers"]:
        container = containers[change["name"]]
        env = [{k: v for k, v in e.items() if v is not None} for e in change.get("env", [])]
        names = {e["name"] for e in env}
        container["env"] = env + [e for e in container.get("env", []) if e["name"] not in names]
    doc["spec"]["replicas"] = 1
    return doc


def resolved(doc, secrets):
    """Each secretKeyRef replaced by the Secret's value (a postgres:// URL's host and port by the loopback's
    POSTGRES_PORT)."""
    for container in doc["spec"]["template"]["spec"]["containers"]:
        for variable in container.get("env", []):
            reference = variable.get("valueFrom", {}).get("secretKeyRef")
            if reference:
                value = secrets[reference["name"]][reference["key"]]
                variable.pop("valueFrom")
                variable["value"] = re.sub(r"^(postgres(?:ql)?://[^@/]*@)[^/?]+", rf"\g<1>127.0.0.1:{POSTGRES_PORT}",
                                           value)
    return doc


def main():
    arguments = sys.argv[1:]
    with_postgres = "--postgres" in arguments
    arguments = [a for a in arguments if a != "--postgres"]
    if len(arguments) != 1:
        sys.exit(__doc__.strip().splitlines()[-1])
    data_dir = arguments[0]
    kubernetes = pathlib.Path(__file__).resolve().parent.parent
    here = kubernetes / "base"
    extra, secrets, patch = [], {}, None
    if with_postgres:
        overlay = kubernetes / "postgres"
        patch = yaml.safe_load((overlay / "portfolio-replicas.yaml").read_text())
        for doc in yaml.safe_load_all((overlay / "postgres.yaml").read_text()):
            if doc and doc["kind"] == "Secret":
                secrets[doc["metadata"]["name"]] = doc["stringData"]
            elif doc and doc["kind"] in PLAYED:
                # PostgreSQL on the loopback only (the entrypoint's own listen_addresses is every interface), on
                # POSTGRES_PORT, where its probes look.
                container = doc["spec"]["template"]["spec"]["containers"][0]
                container["args"] = ["-c", "listen_addresses=127.0.0.1", "-c", f"port={POSTGRES_PORT}"]
                for kind in ("readinessProbe", "livenessProbe"):
                    command = container[kind]["exec"]["command"]
                    command[command.index("--port") + 1] = str(POSTGRES_PORT)
                extra.append(doc)
    # PostgreSQL first, so it is making its cluster while the services start.
    out = [resolved(workload(doc, data_dir), secrets) for doc in extra]
    for manifest in MANIFESTS:
        for doc in yaml.safe_load_all((here / manifest).read_text()):
            if doc is None or doc["kind"] not in PLAYED:
                continue
            if doc["kind"] == "ConfigMap":
                doc["data"] = {k: loopback(v) for k, v in doc["data"].items()}
                out.append(doc)
            else:
                if patch and doc["kind"] == patch["kind"] and doc["metadata"]["name"] == patch["metadata"]["name"]:
                    doc = patched(doc, patch)
                out.append(resolved(workload(doc, data_dir), secrets))
    sources = "deploy/kubernetes/base/*.yaml" + (" and deploy/kubernetes/postgres" if with_postgres else "")
    sys.stdout.write(f"# Made by deploy/kubernetes/local/overlay.py from {sources}: do not edit.\n")
    yaml.safe_dump_all(out, sys.stdout, sort_keys=False)


if __name__ == "__main__":
    main()
