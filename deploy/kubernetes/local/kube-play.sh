#!/usr/bin/env bash
# `kube-play.sh up`: the stack from deploy/kubernetes's manifests on this host with `podman kube play`,
# through the local overlay (overlay.py: host networking on 127.0.0.1, hostPath volumes under DATA_DIR).
# `kube-play.sh down`: `podman kube down` of the same pods. The images are `make images`'.
# `kube-play.sh up postgres` / `down postgres`: the same with the PostgreSQL overlay (deploy/kubernetes/postgres:
# PostgreSQL on 127.0.0.1:25435, overlay.py's POSTGRES_PORT, not 5432, which the host's own PostgreSQL may hold,
# and the portfolio on it; overlay.py --postgres).
# DATA_DIR: TICKWIRE_KUBE_DATA, by default $XDG_DATA_HOME/tickwire-kube (the portfolio's and
# price-alerts' databases, kept across down and up).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# podman's settings for this project (deploy/containers/containers.conf), unless the caller names others.
export CONTAINERS_CONF=${CONTAINERS_CONF:-$here/../../containers/containers.conf}
data_dir=${TICKWIRE_KUBE_DATA:-${XDG_DATA_HOME:-$HOME/.local/share}/tickwire-kube}
play=${TICKWIRE_KUBE_FILE:-$here/../../../.build/kube/tickwire-local.yaml}

overlay=${2:-}
case "$overlay" in
"") render_flags=(); ports=(); owned=(portfolio price-alerts) ;;
postgres)
    render_flags=(--postgres)
    ports=("$(python3 -B -c 'import sys; sys.path.insert(0, sys.argv[1]); import overlay; print(overlay.POSTGRES_PORT)' "$here")")
    owned=(portfolio price-alerts postgres) ;;
*) echo "unknown overlay $overlay (postgres, or none)" >&2; exit 2 ;;
esac

render() {
    mkdir -p "$(dirname "$play")"
    python3 "$here/overlay.py" "${render_flags[@]}" "$data_dir" >"$play"
}

case "${1:-}" in
up)
    # Every port the stack binds must be free: another stack (make run) would answer in its place.
    for port in 7101 7102 7103 7201 7202 7301 7302 7401 7501 7502 8080 "${ports[@]}"; do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "port $port on 127.0.0.1 is in use: stop what listens there first (another stack?)" >&2
            exit 1
        fi
    done
    render
    # The services run as uid 10001 (the images' user), PostgreSQL as 999; their data directories are theirs.
    for service in "${owned[@]}"; do
        owner=10001:10001; [ "$service" = postgres ] && owner=999:999
        mkdir -p "$data_dir/$service"
        chown "$owner" "$data_dir/$service" 2>/dev/null || podman unshare chown "$owner" "$data_dir/$service"
    done
    podman kube play --replace "$play" >/dev/null
    podman pod ps --format '  {{.Name}}: {{.Status}}' | grep -E '^  (rates-fetcher|converter|portfolio|price-alerts|presenter|postgres)-pod' || true
    echo "Tickwire is running in pods (podman pod ps). Dashboard: http://127.0.0.1:8080; prices: tcp://127.0.0.1:7202"
    echo "Data: $data_dir. Stop with: $([ -n "$overlay" ] && echo "bash deploy/kubernetes/local/kube-play.sh down $overlay" || echo "make kube-down")"
    ;;
down)
    render
    # Without systemd podman has no health check timers to remove, and says so: not a failure.
    podman kube down "$play" 2> >(grep -v "unable to get systemd connection" >&2) >/dev/null
    echo "Tickwire's pods are stopped and removed (data kept in $data_dir)"
    ;;
*)
    echo "usage: kube-play.sh up|down [postgres]" >&2
    exit 2
    ;;
esac
