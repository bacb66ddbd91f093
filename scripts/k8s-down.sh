#!/usr/bin/env bash
# Stop and remove what scripts/k8s-up.sh started, in the order that leaves
# no process, mount, cgroup or namespace (../shared/kubernetes-notes.md):
# the kubelets first (so they restart nothing), then every node's container
# tasks, the containerds, the control plane and the socket bridges; then the
# mounts under the cluster's directory (deepest first), the pods' cgroups
# (leaf first, in each cgroup v1 hierarchy, under every node's cgroup root),
# the namespaces and the directory. Each process is stopped by the pid the
# up script recorded, never by name; while one still runs, nothing is
# removed and the script fails.
set -uo pipefail
state=${GATEWAYBENCH_K8S_STATE:-/var/lib/gatewaybench-k8s}
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
for f in "$state"/pids/kubelet-*.pid; do [ -e "$f" ] && stop "$(basename "$f" .pid)"; done
for sock in "$state"/nodes/*/containerd/containerd.sock; do
  [ -S "$sock" ] || continue
  ctr=(ctr --address "$sock" -n k8s.io)
  for t in $("${ctr[@]}" tasks ls -q 2>/dev/null); do
    "${ctr[@]}" tasks kill -s SIGKILL "$t" 2>/dev/null
    for _ in $(seq 1 10); do "${ctr[@]}" tasks rm -f "$t" >/dev/null 2>&1 && break; sleep 1; done
  done
  for c in $("${ctr[@]}" containers ls -q 2>/dev/null); do "${ctr[@]}" containers rm "$c" >/dev/null 2>&1; done
done
for f in "$state"/pids/containerd-*.pid; do [ -e "$f" ] && stop "$(basename "$f" .pid)"; done
for p in kube-scheduler kube-controller-manager api-outside api-inside kube-apiserver etcd; do stop "$p"; done
if [ ${#alive[@]} -gt 0 ]; then
  echo "k8s-down: still running: ${alive[*]}; nothing removed, run it again" >&2
  exit 1
fi
# Mounts the kubelets and containerds made under the cluster's directory.
if [ -d "$state" ]; then
  awk -v s="$state" 'index($2, s) == 1 {print $2}' /proc/self/mounts | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m"
  done
fi
# The pods' cgroups (kubelet's cgroupfs driver names them kubepods*), under
# / for the first node and under each other node's own root.
roots=(/)
if [ -f "$state/cgroup-roots" ]; then mapfile -t -O 1 roots <"$state/cgroup-roots"; fi
for h in /sys/fs/cgroup/*/; do
  for r in "${roots[@]}"; do
    [ -n "$r" ] || continue
    d=${h%/}${r%/}
    [ -d "$d/kubepods" ] && find "$d/kubepods" -depth -type d -exec rmdir {} \; 2>/dev/null
    [ "$r" != / ] && [ -d "$d" ] && rmdir "$d" 2>/dev/null
  done
done
namespaces=()
if [ -f "$state/namespaces" ]; then mapfile -t namespaces <"$state/namespaces"; fi
for n in "${namespaces[@]}"; do ip netns del "$n" 2>/dev/null; done
left=$(awk -v s="$state" 'index($2, s) == 1' /proc/self/mounts)
for h in /sys/fs/cgroup/*/; do
  for r in "${roots[@]}"; do
    [ -n "$r" ] && [ -d "${h%/}${r%/}/kubepods" ] && left+=$'\n'"cgroup ${h%/}${r%/}/kubepods"
  done
done
for n in "${namespaces[@]}"; do
  [ -e "/run/netns/$n" ] && left+=$'\n'"namespace $n"
done
# The host ends of the nodes' veth pairs go with their namespaces, a moment
# after them (the kernel removes a namespace's devices in the background).
host_links() { ip -o link show | awk -F': ' '$2 ~ /^gwbk8s-h/ {sub(/@.*/, "", $2); print $2}'; }
for _ in $(seq 1 50); do
  [ -z "$(host_links)" ] && break
  sleep 0.1
done
for l in $(host_links); do
  left+=$'\n'"link $l"
done
if [ -n "$left" ]; then
  echo "k8s-down: left behind:$left" >&2
  exit 1
fi
rm -rf "$state"
echo "k8s-down: nothing left of the cluster" >&2
