#!/usr/bin/env bash
# Starts the four services from BIN_DIR (and price-alerts from PLUGIN_BIN_DIR, when given) on their
# default endpoints, in demo mode (mock feeds: no network needed), and stops all of them on Ctrl-C or SIGTERM.
# With TICKWIRE_KEYS=DIR (a keys directory made by `tickwire-keys generate DIR`), every socket uses CurveZMQ.
set -uo pipefail
bin_dir=${1:?usage: run-stack.sh BIN_DIR [PLUGIN_BIN_DIR]}
plugin_dir=${2:-}
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

# start DIR NAME ARGS...: runs DIR/NAME in the background.
start() {
    "$1/$2" "${@:3}" &
    pids+=($!)
}
start "$bin_dir" rates-fetcher --feeds mock
start "$bin_dir" converter
start "$bin_dir" portfolio --database "$data_dir/portfolio.sqlite"
start "$bin_dir" presenter
if [ -n "$plugin_dir" ]; then
    start "$plugin_dir" price-alerts --database "$data_dir/price-alerts.sqlite"
fi

echo
echo "Tickwire is running (mock feeds). Dashboard: ${TICKWIRE_PRESENTER_HTTP:-http://127.0.0.1:8080}"
if [ -n "${TICKWIRE_KEYS:-}" ]; then
    echo "CurveZMQ on every socket, keys in $TICKWIRE_KEYS: clients need a certificate there (README, Security)"
fi
if [ -n "$plugin_dir" ]; then
    echo "price-alerts: add a rule with JSON-RPC on ${TICKWIRE_PRICE_ALERTS_REP:-tcp://127.0.0.1:7501}, e.g."
    echo "  python3 -c 'import sys; sys.path.append(\"clients/python\"); from tickwire import Client; print(Client(\"tcp://127.0.0.1:7501\").call(\"alerts.add\", {\"asset\": \"BTC\", \"currency\": \"USD\", \"above\": \"1\"}))'"
fi
echo "Press Ctrl-C to stop."
# If any service exits on its own, take the rest down too.
wait -n "${pids[@]}"
stop
