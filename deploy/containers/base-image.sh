#!/usr/bin/env bash
# Makes the images' base, localhost/tickwire-base:bookworm (the Containerfile's FROM), from Debian's
# packages with no container registry: debootstrap puts a minimal bookworm with the shared libraries
# the release binaries load (libzmq5; libsqlite3-0 for GRDB in the portfolio and price-alerts) and
# ca-certificates into a directory, which `podman import` turns into an image. An image already there
# under that name, made from the same packages, is kept (TICKWIRE_REBUILD_BASE=1 makes it again).
# Needs root (debootstrap) and podman (setup-podman.sh).
set -euo pipefail
# podman's settings for this project (deploy/containers/containers.conf), unless the caller names others.
export CONTAINERS_CONF=${CONTAINERS_CONF:-$(cd "$(dirname "$0")" && pwd)/containers.conf}

image=${TICKWIRE_BASE_IMAGE:-localhost/tickwire-base:bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages=libzmq5,libsqlite3-0,ca-certificates
recipe="bookworm minbase $packages"

if [ "${TICKWIRE_REBUILD_BASE:-0}" != 1 ] && podman image exists "$image" \
    && [ "$(podman image inspect "$image" --format '{{index .Labels "tickwire.base.recipe"}}')" = "$recipe" ]; then
    echo "base image $image ($recipe) exists: reused"
    exit 0
fi

root=$(mktemp -d /var/tmp/tickwire-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
echo "debootstrap bookworm (minbase, $packages) into $root"
debootstrap --variant=minbase --include="$packages" bookworm "$root" "$mirror" >"$root.log" 2>&1 || {
    tail -20 "$root.log"; rm -f "$root.log"; exit 1
}
rm -f "$root.log"
# What a runtime image does without: package lists and caches, documentation, locales.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/var/cache/debconf/*-old \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/var/log/*
find "$root"/usr/share/locale -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
tar -C "$root" -c . | podman import --quiet \
    --change 'CMD ["/bin/bash"]' --change "LABEL tickwire.base.recipe=\"$recipe\"" --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --message "Debian $recipe (deploy/containers/base-image.sh)" \
    - "$image" >/dev/null
echo "base image $image ($recipe) made"
