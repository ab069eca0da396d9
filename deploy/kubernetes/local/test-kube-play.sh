#!/usr/bin/env bash
# End-to-end test of the Kubernetes manifests: plays them with podman (kube-play.sh up, the local
# overlay) from `make images`' images, checks that prices flow on 127.0.0.1:7202 and the dashboard
# answers on 127.0.0.1:8080, that every container's health check (tickwire-probe) passes, then
# `podman kube down` and checks that no container of the stack is left. Its data lives in a temporary
# directory, removed at the end, also when the test fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# podman's settings for this project (deploy/containers/containers.conf), unless the caller names others.
export CONTAINERS_CONF=${CONTAINERS_CONF:-$here/../../containers/containers.conf}
work=$(mktemp -d /var/tmp/tickwire-kube-test.XXXXXX)
export TICKWIRE_KUBE_DATA="$work/data" TICKWIRE_KUBE_FILE="$work/tickwire-local.yaml"
services=(rates-fetcher converter portfolio price-alerts presenter)

stack_containers() {
    podman ps -a --format '{{.Names}}' | grep -E "^($(IFS='|'; echo "${services[*]}"))-pod-" || true
}
finish() {
    status=$?
    if [ $status -ne 0 ]; then
        for name in $(stack_containers); do
            echo "--- last log lines of $name"; podman logs --tail 15 "$name" 2>&1 || true
        done
    fi
    bash "$here/kube-play.sh" down >/dev/null 2>&1 || true
    rm -rf "$work"
    exit $status
}
trap finish EXIT

bash "$here/kube-play.sh" up
python3 "$here/../../check-stack.py" --timeout 120

for name in $(stack_containers); do
    podman healthcheck run "$name" >/dev/null || { echo "health check of $name failed" >&2; exit 1; }
done
echo "health checks (tickwire-probe) pass in: $(stack_containers | tr '\n' ' ')"

bash "$here/kube-play.sh" down
left=$(stack_containers)
if [ -n "$left" ]; then echo "left running after podman kube down: $left" >&2; exit 1; fi
echo "podman kube down stopped and removed every pod"
