#!/usr/bin/env bash
# Installs what the images and the deploy tests need, only what is missing (safe to run again): podman
# (with runc) and debootstrap through apt-get, and podman-compose and PyYAML (the local overlay's) with pip
# into the project's virtual environment .venv (scripts/install-deps.sh), never the system's Python.
# podman's settings for these machines are in deploy/containers/containers.conf, which the make targets
# and the scripts under deploy/ name in CONTAINERS_CONF; nothing under /etc is changed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || missing+=(runc)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]} with apt-get"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PYTHON_PACKAGES="podman-compose pyyaml" bash "$here/../../scripts/install-deps.sh"
