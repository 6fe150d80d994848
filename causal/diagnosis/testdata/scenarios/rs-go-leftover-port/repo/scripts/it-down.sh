#!/usr/bin/env bash
set -euo pipefail
PIDFILE="${RUNNER_TEMP:-/tmp}/gateway-it.pid"
sudo kill "$(cat "$PIDFILE")"
rm -f "$PIDFILE"
