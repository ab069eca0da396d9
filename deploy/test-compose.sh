#!/usr/bin/env bash
# End-to-end test of compose.yaml with podman-compose: up, prices flow on 127.0.0.1:7202 and the
# dashboard answers on 127.0.0.1:8080, every container's image health check (tickwire-probe) passes,
# then down (with its volumes, a project of its own) leaves no container; also when the test fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
project=tickwire-compose-test
compose=(podman-compose -f "$root/compose.yaml" -p "$project")

containers() { podman ps -a --filter "label=io.podman.compose.project=$project" --format '{{.Names}}'; }
finish() {
    status=$?
    if [ $status -ne 0 ]; then
        for name in $(containers); do echo "--- last log lines of $name"; podman logs --tail 15 "$name" 2>&1 || true; done
    fi
    "${compose[@]}" down -v >/dev/null 2>&1 || true
    exit $status
}
trap finish EXIT

for port in 7101 7102 7103 7201 7202 7301 7302 7401 7501 7502 8080; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "port $port on 127.0.0.1 is in use: stop what listens there first (another stack?)" >&2
        exit 1
    fi
done
"${compose[@]}" up -d >/dev/null 2>&1
python3 "$root/deploy/check-stack.py" --plugin price-alerts --timeout 120
# The image's own HEALTHCHECK, which compose keeps: tickwire-probe on TICKWIRE_PROBE_ENDPOINT.
sleep 2
for name in $(containers); do
    podman healthcheck run "$name" >/dev/null || { echo "health check of $name failed" >&2; exit 1; }
done
echo "image health checks (tickwire-probe) pass in: $(containers | tr '\n' ' ')"
"${compose[@]}" down -v >/dev/null 2>&1
left=$(containers)
if [ -n "$left" ]; then echo "left after down: $left" >&2; exit 1; fi
echo "podman-compose down stopped and removed every container"
