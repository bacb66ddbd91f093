#!/usr/bin/env bash
# Build the binaries of a single-node Kubernetes cluster from the Go module
# proxy alone (no GitHub, no registry) into a cache outside the repository,
# keyed by version; a second call finds them and returns at once.
#
#   scripts/k8s-build.sh        prints the directory that holds the binaries
#
# Kubernetes' module zip holds no staging modules, so a wrapper module
# requires k8s.io/kubernetes and replaces each staging module with its
# published v0.x release (../shared/kubernetes-notes.md measured about 4
# minutes cold on 2 cores). etcd is the release Kubernetes pins, etcdctl
# pinned with it so the shared etcd modules stay at that release.
set -euo pipefail
k8s=v1.34.2 staging=v0.34.2 etcd=v3.6.5
cache=${XDG_CACHE_HOME:-$HOME/.cache}/gatewaybench/k8s/$k8s-etcd$etcd
bins=(kubelet kube-apiserver kube-controller-manager kube-scheduler kubectl etcd)
have_all() { for b in "${bins[@]}"; do [ -x "$cache/bin/$b" ] || return 1; done; }
if have_all; then
  echo "$cache/bin"
  exit 0
fi
mkdir -p "$cache/bin" "$cache/src/k8s" "$cache/src/etcd"
began=$(date +%s)

# The staging modules of k8s.io/kubernetes v1.34.2 (its go.mod's replace
# block names them all), each replaced by its published release.
stage=(api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider
  cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api
  cri-client csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms
  kube-aggregator kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics
  mount-utils pod-security-admission sample-apiserver)
{
  echo "module example.invalid/k8sbins"
  echo
  echo "go 1.24.0"
  echo
  echo "require k8s.io/kubernetes $k8s"
  echo
  echo "replace ("
  for m in "${stage[@]}"; do echo "	k8s.io/$m => k8s.io/$m $staging"; done
  echo ")"
} >"$cache/src/k8s/go.mod"
# Built outside the release scripts, the binaries would report
# v0.0.0-master; the skew checks read this version.
ver="-X k8s.io/component-base/version.gitVersion=$k8s -X k8s.io/component-base/version.gitMajor=1"
ver="$ver -X k8s.io/component-base/version.gitMinor=34 -X k8s.io/component-base/version.gitTreeState=clean"
(
  cd "$cache/src/k8s"
  export GOFLAGS=-mod=mod CGO_ENABLED=0
  for b in kubelet kube-apiserver kube-controller-manager kube-scheduler kubectl; do
    go build -trimpath -ldflags "-s -w $ver" -o "$cache/bin/$b" "k8s.io/kubernetes/cmd/$b"
  done
)
cat >"$cache/src/etcd/go.mod" <<EOF
module example.invalid/etcdbins

go 1.24.0

require (
	go.etcd.io/etcd/server/v3 $etcd
	go.etcd.io/etcd/etcdctl/v3 $etcd
)
EOF
(
  cd "$cache/src/etcd"
  GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$cache/bin/etcd" go.etcd.io/etcd/server/v3
)
have_all
echo "k8s-build: built ${bins[*]} in $(($(date +%s) - began)) s into $cache/bin" >&2
echo "$cache/bin"
