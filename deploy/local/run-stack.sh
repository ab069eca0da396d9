#!/usr/bin/env bash
# Starts the four services from BIN_DIR (and the price-alerts plugin from PLUGIN_BIN_DIR, when given, with the
# presenter told of it: --plugin price-alerts=REP,PUB, so the dashboard has its Alerts page while it runs) on their
# default endpoints, waits until every one answers `health` (tickwire-probe, from BIN_DIR), then says
# "ready" with the dashboard's address; stops all of them on Ctrl-C or SIGTERM, and starts again one that exits.
# Environment (what `make run` passes):
#   HOST, PORT   the dashboard's listener (default 127.0.0.1 and 8080). A HOST that is not loopback needs
#                the dashboard's login token: TICKWIRE_DASHBOARD_TOKEN, else one made once and kept in
#                DATA_DIR/dashboard-token (mode 0600). The ZeroMQ endpoints stay on loopback.
#   FEEDS        mock (default: no network), live (every feed with a source; GNB stays on its mock unless
#                TICKWIRE_GNB_URL is set, masterdata unless TICKWIRE_MASTERDATA is), test, or replay: CAPTURE's
#                feeds played at 1x with --retime by tickwire-replay into rates-fetcher --feeds none (docs/capture.md).
#   TICKWIRE_DATA_DIR   the databases' directory (default $XDG_DATA_HOME/tickwire-demo, i.e.
#                ~/.local/share/tickwire-demo); `make reset` empties it.
#   TICKWIRE_KEYS       a keys directory (`tickwire-keys generate DIR`): every socket uses CurveZMQ. With the
#                plugin, its certificate is added there when missing (tickwire-keys generate DIR --service price-alerts).
#   TICKWIRE_READY_TIMEOUT  seconds to wait for every service's health answer (default 120).
set -uo pipefail
bin_dir=${1:?usage: run-stack.sh BIN_DIR [PLUGIN_BIN_DIR]}
plugin_dir=${2:-}
data_dir=${TICKWIRE_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/tickwire-demo}
host=${HOST:-127.0.0.1}
port=${PORT:-8080}
feeds=${FEEDS:-mock}
ready_timeout=${TICKWIRE_READY_TIMEOUT:-120}

fail() { echo "run-stack: $*" >&2; exit 2; }
if ! [[ $port =~ ^[0-9]{1,5}$ ]] || [ "$port" -lt 1 ] || [ "$port" -gt 65535 ]; then
    fail "PORT must be a TCP port, 1 to 65535, got '$port'"
fi
[[ $host =~ ^[A-Za-z0-9.:-]+$ ]] || fail "HOST must be a host name or an IP address, e.g. 127.0.0.1 or 0.0.0.0, got '$host'"
[[ $ready_timeout =~ ^[0-9]+$ ]] || fail "TICKWIRE_READY_TIMEOUT must be whole seconds, got '$ready_timeout'"
for executable in "$bin_dir"/{rates-fetcher,converter,portfolio,presenter,tickwire-probe} ${plugin_dir:+"$plugin_dir/price-alerts" "$bin_dir/tickwire-keys"}; do
    [ -x "$executable" ] || fail "missing $executable: build the release binaries first (make release)"
done
mkdir -p "$data_dir" || fail "cannot make the data directory $data_dir (TICKWIRE_DATA_DIR)"

# The dashboard: an IPv6 address goes in brackets; a listener beyond loopback needs a login token.
if [[ $host == *:* ]]; then http="http://[$host]:$port"; else http="http://$host:$port"; fi
case $host in
127.*|localhost|::1) loopback=1 ;;
*) loopback=0 ;;
esac
token_note=
if [ "$loopback" = 0 ] && [ -z "${TICKWIRE_DASHBOARD_TOKEN:-}" ]; then
    token_file=$data_dir/dashboard-token
    if [ ! -s "$token_file" ]; then
        (umask 077 && od -An -N24 -tx1 /dev/urandom | tr -d ' \n' >"$token_file") || fail "cannot write $token_file"
    fi
    TICKWIRE_DASHBOARD_TOKEN=$(cat "$token_file")
    token_note="the dashboard needs its login token: cat $token_file (scripts: Authorization: Bearer <token>)"
