package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestKubernetesClusterScripts (issue 65): scripts/k8s-up.sh brings a real
// cluster of one node, then of two, up in network namespaces of its own; a
// Guaranteed pod of one whole CPU on the host's network is placed on each
// node by the scheduler and gets that CPU to itself (the static CPU
// manager: its container's cpuset is one CPU its node's shared pool lacks,
// and the two nodes' pods are on different CPUs); scripts/k8s-down.sh then
// leaves no process it started, no mount, pod cgroup or namespace. It needs
// root, Docker (the sandbox image is built with it) and the binaries of
// scripts/k8s-build.sh (about 5 minutes cold), so it runs only with
// GATEWAYBENCH_K8S=1.
func TestKubernetesClusterScripts(t *testing.T) {
	if os.Getenv("GATEWAYBENCH_K8S") != "1" {
		t.Skip("set GATEWAYBENCH_K8S=1 to bring a real cluster up (scripts/k8s-up.sh)")
	}
	for _, nodes := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d nodes", nodes), func(t *testing.T) { cluster(t, nodes) })
	}
}

func cluster(t *testing.T, nodes int) {
	// Short: containerd's socket path, under it, has to fit in 107 bytes
	// (t.TempDir's did not; k8s-up.sh now says so).
	state, err := os.MkdirTemp("", "gwbk8s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(state) })
	env := append(os.Environ(), "GATEWAYBENCH_K8S_STATE="+state, "GATEWAYBENCH_K8S_NODES="+strconv.Itoa(nodes))
	script := func(name string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join("..", "scripts", name))
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		return string(out)
	}
	bin := strings.TrimSpace(script("k8s-build.sh"))
	downed := false
	t.Cleanup(func() { // before up: a failed start is taken down too
		if !downed {
			script("k8s-down.sh")
		}
	})
	script("k8s-up.sh")
	pids, _ := filepath.Glob(filepath.Join(state, "pids", "*.pid"))
	var started []string
	for _, f := range pids {
		b, _ := os.ReadFile(f)
		started = append(started, strings.TrimSpace(string(b)))
	}
	kubectl := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(filepath.Join(bin, "kubectl"), append([]string{"--kubeconfig", filepath.Join(state, "kubeconfig")}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	var cgroups []string
	cpusSeen := map[string]string{}
	for i := 1; i <= nodes; i++ {
		node := fmt.Sprintf("gwb-node-%d", i)
		pod := fmt.Sprintf(`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "one-core-%d"},
		 "spec": {"hostNetwork": true, "restartPolicy": "Never", "automountServiceAccountToken": false,
		  "nodeSelector": {"kubernetes.io/hostname": %q},
		  "containers": [{"name": "pause", "image": "docker.io/gatewaybench/pause:3.10", "imagePullPolicy": "Never",
		   "resources": {"requests": {"cpu": "1", "memory": "64Mi"}, "limits": {"cpu": "1", "memory": "64Mi"}}}]}}`, i, node)
		manifest := filepath.Join(t.TempDir(), "pod.json")
		if err := os.WriteFile(manifest, []byte(pod), 0o644); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("pod/one-core-%d", i)
		kubectl("apply", "-f", manifest)
		kubectl("wait", "--for=condition=Ready", name, "--timeout=120s")
		var got struct {
			Metadata struct{ UID string }
			Spec     struct{ NodeName string }
			Status   struct {
				QOSClass          string
				ContainerStatuses []struct{ ContainerID string }
			}
		}
		if err := json.Unmarshal([]byte(kubectl("get", name, "-o", "json")), &got); err != nil {
			t.Fatal(err)
		}
		if got.Status.QOSClass != "Guaranteed" || got.Spec.NodeName != node || len(got.Status.ContainerStatuses) != 1 {
			t.Fatalf("%s: %+v", name, got)
		}
		root := "/sys/fs/cgroup/cpuset"
		if i > 1 {
			root = filepath.Join(root, node) // a node after the first has a cgroup root of its own
		}
		podDir := filepath.Join(root, "kubepods", "pod"+got.Metadata.UID)
		cgroups = append(cgroups, podDir)
		id := strings.TrimPrefix(got.Status.ContainerStatuses[0].ContainerID, "containerd://")
		cpus, err := os.ReadFile(filepath.Join(podDir, id, "cpuset.cpus"))
		if err != nil {
			t.Fatal(err)
		}
		var cm struct{ DefaultCpuSet string }
		b, err := os.ReadFile(filepath.Join(state, "nodes", node, "kubelet", "root", "cpu_manager_state"))
		if err == nil {
			err = json.Unmarshal(b, &cm)
		}
		if err != nil {
			t.Fatal(err)
		}
		own := strings.TrimSpace(string(cpus))
		t.Logf("%s on %s, container %.12s: cpuset %s; the node's shared pool %s", name, node, id, own, cm.DefaultCpuSet)
		if strings.ContainsAny(own, ",-") || strings.Contains(cm.DefaultCpuSet, own) {
			t.Errorf("%s's cpuset %q is not one CPU of its own (shared pool %q)", name, own, cm.DefaultCpuSet)
		}
		if other, ok := cpusSeen[own]; ok {
			t.Errorf("%s and %s were both given CPU %s", other, name, own)
		}
		cpusSeen[own] = name
	}
	if nodes == 1 {
		for i := 1; i <= nodes; i++ { // their cores, given back for the engine's gateway
			kubectl("delete", fmt.Sprintf("pod/one-core-%d", i), "--wait=true")
		}
		engineApply(t, state, kubectl)
	}
	downed = true
	script("k8s-down.sh")
	for _, pid := range started {
		if b, err := os.ReadFile("/proc/" + pid + "/status"); err == nil && !strings.Contains(string(b), "\tZ") {
			t.Errorf("pid %s, started by k8s-up.sh, still runs", pid)
		}
	}
	if b, _ := os.ReadFile("/proc/self/mounts"); strings.Contains(string(b), state) {
		t.Errorf("mounts left under %s", state)
	}
	for _, c := range cgroups {
		if _, err := os.Stat(c); err == nil {
			t.Errorf("a pod's cgroup is left: %s", c)
		}
	}
	for _, ns := range []string{"gwb-k8s", "gwb-k8s-2"} {
		if _, err := os.Stat("/run/netns/" + ns); err == nil {
			t.Errorf("the network namespace %s is left", ns)
		}
	}
}

// engineApply (issue 65): runner apply with the Kubernetes engine on the
// cluster of one node just brought up. A plan the cluster cannot run (the
// freezer) is refused before any API request: its namespace is never
// made. Then nginx and the mock run as pods on node 1, the driver on this
// machine and then as pods too, every row ok, each naming the node and the
// cores read back from the pods' cgroups: the gateway's CPU 1 to itself
// (Guaranteed), the mock in the shared pool, CPU 0; and teardown leaves no
// pod or ConfigMap of the runs.
func engineApply(t *testing.T, state string, kubectl func(...string) string) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "runner")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	hcl := func(namespace, isolation, driver string) string {
		return fmt.Sprintf(`
defaults {
  allow_host_paths = [%[1]q]
  starts = 2
  trials = 1
  warmup = "300ms"
  duration = "1s"
  settle = "200ms"
  isolation = %[4]q
}
engine "cluster" {
  address = "198.18.0.11"
  kubernetes {
    kubeconfig = %[2]q
    namespace = %[3]q
    node_selector = { "kubernetes.io/hostname" = "gwb-node-1" }
    shared = ["mock", "driver"]
    load = [%[5]q]
  }
}
placement {
  driver = %[8]q
  mock = "cluster"
  gateway = "cluster"
}
cpus {
  driver = "0"
  mock = "0"
  gateway = "1"
}
memory {
  mock = "256MiB"
  gateway = "256MiB"
}
gateway "nginx" {
  compose = %[6]q
  service = "nginx"
  class = "proxy"
  port = 18081
  api = ["openai"]
  prepare = [%[7]q]
}
scenario "overhead" {
  kind = "overhead"
  concurrency = [1]
  mock {
    ttft = "0s"
    itl = "0s"
  }
}
`, repo, filepath.Join(state, "kubeconfig"), namespace, isolation, filepath.Join(repo, "scripts", "k8s-load.sh"),
			filepath.Join(repo, "compose", "nginx.yaml"), filepath.Join(repo, "gateways", "nginx", "prepare.sh"), driver)
	}
	apply := func(name, src string) (string, string, error) {
		file := filepath.Join(dir, name+".hcl")
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "apply", "--results", filepath.Join(dir, name), file)
		cmd.Env = append(os.Environ(), "GATEWAYBENCH_K8S_STATE="+state)
		out, err := cmd.CombinedOutput()
		return string(out), file, err
	}
	if out, _, err := apply("refused", hcl("gwb-refused", "freeze", "local")); err == nil || !strings.Contains(out, "No freezer on a cluster") {
		t.Errorf("a plan with the freezer on a cluster: %v\n%s", err, out)
	}
	if out := kubectl("get", "namespaces", "-o", "name"); strings.Contains(out, "gwb-refused") {
		t.Errorf("the refused plan reached the API: its namespace exists\n%s", out)
	}
	for _, driver := range []string{"local", "cluster"} {
		engineRows(t, apply, hcl("gwb-test", "none", driver), driver)
	}
	if left := kubectl("get", "pods,configmaps", "-n", "gwb-test", "-l", "gatewaybench.run", "-o", "name"); strings.TrimSpace(left) != "" {
		t.Errorf("left after the run:\n%s", left)
	}
}

