#!/usr/bin/env bash
# Installs what building and testing Tickwire needs on a fresh Debian machine:
# libzmq3-dev (and pkg-config) through apt-get, pyzmq for the Python peer tests, kubernetes-validate
# (offline, with the Kubernetes schemas) for the manifests' test.
# Safe to run again: it installs only what is missing.
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

apt_packages=()
pkg-config --version >/dev/null 2>&1 || apt_packages+=(pkg-config)
pkg-config --exists libzmq 2>/dev/null || apt_packages+=(libzmq3-dev)
if [ "${WITH_BROWSER:-0}" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
    apt_packages+=(chromium)
fi
# The deploy tests: `ip netns` (iproute2) for the stack spread over namespaces, systemd-analyze to verify the
# units (Debian's systemd package installs in a container without starting anything).
if [ "${WITH_DEPLOY:-0}" = 1 ]; then
    command -v ip >/dev/null 2>&1 || apt_packages+=(iproute2)
    command -v systemd-analyze >/dev/null 2>&1 || apt_packages+=(systemd)
fi
if [ ${#apt_packages[@]} -gt 0 ]; then
    echo "installing ${apt_packages[*]} with apt-get"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${apt_packages[@]}" >/dev/null
fi

if [ "${WITH_PYTHON:-0}" = 1 ] && ! python3 -c 'import zmq' >/dev/null 2>&1; then
    echo "installing pyzmq with pip"
    python3 -m pip install --quiet pyzmq
fi

if [ "${WITH_KUBERNETES:-0}" = 1 ] && ! command -v kubernetes-validate >/dev/null 2>&1; then
    echo "installing kubernetes-validate with pip"
    python3 -m pip install --quiet kubernetes-validate
fi
