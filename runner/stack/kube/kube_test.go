package kube

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	stackfake "github.com/gatewaybench/gatewaybench/runner/stack/fake"
)

func options() Options {
	return Options{
		Kubernetes: config.Kubernetes{Namespace: "gb", NodeSelector: map[string]string{"kubernetes.io/hostname": "node-1"},
			Shared: []string{stack.RoleMock}, Load: []string{"true"}},
		Builder: &stackfake.Engine{},
	}
}

func spec(t *testing.T) stack.ContainerSpec {
	dir := t.TempDir()
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte("events {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return stack.ContainerSpec{
		Name: "gatewaybench-20261206t000000-abcdef-nginx", NetworkMode: stack.HostNetwork, Image: "gatewaybench/nginx:debian-1.22",
		Entrypoint: []string{"nginx"}, Cmd: []string{"-g", "daemon off;"}, Env: []string{"A=1=2"},
		Binds: []string{conf + ":/etc/nginx/nginx.conf:ro"}, CPUSet: "1", MemoryBytes: 2 << 30,
		Labels: map[string]string{stack.LabelRun: "20261206t000000-abcdef", stack.LabelRole: stack.RoleGateway, stack.LabelStack: "nginx"},
	}
}

// TestRefusedBeforeAnyRequest: what a pod cannot honour is refused at
// Create, and the cluster is never asked anything.
func TestRefusedBeforeAnyRequest(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "tree", "sub"), 0o755)
	for name, edit := range map[string]func(*stack.ContainerSpec){
		"bridge network":      func(s *stack.ContainerSpec) { s.NetworkMode = "bridge" },
		"ulimits":             func(s *stack.ContainerSpec) { s.Hardening.Ulimits = []stack.Ulimit{{Name: "nofile", Soft: 1, Hard: 1}} },
		"pids limit":          func(s *stack.ContainerSpec) { s.Hardening.PidsLimit = 100 },
		"oom score":           func(s *stack.ContainerSpec) { s.Hardening.OomScoreAdj = -500 },
		"named user":          func(s *stack.ContainerSpec) { s.Hardening.User = "nobody" },
		"no memory limit":     func(s *stack.ContainerSpec) { s.MemoryBytes = 0 },
		"no cpuset":           func(s *stack.ContainerSpec) { s.CPUSet = "" },
		"host path: a tree":   func(s *stack.ContainerSpec) { s.Binds = []string{filepath.Join(dir, "tree") + ":/x"} },
		"host path: a device": func(s *stack.ContainerSpec) { s.Binds = []string{"/dev/null:/x"} },
		"host path: missing":  func(s *stack.ContainerSpec) { s.Binds = []string{filepath.Join(dir, "none") + ":/x"} },
		"bad label":           func(s *stack.ContainerSpec) { s.Labels["x"] = "has space" },
	} {
		cs := fake.NewClientset()
		e := With(cs, options())
		s := spec(t)
		edit(&s)
		if _, err := e.Create(context.Background(), s); err == nil {
			t.Errorf("%s: created", name)
		}
		if a := cs.Actions(); len(a) != 0 {
			t.Errorf("%s: %d API requests (%v)", name, len(a), a[0])
		}
	}
}

