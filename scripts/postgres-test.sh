#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: Debian's `postgresql` (installed with apt-get through
# scripts/install-deps.sh WITH_POSTGRES=1 where missing), one cluster under /tmp/tickwire-postgres-<uid> (one per
# user) listening on 127.0.0.1:25432 only, trust authentication on loopback, and the database tickwire_test.
#
#   scripts/postgres-test.sh [start]   start it if it is not running (idempotent); prints its URL on stdout
#   scripts/postgres-test.sh stop      stop it (fast shutdown: open connections are cut)
#   scripts/postgres-test.sh url       print its URL
#   scripts/postgres-test.sh status    exit 0 when it runs
#
# The cluster is made by the newest installed PostgreSQL (/usr/lib/postgresql/*/bin with an initdb) and run by the
# version that made it; a cluster of a version no longer installed, or owned by another user, is made again (it
# holds nothing to keep).
#
# Only the URL goes to stdout (postgres://postgres@127.0.0.1:25432/tickwire_test), so
# `export TICKWIRE_TEST_POSTGRES=$(scripts/postgres-test.sh)` works; everything else goes to stderr.
# TICKWIRE_POSTGRES_DIR and TICKWIRE_POSTGRES_PORT move it. The server refuses to run as root: as root, it runs as
# the `postgres` user that Debian's package makes.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${TICKWIRE_POSTGRES_DIR:-/tmp/tickwire-postgres-$(id -u)}
port=${TICKWIRE_POSTGRES_PORT:-25432}
database=tickwire_test
url="postgres://postgres@127.0.0.1:$port/$database"
command=${1:-start}

say() { echo "postgres-test: $*" >&2; }

# The caller's other open descriptors (a test runner's pipes) must not reach the server, which would keep them open
# for as long as it runs: a caller reading this script's output to its end would wait for ever.
for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    case $fd in 0|1|2|255) ;; *) eval "exec $fd>&-" 2>/dev/null || true ;; esac
done

case "$command" in
    start|stop|url|status) ;;
    *) say "unknown command $command (start, stop, url, status)"; exit 2 ;;
esac
if [ "$command" = url ]; then echo "$url"; exit 0; fi
data="$dir/data"

# The newest installed PostgreSQL that has an initdb, or nothing.
newest_bin() {
    local candidate found=
    for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V); do
        [ -x "$candidate/initdb" ] && found=$candidate
    done
    echo "$found"
}
# The PostgreSQL that made the cluster, if it is installed; else the newest.
cluster_bin() {
    if [ -f "$data/PG_VERSION" ]; then
        local made="/usr/lib/postgresql/$(cat "$data/PG_VERSION")/bin"
        [ -x "$made/pg_ctl" ] && { echo "$made"; return; }
    fi
    newest_bin
}

# As root, every server command runs as `postgres`; otherwise as whoever runs this.
if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || { say "the postgres user is missing (Debian's postgresql package makes it)"; exit 1; }
    as_server() { runuser -u postgres -- "$@"; }
    owner=postgres
else
    as_server() { "$@"; }
    owner=$(id -un)
fi

mkdir -p "$dir"
[ "$(id -u)" -eq 0 ] && chown "$owner" "$dir"
# One caller at a time: the Makefile, a test suite and the bench may all start it.
exec 9>"$dir/.lock"
flock 9

bin=$(cluster_bin)
# The server must not inherit the lock (fd 9), or it would hold it for as long as it runs.
pg_ctl() { as_server "$bin/pg_ctl" -D "$data" "$@" 9>&-; }
running() { [ -n "$bin" ] && [ -f "$data/PG_VERSION" ] && pg_ctl status >/dev/null 2>&1; }

# status and stop never install anything.
if [ "$command" = status ]; then running; exit; fi
if [ "$command" = stop ]; then
    if running; then pg_ctl stop -m fast -w >&2; say "stopped"; else say "not running"; fi
    exit 0
fi

if [ -z "$(newest_bin)" ]; then
    say "PostgreSQL's server is missing: installing Debian's postgresql"
    WITH_POSTGRES=1 bash "$root/scripts/install-deps.sh" >&2
    bin=$(cluster_bin)
fi
[ -n "$bin" ] && [ -x "$bin/pg_ctl" ] || { say "no initdb under /usr/lib/postgresql/*/bin after installing postgresql"; exit 1; }

# A cluster the installed PostgreSQL did not make, or that another user owns, is made again (stopped first if it runs).
if [ -f "$data/PG_VERSION" ]; then
    version=$(cat "$data/PG_VERSION")
    if [ "$bin" != "/usr/lib/postgresql/$version/bin" ] || [ "$(stat -c %U "$data")" != "$owner" ]; then
        say "the cluster in $data (PostgreSQL $version, owned by $(stat -c %U "$data")) is not $owner's of $bin: making it again"
        running && pg_ctl stop -m immediate -w >&2
        rm -rf "$data"
        bin=$(newest_bin)
    fi
fi
if [ ! -f "$data/PG_VERSION" ]; then
    say "making a cluster in $data"
    rm -rf "$data"
    as_server "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2; exit 1; }
fi
options="-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200"
if ! running; then
    pg_ctl start -w -t 60 -o "$options" -l "$dir/server.log" >&2 || { tail -n 20 "$dir/server.log" >&2; exit 1; }
    say "started on 127.0.0.1:$port (log $dir/server.log)"
fi

psql() { as_server "$bin/psql" -X -q -h 127.0.0.1 -p "$port" -U postgres "$@"; }
if [ "$(psql -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$database'")" != 1 ]; then
    psql -d postgres -c "CREATE DATABASE $database" >&2
fi
echo "$url"
