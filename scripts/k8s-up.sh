#!/usr/bin/env bash
# A real Kubernetes cluster on this machine, for runner apply's Kubernetes
# engine (issue 65): etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler and one or two nodes, each a kubelet with the static CPU
# manager policy and its own containerd in a network namespace this script
# makes (node 1, with the control plane: gwb-k8s, 198.18.0.11 on its
# loopback; node 2: gwb-k8s-2, 198.18.0.12, joined to the first by a veth
# pair; traffic here may go to loopback or into namespaces the project
# makes, and kubelet refuses a loopback node address). Node 1 keeps CPU 0
# for the system and gives CPU 1 to Guaranteed pods, node 2 the other way
# round, so pods on the two nodes never share a core. The host reaches each
# node's address over a veth pair (host end 198.18.0.1). The API server is reached from the host at
# https://127.0.0.1:6443 through a Unix socket (socat on either side: a
# socket file crosses namespaces). The kubeconfig is written to
# $GATEWAYBENCH_K8S_STATE/kubeconfig (default /var/lib/gatewaybench-k8s); scripts/k8s-down.sh stops and removes it all.
#
#   scripts/k8s-up.sh                            one node
#   GATEWAYBENCH_K8S_NODES=2 scripts/k8s-up.sh   two
#
# Binaries from scripts/k8s-build.sh (cached by version); containerd, runc,
# the CNI plugins, socat and openssl from Debian.
set -euo pipefail
cd "$(dirname "$0")/.."
state=${GATEWAYBENCH_K8S_STATE:-/var/lib/gatewaybench-k8s}
ns=gwb-k8s ip=198.18.0.11 port=6443
nodes=${GATEWAYBENCH_K8S_NODES:-1}
# A Unix socket's path holds at most 107 bytes: the deepest one here is
# containerd's, 50 bytes below the state directory (a longer one hung each
# `ctr version` until its timeout, seen from a test's temporary directory).
sock_tail=/nodes/gwb-node-1/containerd/containerd.sock.ttrpc
if [ $((${#state} + ${#sock_tail})) -gt 107 ]; then
  echo "k8s-up: GATEWAYBENCH_K8S_STATE=$state is too long for containerd's socket ($state$sock_tail > 107 bytes): take a shorter directory" >&2
  exit 2
fi
case $nodes in
  1 | 2) ;;
  *) echo "k8s-up: GATEWAYBENCH_K8S_NODES=$nodes: 1 or 2 (a node per CPU of this 2-CPU machine)" >&2; exit 2 ;;
esac
if [ -e "$state/pids" ]; then
  echo "k8s-up: $state/pids exists: a cluster is up or was left; run scripts/k8s-down.sh first" >&2
  exit 1
fi
began=$(date +%s)
need=()
for p in containerd:containerd runc:runc socat:socat openssl:openssl; do
  command -v "${p%%:*}" >/dev/null || need+=("${p#*:}")
done
[ -x /usr/lib/cni/loopback ] || need+=(containernetworking-plugins)
if [ ${#need[@]} -gt 0 ]; then
  apt-get install -y --no-install-recommends "${need[@]}" >&2
fi
bin=$(scripts/k8s-build.sh)
mkdir -p "$state"/{pids,logs,pki,etcd}
# start NAME CMD...: in a node's namespace, in the background, its pid and log
# kept. nsenter and setsid each exec the next program (no fork: one
# namespace, and a background job is no group leader), so $! is the
# program's own pid, which k8s-down.sh stops; checked, since a wrapper's
# pid would leave the program running.
start() { # [-n NAMESPACE] NAME CMD... (default: node 1's namespace)
  local in=$ns name pid
  if [ "$1" = -n ]; then in=$2; shift 2; fi
  name=$1
  shift
  nsenter --net="/run/netns/$in" setsid "$@" >"$state/logs/$name.log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$state/pids/$name.pid"
  for _ in $(seq 1 50); do
    [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$(readlink -f "$(command -v "$1")")" ] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "k8s-up: $name (pid $pid) is not $1; logs in $state/logs/$name.log" >&2
  exit 1
}
# wait_for WHAT SECONDS CMD...: until CMD succeeds, or fail saying WHAT and the log to read
wait_for() {
  local what=$1 secs=$2
  shift 2
  for _ in $(seq 1 "$secs"); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 1
  done
  echo "k8s-up: $what not ready after ${secs}s; logs in $state/logs/" >&2
  exit 1
}

# The namespaces and their addresses (each recorded first, for k8s-down.sh).
echo "$ns" >>"$state/namespaces"
ip netns add "$ns"
ip -n "$ns" link set lo up
ip -n "$ns" addr add "$ip/32" dev lo
if [ "$nodes" = 2 ]; then
  echo "$ns-2" >>"$state/namespaces"
  ip netns add "$ns-2"
  ip -n "$ns-2" link set lo up
  ip -n "$ns-2" addr add 198.18.0.12/32 dev lo
  ip link add gwbk8s-1 netns "$ns" type veth peer name gwbk8s-2 netns "$ns-2"
  ip -n "$ns" link set gwbk8s-1 up
  ip -n "$ns-2" link set gwbk8s-2 up
  ip -n "$ns" route add 198.18.0.12/32 dev gwbk8s-1 src "$ip"
  ip -n "$ns-2" route add "$ip/32" dev gwbk8s-2 src 198.18.0.12
fi
# The host reaches each node's address over a veth pair of its own (host
# end 198.18.0.1): the runner's drivers send there. Without it a packet to
# 198.18.0.11 would follow the host's default route off the machine.
# Deleting a namespace deletes its veth, and the host end and route with it.
host_link() { # NODE-NAMESPACE NODE-ADDRESS N
  ip link add "gwbk8s-h$3" type veth peer name gwbk8s-n netns "$1"
  ip addr add 198.18.0.1/32 dev "gwbk8s-h$3"
  ip link set "gwbk8s-h$3" up
  ip route add "$2/32" dev "gwbk8s-h$3" src 198.18.0.1
  ip -n "$1" link set gwbk8s-n up
  ip -n "$1" route add 198.18.0.1/32 dev gwbk8s-n src "$2"
}
host_link "$ns" "$ip" 1
[ "$nodes" = 2 ] && host_link "$ns-2" 198.18.0.12 2

# Certificates: one CA signs the API server's serving certificate and each
# client's (admin, controller-manager, scheduler, the node, the API server
# as the kubelet's client); the service accounts' signing key beside them.
pki=$state/pki
openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=gatewaybench-k8s-ca \
  -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
cert() { # NAME SUBJECT [SAN]
  openssl req -newkey rsa:2048 -nodes -subj "$2" -keyout "$pki/$1.key" -out "$pki/$1.csr" 2>/dev/null
  local ext=$pki/$1.ext
  if [ -n "${3:-}" ]; then
    printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n' "$3" >"$ext"
  else
    printf 'extendedKeyUsage=clientAuth\n' >"$ext"
  fi
  openssl x509 -req -in "$pki/$1.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 30 -extfile "$ext" -out "$pki/$1.crt" 2>/dev/null
}
cert apiserver /CN=kube-apiserver \
  "IP:$ip,IP:127.0.0.1,IP:10.96.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
cert admin "/O=system:masters/CN=gatewaybench-admin"
cert controller-manager /CN=system:kube-controller-manager
cert scheduler /CN=system:kube-scheduler
cert apiserver-kubelet "/O=system:masters/CN=kube-apiserver-kubelet-client"
openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
kubeconfig() { # FILE USER SERVER
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: gatewaybench
  cluster:
    certificate-authority: $pki/ca.crt
    server: $3
users:
- name: $2
  user:
    client-certificate: $pki/$2.crt
    client-key: $pki/$2.key
contexts:
- name: gatewaybench
  context: {cluster: gatewaybench, user: $2}
current-context: gatewaybench
EOF
}
for u in controller-manager scheduler; do kubeconfig "$state/$u.kubeconfig" "$u" "https://$ip:$port"; done
kubeconfig "$state/kubeconfig" admin "https://127.0.0.1:$port"

# The control plane.
start etcd "$bin/etcd" --name gwb-etcd --data-dir "$state/etcd" \
  --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
  --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
  --initial-cluster "gwb-etcd=http://127.0.0.1:2380"
start kube-apiserver "$bin/kube-apiserver" --etcd-servers=http://127.0.0.1:2379 \
  --bind-address="$ip" --advertise-address="$ip" --secure-port="$port" \
  --service-cluster-ip-range=10.96.0.0/24 \
  --client-ca-file="$pki/ca.crt" --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
  --kubelet-client-certificate="$pki/apiserver-kubelet.crt" --kubelet-client-key="$pki/apiserver-kubelet.key" \
  --kubelet-certificate-authority="$pki/ca.crt" --kubelet-preferred-address-types=InternalIP \
  --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
  --service-account-issuer=https://kubernetes.default.svc \
  --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction
# The host's way in: 127.0.0.1:6443 -> a socket file -> the API server in the namespace.
start api-inside socat "UNIX-LISTEN:$state/api.sock,fork,unlink-early" "TCP:$ip:$port"
setsid socat "TCP-LISTEN:$port,bind=127.0.0.1,fork,reuseaddr" "UNIX-CONNECT:$state/api.sock" \
  >"$state/logs/api-outside.log" 2>&1 </dev/null &
echo $! >"$state/pids/api-outside.pid"
kubectl=("$bin/kubectl" --kubeconfig "$state/kubeconfig")
wait_for "kube-apiserver" 90 "${kubectl[@]}" get --raw /readyz
start kube-controller-manager "$bin/kube-controller-manager" --kubeconfig="$state/controller-manager.kubeconfig" \
  --authentication-kubeconfig="$state/controller-manager.kubeconfig" --authorization-kubeconfig="$state/controller-manager.kubeconfig" \
  --bind-address=127.0.0.1 --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
  --cluster-signing-cert-file="$pki/ca.crt" --cluster-signing-key-file="$pki/ca.key" \
  --use-service-account-credentials=true --allocate-node-cidrs=false --leader-elect=false
start kube-scheduler "$bin/kube-scheduler" --kubeconfig="$state/scheduler.kubeconfig" \
  --authentication-kubeconfig="$state/scheduler.kubeconfig" --authorization-kubeconfig="$state/scheduler.kubeconfig" \
  --bind-address=127.0.0.1 --leader-elect=false

# The sandbox image, built once from Kubernetes' own pause.c: no registry.
if ! docker image inspect gatewaybench/pause:3.10 >/dev/null 2>&1; then
  pausec=$(go env GOMODCACHE)/k8s.io/kubernetes@$("$bin/kubelet" --version | awk '{print $2}')/build/pause/linux/pause.c
  work=$(mktemp -d)
  gcc -static -O2 -o "$work/pause" "$pausec"
  printf 'FROM scratch\nCOPY pause /pause\nENTRYPOINT ["/pause"]\n' >"$work/Dockerfile"
  docker build -q -t gatewaybench/pause:3.10 "$work" >/dev/null
  rm -rf "$work"
fi
docker save -o "$state/pause.tar" gatewaybench/pause:3.10

# node_up I: node I's runtime and kubelet in its namespace. Debian's
# containerd with a root, state and socket of its own
# (../shared/kubernetes-notes.md: each setting below was seen failing
# without it); the kubelet with the static CPU manager (whole cores for
# Guaranteed pods), one CPU reserved for the system, and after the first
# node a cgroup root of its own, so two kubelets do not share /kubepods.
node_up() {
  local i=$1 name=gwb-node-$1 in=$ns nip=$ip reserved=0 root=/ dir h
  if [ "$i" = 2 ]; then
    in=$ns-2 nip=198.18.0.12 reserved=1 root=/$name
  fi
  dir=$state/nodes/$name
  mkdir -p "$dir"/{containerd/root,containerd/state,cni,kubelet,manifests}
  cert "node-$i" "/O=system:nodes/CN=system:node:$name"
  cert "kubelet-serving-$i" "/CN=$name" "IP:$nip,DNS:$name"
  kubeconfig "$dir/node.kubeconfig" "node-$i" "https://$ip:$port"
  cat >"$dir/containerd/config.toml" <<EOF
version = 2
root = "$dir/containerd/root"
state = "$dir/containerd/state"
[grpc]
  address = "$dir/containerd/containerd.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "gatewaybench/pause:3.10"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$dir/cni"
EOF
  # Pods here use the host's (the namespace's) network; a loopback-only
  # network lets the runtime report its network ready.
  cat >"$dir/cni/10-loopback.conflist" <<'EOF'
{"cniVersion": "0.4.0", "name": "gatewaybench", "plugins": [{"type": "loopback"}]}
EOF
  start -n "$in" "containerd-$i" containerd --config "$dir/containerd/config.toml"
  local ctr=(ctr --address "$dir/containerd/containerd.sock" -n k8s.io)
  wait_for "containerd of $name" 30 "${ctr[@]}" version
  "${ctr[@]}" images import "$state/pause.tar" >/dev/null
  if [ "$root" != / ]; then
    echo "$root" >>"$state/cgroup-roots"
    for h in /sys/fs/cgroup/*/; do
      if [ -e "${h}cgroup.procs" ]; then mkdir -p "${h%/}$root"; fi
    done
    # a v1 cpuset cgroup takes no task until it has CPUs and memory nodes
    cp /sys/fs/cgroup/cpuset/cpuset.cpus "/sys/fs/cgroup/cpuset$root/cpuset.cpus"
    cp /sys/fs/cgroup/cpuset/cpuset.mems "/sys/fs/cgroup/cpuset$root/cpuset.mems"
  fi
  cat >"$dir/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $nip
authentication:
  x509: {clientCAFile: $pki/ca.crt}
  webhook: {enabled: true}
  anonymous: {enabled: false}
authorization: {mode: Webhook}
cgroupDriver: cgroupfs
cgroupRoot: $root
containerRuntimeEndpoint: unix://$dir/containerd/containerd.sock
cpuManagerPolicy: static
# The shared pool's pods (the mock) leave a core the moment a Guaranteed
# pod takes it, not up to 10 s later (the default period).
cpuManagerReconcilePeriod: 1s
reservedSystemCPUs: "$reserved"
failSwapOn: false
tlsCertFile: $pki/kubelet-serving-$i.crt
tlsPrivateKeyFile: $pki/kubelet-serving-$i.key
staticPodPath: $dir/manifests
EOF
  start -n "$in" "kubelet-$i" "$bin/kubelet" --config="$dir/kubelet/config.yaml" --kubeconfig="$dir/node.kubeconfig" \
    --root-dir="$dir/kubelet/root" --cert-dir="$dir/kubelet/pki" --node-ip="$nip" --hostname-override="$name"
}
for i in $(seq 1 "$nodes"); do node_up "$i"; done
for i in $(seq 1 "$nodes"); do
  wait_for "node gwb-node-$i Ready" 120 "${kubectl[@]}" wait --for=condition=Ready "node/gwb-node-$i" --timeout=1s
done
# Pods are refused until the controller-manager has made the namespace's
# service account (seen: "serviceaccount \"default\" not found").
wait_for "the default service account" 60 "${kubectl[@]}" -n default get serviceaccount default
echo "k8s-up: $nodes node(s) Ready in $(($(date +%s) - began)) s; KUBECONFIG=$state/kubeconfig" >&2
