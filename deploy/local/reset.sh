#!/usr/bin/env bash
# `make reset`: empties `make run`'s data directory (TICKWIRE_DATA_DIR, by default
# $XDG_DATA_HOME/tickwire-demo, i.e. ~/.local/share/tickwire-demo): the demo portfolio's trades and watch
# list, price-alerts' rules, rates-fetcher's coin list, the dashboard's login token. Refuses while a stack
# from `make run` holds one of its databases.
set -euo pipefail
data_dir=${TICKWIRE_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/tickwire-demo}

if [ ! -d "$data_dir" ] || [ -z "$(ls -A "$data_dir")" ]; then
    echo "nothing to reset: $data_dir is empty or absent"
    exit 0
fi
# A running portfolio or price-alerts has its database open: removing it under them would lose their writes.
for database in "$data_dir"/*.sqlite; do
    [ -e "$database" ] || continue
    for fd in /proc/[0-9]*/fd/*; do
        if [ "$(readlink "$fd" 2>/dev/null)" = "$database" ]; then
            pid=${fd#/proc/}; pid=${pid%%/*}
            echo "reset: $database is open in process $pid ($(cat "/proc/$pid/comm" 2>/dev/null)): stop the stack first (Ctrl-C in make run)" >&2
            exit 1
        fi
    done
done
echo "emptying $data_dir:"
find "$data_dir" -mindepth 1 -maxdepth 1 -printf '  %f\n'
find "$data_dir" -mindepth 1 -delete
echo "done: the next make run starts with an empty portfolio, no price alerts, the default coins and a new dashboard token"
