#!/usr/bin/env bash
# Builds one image per service, localhost/tickwire-<service>:latest, from the release binaries in
# BIN_DIR (the main package's, with tickwire-probe) and PLUGIN_BIN_DIR (price-alerts'), on the base
# image (base-image.sh). Each image's context is staged in STAGE_DIR/<service>/bin: the binary, the
# resource bundles it names (Bundle.module finds them beside the executable), and tickwire-probe.
# ENGINE=docker builds with docker instead of podman (given a base image docker has).
set -euo pipefail
bin_dir=${1:?usage: build-images.sh BIN_DIR PLUGIN_BIN_DIR [STAGE_DIR]}
plugin_dir=${2:?usage: build-images.sh BIN_DIR PLUGIN_BIN_DIR [STAGE_DIR]}
stage=${3:-.build/images}
engine=${ENGINE:-podman}
here=$(cd "$(dirname "$0")" && pwd)
# podman's settings for this project (deploy/containers/containers.conf), unless the caller names others.
export CONTAINERS_CONF=${CONTAINERS_CONF:-$here/containers.conf}

# service | binaries | ports | its JSON-RPC, for the probe | its own two endpoints, bound on every interface
services=(
    "rates-fetcher|$bin_dir|7101 7102|tcp://127.0.0.1:7102|TICKWIRE_RATES_FETCHER_PUB=tcp://0.0.0.0:7101|TICKWIRE_RATES_FETCHER_REP=tcp://0.0.0.0:7102"
    "converter|$bin_dir|7201 7202|tcp://127.0.0.1:7201|TICKWIRE_CONVERTER_REP=tcp://0.0.0.0:7201|TICKWIRE_CONVERTER_PUB=tcp://0.0.0.0:7202"
    "portfolio|$bin_dir|7301 7302|tcp://127.0.0.1:7301|TICKWIRE_PORTFOLIO_REP=tcp://0.0.0.0:7301|TICKWIRE_PORTFOLIO_PUB=tcp://0.0.0.0:7302"
    "presenter|$bin_dir|7401 8080|tcp://127.0.0.1:7401|TICKWIRE_PRESENTER_REP=tcp://0.0.0.0:7401|TICKWIRE_PRESENTER_HTTP=http://0.0.0.0:8080"
    "price-alerts|$plugin_dir|7501 7502|tcp://127.0.0.1:7501|TICKWIRE_PRICE_ALERTS_REP=tcp://0.0.0.0:7501|TICKWIRE_PRICE_ALERTS_PUB=tcp://0.0.0.0:7502"
)
only=${SERVICES:-}

for entry in "${services[@]}"; do
    IFS='|' read -r service dir ports probe bind_a bind_b <<<"$entry"
    if [ -n "$only" ] && [[ " $only " != *" $service "* ]]; then continue; fi
    for file in "$dir/$service" "$bin_dir/tickwire-probe"; do
        [ -x "$file" ] || { echo "missing $file: build the release binaries first (make release)" >&2; exit 1; }
    done
    context="$stage/$service"
    rm -rf "$context"
    mkdir -p "$context/bin"
    cp "$dir/$service" "$bin_dir/tickwire-probe" "$context/bin/"
    # The bundles this binary reads: their names are in its resource accessors.
    bundles=$(grep -aoE '[A-Za-z0-9-]+_[A-Za-z0-9]+\.resources' "$dir/$service" | sort -u || true)
    for bundle in $bundles; do
        if [ -d "$dir/$bundle" ]; then cp -RL "$dir/$bundle" "$context/bin/"; fi
    done
    echo "== tickwire-$service: $(du -sh "$context/bin" | cut -f1) ($(cd "$context/bin" && echo *))"
    format=(); [ "$engine" = podman ] && format=(--format docker)  # OCI images have no HEALTHCHECK
    "$engine" build --quiet "${format[@]}" -f "$here/Containerfile" \
        --build-arg SERVICE="$service" --build-arg PORTS="$ports" \
        --build-arg PROBE_ENDPOINT="$probe" \
        --build-arg BIND_A_VARIABLE="${bind_a%%=*}" --build-arg BIND_A="${bind_a#*=}" \
        --build-arg BIND_B_VARIABLE="${bind_b%%=*}" --build-arg BIND_B="${bind_b#*=}" \
        -t "localhost/tickwire-$service:latest" "$context" >/dev/null
    echo "   built localhost/tickwire-$service:latest"
done
