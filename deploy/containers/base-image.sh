#!/usr/bin/env bash
# Makes the images' base, localhost/tickwire-base:bookworm (the Containerfile's FROM), from Debian's
# packages with no container registry: debootstrap puts a minimal bookworm with libzmq5 and
# ca-certificates into a directory, which `podman import` turns into an image. An image already
# there under that name is kept (TICKWIRE_REBUILD_BASE=1 makes it again).
# Needs root (debootstrap) and podman (setup-podman.sh).
set -euo pipefail

image=${TICKWIRE_BASE_IMAGE:-localhost/tickwire-base:bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if [ "${TICKWIRE_REBUILD_BASE:-0}" != 1 ] && podman image exists "$image"; then
    echo "base image $image exists: reused"
    exit 0
fi

root=$(mktemp -d /var/tmp/tickwire-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
echo "debootstrap bookworm (minbase, libzmq5, ca-certificates) into $root"
debootstrap --variant=minbase --include=libzmq5,ca-certificates bookworm "$root" "$mirror" >"$root.log" 2>&1 || {
    tail -20 "$root.log"; rm -f "$root.log"; exit 1
}
rm -f "$root.log"
# What a runtime image does without: package lists and caches, documentation, locales.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/var/cache/debconf/*-old \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/var/log/*
find "$root"/usr/share/locale -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
tar -C "$root" -c . | podman import --quiet \
    --change 'CMD ["/bin/bash"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --message "Debian bookworm minbase with libzmq5 and ca-certificates (deploy/containers/base-image.sh)" \
    - "$image" >/dev/null
echo "base image $image made"