// TestPodOf: the pod a gateway gets (host network, its node, Guaranteed
// whole CPUs, its config as a ConfigMap, no pulls) and a shared role's.
func TestPodOf(t *testing.T) {
	e := With(fake.NewClientset(), options())
	p, err := e.podOf(spec(t))
	if err != nil {
		t.Fatal(err)
	}
	pod, c := p.pod, p.pod.Spec.Containers[0]
	for _, ck := range []struct {
		what     string
		got, exp any
	}{
		{"name", pod.Name, "gatewaybench-20261206t000000-abcdef-nginx"},
		{"host network", pod.Spec.HostNetwork, true},
		{"node", pod.Spec.NodeSelector["kubernetes.io/hostname"], "node-1"},
		{"restart", pod.Spec.RestartPolicy, corev1.RestartPolicyNever},
		{"pull", c.ImagePullPolicy, corev1.PullNever},
		{"command", strings.Join(c.Command, " ") + "|" + strings.Join(c.Args, " "), "nginx|-g daemon off;"},
		{"env", c.Env[0].Name + "=" + c.Env[0].Value, "A=1=2"},
		{"cpu request", c.Resources.Requests.Cpu().String(), "1"},
		{"cpu limit", c.Resources.Limits.Cpu().String(), "1"},
		{"memory limit", c.Resources.Limits.Memory().Value(), int64(2 << 30)},
		{"memory request", c.Resources.Requests.Memory().Value(), int64(2 << 30)},
		{"config", string(p.maps[0].BinaryData["file"]), "events {}\n"},
		{"mount", c.VolumeMounts[0].MountPath + " " + c.VolumeMounts[0].SubPath, "/etc/nginx/nginx.conf file"},
		{"configmap's pod", p.maps[0].Labels[labelPod], pod.Name},
	} {
		if ck.got != ck.exp {
			t.Errorf("%s = %v, want %v", ck.what, ck.got, ck.exp)
		}
	}
	s := spec(t)
	s.Labels[stack.LabelRole], s.CPUSet = stack.RoleMock, "0"
	if p, err = e.podOf(s); err != nil {
		t.Fatal(err)
	}
	r := p.pod.Spec.Containers[0].Resources
	if !r.Limits.Cpu().IsZero() || !r.Requests.Cpu().IsZero() {
		t.Errorf("a shared role's CPU: requests %v, limits %v; want none (Burstable, the node's pool)", r.Requests.Cpu(), r.Limits.Cpu())
	}
}

// TestLifecycle: Start submits the ConfigMap and the pod and returns once
// the kubelet reports the container running; Inspect reads the node;
// RemoveByLabel deletes both and waits for the pod to go.
func TestLifecycle(t *testing.T) {
	cs := fake.NewClientset()
	// The fake has no kubelet: a pod is placed and running once created.
	cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pod := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		pod.Spec.NodeName = "node-1"
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", ContainerID: "containerd://abc",
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(time.Unix(1e9, 0))}}}}
		return false, nil, nil
	})
	e := With(cs, options())
	ctx := context.Background()
	id, err := e.Create(ctx, spec(t))
	if err != nil {
		t.Fatal(err)
	}
	if st, err := e.Inspect(ctx, id); err != nil || st.Running || st.Name != spec(t).Name {
		t.Errorf("created, not started: %+v, %v", st, err)
	}
	if err := e.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	st, err := e.Inspect(ctx, id)
	if err != nil || !st.Running || st.Node != "node-1" || !st.HostNet || st.Labels[stack.LabelStack] != "nginx" {
		t.Errorf("started: %+v, %v", st, err)
	}
	if ids, _ := e.Containers(ctx, stack.LabelRun, "20261206t000000-abcdef"); len(ids) != 1 {
		t.Errorf("containers of the run: %v", ids)
	}
	if n, err := e.RemoveByLabel(ctx, stack.LabelRun, "20261206t000000-abcdef"); n != 1 || err != nil {
		t.Errorf("removed %d, %v", n, err)
	}
	pods, _ := cs.CoreV1().Pods("gb").List(ctx, metav1.ListOptions{})
	maps, _ := cs.CoreV1().ConfigMaps("gb").List(ctx, metav1.ListOptions{})
	if len(pods.Items)+len(maps.Items) != 0 {
		t.Errorf("left %d pods and %d configmaps", len(pods.Items), len(maps.Items))
	}
}

// TestStartRefusedAtAdmission: a pod the kubelet rejects (no core left to
// give) fails Start with the kubelet's words.
func TestStartRefusedAtAdmission(t *testing.T) {
	cs := fake.NewClientset()
	cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pod := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		pod.Status.Phase, pod.Status.Reason = corev1.PodFailed, "UnexpectedAdmissionError"
		pod.Status.Message = "Allocate failed due to not enough cpus available to satisfy request"
		return false, nil, nil
	})
	e := With(cs, options())
	id, err := e.Create(context.Background(), spec(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background(), id); err == nil || !strings.Contains(err.Error(), "not enough cpus") {
		t.Errorf("start: %v", err)
	}
}

