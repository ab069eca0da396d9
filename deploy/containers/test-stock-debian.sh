#!/usr/bin/env bash
# `make test-stock-debian`: the README's quick start on a stock Debian 12, as a new user would run it.
# debootstraps bookworm (minbase, plus what swift.org lists for the Swift toolchain itself, without
# libsqlite3-dev, pkg-config or libzmq3-dev, and with Debian's own python3, marked EXTERNALLY-MANAGED, and
# no pip or python3-venv) into STOCK_DIR/bookworm, once (the same approach as base-image.sh; kept while its
# package list is the same, TICKWIRE_REBUILD_STOCK=1 makes it again). Each run works on an overlay of it
# (STOCK_DIR/run), thrown away at the end, so every run starts from the stock system. It mounts the Swift toolchain
# (/opt/swift, or SWIFT_TOOLCHAIN) read-only and a clean clone of this repository's HEAD (STOCK_DIR/src,
# kept between runs with its build) into it, and there, chrooted, runs `make run` until every service
# answers and the dashboard's pages answer, then the Python client's tests (clients/python) against that
# stack under Debian's python3, with pyzmq in the project's .venv as `make` installs it. Needs root
# (debootstrap, mounts); the stack's ports on 127.0.0.1 must be free (the chroot shares the network).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
stock=${STOCK_DIR:-$project/.build-stock-debian}
stock_root=$stock/bookworm
layer=$stock/run
root=$layer/root
toolchain=${SWIFT_TOOLCHAIN:-/opt/swift}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# swift.org's Debian 12 dependencies of the toolchain, less libsqlite3-dev and pkg-config (which
# scripts/install-deps.sh must install) and the -dev packages the toolchain does not need to build this.
packages=binutils,gcc,libc6-dev,libstdc++-12-dev,libcurl4,libedit2,libxml2,libncurses6,libsqlite3-0,tzdata,git,make,ca-certificates,python3,procps
recipe="bookworm minbase $packages"
started=$SECONDS

[ "$(id -u)" -eq 0 ] || { echo "test-stock-debian needs root (debootstrap, mounts)" >&2; exit 1; }
[ -x "$toolchain/usr/bin/swift" ] || { echo "no Swift toolchain at $toolchain (SWIFT_TOOLCHAIN=DIR)" >&2; exit 1; }
for port in 7101 7102 7201 7202 7301 7302 7401 7501 7502 8080; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "port $port on 127.0.0.1 is in use: stop what listens there first (another stack?)" >&2
        exit 1
    fi
done

if [ "${TICKWIRE_REBUILD_STOCK:-0}" = 1 ] || [ "$(cat "$stock_root.recipe" 2>/dev/null)" != "$recipe" ]; then
    command -v debootstrap >/dev/null 2>&1 || {
        echo "installing debootstrap with apt-get"; apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
    }
    rm -rf "$stock_root" "$stock_root.recipe"
    mkdir -p "$stock"
    echo "debootstrap bookworm (minbase, $packages) into $stock_root"
    debootstrap --variant=minbase --include="$packages" bookworm "$stock_root" "$mirror" >"$stock_root.log" 2>&1 || {
        tail -20 "$stock_root.log"; exit 1
    }
    echo "$recipe" >"$stock_root.recipe"
    echo "   made in $((SECONDS - started)) s"
else
    echo "stock bookworm in $stock_root ($recipe): reused"
fi
# A stock Debian 12: its python3 is externally managed, and has neither pip nor venv's ensurepip.
[ -e "$stock_root"/usr/lib/python3.11/EXTERNALLY-MANAGED ] || { echo "no EXTERNALLY-MANAGED marker in $stock_root" >&2; exit 1; }
if [ -e "$stock_root/usr/lib/python3/dist-packages/pip" ] || [ -e "$stock_root/usr/lib/python3.11/ensurepip/__init__.py" ]; then
    echo "$stock_root is not stock: it has pip or python3-venv (TICKWIRE_REBUILD_STOCK=1)" >&2; exit 1
fi

# A clean clone of HEAD, updated in place (its builds are kept, so a second run builds only what changed; its
# .venv is not, so every run makes it from Debian's python3).
src=$stock/src
if [ -d "$src/.git" ]; then
    git -C "$src" fetch -q "$project" HEAD && git -C "$src" reset -q --hard FETCH_HEAD && git -C "$src" clean -qfdx -e .build -e deploy/local/.build
else
    git clone -q "$project" "$src"
fi
echo "project: a clone of $(git -C "$src" rev-parse --short HEAD) ($(git -C "$project" describe --tags --always --dirty) here)"

