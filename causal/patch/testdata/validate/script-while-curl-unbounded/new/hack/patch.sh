#!/usr/bin/env bash
set -euo pipefail
kubectl apply -f secret.yaml
while [ "$(curl -s -o /dev/null -w '%{http_code}' http://x)" -ne 200 ]; do sleep 1; done
