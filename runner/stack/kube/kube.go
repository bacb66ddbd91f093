// Package kube runs the benchmark's containers as pods of a Kubernetes
// cluster, behind stack.Engine; the only importer of client-go
// (docs/scale.md, "The Kubernetes engine"). A container is a pod of one
// container on the host's network, on the node the HCL names, Guaranteed
// with whole CPUs (so a static CPU manager gives it cores of its own)
// unless its role shares the node's pool; its config files reach it as
// ConfigMaps; its image is built on the local Docker engine and imported
// into the nodes by the HCL's load command: no registry.
package kube

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/distribution/reference"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/stack"
)

// Options are the cluster as the HCL names it, and what the engine needs
// of this machine.
type Options struct {
	config.Kubernetes
	// Builder builds the images and saves them for the load command: the
	// local Docker engine.
	Builder stack.Engine
	// CgroupRoot is where this machine's cgroup hierarchies are mounted: a
	// pod on a node that is this machine is read there.
	CgroupRoot string
}

// Engine is a namespace of a cluster, as a container engine.
type Engine struct {
	cs kubernetes.Interface
	o  Options
	mu sync.Mutex
	// created are pods made by Create and not yet started: Docker's create
	// has no pod equivalent, so the pod is submitted by Start.
	created map[string]*pending
	loaded  map[string]bool // images imported by this process
}

type pending struct {
	pod  *corev1.Pod
	maps []*corev1.ConfigMap
}

// Annotation keys: the container's name as the runner gave it (a pod's
// name must be a DNS label), and the ConfigMaps' pod.
const (
	annotationName = stack.LabelPrefix + "name"
	labelPod       = stack.LabelPrefix + "pod"
)

// gracePeriod is a pod's between SIGTERM and SIGKILL: Docker's removal
// kills at once, and a gateway's shutdown is no part of a run.
var gracePeriod = int64(1)

// startTimeout bounds how long a pod may take to be scheduled, admitted
// and started, its image already on the node.
const startTimeout = 3 * time.Minute

// New connects to the cluster the kubeconfig and context name.
func New(o Options) (*Engine, error) {
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: o.Kubeconfig}
	rc, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: o.Context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", o.Kubeconfig, err)
	}
	rc.QPS, rc.Burst = 50, 100 // readiness polls and log reads come in bursts
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", o.Kubeconfig, err)
	}
	return With(cs, o), nil
}

// With is the engine over a client already made (a fake one in tests).
func With(cs kubernetes.Interface, o Options) *Engine {
	return &Engine{cs: cs, o: o, created: map[string]*pending{}, loaded: map[string]bool{}}
}

// Ping checks the API answers and the namespace exists, making it if not.
func (e *Engine) Ping(ctx context.Context) (string, error) {
	v, err := e.cs.Discovery().ServerVersion()
	if err != nil {
		return "", fmt.Errorf("kubernetes API (kubeconfig %s): %w", e.o.Kubeconfig, err)
	}
	ns := e.o.Namespace
	if _, err := e.cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		_, err = e.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return "", fmt.Errorf("create namespace %s: %w", ns, err)
		}
	} else if err != nil {
		return "", fmt.Errorf("namespace %s: %w", ns, err)
	}
	return "kubernetes " + v.GitVersion, nil
}

// Image is found when this process imported it or every node the selector
// names lists it; its id and size are the builder's (an import keeps them).
func (e *Engine) Image(ctx context.Context, ref string) (stack.ImageInfo, error) {
	info, err := e.o.Builder.Image(ctx, ref)
	if err != nil {
		return stack.ImageInfo{}, err
	}
	e.mu.Lock()
	loaded := e.loaded[ref]
	e.mu.Unlock()
	if loaded {
		info.Found = true
		return info, nil
	}
	nodes, err := e.nodes(ctx)
	if err != nil {
		return stack.ImageInfo{}, err
	}
	name := normalized(ref)
	for _, n := range nodes {
		if !slices.ContainsFunc(n.Status.Images, func(img corev1.ContainerImage) bool { return slices.Contains(img.Names, name) }) {
			return stack.ImageInfo{}, nil
		}
	}
	info.Found = info.Found && len(nodes) > 0
	return info, nil
}

