package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestKubernetesClusterScripts (issue 65): scripts/k8s-up.sh brings a real
// single-node cluster up in its own network namespace; a Guaranteed pod of
// one whole CPU on the host's network is scheduled there and gets that CPU
// to itself (the static CPU manager: its container's cpuset is one CPU the
// shared pool lacks); scripts/k8s-down.sh then leaves no process it
// started, no mount, pod cgroup or namespace. It needs root, Docker (the
// sandbox image is built with it) and the binaries of scripts/k8s-build.sh
// (about 5 minutes cold), so it runs only with GATEWAYBENCH_K8S=1.
func TestKubernetesClusterScripts(t *testing.T) {
	if os.Getenv("GATEWAYBENCH_K8S") != "1" {
		t.Skip("set GATEWAYBENCH_K8S=1 to bring a real cluster up (scripts/k8s-up.sh)")
	}
	state := filepath.Join(t.TempDir(), "k8s")
	env := append(os.Environ(), "GATEWAYBENCH_K8S_STATE="+state)
	script := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join("..", "scripts", name), args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		return string(out)
	}
	bin := strings.TrimSpace(script("k8s-build.sh"))
	script("k8s-up.sh")
	pids, _ := filepath.Glob(filepath.Join(state, "pids", "*.pid"))
	var started []string
	for _, f := range pids {
		b, _ := os.ReadFile(f)
		started = append(started, strings.TrimSpace(string(b)))
	}
	downed := false
	t.Cleanup(func() {
		if !downed {
			script("k8s-down.sh")
		}
	})
	kubectl := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(filepath.Join(bin, "kubectl"), append([]string{"--kubeconfig", filepath.Join(state, "kubeconfig")}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	pod := `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "one-core"},
	 "spec": {"hostNetwork": true, "restartPolicy": "Never", "automountServiceAccountToken": false,
	  "containers": [{"name": "pause", "image": "docker.io/gatewaybench/pause:3.10", "imagePullPolicy": "Never",
	   "resources": {"requests": {"cpu": "1", "memory": "64Mi"}, "limits": {"cpu": "1", "memory": "64Mi"}}}]}}`
	manifest := filepath.Join(t.TempDir(), "pod.json")
	if err := os.WriteFile(manifest, []byte(pod), 0o644); err != nil {
		t.Fatal(err)
	}
	kubectl("apply", "-f", manifest)
	kubectl("wait", "--for=condition=Ready", "pod/one-core", "--timeout=120s")
	var got struct {
		Metadata struct{ UID string }
		Spec     struct{ NodeName string }
		Status   struct {
			QOSClass          string
			ContainerStatuses []struct{ ContainerID string }
		}
	}
	if err := json.Unmarshal([]byte(kubectl("get", "pod/one-core", "-o", "json")), &got); err != nil {
		t.Fatal(err)
	}
	if got.Status.QOSClass != "Guaranteed" || got.Spec.NodeName == "" || len(got.Status.ContainerStatuses) != 1 {
		t.Fatalf("pod: %+v", got)
	}
	id := strings.TrimPrefix(got.Status.ContainerStatuses[0].ContainerID, "containerd://")
	cpus, err := os.ReadFile(filepath.Join("/sys/fs/cgroup/cpuset/kubepods", "pod"+got.Metadata.UID, id, "cpuset.cpus"))
	if err != nil {
		t.Fatal(err)
	}
	var cm struct{ DefaultCpuSet string }
	b, err := os.ReadFile(filepath.Join(state, "kubelet", "root", "cpu_manager_state"))
	if err == nil {
		err = json.Unmarshal(b, &cm)
	}
	if err != nil {
		t.Fatal(err)
	}
	own := strings.TrimSpace(string(cpus))
	t.Logf("pod on node %s, container %.12s: cpuset %s; the shared pool %s", got.Spec.NodeName, id, own, cm.DefaultCpuSet)
	if strings.ContainsAny(own, ",-") || own == cm.DefaultCpuSet || strings.Contains(cm.DefaultCpuSet, own) {
		t.Errorf("the Guaranteed pod's cpuset %q is not one CPU of its own (shared pool %q)", own, cm.DefaultCpuSet)
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
	if _, err := os.Stat(filepath.Join("/sys/fs/cgroup/cpuset/kubepods", "pod"+got.Metadata.UID)); err == nil {
		t.Error("the pod's cgroup is left")
	}
	if _, err := os.Stat("/run/netns/gwb-k8s"); err == nil {
		t.Error("the network namespace gwb-k8s is left")
	}
}