elif [ "$loopback" = 0 ]; then
    token_note="the dashboard needs its login token, the one in TICKWIRE_DASHBOARD_TOKEN"
fi

# The feeds: live runs every feed that has a source; the two without a default source stay on their mocks.
fetcher_feeds=(--feeds "$feeds")
mock_notes=()
case $feeds in
mock|test) ;;
live)
    if [ -z "${TICKWIRE_GNB_URL:-}" ]; then
        fetcher_feeds+=(--feed gnb=mock)
        mock_notes+=("gnb stays on its mock: its original host is gone (set TICKWIRE_GNB_URL to a GNB service's base URL)")
    fi
    if [ -z "${TICKWIRE_MASTERDATA:-}" ]; then
        fetcher_feeds+=(--feed masterdata=mock)
        mock_notes+=("masterdata stays on its mock: it comes from a file (set TICKWIRE_MASTERDATA to a JSON file's path or URL)")
    fi
    ;;
replay)
    [ -r "${CAPTURE:-}" ] || fail "FEEDS=replay needs CAPTURE=path of a readable capture file (e.g. captures/demo.ndjson.gz)"
    [ -x "$bin_dir/tickwire-replay" ] || fail "missing $bin_dir/tickwire-replay: build the release binaries first (make release)"
    fetcher_feeds=(--feeds none --feed gnb=mock --feed masterdata=mock)
    # The converter ranks the capture's feeds, in the order they first appear in it.
    replay_sources=$(gzip -dc "$CAPTURE" | grep -oE '"topic":"(quote|rate)\.[a-z][a-z0-9_-]*' | cut -d. -f2 | awk '!seen[$0]++' | paste -sd,)
    export TICKWIRE_CONVERTER_SOURCES=$replay_sources
    ;;
*) fail "FEEDS must be mock, live, test or replay, got '$feeds'" ;;
esac
# Bitso's websocket feed (exchange-feed, a plugin of rates-fetcher's ingest endpoint publishing as bitso-ws): the Books
# screen's live depth ladder, of the same variant as the feeds. Not with keys: it would need a writer's certificate.
exchange_variant=
case $feeds in mock|live|test) exchange_variant=$feeds ;; esac
if [ -n "$exchange_variant" ] && [ -n "${TICKWIRE_KEYS:-}" ]; then
    exchange_variant=
    mock_notes+=("exchange-feed (the Books screen's depth ladder) is not started with TICKWIRE_KEYS: it needs a writer's certificate (README, Security)")
fi
if [ -n "$exchange_variant" ] && [ ! -x "$bin_dir/exchange-feed" ]; then
    fail "missing $bin_dir/exchange-feed (Bitso's websocket feed, the Books screen's depth ladder): build the release binaries first (make release)"
fi

pids=()
names=()
stop() {
    trap - INT TERM
    echo
    echo "stopping the stack..."
    kill -TERM "${pids[@]}" 2>/dev/null
    wait "${pids[@]}" 2>/dev/null
    echo "all services stopped"
    exit "${1:-0}"
}
trap stop INT TERM