// normalized is ref as a node lists it (docker.io/library/nginx:latest).
func normalized(ref string) string {
	n, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return ref
	}
	return reference.TagNameOnly(n).String()
}

// nodes are the nodes the selector names; none is an error.
func (e *Engine) nodes(ctx context.Context) ([]corev1.Node, error) {
	sel := labels.SelectorFromSet(e.o.NodeSelector).String()
	l, err := e.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, fmt.Errorf("list nodes %s: %w", sel, err)
	}
	if len(l.Items) == 0 {
		return nil, fmt.Errorf("no node carries %s: name one in node_selector (kubectl get nodes --show-labels)", sel)
	}
	return l.Items, nil
}

// BuildImage builds on the local engine, then imports the image into the nodes.
func (e *Engine) BuildImage(ctx context.Context, tag string, buildContext io.Reader, lbls map[string]string) error {
	if err := e.o.Builder.BuildImage(ctx, tag, buildContext, lbls); err != nil {
		return err
	}
	r, err := e.o.Builder.Save(ctx, tag)
	if err != nil {
		return err
	}
	defer r.Close()
	return e.Load(ctx, tag, r)
}

func (e *Engine) Pull(_ context.Context, ref string) error {
	return fmt.Errorf("pull %s: the Kubernetes engine pulls from no registry; images are built or found on the local engine and imported by the load command", ref)
}

func (e *Engine) Save(_ context.Context, ref string) (io.ReadCloser, error) {
	return nil, fmt.Errorf("save %s: the Kubernetes engine gives no image archive", ref)
}

// Load runs the HCL's load command with the archive on its standard input.
func (e *Engine) Load(ctx context.Context, ref string, archive io.Reader) error {
	cmd := stack.HostCommand(ctx, e.o.Load[0], e.o.Load[1:]...)
	cmd.Dir, cmd.Stdin = e.o.LoadDir, archive
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("load %s into the nodes (%s): %v\n%s", ref, strings.Join(e.o.Load, " "), err, bytes.TrimSpace(out))
	}
	e.mu.Lock()
	e.loaded[ref] = true
	e.mu.Unlock()
	return nil
}

