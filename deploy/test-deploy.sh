#!/usr/bin/env bash
# `make test-deploy` (after `make images`): each image is what the README says (non-root, ports, a
# health check, the database volume), the manifests MANIFEST... validate against Kubernetes' schemas,
# the stack plays from them with podman (kubernetes/local/test-kube-play.sh), and from compose.yaml
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

step "images: non-root, ports, volume, health check, every shared library present" check_images
step "manifests validate against the Kubernetes schemas" kubernetes-validate --strict --quiet "$@"
step "podman kube play of the manifests: prices flow, the dashboard answers, kube down stops it" \
    bash "$here/kubernetes/local/test-kube-play.sh"
if command -v podman-compose >/dev/null 2>&1; then
    step "compose.yaml with podman-compose: prices flow, the dashboard answers, down stops it" bash "$here/test-compose.sh"
else
    skipped=$((skipped + 1)); echo "== compose skipped: podman-compose is not installed (make podman-deps installs it into the project's .venv)"
fi
echo "test-deploy: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
