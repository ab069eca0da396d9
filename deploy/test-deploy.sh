#!/usr/bin/env bash
# `make test-deploy` (after `make images`): each image is what the README says (non-root, ports, a
# health check, the database volume, every shared library it loads) and within the size targets (each
# service's own layers at most 40 MB over the runtime image they share, all images together at most
# 400 MB of distinct layers; printed), the PostgreSQL image takes a password login and refuses a wrong one,
# the manifests MANIFEST... validate against Kubernetes' schemas, the kustomizations (the base and the
# PostgreSQL overlay) render with `kubectl kustomize` and validate where kubectl is installed,
# the stack plays from them with podman (kubernetes/local/test-kube-play.sh), also with the PostgreSQL overlay
# (one portfolio replica, its trade a row of PostgreSQL), and from compose.yaml
# with podman-compose where it is installed (test-compose.sh). Ends with "test-deploy: N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
passed=0 failed=0 skipped=0

step() {
    local name=$1; shift
    echo "== $name"
    local started=$SECONDS
    if "$@"; then
        passed=$((passed + 1)); echo "   ok: $name ($((SECONDS - started)) s)"
    else
        failed=$((failed + 1)); echo "   FAILED: $name ($((SECONDS - started)) s)"
    fi
}

# check_image SERVICE: the image's configuration, as built by containers/build-images.sh.
check_image() {
    podman image inspect "localhost/tickwire-$1:latest" | python3 -c '
import json, sys
service = sys.argv[1]
image = json.load(sys.stdin)[0]
config = image["Config"]
problems = []
user = config.get("User")
if user != "10001:10001": problems.append(f"user {user!r}, not 10001:10001")
if not config.get("ExposedPorts"): problems.append("no ports declared")
if "/var/lib/tickwire" not in (config.get("Volumes") or {}): problems.append("no volume at /var/lib/tickwire")
if "tickwire-probe" not in " ".join((image.get("Healthcheck") or {}).get("Test") or []): problems.append("no health check by tickwire-probe")
if problems: sys.exit(f"tickwire-{service}: " + "; ".join(problems))
ports = " ".join(sorted(config["ExposedPorts"]))
print(f"   tickwire-{service}: user {user}, ports {ports}, volume /var/lib/tickwire, health check")
' "$1"
}
# check_libraries SERVICE: every shared library the service and the probe load is in the image.
check_libraries() {
    local missing
    missing=$(podman run --rm --no-healthcheck --entrypoint /usr/bin/ldd "localhost/tickwire-$1:latest" \
        "/opt/tickwire/$1" /opt/tickwire/tickwire-probe | grep "not found" || true)
    if [ -n "$missing" ]; then echo "tickwire-$1 lacks: $missing" >&2; return 1; fi
}
check_images() {
    local service
    for service in rates-fetcher converter portfolio price-alerts presenter; do
        check_image "$service" && check_libraries "$service" || return 1
    done
}

# check_sizes: each service image's own layers (those not in localhost/tickwire-runtime, which it must be
# FROM), the runtime's over the base, and the distinct layers of all the images together, against the
# targets (issue 33; MB = 10^6 bytes, as podman prints). A layer's size is the uncompressed size of its
# diff, from `podman history` (the history entries that are not empty layers, in the order of RootFS.Layers).
check_sizes() {
    python3 - "$@" <<'PY'
import json, subprocess, sys
OWN_LAYER_TARGET = 40_000_000
TOTAL_TARGET = 400_000_000
BASE, RUNTIME = "localhost/tickwire-base:bookworm", "localhost/tickwire-runtime:latest"
services = sys.argv[1:]

def layers(image):
    """The image's layers, oldest first, as (diff id, bytes)."""
    def podman(*args):
        return json.loads(subprocess.run(["podman", *args], check=True, capture_output=True, text=True).stdout)
    inspect = podman("image", "inspect", image)[0]
    history = list(reversed(podman("history", "--format", "json", image)))
    if len(history) != len(inspect["History"]):
        sys.exit(f"{image}: podman history has {len(history)} entries, its configuration {len(inspect['History'])}")
    sizes = [entry["size"] for entry, step in zip(history, inspect["History"]) if not step.get("empty_layer")]
    diff_ids = inspect["RootFS"]["Layers"]
    if len(sizes) != len(diff_ids):
        sys.exit(f"{image}: {len(diff_ids)} layers, {len(sizes)} history entries with a layer")
    return list(zip(diff_ids, sizes))

def mb(size):
    return f"{size / 1e6:.1f} MB"

base, runtime = layers(BASE), layers(RUNTIME)
if runtime[:len(base)] != base:
    sys.exit(f"{RUNTIME} is not FROM {BASE}")
print(f"   {BASE}: {mb(sum(size for _, size in base))}")
print(f"   {RUNTIME} (shared): {mb(sum(size for _, size in runtime[len(base):]))} over the base")
problems, distinct = [], {}
for service in services:
    image = f"localhost/tickwire-{service}:latest"
    own = layers(image)
    if own[:len(runtime)] != runtime:
        problems.append(f"{image} is not FROM {RUNTIME} as built now")
    distinct.update(own)
    size = sum(size for diff_id, size in own if diff_id not in dict(runtime))
    verdict = "ok" if size <= OWN_LAYER_TARGET else "OVER"
    print(f"   tickwire-{service}: own layers {mb(size)} (target at most {mb(OWN_LAYER_TARGET)}: {verdict})")
    if size > OWN_LAYER_TARGET:
        problems.append(f"tickwire-{service}: own layers {mb(size)}, over {mb(OWN_LAYER_TARGET)}")
total = sum(distinct.values())
verdict = "ok" if total <= TOTAL_TARGET else "OVER"
print(f"   all {len(services)} images: {mb(total)} of distinct layers (target at most {mb(TOTAL_TARGET)}: {verdict})")
if total > TOTAL_TARGET:
    problems.append(f"the images' distinct layers are {mb(total)}, over {mb(TOTAL_TARGET)}")
if problems:
    sys.exit("; ".join(problems))
PY
}

