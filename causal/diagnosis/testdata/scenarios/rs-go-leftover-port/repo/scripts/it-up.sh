#!/usr/bin/env bash
# Starts the gateway in transparent mode for the integration suite.
# Transparent mode installs nftables rules, so the gateway runs under sudo.
set -euo pipefail

ADDR="${GATEWAY_ADDR:-127.0.0.1:8089}"
PIDFILE="${RUNNER_TEMP:-/tmp}/gateway-it.pid"
LOG="${RUNNER_TEMP:-/tmp}/gateway-it.log"

make build
echo "starting gateway on $ADDR"
sudo --preserve-env=GATEWAY_UPSTREAMS ./bin/gateway --listen "$ADDR" --transparent --config testdata/gateway.it.yaml >"$LOG" 2>&1 &
echo $! >"$PIDFILE"

for i in $(seq 1 20); do
  sleep 1
  if ! sudo kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
    echo "gateway exited during startup" >&2
    cat "$LOG" >&2
    exit 1
  fi
  if curl -fsS "http://$ADDR/healthz" >/dev/null 2>&1; then
    echo "gateway ready after ${i}s"
    exit 0
  fi
done
echo "gateway not ready after 20s" >&2
exit 1
