// Package fake is a hand-written stack.Engine for tests: every method is a
// func field with a working default, and every call is recorded.
package fake

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/stack"
)

// Engine records calls; set a field to change one behaviour.
type Engine struct {
	// LogFunc gives a container's log text for LogsBetween.
	LogFunc    func(stack.ContainerSpec) string
	mu         sync.Mutex
	Calls      []string
	Created    []stack.ContainerSpec
	containers map[string]stack.ContainerSpec
	running    map[string]bool
	paused     map[string]bool
	next       int

	ImageFunc  func(ref string) (stack.ImageInfo, error)
	BuildFunc  func(tag string) error
	PullFunc   func(ref string) error
	LoadFunc   func(ref string) error
	CreateFunc func(spec stack.ContainerSpec) error
	// StartFunc runs after a container is marked running; an error fails Start.
	StartFunc func(spec stack.ContainerSpec) error
	// InspectFunc may change the state the fake reports.
	InspectFunc func(spec stack.ContainerSpec, st *stack.ContainerState)
	StatsFunc   func(spec stack.ContainerSpec) stack.Stats
	// RemoveFunc runs when a container is removed (e.g. to stop a server the test started).
	RemoveFunc func(spec stack.ContainerSpec)
	// PauseFunc runs after a container is frozen (paused true) or thawed.
	PauseFunc func(spec stack.ContainerSpec, paused bool)
	// StopFunc is a container's process ending when Stop asks (writing
	// what it writes as it exits); it returns the exit code.
	StopFunc func(spec stack.ContainerSpec) int
	// RunFunc, when it claims a container (ok), is its process: it runs from
	// Start in its own goroutine with the files CopyTo put in, and the
	// container stops when it returns, with that output and exit code.
	RunFunc func(spec stack.ContainerSpec, files map[string][]byte) (run func() (stdout, stderr string, exit int), ok bool)

	files  map[string]map[string][]byte // per container, what CopyTo put in
	exited map[string]chan struct{}     // per container a RunFunc runs, closed when it returns
	output map[string][3]string         // stdout, stderr, exit code
}

var _ stack.Engine = (*Engine)(nil)

func (e *Engine) record(format string, args ...any) {
	e.Calls = append(e.Calls, fmt.Sprintf(format, args...))
}

// Live returns the containers not yet removed.
func (e *Engine) Live() []stack.ContainerSpec {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []stack.ContainerSpec
	for _, s := range e.containers {
		out = append(out, s)
	}
	return out
}

func (e *Engine) Ping(context.Context) (string, error) { return "1.41", nil }

func (e *Engine) Image(_ context.Context, ref string) (stack.ImageInfo, error) {
	e.mu.Lock()
	e.record("image %s", ref)
	e.mu.Unlock()
	if e.ImageFunc != nil {
		return e.ImageFunc(ref)
	}
	return stack.ImageInfo{ID: "sha256:" + ref, Size: 1 << 20, Found: true}, nil
}

func (e *Engine) BuildImage(_ context.Context, tag string, buildContext io.Reader, _ map[string]string) error {
	_, _ = io.Copy(io.Discard, buildContext) // read as the engine would; its bytes are not kept
	e.mu.Lock()
	e.record("build %s", tag)
	e.mu.Unlock()
	if e.BuildFunc != nil {
		return e.BuildFunc(tag)
	}
	return nil
}

func (e *Engine) Pull(_ context.Context, ref string) error {
	e.mu.Lock()
	e.record("pull %s", ref)
	e.mu.Unlock()
	if e.PullFunc != nil {
		return e.PullFunc(ref)
	}
	return fmt.Errorf("pull %s: no registry in the fake", ref)
}

// Save gives the image's name as its archive.
func (e *Engine) Save(_ context.Context, ref string) (io.ReadCloser, error) {
	e.mu.Lock()
	e.record("save %s", ref)
	e.mu.Unlock()
	return io.NopCloser(strings.NewReader(ref)), nil
}

// Load reads an archive Save wrote; LoadFunc, when set, is told which image.
func (e *Engine) Load(_ context.Context, _ string, archive io.Reader) error {
	b, err := io.ReadAll(archive)
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.record("load %s", b)
	e.mu.Unlock()
	if e.LoadFunc != nil {
		return e.LoadFunc(string(b))
	}
	return nil
}