# start NAME EXECUTABLE ARGS...: runs EXECUTABLE in the background (its command kept, to start it again).
commands=()
started=()
start() {
    names+=("$1")
    commands+=("$(printf '%q ' "${@:2}")")
    "${@:2}" &
    pids+=($!)
    started+=("$SECONDS")
}
# The plugin: the presenter is told where it answers and publishes (its page comes from its `panel`), and with keys
# it needs a certificate of its own, which the main package's tickwire-keys does not make unless asked: made before
# any service starts, as each reads the keys directory once.
alerts_rep=${TICKWIRE_PRICE_ALERTS_REP:-tcp://127.0.0.1:7501}
alerts_pub=${TICKWIRE_PRICE_ALERTS_PUB:-tcp://127.0.0.1:7502}
plugin_flags=()
if [ -n "$plugin_dir" ]; then
    plugin_flags=(--plugin "price-alerts=$alerts_rep,$alerts_pub")
    if [ -n "${TICKWIRE_KEYS:-}" ] && [ ! -f "$TICKWIRE_KEYS/public/price-alerts.key" ]; then
        "$bin_dir/tickwire-keys" generate "$TICKWIRE_KEYS" --services "" --service price-alerts >/dev/null \
            || fail "cannot add price-alerts' certificate to $TICKWIRE_KEYS (tickwire-keys generate DIR --service price-alerts)"
    fi
fi
echo "Tickwire: data in $data_dir (make reset empties it), ${feeds} feeds"
# Prometheus' /metrics of every service on loopback (README "Metrics"); each variable may name another address.
export TICKWIRE_RATES_FETCHER_METRICS=${TICKWIRE_RATES_FETCHER_METRICS:-127.0.0.1:9101}
export TICKWIRE_CONVERTER_METRICS=${TICKWIRE_CONVERTER_METRICS:-127.0.0.1:9201}
export TICKWIRE_PORTFOLIO_METRICS=${TICKWIRE_PORTFOLIO_METRICS:-127.0.0.1:9301}
export TICKWIRE_PRESENTER_METRICS=${TICKWIRE_PRESENTER_METRICS:-127.0.0.1:9401}
export TICKWIRE_PRICE_ALERTS_METRICS=${TICKWIRE_PRICE_ALERTS_METRICS:-127.0.0.1:9501}
# The coin list added to and removed from on the Coins screen (coins.json) lives with the other data.
start rates-fetcher "$bin_dir/rates-fetcher" "${fetcher_feeds[@]}" --state-dir "$data_dir"
[ -n "$exchange_variant" ] && start exchange-feed "$bin_dir/exchange-feed" bitso --variant "$exchange_variant" \
    --ingest "${TICKWIRE_RATES_FETCHER_INGEST:-tcp://127.0.0.1:7103}"
[ "$feeds" = replay ] && start tickwire-replay "$bin_dir/tickwire-replay" "$CAPTURE" --speed 1 --retime --hold
# The demo ranks the example feed plugin's source first (README "Writing a feed plugin": Examples/python-feed
# publishes as kraken), so started beside this stack it prices Bitcoin and Litecoin, and killed, they visibly fall
# back to CoinGecko ("coingecko (kraken stale)"). Without the plugin the ranking is the converter's default order.
export TICKWIRE_CONVERTER_SOURCES=${TICKWIRE_CONVERTER_SOURCES:-kraken,coingecko,bitso,wazirx}
start converter "$bin_dir/converter"
start portfolio "$bin_dir/portfolio" --database "$data_dir/portfolio.sqlite"
presenter_env=()
[ -n "${TICKWIRE_DASHBOARD_TOKEN:-}" ] && presenter_env=(TICKWIRE_DASHBOARD_TOKEN="$TICKWIRE_DASHBOARD_TOKEN")
start presenter env "${presenter_env[@]}" "$bin_dir/presenter" --http "$http" "${plugin_flags[@]}"
if [ -n "$plugin_dir" ]; then
    start price-alerts "$plugin_dir/price-alerts" --database "$data_dir/price-alerts.sqlite"
fi

# Ready when every service answers `health` on its JSON-RPC endpoint (with keys, tickwire-probe, which has
# none, cannot ask: then when each endpoint's port takes connections) and the dashboard's port takes them.
reps=("${TICKWIRE_RATES_FETCHER_REP:-tcp://127.0.0.1:7102}" "${TICKWIRE_CONVERTER_REP:-tcp://127.0.0.1:7201}"
    "${TICKWIRE_PORTFOLIO_REP:-tcp://127.0.0.1:7301}" "${TICKWIRE_PRESENTER_REP:-tcp://127.0.0.1:7401}")
[ -n "$plugin_dir" ] && reps+=("$alerts_rep")
# accepts HOST PORT: whether a TCP connection to HOST:PORT succeeds (0.0.0.0 and :: as loopback).
accepts() {
    local to=$1
    case $to in 0.0.0.0|'*') to=127.0.0.1 ;; ::|'[::]') to=::1 ;; esac
    to=${to#[}; to=${to%]}
    (exec 3<>"/dev/tcp/$to/$2") 2>/dev/null
}
answers() {
    if [ -n "${TICKWIRE_KEYS:-}" ]; then
        local address=${1#tcp://}
        [[ $1 == tcp://* ]] || return 0
        accepts "${address%:*}" "${address##*:}"
    else
        "$bin_dir/tickwire-probe" --timeout-ms 1000 "$1" >/dev/null 2>&1
    fi
}
waited=$SECONDS
pending=("${reps[@]}")
while :; do
    for index in "${!pids[@]}"; do
        if ! kill -0 "${pids[$index]}" 2>/dev/null; then
            wait "${pids[$index]}"
            status=$?
            # 0, or killed by SIGINT or SIGTERM: stopped by Ctrl-C (each service stops itself on SIGINT).
            case $status in 0|130|143) stop 0 ;; esac
            echo "run-stack: ${names[$index]} exited with status $status before the stack was ready (its log is above)" >&2
            stop 1
        fi
    done
    still=()
    for rep in "${pending[@]}"; do answers "$rep" || still+=("$rep"); done
    pending=("${still[@]}")
    if [ ${#pending[@]} -eq 0 ] && accepts "$host" "$port"; then break; fi
    if [ $((SECONDS - waited)) -ge "$ready_timeout" ]; then
        echo "run-stack: not ready after ${ready_timeout} s: no health answer from ${pending[*]:-none}; dashboard port $port: $(accepts "$host" "$port" && echo open || echo closed)" >&2
        stop 1
    fi
    sleep 0.5
done

echo
echo "Tickwire is ready: every service answers health ($((SECONDS - waited)) s). Dashboard: $http"
metrics="rates-fetcher $TICKWIRE_RATES_FETCHER_METRICS, converter $TICKWIRE_CONVERTER_METRICS, portfolio $TICKWIRE_PORTFOLIO_METRICS, presenter $TICKWIRE_PRESENTER_METRICS"
[ -n "$plugin_dir" ] && metrics+=", price-alerts $TICKWIRE_PRICE_ALERTS_METRICS"
echo "Prometheus metrics at http://ADDRESS/metrics: $metrics"
if [ "$loopback" = 0 ]; then
    echo "The dashboard listens beyond loopback (try http://$HOSTNAME:$port): $token_note"
fi
for note in "${mock_notes[@]}"; do echo "$note"; done
echo "Data: $data_dir (make reset empties it)"
if [ -n "${TICKWIRE_KEYS:-}" ]; then
    echo "CurveZMQ on every socket, keys in $TICKWIRE_KEYS: clients need a certificate there (README, Security)"
fi
if [ -n "$plugin_dir" ]; then
    echo "price-alerts: its rules and alerts on the dashboard's Alerts page ($http/plugins/price-alerts), or over JSON-RPC on $alerts_rep, e.g."
    echo "  python3 -c 'import sys; sys.path.append(\"clients/python/src\"); from tickwire import Client; print(Client(\"tcp://127.0.0.1:7501\").call(\"alerts.add\", {\"asset\": \"BTC\", \"currency\": \"USD\", \"above\": \"1\"}))'"
fi
echo "Press Ctrl-C to stop. A service that exits is started again, as systemd or Kubernetes would: kill one"
echo "(e.g. pkill -x rates-fetcher) and the others carry on while it comes back with its data."
# Ctrl-C or SIGTERM runs `stop` (the trap) and ends the loop. Any other exit is a service gone by itself or killed:
# it is started again with the same command, unless it keeps exiting within 10 s of each start (three times in a
# row), which a restart will not mend.
# running PID: whether the process is there and not a zombie (exited, not yet waited for).
running() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [ "${stat%% *}" != Z ]
}
quick_exits=0
while :; do
    wait -n "${pids[@]}"
    status=$?
    sleep 0.2    # a Ctrl-C that ended the service too runs the trap here, before anything is restarted
    gone=()
    for index in "${!pids[@]}"; do running "${pids[$index]}" || gone+=("$index"); done
    # Several at once: a signal to the whole process group (a Ctrl-C that this shell, started in the background
    # of another, ignores), not one service gone.
    [ ${#gone[@]} -gt 1 ] && stop 0
    for index in "${gone[@]}"; do
        if [ $((SECONDS - started[index])) -lt 10 ]; then
            quick_exits=$((quick_exits + 1))
        else
            quick_exits=0
        fi
        if [ "$quick_exits" -ge 3 ]; then
            echo "run-stack: ${names[$index]} keeps exiting (status $status) right after it starts: stopping (its log is above)" >&2
            stop 1
        fi
        echo "run-stack: ${names[$index]} exited with status $status; starting it again"
        eval "${commands[$index]} &"
        pids[index]=$!
        started[index]=$SECONDS
    done
done
