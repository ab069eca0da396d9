#!/usr/bin/env bash
# Installs what building and testing Tickwire needs on a fresh Debian machine, only what is missing
# (safe to run again):
# - through apt-get: pkg-config, libzmq3-dev (the services' libzmq), libsqlite3-dev (GRDB's SQLite) and
#   zlib1g-dev (the static Foundation of the release builds);
#   WITH_BROWSER=1 chromium; WITH_DEPLOY=1 iproute2 and systemd (systemd-analyze); WITH_POSTGRES=1 postgresql
#   (the server scripts/postgres-test.sh starts for the tests);
# - PYTHON_PACKAGES="pyzmq kubernetes-validate ...": the Python tools of the tests, benchmarks and deploy
#   checks, with pip into the project's virtual environment .venv (made here with `python3 -m venv`,
#   installing Debian's python3-venv when that fails), never into the system's Python (Debian marks it
#   externally managed, PEP 668). The make targets put .venv/bin first on PATH.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
venv=${TICKWIRE_VENV:-$root/.venv}

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

apt_installed=0
apt_install() {
    echo "installing $* with apt-get"
    if [ "$apt_installed" = 0 ]; then as_root apt-get update -qq; apt_installed=1; fi
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}

apt_packages=()
pkg-config --version >/dev/null 2>&1 || apt_packages+=(pkg-config)
pkg-config --exists libzmq 2>/dev/null || apt_packages+=(libzmq3-dev)
pkg-config --exists sqlite3 2>/dev/null || [ -e /usr/include/sqlite3.h ] || apt_packages+=(libsqlite3-dev)
# zlib: the release builds' static Foundation links -lz.
[ -e /usr/include/zlib.h ] || apt_packages+=(zlib1g-dev)
if [ "${WITH_BROWSER:-0}" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
    apt_packages+=(chromium)
fi
# The deploy tests: `ip netns` (iproute2) for the stack spread over namespaces, systemd-analyze to verify the
# units (Debian's systemd package installs in a container without starting anything).
if [ "${WITH_DEPLOY:-0}" = 1 ]; then
    command -v ip >/dev/null 2>&1 || apt_packages+=(iproute2)
    command -v systemd-analyze >/dev/null 2>&1 || apt_packages+=(systemd)
fi
# Debian's PostgreSQL server (initdb, pg_ctl, postgres) and its client, for the PostgreSQL store's tests.
if [ "${WITH_POSTGRES:-0}" = 1 ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    apt_packages+=(postgresql)
fi
if [ ${#apt_packages[@]} -gt 0 ]; then
    apt_install "${apt_packages[@]}"
fi

read -r -a python_packages <<<"${PYTHON_PACKAGES:-}"
if [ ${#python_packages[@]} -gt 0 ]; then
    if [ ! -x "$venv/bin/python3" ]; then
        # The system's python3, not a venv's: .venv/bin may be first on PATH while .venv is being made.
        system_python=$(PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -vxF "$venv/bin" | paste -sd:) command -v python3) || {
            echo "python3 is missing: apt-get install python3" >&2; exit 1
        }
        echo "making the Python virtual environment $venv (from $system_python)"
        if ! "$system_python" -m venv "$venv" >/dev/null 2>&1; then
            rm -rf "$venv"
            # Debian's python3 has venv's ensurepip only with python3-venv (python3.X-venv underneath).
            apt_install python3-venv
            "$system_python" -m venv "$venv"
        fi
    fi
    missing=()
    for package in "${python_packages[@]}"; do
        "$venv/bin/python3" -m pip show --quiet "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "installing ${missing[*]} with pip into $venv"
        "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check "${missing[@]}"
    fi
fi
