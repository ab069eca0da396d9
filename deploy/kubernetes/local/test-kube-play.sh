#!/usr/bin/env bash
# End-to-end test of the Kubernetes manifests: plays them with podman (kube-play.sh up, the local
# overlay) from `make images`' images, checks that prices flow on 127.0.0.1:7202 and the dashboard
# answers on 127.0.0.1:8080, that every container's health check (tickwire-probe) passes, then
# `podman kube down` and checks that no container of the stack is left. Its data lives in a temporary
# directory, removed at the end, also when the test fails.
# `test-kube-play.sh postgres`: the same with the PostgreSQL overlay (kube-play.sh up postgres), and also that a
# trade added through the portfolio is a row of PostgreSQL's table trade.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# podman's settings for this project (deploy/containers/containers.conf), unless the caller names others.
export CONTAINERS_CONF=${CONTAINERS_CONF:-$here/../../containers/containers.conf}
work=$(mktemp -d /var/tmp/tickwire-kube-test.XXXXXX)
export TICKWIRE_KUBE_DATA="$work/data" TICKWIRE_KUBE_FILE="$work/tickwire-local.yaml"
overlay=${1:-}
services=(rates-fetcher converter portfolio price-alerts presenter)
[ "$overlay" = postgres ] && services+=(postgres)

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
    bash "$here/kube-play.sh" down $overlay >/dev/null 2>&1 || true
    rm -rf "$work"
    exit $status
}
trap finish EXIT

bash "$here/kube-play.sh" up $overlay
python3 "$here/../../check-stack.py" --plugin price-alerts --timeout 120

if [ "$overlay" = postgres ]; then
    # A trade through the portfolio's JSON-RPC, then its row in PostgreSQL.
    trade_id=$(python3 - <<'PY'
import json, sys, time, zmq
context = zmq.Context.instance()
request = {"jsonrpc": "2.0", "id": 1, "method": "trades.add", "params": {
    "asset": "BTC", "amount": "0.5", "price": "1000", "currency": "USD", "date": "2026-01-01T00:00:00.000Z",
    "requestId": "kube-play-postgres"}}
deadline = time.monotonic() + 60
last = "no answer"
while time.monotonic() < deadline:
    socket = context.socket(zmq.REQ)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect("tcp://127.0.0.1:7301")
    socket.send_json(request)
    if socket.poll(5000):
        reply = socket.recv_json()
        if "result" in reply:
            print(reply["result"]["id"])
            sys.exit(0)
        last = json.dumps(reply["error"])
    socket.close()
    time.sleep(1)
sys.exit(f"trades.add through the portfolio on PostgreSQL: {last}")
PY
)
    postgres=$(stack_containers | grep '^postgres-pod-')
    port=$(python3 -B -c 'import sys; sys.path.insert(0, sys.argv[1]); import overlay; print(overlay.POSTGRES_PORT)' "$here")
    password=$(python3 -c 'import sys, yaml; print(next(d for d in yaml.safe_load_all(open(sys.argv[1])) if d["kind"] == "Secret")["stringData"]["password"])' \
        "$here/../postgres/postgres.yaml")
    rows=$(podman exec -e PGPASSWORD="$password" "$postgres" psql -h 127.0.0.1 -p "$port" -U tickwire -d tickwire -Atc "SELECT count(*) FROM trade WHERE id = '$trade_id'" 2>&1) \
        || { echo "psql in $postgres: $rows" >&2; exit 1; }
    [ "$rows" = 1 ] || { echo "trade $trade_id is not a row of PostgreSQL's trade table ($rows)" >&2; exit 1; }
    echo "the portfolio on PostgreSQL: trade $trade_id is a row of its table trade"
fi

for name in $(stack_containers); do
    podman healthcheck run "$name" >/dev/null || { echo "health check of $name failed" >&2; exit 1; }
done
echo "health checks (tickwire-probe) pass in: $(stack_containers | tr '\n' ' ')"

bash "$here/kube-play.sh" down $overlay
left=$(stack_containers)
if [ -n "$left" ]; then echo "left running after podman kube down: $left" >&2; exit 1; fi
echo "podman kube down stopped and removed every pod"
