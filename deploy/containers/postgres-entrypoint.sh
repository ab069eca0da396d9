#!/bin/sh
# The entrypoint of localhost/tickwire-postgres (Containerfile.postgres): on the first start (no PG_VERSION in
# PGDATA) makes the cluster with POSTGRES_USER as its superuser, whose password is POSTGRES_PASSWORD_FILE's
# content or POSTGRES_PASSWORD, and the database POSTGRES_DB; clients on the network log in with that password
# (scram-sha-256), none without. Then runs postgres in the foreground (SIGINT: fast shutdown), its socket in /tmp
# (the root file system may be read-only), listening on every interface of the container. PGDATA is a folder
# inside the volume (/var/lib/postgresql/data/pgdata), as initdb wants an empty one it owns (a new volume's root
# may hold lost+found).
set -eu
: "${PGDATA:?PGDATA is not set}"
mkdir -p "$PGDATA"
chmod 0700 "$PGDATA"
user=${POSTGRES_USER:-tickwire}
database=${POSTGRES_DB:-tickwire}

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
        password=$(cat "$POSTGRES_PASSWORD_FILE")
    else
        password=${POSTGRES_PASSWORD:-}
    fi
    if [ -z "$password" ]; then
        echo "postgres-entrypoint: no password: set POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE" >&2
        exit 1
    fi
    pwfile=$(mktemp /tmp/pwfile.XXXXXX)
    printf '%s\n' "$password" >"$pwfile"
    initdb --pgdata="$PGDATA" --username="$user" --pwfile="$pwfile" --encoding=UTF8 --locale=C.UTF-8 \
        --auth-local=peer --auth-host=scram-sha-256 >/dev/null
    rm -f "$pwfile"
    {
        echo "host all all 0.0.0.0/0 scram-sha-256"
        echo "host all all ::/0 scram-sha-256"
    } >>"$PGDATA/pg_hba.conf"
    if [ "$database" != postgres ]; then
        echo "CREATE DATABASE \"$database\" OWNER \"$user\"" | postgres --single -D "$PGDATA" -c unix_socket_directories=/tmp postgres >/dev/null
    fi
    echo "postgres-entrypoint: made the cluster in $PGDATA (user $user, database $database)"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/tmp -c jit=off "$@"
