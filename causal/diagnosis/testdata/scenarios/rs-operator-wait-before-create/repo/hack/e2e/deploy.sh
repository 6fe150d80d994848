#!/usr/bin/env bash
set -o errexit -o nounset -o pipefail

IMG="$1"
NAMESPACE=lease-system

echo "==> installing CRDs"
kubectl apply -k config/crd
kubectl wait --for=condition=Established crd/leases.coordination.canopy.io --timeout=60s

echo "==> deploying controller ${IMG}"
(cd config/manager && ../../bin/kustomize edit set image controller="${IMG}")
./bin/kustomize build config/default | kubectl apply -f -

echo "==> waiting for the controller"
kubectl -n "${NAMESPACE}" wait --for=condition=Ready pod -l control-plane=controller-manager --timeout=180s
