#!/usr/bin/env bash
# Stop and remove what scripts/k8s-up.sh started, in the order that leaves
# no process, mount, cgroup or namespace (../shared/kubernetes-notes.md):
# the kubelet first (so it restarts nothing), then every container task,
# containerd, the control plane and the socket bridges; then the mounts
# under the node's directories (deepest first), the pods' cgroups (leaf
# first, in each cgroup v1 hierarchy), the namespace and the directories.
# Each process is stopped by the pid the up script recorded, never by name.
set -uo pipefail
state=${GATEWAYBENCH_K8S_STATE:-/var/lib/gatewaybench-k8s}
ns=gwb-k8s
alive=()
# running PID: the process exists and is not a zombie (an exited child its
# parent has not reaped yet holds nothing)
running() { [ -e "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
stop() { # NAME: SIGTERM by its recorded pid, SIGKILL after 15 s; the pid file goes once it is gone
  local f=$state/pids/$1.pid pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 1 30); do running "$pid" || break; sleep 0.5; done
    if running "$pid" && kill -9 "$pid" 2>/dev/null; then
      for _ in $(seq 1 20); do running "$pid" || break; sleep 0.5; done
    fi
  fi
  if running "$pid"; then
    alive+=("$1 (pid $pid)")
    return 0
  fi
  rm -f "$f"
}
stop kubelet
sock=$state/containerd/containerd.sock
if [ -S "$sock" ]; then
  ctr=(ctr --address "$sock" -n k8s.io)
  for t in $("${ctr[@]}" tasks ls -q 2>/dev/null); do
    "${ctr[@]}" tasks kill -s SIGKILL "$t" 2>/dev/null
    for _ in $(seq 1 10); do "${ctr[@]}" tasks rm -f "$t" >/dev/null 2>&1 && break; sleep 1; done
  done
  for c in $("${ctr[@]}" containers ls -q 2>/dev/null); do "${ctr[@]}" containers rm "$c" >/dev/null 2>&1; done
fi
for p in containerd kube-scheduler kube-controller-manager api-outside api-inside kube-apiserver etcd; do stop "$p"; done
if [ ${#alive[@]} -gt 0 ]; then
  echo "k8s-down: still running: ${alive[*]}; nothing removed, run it again" >&2
  exit 1
fi
# Mounts the kubelet and containerd made under the node's directories.
if [ -d "$state" ]; then
  awk -v s="$state" 'index($2, s) == 1 {print $2}' /proc/self/mounts | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m"
  done
fi
# The pods' cgroups (kubelet's cgroupfs driver names them kubepods*).
for h in /sys/fs/cgroup/*/; do
  [ -d "$h/kubepods" ] || continue
  find "$h/kubepods" -depth -type d -exec rmdir {} \; 2>/dev/null
done
ip netns del "$ns" 2>/dev/null
rm -rf "$state"
left=$(awk -v s="$state" 'index($2, s) == 1' /proc/self/mounts)
if [ -n "$left" ] || ip netns list | grep -qw "$ns"; then
  echo "k8s-down: left behind:" >&2
  echo "$left" >&2
  ip netns list >&2
  exit 1
fi
echo "k8s-down: nothing left of the cluster" >&2