func (e *Engine) Create(_ context.Context, spec stack.ContainerSpec) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.record("create %s", spec.Name)
	if e.CreateFunc != nil {
		if err := e.CreateFunc(spec); err != nil {
			return "", err
		}
	}
	if e.containers == nil {
		e.containers, e.running = map[string]stack.ContainerSpec{}, map[string]bool{}
	}
	e.next++
	id := fmt.Sprintf("fake%04d", e.next)
	e.containers[id] = spec
	e.Created = append(e.Created, spec)
	return id, nil
}

func (e *Engine) spec(id string) (stack.ContainerSpec, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.containers[id]
	return s, ok
}

func (e *Engine) Start(_ context.Context, id string) error {
	spec, ok := e.spec(id)
	if !ok {
		return fmt.Errorf("no container %s", id)
	}
	e.mu.Lock()
	e.record("start %s", spec.Name)
	e.running[id] = true
	files := e.files[id]
	e.mu.Unlock()
	if e.RunFunc != nil {
		if run, ok := e.RunFunc(spec, files); ok {
			done := make(chan struct{})
			e.mu.Lock()
			if e.exited == nil {
				e.exited, e.output = map[string]chan struct{}{}, map[string][3]string{}
			}
			e.exited[id] = done
			e.mu.Unlock()
			go func() {
				stdout, stderr, code := run()
				e.mu.Lock()
				e.output[id] = [3]string{stdout, stderr, strconv.Itoa(code)}
				e.running[id] = false
				e.mu.Unlock()
				close(done)
			}()
		}
	}
	if e.StartFunc != nil {
		return e.StartFunc(spec)
	}
	return nil
}

// CopiedFiles are the files CopyTo put into the container named name.
func (e *Engine) CopiedFiles(name string) map[string][]byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	for id, s := range e.containers {
		if s.Name == name {
			return maps.Clone(e.files[id])
		}
	}
	return nil
}

// CopyTo keeps the archive's regular files, by path under dir.
func (e *Engine) CopyTo(_ context.Context, id, dir string, archive io.Reader) error {
	spec, ok := e.spec(id)
	if !ok {
		return fmt.Errorf("no container %s", id)
	}
	tr := tar.NewReader(archive)
	got := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			if err != nil {
				return err
			}
			got[path.Join(dir, h.Name)] = b
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.record("copy-to %s %s", spec.Name, dir)
	if e.files == nil {
		e.files = map[string]map[string][]byte{}
	}
	if e.files[id] == nil {
		e.files[id] = map[string][]byte{}
	}
	maps.Copy(e.files[id], got)
	return nil
}

