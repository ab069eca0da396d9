#!/usr/bin/env bash
# Builds the images from the release binaries in BIN_DIR (the main package's, with tickwire-probe) and
# PLUGIN_BIN_DIR (price-alerts'): first localhost/tickwire-runtime:latest on the base image (base-image.sh),
# what every service shares (Containerfile.runtime: the Swift runtime and Foundation libraries the binaries
# load and tickwire-probe, in one layer), then one image per service, localhost/tickwire-<service>:latest,
# FROM it (Containerfile), each adding one layer: its binary and the resource bundles it names (Bundle.module
# finds them beside the executable). Every binary and library goes in stripped; the binaries' debug
# information is kept apart in DEBUG_DIR (default STAGE_DIR/debug, outside every image): NAME.debug, which
# the stripped NAME names in its .gnu_debuglink (gdb and lldb find it beside the binary or with
# `symbol-file`/`target symbols add`). The contexts are staged in STAGE_DIR (default .build/images):
# runtime/root and <service>/bin. ENGINE=docker builds with docker instead of podman (given a base image
# docker has). SERVICES="converter ..." builds some service images only.
set -euo pipefail
bin_dir=${1:?usage: build-images.sh BIN_DIR PLUGIN_BIN_DIR [STAGE_DIR]}
plugin_dir=${2:?usage: build-images.sh BIN_DIR PLUGIN_BIN_DIR [STAGE_DIR]}
stage=${3:-.build/images}
debug_dir=${DEBUG_DIR:-$stage/debug}
engine=${ENGINE:-podman}
here=$(cd "$(dirname "$0")" && pwd)
# podman's settings for this project (deploy/containers/containers.conf), unless the caller names others.
export CONTAINERS_CONF=${CONTAINERS_CONF:-$here/containers.conf}
format=(); [ "$engine" = podman ] && format=(--format docker)  # OCI images have no HEALTHCHECK
command -v objcopy >/dev/null 2>&1 || { echo "objcopy is missing: apt-get install binutils" >&2; exit 1; }

# strip_binary FILE DIR: FILE stripped into DIR, its debug information into DEBUG_DIR/NAME.debug, linked.
strip_binary() {
    local name
    name=$(basename "$1")
    objcopy --only-keep-debug "$1" "$debug_dir/$name.debug"
    objcopy --strip-all --add-gnu-debuglink="$debug_dir/$name.debug" "$1" "$2/$name"
}
size_of() { du -sh "$@" | tail -1 | cut -f1; }

# service | binaries | ports | its JSON-RPC, for the probe | its own two endpoints, bound on every interface
services=(
    "rates-fetcher|$bin_dir|7101 7102|tcp://127.0.0.1:7102|TICKWIRE_RATES_FETCHER_PUB=tcp://0.0.0.0:7101|TICKWIRE_RATES_FETCHER_REP=tcp://0.0.0.0:7102"
    "converter|$bin_dir|7201 7202|tcp://127.0.0.1:7201|TICKWIRE_CONVERTER_REP=tcp://0.0.0.0:7201|TICKWIRE_CONVERTER_PUB=tcp://0.0.0.0:7202"
    "portfolio|$bin_dir|7301 7302|tcp://127.0.0.1:7301|TICKWIRE_PORTFOLIO_REP=tcp://0.0.0.0:7301|TICKWIRE_PORTFOLIO_PUB=tcp://0.0.0.0:7302"
    "presenter|$bin_dir|7401 8080|tcp://127.0.0.1:7401|TICKWIRE_PRESENTER_REP=tcp://0.0.0.0:7401|TICKWIRE_PRESENTER_HTTP=http://0.0.0.0:8080"
    "price-alerts|$plugin_dir|7501 7502|tcp://127.0.0.1:7501|TICKWIRE_PRICE_ALERTS_REP=tcp://0.0.0.0:7501|TICKWIRE_PRICE_ALERTS_PUB=tcp://0.0.0.0:7502"
)
only=${SERVICES:-}
mkdir -p "$debug_dir"

# The runtime: the toolchain's shared libraries that the services and the probe load (their RUNPATH names
# the toolchain's lib/swift/linux; the base has everything else, which test-deploy checks with ldd).
probe_binary=$bin_dir/tickwire-probe
[ -x "$probe_binary" ] || { echo "missing $probe_binary: build the release binaries first (make release)" >&2; exit 1; }
binaries=("$probe_binary")
for entry in "${services[@]}"; do
    IFS='|' read -r service dir _ <<<"$entry"
    [ -x "$dir/$service" ] && binaries+=("$dir/$service")
