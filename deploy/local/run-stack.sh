#!/usr/bin/env bash
# Starts the four services from BIN_DIR on their default endpoints, in demo mode
# (mock feeds: no network needed), and stops all of them on Ctrl-C or SIGTERM.
set -uo pipefail
bin_dir=${1:?usage: run-stack.sh BIN_DIR}
data_dir=${TICKWIRE_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/tickwire-demo}
mkdir -p "$data_dir"

pids=()
stop() {
    trap - INT TERM
    echo
    echo "stopping the stack..."
    kill -TERM "${pids[@]}" 2>/dev/null
    wait "${pids[@]}" 2>/dev/null
    echo "all services stopped"
    exit 0
}
trap stop INT TERM

start() {
    "$bin_dir/$1" "${@:2}" &
    pids+=($!)
}
start rates-fetcher --feeds mock
start converter
start portfolio --database "$data_dir/portfolio.sqlite"
start presenter

echo
echo "Tickwire is running (mock feeds). Dashboard: ${TICKWIRE_PRESENTER_HTTP:-http://127.0.0.1:8080}"
echo "Press Ctrl-C to stop."
# If any service exits on its own, take the rest down too.
wait -n "${pids[@]}"
stop