// engineRows runs one plan on the cluster (the driver on this machine, or
// pods of its own on the node, given their job as a ConfigMap) and checks
// every row: ok, the engines, the node and the cores read back.
func engineRows(t *testing.T, apply func(name, src string) (string, string, error), src, driver string) {
	t.Helper()
	out, file, err := apply("ok-driver-"+driver, src)
	if err != nil {
		t.Fatalf("runner apply: %v\n%s", err, out)
	}
	f, err := os.Open(filepath.Join(filepath.Dir(file), "ok-driver-"+driver, "overhead.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 5 { // the header, two arms in two starts
		t.Fatalf("overhead.csv: %d lines, %v\n%s", len(rows), err, out)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	for _, r := range rows[1:] {
		get := func(c string) string { return r[col[c]] }
		want := map[string]string{"status": "ok", "cpus_mock": "0", "engines": "driver=" + driver + " mock=cluster gateway=cluster"}
		if get("gateway") == "nginx" {
			want["nodes"], want["cpus_gateway"] = "mock=gwb-node-1 gateway=gwb-node-1", "1"
		} else {
			want["nodes"] = "mock=gwb-node-1"
		}
		for c, w := range want {
			if get(c) != w {
				t.Errorf("%s, start %s: %s = %q, want %q", get("gateway"), get("start"), c, get(c), w)
			}
		}
	}
}
