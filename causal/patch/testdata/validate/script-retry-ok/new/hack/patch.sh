#!/usr/bin/env bash
set -euo pipefail
for i in $(seq 1 5); do
  kubectl apply -f secret.yaml && exit 0
  echo "apply failed, attempt $i/5"
  sleep $((i * 2))
done
exit 1
