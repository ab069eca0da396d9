#!/usr/bin/env bash
# Records the shipped demo capture (captures/demo.ndjson.gz; `make capture`): a stack of its own on loopback ports
# 27101-27103, rates-fetcher with no built-in feed (--feeds none), the two exchange websocket feeds replaying their
# recorded real sessions as bitso-ws-recorded and kraken-ws-recorded (`exchange-feed bitso|kraken --variant test`),
# Bitso's mock websocket market as bitso-ws (`exchange-feed bitso --variant mock --mock-interval MOCK_MS`, default
# 1000: the Books screen's moving depth ladder, and trades, so candles), and the built-in feeds fiat, coingecko, bitso
# and wazirx as plugins on their mocks (`tickwire-feed NAME --variant mock --period 2`, fiat's rates every 30 s), all
# started after tickwire-recorder follows the hub's stream, which records the feed topics (quote, rate, limits, book,
# trade, coin) for SECONDS (default 330: a replay of it closes five or six 1-minute candles and one or two 5-minute
# ones).
# Usage: make-capture.sh BIN_DIR OUT_FILE [SECONDS [MOCK_MS]]
set -euo pipefail
bin_dir=${1:?usage: make-capture.sh BIN_DIR OUT_FILE [SECONDS [MOCK_MS]]}
out=${2:?usage: make-capture.sh BIN_DIR OUT_FILE [SECONDS [MOCK_MS]]}
seconds=${3:-330}
mock_ms=${4:-1000}
work=$(mktemp -d)
pids=()
cleanup() {
    [ ${#pids[@]} -gt 0 ] && kill -TERM "${pids[@]}" 2>/dev/null && wait "${pids[@]}" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
pub=tcp://127.0.0.1:27102 rep=tcp://127.0.0.1:27101 ingest=tcp://127.0.0.1:27103
"$bin_dir/tickwire-recorder" --connect "$pub" --out "$work/capture" \
    --prefix quote. --prefix rate. --prefix limits. --prefix book. --prefix trade. --prefix coin. >"$work/recorder.log" 2>&1 &
recorder=$!
sleep 0.5
"$bin_dir/rates-fetcher" --feeds none --pub "$pub" --rep "$rep" --ingest "$ingest" --state-dir "$work" >"$work/rates-fetcher.log" 2>&1 &
pids+=($!)
sleep 1
for feed in fiat:30 coingecko:2 bitso:2 wazirx:2; do
    "$bin_dir/tickwire-feed" "${feed%:*}" --variant mock --period "${feed#*:}" --ingest "$ingest" >"$work/${feed%:*}.log" 2>&1 &
    pids+=($!)
done
for exchange in bitso kraken; do
    "$bin_dir/exchange-feed" "$exchange" --variant test --name "$exchange-ws-recorded" --ingest "$ingest" >"$work/$exchange-ws-recorded.log" 2>&1 &
    pids+=($!)
done
"$bin_dir/exchange-feed" bitso --variant mock --name bitso-ws --mock-interval "$mock_ms" --ingest "$ingest" >"$work/bitso-ws.log" 2>&1 &
pids+=($!)
sleep "$seconds"
kill -TERM "$recorder"
wait "$recorder"
files=("$work"/capture/*.ndjson.gz)
[ -e "${files[0]}" ] && [ ${#files[@]} -eq 1 ] || { echo "make-capture: expected one capture file; the recorder's log:" >&2; cat "$work/recorder.log" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
cp "${files[0]}" "$out"
echo "make-capture: $out, $(gzip -dc "$out" | tail -n +2 | wc -l) messages, $(stat -c %s "$out") bytes"
gzip -dc "$out" | tail -n +2 | grep -oE '"topic":"[a-z]+\.[a-z0-9_-]+' | cut -d'"' -f4 | sort | uniq -c