mounts=()
cleanup() {
    status=$?
    if [ -n "${stack_pid:-}" ]; then
        # make run's process group (setsid below): run-stack.sh stops its services on SIGTERM.
        kill -TERM -- "-$stack_pid" 2>/dev/null || true
        wait "$stack_pid" 2>/dev/null || true
    fi
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
    rm -rf "$layer"
    exit $status
}
trap cleanup EXIT
bind() {  # bind SOURCE TARGET [ro]
    mkdir -p "$2"
    mount --bind "$1" "$2"; mounts+=("$2")
    if [ "${3:-}" = ro ]; then mount -o remount,bind,ro "$2"; fi
}
rm -rf "$layer" && mkdir -p "$layer"/{upper,work,root}
mount -t overlay overlay -o "lowerdir=$stock_root,upperdir=$layer/upper,workdir=$layer/work" "$root"; mounts+=("$root")
mount -t proc proc "$root/proc"; mounts+=("$root/proc")
bind /dev "$root/dev"
bind /dev/pts "$root/dev/pts"
mount -t sysfs sys "$root/sys"; mounts+=("$root/sys")
mkdir -p "$root/tmp" && chmod 1777 "$root/tmp"
bind "$toolchain" "$root/opt/swift" ro
# This machine's ways out, as its other programs reach the network: its DNS server, the certificate
# authorities it added (/usr/local/share/ca-certificates, e.g. a proxy's), and git's URL rewrites to a local
# mirror (insteadOf to a directory, mounted read-only). Nothing else of the host's configuration goes in.
cp /etc/resolv.conf "$root/etc/resolv.conf"
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    chroot "$root" update-ca-certificates >/dev/null 2>&1 || echo "update-ca-certificates failed inside" >&2
fi
rm -f "$root/etc/gitconfig"
while read -r key value; do
    base=${key#url.}; base=${base%.insteadof}
    git config --file "$root/etc/gitconfig" --add "url.$base.insteadOf" "$value"
    if [ -d "$base" ] && ! mountpoint -q "$root$base"; then bind "$base" "$root$base" ro; fi
done < <(git config --system --get-regexp '^url\..*\.insteadof$' 2>/dev/null || true)
bind "$src" "$root/src/tickwire"

# in_chroot COMMAND: runs COMMAND with bash in the project's clone inside the stock Debian, in a clean environment.
chroot_bash=(chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb
    PATH=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/bash -c)
in_chroot() { "${chroot_bash[@]}" "set -eo pipefail; cd /src/tickwire && $1"; }

echo "== inside: python3 is $(in_chroot 'python3 --version'), pip: $(in_chroot 'python3 -m pip --version >/dev/null 2>&1 && echo present || echo absent')"
log=$stock/make-run.log
echo "== make run (log: $log)"
run_started=$SECONDS
setsid "${chroot_bash[@]}" "cd /src/tickwire && exec make run" >"$log" 2>&1 &
stack_pid=$!
ready_timeout=${STOCK_READY_TIMEOUT:-5400}
until grep -q "Tickwire is ready" "$log"; do
    if ! kill -0 "$stack_pid" 2>/dev/null; then
        echo "make run ended before it was ready:" >&2; tail -30 "$log" >&2; exit 1
    fi
    if [ $((SECONDS - run_started)) -ge "$ready_timeout" ]; then
        echo "make run not ready after $ready_timeout s:" >&2; tail -30 "$log" >&2; exit 1
    fi
    sleep 5
done
ready_after=$((SECONDS - run_started))
echo "   ready after $ready_after s: $(grep 'Tickwire is ready' "$log")"

# The dashboard's pages answer (Debian's python3, standard library only).
in_chroot 'python3 - <<"PY"
import urllib.request
for path in ["/coins", "/assets", "/wallets", "/api/views/coins"]:
    with urllib.request.urlopen("http://127.0.0.1:8080" + path, timeout=20) as answer:
        assert answer.status == 200, (path, answer.status)
        print(f"   {path}: {answer.status}, {len(answer.read())} bytes")
PY'

echo "== the Python client's tests against the stack: pip install ./clients/python into a fresh venv of Debian's python3"
in_chroot 'PYTHON_PACKAGES=pyzmq bash scripts/install-deps.sh && .venv/bin/python3 -c "import sys; print(\"   \" + sys.version.split()[0], sys.base_prefix)" \
    && TICKWIRE_TEST_STACK=1 PYTHON=/usr/bin/python3 bash clients/python/test-installed.sh 2>&1 | tail -4'

echo "test-stock-debian: passed in $((SECONDS - started)) s (make run, its build included, ready after $ready_after s of it)"