// TestBetween: a log's lines cut to a window by their stamps (the API's
// sinceTime is whole seconds), stamps removed.
func TestBetween(t *testing.T) {
	log := "2026-12-06T10:00:00.100000000Z early\n2026-12-06T10:00:00.600000000Z in one\n" +
		"2026-12-06T10:00:01.000000000Z in two\n2026-12-06T10:00:01.500000000Z late\nno stamp\n"
	since := time.Date(2026, 12, 6, 10, 0, 0, 500e6, time.UTC)
	var out bytes.Buffer
	if err := between(strings.NewReader(log), &out, since, since.Add(time.Second/2)); err != nil {
		t.Fatal(err)
	}
	if out.String() != "in one\nin two\n" {
		t.Errorf("got %q", out.String())
	}
}

// TestFindCgroup: a pod's container under the kubelet's cgroupfs layout,
// v1, with a second kubelet's own cgroup root; its cpuset read back.
func TestFindCgroup(t *testing.T) {
	root := t.TempDir()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "1234-ab"}}
	for _, c := range []struct{ dir, want string }{
		{"kubepods/pod1234-ab/c1", "kubepods/pod1234-ab/c1"},
		{"gwb-node-2/kubepods/burstable/pod1234-ab/c1", "gwb-node-2/kubepods/burstable/pod1234-ab/c1"},
	} {
		os.RemoveAll(filepath.Join(root, "cpuset"))
		dir := filepath.Join(root, "cpuset", c.dir)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "cpuset.cpus"), []byte("1\n"), 0o644)
		got := findCgroup(root, pod, "c1")
		if got != c.want || readCPUSet(root, got) != "1" {
			t.Errorf("%s: found %q (cpuset %q)", c.dir, got, readCPUSet(root, got))
		}
	}
	if got := findCgroup(root, pod, "other"); got != "" {
		t.Errorf("another container's: %q", got)
	}
}

// TestImageNormalized: a node lists images by their full names.
func TestImageNormalized(t *testing.T) {
	for ref, want := range map[string]string{
		"gatewaybench/nginx:debian-1.22": "docker.io/gatewaybench/nginx:debian-1.22",
		"nginx":                          "docker.io/library/nginx:latest",
		"ghcr.io/a/b:1":                  "ghcr.io/a/b:1",
	} {
		if got := normalized(ref); got != want {
			t.Errorf("%s: %s, want %s", ref, got, want)
		}
	}
}

// TestCopyTo: a created pod takes an archive's files (a driver's job) as a
// ConfigMap mounted file by file; a started one takes none.
func TestCopyTo(t *testing.T) {
	e := With(fake.NewClientset(), options())
	ctx := context.Background()
	id, err := e.Create(ctx, spec(t))
	if err != nil {
		t.Fatal(err)
	}
	archive, err := stack.TarContext(map[string]stack.File{"job.json": {Mode: 0o644, Data: []byte(`{"x":1}`)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.CopyTo(ctx, id, "/", bytes.NewReader(archive)); err != nil {
		t.Fatal(err)
	}
	p := e.created[id]
	m := p.pod.Spec.Containers[0].VolumeMounts
	last, cm := m[len(m)-1], p.maps[len(p.maps)-1]
	if last.MountPath != "/job.json" || string(cm.BinaryData[last.SubPath]) != `{"x":1}` || cm.Labels[labelPod] != id {
		t.Errorf("mount %+v, configmap %+v", last, cm)
	}
	// Submitted: the fake has no kubelet, so Start would wait for ever for
	// the container; a cancelled context ends the wait once it is.
	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := e.Start(done, id); !errors.Is(err, context.Canceled) {
		t.Fatalf("start: %v", err)
	}
	if err := e.CopyTo(ctx, id, "/", bytes.NewReader(archive)); err == nil {
		t.Error("a started pod took files")
	}
}
