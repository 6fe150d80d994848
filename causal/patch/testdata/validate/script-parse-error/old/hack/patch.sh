#!/usr/bin/env bash
set -euo pipefail
kubectl apply -f secret.yaml