// Wait returns when a RunFunc process has returned; other containers run
// until removed.
func (e *Engine) Wait(ctx context.Context, id string) (int, error) {
	e.mu.Lock()
	done, ok := e.exited[id]
	e.mu.Unlock()
	if !ok {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	select {
	case <-done:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	code, _ := strconv.Atoi(e.output[id][2])
	return code, nil
}

func (e *Engine) Output(_ context.Context, id string) (string, string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	o := e.output[id]
	return o[0], o[1], nil
}

func (e *Engine) Inspect(_ context.Context, id string) (stack.ContainerState, error) {
	spec, ok := e.spec(id)
	if !ok {
		return stack.ContainerState{}, fmt.Errorf("no container %s", id)
	}
	e.mu.Lock()
	st := stack.ContainerState{Name: spec.Name, Running: e.running[id], Paused: e.paused[id], CPUSet: spec.CPUSet, Memory: spec.MemoryBytes, HostNet: true, Labels: spec.Labels, Hardening: spec.Hardening}
	e.mu.Unlock()
	if e.InspectFunc != nil {
		e.InspectFunc(spec, &st)
	}
	return st, nil
}

func (e *Engine) Stats(_ context.Context, id string) (stack.Stats, error) {
	spec, ok := e.spec(id)
	if !ok {
		return stack.Stats{}, fmt.Errorf("no container %s", id)
	}
	if e.StatsFunc != nil {
		return e.StatsFunc(spec), nil
	}
	return stack.Stats{MemUsage: 1 << 20}, nil
}

func (e *Engine) Logs(_ context.Context, id string, _ int) (string, error) {
	return "fake log line", nil
}

// LogsBetween gives LogFunc's text for the container (none without it).
func (e *Engine) LogsBetween(_ context.Context, id string, _, _ time.Time) (io.ReadCloser, error) {
	spec, ok := e.spec(id)
	if !ok {
		return nil, fmt.Errorf("no container %s", id)
	}
	text := ""
	if e.LogFunc != nil {
		text = e.LogFunc(spec)
	}
	return io.NopCloser(strings.NewReader(text)), nil
}

func (e *Engine) Remove(_ context.Context, id string) error {
	e.mu.Lock()
	spec, ok := e.containers[id]
	if ok {
		e.record("remove %s", spec.Name)
		delete(e.containers, id)
		delete(e.running, id)
		delete(e.paused, id)
	}
	e.mu.Unlock()
	if ok && e.RemoveFunc != nil {
		e.RemoveFunc(spec)
	}
	return nil
}

// Stop ends a running container: StopFunc is its process's exit, and Wait
// returns its code.
func (e *Engine) Stop(_ context.Context, id string, _ time.Duration) error {
	spec, ok := e.spec(id)
	if !ok {
		return fmt.Errorf("no container %s", id)
	}
	code := 0
	if e.StopFunc != nil {
		code = e.StopFunc(spec)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.record("stop %s", spec.Name)
	if !e.running[id] {
		return nil
	}
	e.running[id] = false
	if e.exited == nil {
		e.exited, e.output = map[string]chan struct{}{}, map[string][3]string{}
	}
	if _, runs := e.exited[id]; !runs {
		done := make(chan struct{})
		close(done)
		e.exited[id] = done
		e.output[id] = [3]string{"", "", strconv.Itoa(code)}
	}
	return nil
}

// Pause freezes a running container; pausing one that is not running fails
// as Docker's does.
func (e *Engine) Pause(_ context.Context, id string) error {
	return e.setPaused(id, true)
}

func (e *Engine) Unpause(_ context.Context, id string) error {
	return e.setPaused(id, false)
}

func (e *Engine) setPaused(id string, paused bool) error {
	spec, err := e.markPaused(id, paused)
	if err == nil && e.PauseFunc != nil {
		e.PauseFunc(spec, paused)
	}
	return err
}

func (e *Engine) markPaused(id string, paused bool) (stack.ContainerSpec, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	spec, ok := e.containers[id]
	switch {
	case !ok:
		return spec, fmt.Errorf("no container %s", id)
	case !e.running[id]:
		return spec, fmt.Errorf("container %s is not running", spec.Name)
	case e.paused[id] == paused:
		return spec, fmt.Errorf("container %s is already in that state (paused %v)", spec.Name, paused)
	}
	if e.paused == nil {
		e.paused = map[string]bool{}
	}
	e.paused[id] = paused
	verb := "unpause"
	if paused {
		verb = "pause"
	}
	e.record("%s %s", verb, spec.Name)
	return spec, nil
}

// Paused says whether the container named name is frozen now.
func (e *Engine) Paused(name string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for id, s := range e.containers {
		if s.Name == name {
			return e.paused[id]
		}
	}
	return false
}

func (e *Engine) Containers(_ context.Context, key, value string) ([]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.record("containers %s=%s", key, value)
	var ids []string
	for id, s := range e.containers {
		if v, ok := s.Labels[key]; ok && (value == "" || v == value) {
			ids = append(ids, id)
		}
	}
	// In creation order (the IDs count up), as tests compare lists: a
	// map's order made TestSweepKeepsOtherHostsRuns fail one run in two.
	slices.Sort(ids)
	return ids, nil
}

func (e *Engine) RemoveByLabel(ctx context.Context, key, value string) (int, error) {
	e.mu.Lock()
	e.record("remove-by-label %s=%s", key, value)
	e.mu.Unlock()
	ids, _ := e.Containers(ctx, key, value)
	for _, id := range ids {
		_ = e.Remove(ctx, id) // the fake removes what it has
	}
	return len(ids), nil
}