// Create makes the pod and its ConfigMaps, and keeps them for Start; a
// spec a pod cannot honour is refused here, before any API request.
func (e *Engine) Create(_ context.Context, s stack.ContainerSpec) (string, error) {
	p, err := e.podOf(s)
	if err != nil {
		return "", fmt.Errorf("create %s: %w", s.Name, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, dup := e.created[p.pod.Name]; dup {
		return "", fmt.Errorf("create %s: pod %s already created", s.Name, p.pod.Name)
	}
	e.created[p.pod.Name] = p
	return p.pod.Name, nil
}

// Start submits the pod and waits until its container runs (or has run):
// scheduling, admission and the container's start are part of what Docker's
// start covers.
func (e *Engine) Start(ctx context.Context, id string) error {
	e.mu.Lock()
	p := e.created[id]
	delete(e.created, id)
	e.mu.Unlock()
	if p == nil {
		return fmt.Errorf("start %s: no such created pod", id)
	}
	for _, cm := range p.maps {
		if _, err := e.cs.CoreV1().ConfigMaps(e.o.Namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("configmap %s: %w", cm.Name, err)
		}
	}
	if _, err := e.cs.CoreV1().Pods(e.o.Namespace).Create(ctx, p.pod, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("pod %s: %w", id, err)
	}
	deadline := time.Now().Add(startTimeout)
	var unschedulable time.Time
	for {
		pod, err := e.cs.CoreV1().Pods(e.o.Namespace).Get(ctx, id, metav1.GetOptions{})
		if err != nil {
			return err
		}
		done, err := started(pod)
		if done || err != nil {
			return err
		}
		// The scheduler retries a pod no node fits; in a benchmark's fixed
		// layout nothing will free its cores, so a few retries are enough.
		if unschedulable.IsZero() && isUnschedulable(pod) {
			unschedulable = time.Now()
		}
		if !unschedulable.IsZero() && time.Since(unschedulable) > unschedulableFor {
			return fmt.Errorf("pod %s cannot be placed: %s", id, why(pod))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pod %s not started within %s: %s", id, startTimeout, why(pod))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// started says whether the pod's container runs or ran; an error when the
// pod can never start (rejected at admission, its image missing).
func started(pod *corev1.Pod) (bool, error) {
	if pod.Status.Phase == corev1.PodFailed && len(pod.Status.ContainerStatuses) == 0 {
		return false, fmt.Errorf("pod %s failed before its container started: %s: %s", pod.Name, pod.Status.Reason, pod.Status.Message)
	}
	for _, c := range pod.Status.ContainerStatuses {
		switch {
		case c.State.Running != nil || c.State.Terminated != nil:
			return true, nil
		case c.State.Waiting != nil && slices.Contains([]string{"ErrImageNeverPull", "CreateContainerConfigError", "CreateContainerError", "InvalidImageName"}, c.State.Waiting.Reason):
			return false, fmt.Errorf("pod %s cannot start: %s: %s", pod.Name, c.State.Waiting.Reason, c.State.Waiting.Message)
		}
	}
	return false, nil
}

// unschedulableFor is how long a pod the scheduler finds no node for is
// given before Start gives up.
const unschedulableFor = 15 * time.Second

func isUnschedulable(pod *corev1.Pod) bool {
	return slices.ContainsFunc(pod.Status.Conditions, func(c corev1.PodCondition) bool {
		return c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable
	})
}

// why is a pending pod's state in words, for a timeout.
func why(pod *corev1.Pod) string {
	parts := []string{"phase " + string(pod.Status.Phase)}
	for _, c := range pod.Status.Conditions {
		if c.Status != corev1.ConditionTrue && c.Message != "" {
			parts = append(parts, fmt.Sprintf("%s: %s", c.Type, c.Message))
		}
	}
	for _, c := range pod.Status.ContainerStatuses {
		if w := c.State.Waiting; w != nil {
			parts = append(parts, fmt.Sprintf("waiting: %s %s", w.Reason, w.Message))
		}
	}
	return strings.Join(parts, "; ")
}

func (e *Engine) get(ctx context.Context, id string) (*corev1.Pod, error) {
	e.mu.Lock()
	p := e.created[id]
	e.mu.Unlock()
	if p != nil {
		return p.pod, nil
	}
	return e.cs.CoreV1().Pods(e.o.Namespace).Get(ctx, id, metav1.GetOptions{})
}

// Inspect is the pod as the cluster holds it, with the cgroup of its
// container and the cores it got read back where this machine has them.
func (e *Engine) Inspect(ctx context.Context, id string) (stack.ContainerState, error) {
	pod, err := e.get(ctx, id)
	if err != nil {
		return stack.ContainerState{}, err
	}
	c := pod.Spec.Containers[0]
	st := stack.ContainerState{
		Name: pod.Annotations[annotationName], HostNet: pod.Spec.HostNetwork, Labels: maps.Clone(pod.Labels),
		Memory: c.Resources.Limits.Memory().Value(), Node: pod.Spec.NodeName,
	}
	if sc := c.SecurityContext; sc != nil && sc.ReadOnlyRootFilesystem != nil {
		st.Hardening.ReadOnly = *sc.ReadOnlyRootFilesystem
	}
	for _, cs := range pod.Status.ContainerStatuses {
		switch {
		case cs.State.Running != nil:
			st.Running, st.StartedAt = true, cs.State.Running.StartedAt.Time
		case cs.State.Terminated != nil:
			t := cs.State.Terminated
			st.ExitCode, st.StartedAt, st.OOMKilled = int(t.ExitCode), t.StartedAt.Time, t.Reason == "OOMKilled"
			st.Error = t.Message
		}
		if cid := containerID(cs.ContainerID); cid != "" {
			st.CgroupPath = findCgroup(e.o.CgroupRoot, pod, cid)
			st.CPUSet = readCPUSet(e.o.CgroupRoot, st.CgroupPath)
		}
	}
	return st, nil
}

// containerID is the runtime's id without its scheme (containerd://).
func containerID(s string) string {
	if _, id, ok := strings.Cut(s, "://"); ok {
		return id
	}
	return s
}

// findCgroup is the container's cgroup under root, relative to a
// hierarchy's root, for the kubelet's cgroupfs and systemd drivers and any
// cgroup root (a second kubelet's own); "" when this machine has none.
func findCgroup(root string, pod *corev1.Pod, cid string) string {
	base := filepath.Join(root, "cpuset") // v1; v2 has no controller directories
	if _, err := os.Stat(base); err != nil {
		base = root
	}
	uid := string(pod.UID)
	u := strings.ReplaceAll(uid, "-", "_")
	for _, pattern := range []string{
		"kubepods/pod" + uid + "/" + cid, "kubepods/*/pod" + uid + "/" + cid,
		"*/kubepods/pod" + uid + "/" + cid, "*/kubepods/*/pod" + uid + "/" + cid,
		"kubepods.slice/kubepods-pod" + u + ".slice/cri-containerd-" + cid + ".scope",
		"kubepods.slice/*/kubepods-*-pod" + u + ".slice/cri-containerd-" + cid + ".scope",
	} {
		if m, _ := filepath.Glob(filepath.Join(base, pattern)); len(m) == 1 {
			rel, _ := filepath.Rel(base, m[0])
			return rel
		}
	}
	return ""
}

// readCPUSet is the cpuset the container's cgroup holds: the cores the
// node's CPU manager gave it.
func readCPUSet(root, rel string) string {
	if rel == "" {
		return ""
	}
	for _, f := range []string{filepath.Join(root, "cpuset", rel, "cpuset.cpus"), filepath.Join(root, rel, "cpuset.cpus.effective")} {
		if b, err := os.ReadFile(f); err == nil {
			return strings.TrimSpace(string(b))
		}
	}
	return ""
}

// Stats would need the kubelet's summary API, whose figures are 10-15 s
// old: too coarse for a measured window of seconds.
func (e *Engine) Stats(_ context.Context, id string) (stack.Stats, error) {
	return stack.Stats{}, fmt.Errorf("pod %s: no cgroup of it on this machine (run the runner on the node), and the kubelet's stats are too coarse for a window", id)
}

// LogsBetween streams the pod's log lines stamped from since to until: the
// API's sinceTime has whole seconds, so both ends are cut here.
func (e *Engine) LogsBetween(ctx context.Context, id string, since, until time.Time) (io.ReadCloser, error) {
	st := metav1.NewTime(since.Truncate(time.Second))
	r, err := e.cs.CoreV1().Pods(e.o.Namespace).GetLogs(id, &corev1.PodLogOptions{Timestamps: true, SinceTime: &st}).Stream(ctx)
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	go func() {
		defer r.Close()
		pw.CloseWithError(between(r, pw, since, until))
	}()
	return pr, nil
}

// between copies the lines of a log with timestamps that fall in
// [since, until], without their stamps; read line by line, as a gateway's
// log may run to hundreds of MiB.
func between(r io.Reader, w io.Writer, since, until time.Time) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if stamp, rest, ok := bytes.Cut(line, []byte(" ")); ok {
			t, perr := time.Parse(time.RFC3339Nano, string(stamp))
			if perr == nil && !t.Before(since) && !t.After(until) {
				if _, werr := w.Write(rest); werr != nil {
					return werr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (e *Engine) Logs(ctx context.Context, id string, tail int) (string, error) {
	n := int64(tail)
	b, err := e.cs.CoreV1().Pods(e.o.Namespace).GetLogs(id, &corev1.PodLogOptions{TailLines: &n}).DoRaw(ctx)
	return string(b), err
}

// Containers lists the pods (and pods created, not yet started) carrying
// the label.
func (e *Engine) Containers(ctx context.Context, key, value string) ([]string, error) {
	sel := key
	if value != "" {
		sel = key + "=" + value
	}
	l, err := e.cs.CoreV1().Pods(e.o.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range l.Items {
		out = append(out, p.Name)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for name, p := range e.created {
		if v, ok := p.pod.Labels[key]; ok && (value == "" || v == value) {
			out = append(out, name)
		}
	}
	return out, nil
}

// Remove deletes the pod and its ConfigMaps and waits until the pod is
// gone: the next stack binds the same ports on the node's network. Not a
// grace of 0, which is a force delete: the API forgets the pod at once and
// its container holds the ports until the kubelet gets to it.
func (e *Engine) Remove(ctx context.Context, id string) error {
	e.mu.Lock()
	delete(e.created, id)
	e.mu.Unlock()
	pods := e.cs.CoreV1().Pods(e.o.Namespace)
	if err := pods.Delete(ctx, id, metav1.DeleteOptions{GracePeriodSeconds: &gracePeriod}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete pod %s: %w", id, err)
	}
	cms := e.cs.CoreV1().ConfigMaps(e.o.Namespace)
	l, err := cms.List(ctx, metav1.ListOptions{LabelSelector: labelPod + "=" + id})
	if err != nil {
		return fmt.Errorf("list the configmaps of pod %s: %w", id, err)
	}
	for _, cm := range l.Items {
		if err := cms.Delete(ctx, cm.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete configmap %s: %w", cm.Name, err)
		}
	}
	for {
		if _, err := pods.Get(ctx, id, metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return nil
		} else if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pod %s still there: %w", id, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (e *Engine) RemoveByLabel(ctx context.Context, key, value string) (int, error) {
	ids, err := e.Containers(ctx, key, value)
	if err != nil {
		return 0, err
	}
	for i, id := range ids {
		if err := e.Remove(ctx, id); err != nil {
			return i, err
		}
	}
	return len(ids), nil
}

// CopyTo gives a created pod the archive's files (a driver's job) as one
// more ConfigMap, each file mounted at its path under dir; a pod already
// started takes no files.
func (e *Engine) CopyTo(_ context.Context, id, dir string, archive io.Reader) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.created[id]
	if p == nil {
		return fmt.Errorf("copy into pod %s: only a pod created and not yet started takes files", id)
	}
	n := len(p.maps)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", id, n), Labels: map[string]string{stack.LabelRun: p.pod.Labels[stack.LabelRun], labelPod: id}},
		BinaryData: map[string][]byte{}}
	vol := corev1.Volume{Name: fmt.Sprintf("config-%d", n), VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}}}
	c := &p.pod.Spec.Containers[0]
	tr, size := tar.NewReader(archive), 0
	for i := 0; ; i++ {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("copy into pod %s: %w", id, err)
		}
		if h.Typeflag != tar.TypeReg {
			return fmt.Errorf("copy into pod %s: %s is not a regular file", id, h.Name)
		}
		if size += int(h.Size); size > maxConfigBytes {
			return fmt.Errorf("copy into pod %s: more than a ConfigMap's 1 MiB", id)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		key := fmt.Sprintf("f%d", i)
		cm.BinaryData[key] = data
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: vol.Name, MountPath: filepath.Join(dir, h.Name), SubPath: key, ReadOnly: true})
	}
	p.maps, p.pod.Spec.Volumes = append(p.maps, cm), append(p.pod.Spec.Volumes, vol)
	return nil
}

// Wait polls the pod until its container has ended.
func (e *Engine) Wait(ctx context.Context, id string) (int, error) {
	for {
		st, err := e.Inspect(ctx, id)
		if err != nil {
			return 0, err
		}
		if !st.Running && !st.StartedAt.IsZero() {
			return st.ExitCode, nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Output is the pod's log as both streams: the API serves standard output
// and error together (its per-stream query sits behind a feature gate). A
// driver writes its result alone to standard output, and to standard
// error only when it fails, so its log is either.
func (e *Engine) Output(ctx context.Context, id string) (string, string, error) {
	b, err := e.cs.CoreV1().Pods(e.o.Namespace).GetLogs(id, &corev1.PodLogOptions{}).DoRaw(ctx)
	return string(b), string(b), err
}

var errNoFreezer = errors.New("no pod API pauses a container: isolation = \"none\" with a Kubernetes engine")

func (e *Engine) Pause(context.Context, string) error   { return errNoFreezer }
func (e *Engine) Unpause(context.Context, string) error { return errNoFreezer }

func (e *Engine) Stop(_ context.Context, id string, _ time.Duration) error {
	return fmt.Errorf("stop pod %s: not supported (a pod stopped is deleted, its output with it)", id)
}

// podOf is the pod (and its ConfigMaps) for a container spec, or why a pod
// cannot honour it.
func (e *Engine) podOf(s stack.ContainerSpec) (*pending, error) {
	if s.NetworkMode != stack.HostNetwork {
		return nil, fmt.Errorf("network mode %q; only the host's network keeps the measured path free of a CNI hop", s.NetworkMode)
	}
	h := s.Hardening
	switch {
	case len(h.Ulimits) > 0:
		return nil, errors.New("ulimits: a pod has no field for them; drop them from the compose service to run it on Kubernetes")
	case h.PidsLimit != 0:
		return nil, errors.New("pids_limit: a pod has no field for it (the kubelet's podPidsLimit is the node's)")
	case h.OomScoreAdj != 0:
		return nil, errors.New("oom_score_adj: a pod's follows its QoS class, not a field")
	}
	name := podName(s.Name)
	lbls := maps.Clone(s.Labels)
	for k, v := range lbls {
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return nil, fmt.Errorf("label %s=%q: %s", k, v, strings.Join(errs, "; "))
		}
	}
	role := s.Labels[stack.LabelRole]
	res, err := e.resources(s, role)
	if err != nil {
		return nil, err
	}
	c := corev1.Container{
		Name: "main", Image: s.Image, Command: s.Entrypoint, Args: s.Cmd,
		ImagePullPolicy: corev1.PullNever, Resources: res,
	}
	for _, kv := range s.Env {
		k, v, _ := strings.Cut(kv, "=")
		c.Env = append(c.Env, corev1.EnvVar{Name: k, Value: v})
	}
	sc := &corev1.SecurityContext{}
	if h.User != "" {
		uid, gid, hasGID := strings.Cut(h.User, ":")
		u, err := strconv.ParseInt(uid, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("user %q: a pod runs as a numeric user id", h.User)
		}
		sc.RunAsUser = &u
		if hasGID {
			g, err := strconv.ParseInt(gid, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("user %q: a pod runs as a numeric group id", h.User)
			}
			sc.RunAsGroup = &g
		}
	}
	if h.ReadOnly {
		sc.ReadOnlyRootFilesystem = &h.ReadOnly
	}
	c.SecurityContext = sc
	p := &pending{}
	var vols []corev1.Volume
	for i, b := range s.Binds {
		cm, vol, mount, err := configMap(name, i, b)
		if err != nil {
			return nil, err
		}
		cm.Labels = map[string]string{stack.LabelRun: lbls[stack.LabelRun], labelPod: name}
		p.maps = append(p.maps, cm)
		vols, c.VolumeMounts = append(vols, vol), append(c.VolumeMounts, mount...)
	}
	if h.ShmSize > 0 {
		size := resource.NewQuantity(h.ShmSize, resource.BinarySI)
		vols = append(vols, corev1.Volume{Name: "shm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: size}}})
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "shm", MountPath: "/dev/shm"})
	}
	no := false
	p.pod = &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.o.Namespace, Labels: lbls, Annotations: map[string]string{annotationName: s.Name}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{c}, Volumes: vols, HostNetwork: true, DNSPolicy: corev1.DNSDefault,
			NodeSelector: maps.Clone(e.o.NodeSelector), RestartPolicy: corev1.RestartPolicyNever,
			EnableServiceLinks: &no, AutomountServiceAccountToken: &no, TerminationGracePeriodSeconds: &gracePeriod,
		},
	}
	return p, nil
}

// podName is a container's name as a DNS label.
func podName(name string) string {
	b := []byte(strings.ToLower(name))
	for i, ch := range b {
		if (ch < 'a' || ch > 'z') && (ch < '0' || ch > '9') {
			b[i] = '-'
		}
	}
	return strings.Trim(string(b[:min(len(b), validation.DNS1123LabelMaxLength)]), "-")
}

// resources are whole CPUs, requested and limited, and the memory limit
// (a Guaranteed pod: the static CPU manager gives it cores of its own); a
// role the HCL shares runs in the node's pool (Burstable: a memory limit,
// no CPU request or limit);
// a container given neither cores nor memory, BestEffort.
func (e *Engine) resources(s stack.ContainerSpec, role string) (corev1.ResourceRequirements, error) {
	if s.MemoryBytes <= 0 && s.CPUSet == "" {
		return corev1.ResourceRequirements{}, nil // a one-shot with neither (reading the node's host): BestEffort
	}
	if s.MemoryBytes <= 0 {
		return corev1.ResourceRequirements{}, fmt.Errorf("no memory limit for the %s: a pod's QoS needs one (memory.%s in the HCL)", role, role)
	}
	mem := *resource.NewQuantity(s.MemoryBytes, resource.BinarySI)
	if slices.Contains(e.o.Shared, role) {
		// No CPU request: any would leave a 1-core allocatable short of the
		// gateway's whole core.
		return corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceMemory: mem},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: mem},
		}, nil
	}
	set, err := config.ParseCPUSet(s.CPUSet)
	if err != nil || len(set.CPUs) == 0 {
		return corev1.ResourceRequirements{}, fmt.Errorf("cpuset %q: the %s needs whole CPUs to be Guaranteed (%v)", s.CPUSet, role, err)
	}
	l := corev1.ResourceList{corev1.ResourceCPU: *resource.NewQuantity(int64(len(set.CPUs)), resource.DecimalSI), corev1.ResourceMemory: mem}
	return corev1.ResourceRequirements{Requests: l, Limits: l}, nil
}

// maxConfigBytes is what one ConfigMap holds (the API's limit, 1 MiB).
const maxConfigBytes = 1 << 20

// configMap turns a bind mount into a ConfigMap: a file is one key mounted
// at its target, a directory of files its files. Anything else on the host
// (a socket, a device, a tree) is refused: a pod reaches no host path.
func configMap(pod string, i int, bind string) (*corev1.ConfigMap, corev1.Volume, []corev1.VolumeMount, error) {
	parts := strings.Split(bind, ":")
	if len(parts) < 2 {
		return nil, corev1.Volume{}, nil, fmt.Errorf("bind %q: host:container expected", bind)
	}
	src, dst := parts[0], parts[1]
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", pod, i)}, BinaryData: map[string][]byte{}}
	vol := corev1.Volume{Name: fmt.Sprintf("config-%d", i), VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}}}
	fi, err := os.Stat(src)
	if err != nil {
		return nil, vol, nil, fmt.Errorf("bind %q: %w", bind, err)
	}
	size := 0
	add := func(key, path string) error {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if size += len(data); size > maxConfigBytes {
			return fmt.Errorf("bind %q: more than a ConfigMap's 1 MiB", bind)
		}
		cm.BinaryData[key] = data
		return nil
	}
	switch {
	case fi.Mode().IsRegular():
		if err := add("file", src); err != nil {
			return nil, vol, nil, err
		}
		return cm, vol, []corev1.VolumeMount{{Name: vol.Name, MountPath: dst, SubPath: "file", ReadOnly: true}}, nil
	case fi.IsDir():
		entries, err := os.ReadDir(src)
		if err != nil {
			return nil, vol, nil, err
		}
		for _, en := range entries {
			if !en.Type().IsRegular() {
				return nil, vol, nil, fmt.Errorf("bind %q: %s is not a regular file; a pod gets a directory of files as a ConfigMap, no host path", bind, en.Name())
			}
			if errs := validation.IsConfigMapKey(en.Name()); len(errs) > 0 {
				return nil, vol, nil, fmt.Errorf("bind %q: %s: %s", bind, en.Name(), strings.Join(errs, "; "))
			}
			if err := add(en.Name(), filepath.Join(src, en.Name())); err != nil {
				return nil, vol, nil, err
			}
		}
		return cm, vol, []corev1.VolumeMount{{Name: vol.Name, MountPath: dst, ReadOnly: true}}, nil
	}
	return nil, vol, nil, fmt.Errorf("bind %q: %s is neither a file nor a directory of files; a pod reaches no host path", bind, src)
}
