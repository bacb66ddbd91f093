#!/usr/bin/env bash
# Import an image archive (docker save, on standard input) into the
# containerd of every node scripts/k8s-up.sh started: how the runner's
# Kubernetes engine gets images to this machine's cluster with no registry
# (an engine's `load` in the HCL; examples/kubernetes.hcl).
set -euo pipefail
state=${GATEWAYBENCH_K8S_STATE:-/var/lib/gatewaybench-k8s}
socks=("$state"/nodes/*/containerd/containerd.sock)
if [ ! -S "${socks[0]}" ]; then
  echo "k8s-load: no node's containerd under $state/nodes (is the cluster up? scripts/k8s-up.sh)" >&2
  exit 1
fi
archive=$(mktemp "${TMPDIR:-/tmp}/gatewaybench-image.XXXXXX")
trap 'rm -f "$archive"' EXIT
cat >"$archive"
for s in "${socks[@]}"; do
  ctr --address "$s" -n k8s.io images import "$archive" >/dev/null
done