done
swift_lib_dir=$(ldd "$probe_binary" | awk '$1 == "libswiftCore.so" { print $3 }' | xargs -r dirname)
[ -n "$swift_lib_dir" ] || { echo "$probe_binary does not load libswiftCore.so: build with the dynamic Swift runtime (make release)" >&2; exit 1; }
runtime=$stage/runtime
rm -rf "$runtime"
mkdir -p "$runtime/root/usr/lib/swift/linux" "$runtime/root/opt/tickwire" "$runtime/root/etc/ld.so.conf.d"
for library in $(ldd "${binaries[@]}" | awk -v dir="$swift_lib_dir/" 'index($3, dir) == 1 { print $3 }' | sort -u); do
    objcopy --strip-unneeded "$library" "$runtime/root/usr/lib/swift/linux/$(basename "$library")"
done
echo /usr/lib/swift/linux >"$runtime/root/etc/ld.so.conf.d/swift.conf"
strip_binary "$probe_binary" "$runtime/root/opt/tickwire"
echo "== tickwire-runtime: $(size_of "$runtime/root") ($(ls "$runtime/root/usr/lib/swift/linux" | wc -l) Swift libraries from $swift_lib_dir, $(size_of "$runtime/root/usr/lib/swift/linux"); tickwire-probe, $(size_of "$runtime/root/opt/tickwire"))"
"$engine" build --quiet "${format[@]}" -f "$here/Containerfile.runtime" \
    ${BASE:+--build-arg BASE="$BASE"} -t localhost/tickwire-runtime:latest "$runtime" >/dev/null
echo "   built localhost/tickwire-runtime:latest"

for entry in "${services[@]}"; do
    IFS='|' read -r service dir ports probe bind_a bind_b <<<"$entry"
    if [ -n "$only" ] && [[ " $only " != *" $service "* ]]; then continue; fi
    [ -x "$dir/$service" ] || { echo "missing $dir/$service: build the release binaries first (make release)" >&2; exit 1; }
    context="$stage/$service"
    rm -rf "$context"
    mkdir -p "$context/bin"
    strip_binary "$dir/$service" "$context/bin"
    # The bundles this binary reads: their names are in its resource accessors.
    bundles=$(grep -aoE '[A-Za-z0-9-]+_[A-Za-z0-9]+\.resources' "$dir/$service" | sort -u || true)
    for bundle in $bundles; do
        if [ -d "$dir/$bundle" ]; then cp -RL "$dir/$bundle" "$context/bin/"; fi
    done
    echo "== tickwire-$service: $(size_of "$context/bin") ($(cd "$context/bin" && echo *); $(size_of "$dir/$service") before stripping)"
    "$engine" build --quiet "${format[@]}" -f "$here/Containerfile" \
        --build-arg SERVICE="$service" --build-arg PORTS="$ports" \
        --build-arg PROBE_ENDPOINT="$probe" \
        --build-arg BIND_A_VARIABLE="${bind_a%%=*}" --build-arg BIND_A="${bind_a#*=}" \
        --build-arg BIND_B_VARIABLE="${bind_b%%=*}" --build-arg BIND_B="${bind_b#*=}" \
        -t "localhost/tickwire-$service:latest" "$context" >/dev/null
    echo "   built localhost/tickwire-$service:latest"
done

# PostgreSQL for the Kubernetes overlay deploy/kubernetes/postgres/ (Containerfile.postgres): Debian's
# postgresql-15 on the same base, localhost/tickwire-postgres:15. SERVICES="... postgres" names it too.
if [ -z "$only" ] || [[ " $only " == *" postgres "* ]]; then
    context="$stage/postgres"
    rm -rf "$context"
    mkdir -p "$context"
    cp "$here/postgres-entrypoint.sh" "$context/"
    echo "== tickwire-postgres: Debian's postgresql-15 on the base"
    "$engine" build --quiet "${format[@]}" -f "$here/Containerfile.postgres" \
        ${BASE:+--build-arg BASE="$BASE"} -t localhost/tickwire-postgres:15 "$context" >/dev/null
    echo "   built localhost/tickwire-postgres:15"
fi