# check_postgres_image: localhost/tickwire-postgres:15 (Containerfile.postgres) makes its cluster on the first
# start, runs as postgres (uid 999) on a read-only root file system with /tmp its only other writable place (as
# the overlay's manifest runs it), takes a password login over TCP and refuses a wrong one; its container and
# volume are removed after.
check_postgres_image() {
    local name="tickwire-postgres-test-$$" port=25439 status=0
    [ "$(podman image inspect localhost/tickwire-postgres:15 --format '{{.Config.User}}')" = 999:999 ] \
        || { echo "tickwire-postgres does not run as 999:999" >&2; return 1; }
    podman run -d --name "$name" --network host --no-healthcheck --read-only --tmpfs /tmp -e POSTGRES_PASSWORD=test-deploy \
        localhost/tickwire-postgres:15 -c port=$port >/dev/null || return 1
    # psql inside the container (over TCP, so the password is asked): the host needs no PostgreSQL client.
    login() { podman exec -e PGPASSWORD="$1" "$name" psql -h 127.0.0.1 -p $port -U tickwire -d tickwire -Atc "$2"; }
    local tries=0
    until login test-deploy "select 1" >/dev/null 2>&1; do
        tries=$((tries + 1))
        if [ $tries -gt 60 ]; then echo "tickwire-postgres did not take a login within 30 s" >&2; status=1; break; fi
        sleep 0.5
    done
    if [ $status -eq 0 ]; then
        echo "   tickwire-postgres: $(login test-deploy "show server_version"), user $(podman exec "$name" id -un)"
        if login wrong "select 1" >/dev/null 2>&1; then
            echo "tickwire-postgres took a wrong password" >&2; status=1
        fi
    fi
    [ $status -eq 0 ] || podman logs --tail 20 "$name" >&2
    podman rm -f -v "$name" >/dev/null 2>&1
    return $status
}
# check_overlays: each kustomization (the base, and the PostgreSQL overlay with its patch applied) renders with
# `kubectl kustomize` and what it renders validates (`make test` validates the files one by one), and no environment
# variable has both a value and a valueFrom (a patch's valueFrom merged over the base's value: the schemas allow it,
# the API server refuses it).
check_overlays() {
    local dir
    for dir in "$here/kubernetes" "$here/kubernetes/postgres"; do
        kubectl kustomize "$dir" | kubernetes-validate --strict --quiet - || { echo "$dir: does not render and validate" >&2; return 1; }
        kubectl kustomize "$dir" | python3 -c '
import sys, yaml
for doc in yaml.safe_load_all(sys.stdin):
    for container in doc.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
        for variable in container.get("env", []):
            if "value" in variable and "valueFrom" in variable:
                sys.exit("%s: %s has both value and valueFrom" % (doc["metadata"]["name"], variable["name"]))
' || { echo "$dir: an environment variable the API server would refuse" >&2; return 1; }
        echo "   $(basename "$dir"): $(kubectl kustomize "$dir" | grep -c '^kind:') objects render and validate"
    done
}

step "images: non-root, ports, volume, health check, every shared library present" check_images
step "the PostgreSQL image: its cluster made, a password login taken, a wrong one refused" check_postgres_image
step "image sizes: each service's own layers at most 40 MB, all images at most 400 MB of distinct layers" \
    check_sizes rates-fetcher converter portfolio price-alerts presenter
step "manifests validate against the Kubernetes schemas" kubernetes-validate --strict --quiet "$@"
if command -v kubectl >/dev/null 2>&1; then
    step "the kustomizations render (the PostgreSQL overlay's patch applied) and validate" check_overlays
else
    skipped=$((skipped + 1)); echo "== overlays skipped: kubectl is not installed (its kustomize renders them)"
fi
step "podman kube play of the manifests: prices flow, the dashboard answers, kube down stops it" \
    bash "$here/kubernetes/local/test-kube-play.sh"
step "podman kube play of the PostgreSQL overlay (one portfolio replica): prices flow, a trade is a row of PostgreSQL" \
    bash "$here/kubernetes/local/test-kube-play.sh" postgres
if command -v podman-compose >/dev/null 2>&1; then
    step "compose.yaml with podman-compose: prices flow, the dashboard answers, down stops it" bash "$here/test-compose.sh"
else
    skipped=$((skipped + 1)); echo "== compose skipped: podman-compose is not installed (make podman-deps installs it into the project's .venv)"
fi
echo "test-deploy: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
