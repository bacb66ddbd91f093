package stack_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/stack/fake"
)

func started(t *testing.T, e *fake.Engine) (*stack.Manager, *stack.Container) {
	t.Helper()
	m := &stack.Manager{Engine: e, Run: "test", Dir: t.TempDir()}
	c, err := m.Start(context.Background(), &stack.Service{Stack: "gw", Role: stack.RoleGateway, Image: "x:1", CPUSet: "1", Memory: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return m, c
}

// TestColdStartEndsAtTheAnswer: the cold start runs to when the first good
// answer began, not to when a long (streamed) answer ended.
func TestColdStartEndsAtTheAnswer(t *testing.T) {
	m, c := started(t, &fake.Engine{})
	probe := func(context.Context) (time.Time, error) {
		at := time.Now()
		time.Sleep(300 * time.Millisecond) // the rest of a long answer
		return at, nil
	}
	cold, err := m.WaitReady(context.Background(), c, probe, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if cold > 100*time.Millisecond {
		t.Errorf("cold start %s includes the answer's own duration", cold)
	}
}

func TestWaitReadyFailsFast(t *testing.T) {
	cases := []struct {
		name string
		set  func(*stack.ContainerState)
		want string
	}{
		{"exit", func(st *stack.ContainerState) { st.Running, st.ExitCode = false, 3 }, "exited with code 3"},
		{"oom", func(st *stack.ContainerState) { st.Running, st.OOMKilled, st.ExitCode = false, true, 137 }, "out of memory"},
	}
	for _, c := range cases {
		e := &fake.Engine{InspectFunc: func(_ stack.ContainerSpec, st *stack.ContainerState) { c.set(st) }}
		m, ctr := started(t, e)
		began := time.Now()
		_, err := m.WaitReady(context.Background(), ctr, func(context.Context) (time.Time, error) {
			return time.Time{}, errors.New("connection refused")
		}, time.Minute)
		var exit *stack.ExitError
		if !errors.As(err, &exit) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "fake log line") {
			t.Errorf("%s: got %v", c.name, err)
		}
		if time.Since(began) > time.Second {
			t.Errorf("%s: took %s to notice", c.name, time.Since(began))
		}
	}
}

func TestWaitReadyTimesOut(t *testing.T) {
	m, c := started(t, &fake.Engine{})
	_, err := m.WaitReady(context.Background(), c, func(context.Context) (time.Time, error) {
		return time.Time{}, errors.New("status 502")
	}, 200*time.Millisecond)
	if !errors.Is(err, stack.ErrNotReady) || !strings.Contains(err.Error(), "status 502") {
		t.Errorf("got %v", err)
	}
}

func TestSpecCarriesPlacementAndLabels(t *testing.T) {
	s := &stack.Service{Stack: "nginx", Role: stack.RoleGateway, Image: "gatewaybench/nginx:1", CPUSet: "1", Memory: 2 << 30,
		Configs: []stack.ConfigFile{{Target: "/etc/x.conf", Content: []byte("listen 1;")}}}
	spec, err := s.Spec("run1", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if spec.CPUSet != "1" || spec.MemoryBytes != 2<<30 || spec.NetworkMode != stack.HostNetwork || len(spec.Binds) != 1 || !strings.HasSuffix(spec.Binds[0], ":/etc/x.conf:ro") {
		t.Errorf("spec = %+v", spec)
	}
	for _, k := range []string{stack.LabelRun, stack.LabelStack, stack.LabelRole, stack.LabelConfigHash} {
		if spec.Labels[k] == "" {
			t.Errorf("label %s missing", k)
		}
	}
	other := *s
	other.Configs = []stack.ConfigFile{{Target: "/etc/x.conf", Content: []byte("listen 2;")}}
	if s.Hash() == other.Hash() {
		t.Error("a different config must change the config hash")
	}
}

// TestSweepTemp: the temporary directory of a run that is gone is removed;
// one whose owner is alive (another run, a test) is not, and neither is
// another tool's.
func TestSweepTemp(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	live, err := stack.TempDir("20261130t000000-aaaaaa")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Remove()
	// A dead run's directory: its owner's lock went with it.
	dead := filepath.Join(tmp, stack.TempPrefix+"20261130t000000-bbbbbb-1")
	os.Mkdir(dead, 0o755)
	os.WriteFile(filepath.Join(dead, ".owner"), nil, 0o644)
	os.WriteFile(filepath.Join(dead, "compose.json"), []byte("{}"), 0o644)
	other := filepath.Join(tmp, "gatewaybench-selfbench-1")
	os.Mkdir(other, 0o755)
	n, err := stack.SweepTemp()
	if err != nil || n != 1 {
		t.Fatalf("swept %d, %v; want 1", n, err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead run's directory is still there: %v", err)
	}
	for _, keep := range []string{live.Dir, other} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s was removed: %v", keep, err)
		}
	}
}

// TestImageLoadedFromTheLocalEngine: an engine elsewhere that cannot build
// or pull an image gets it from the local engine (save, then load), before
// any pull; an image the local engine lacks too is not tried, and the
// evidence says why.
func TestImageLoadedFromTheLocalEngine(t *testing.T) {
	has := map[string]bool{"example/gw:1": true}
	local := &fake.Engine{ImageFunc: func(ref string) (stack.ImageInfo, error) {
		return stack.ImageInfo{ID: "sha256:" + ref, Found: has[ref]}, nil
	}}
	loaded := map[string]bool{}
	far := &fake.Engine{
		ImageFunc: func(ref string) (stack.ImageInfo, error) {
			return stack.ImageInfo{ID: "sha256:" + ref, Found: loaded[ref]}, nil
		},
		LoadFunc: func(ref string) error { loaded[ref] = true; return nil },
	}
	img := stack.EnsureImage(context.Background(), far, &stack.Service{Image: "example/gw:1"}, nil, local)
	if img.Source != "loaded" || img.Unavailable != "" || !slices.Contains(far.Calls, "load example/gw:1") || slices.Contains(far.Calls, "pull example/gw:1") {
		t.Errorf("image %+v; calls %v", img, far.Calls)
	}
	img = stack.EnsureImage(context.Background(), far, &stack.Service{Image: "example/other:1"}, nil, local)
	if img.Unavailable == "" || !strings.Contains(img.Unavailable, "load from the local engine: it has no example/other:1 either") {
		t.Errorf("an image neither engine has: %+v", img)
	}
}

// TestImageBuiltSaysHowLong: a built image carries the time its prepare
// command and its engine build took (a slow build is then visible in the
// run's output); a local image carries none.
func TestImageBuiltSaysHowLong(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM scratch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	built := false
	e := &fake.Engine{
		ImageFunc: func(string) (stack.ImageInfo, error) { return stack.ImageInfo{ID: "sha256:x", Found: built}, nil },
		BuildFunc: func(string) error { built = true; return nil },
	}
	svc := &stack.Service{Image: "example/gw:1", Build: &stack.Build{
		Prepare: []string{"sleep", "0.2"}, PrepareDir: dir, Context: dir, Dockerfile: "Dockerfile"}}
	img := stack.EnsureImage(context.Background(), e, svc, nil, nil)
	if img.Source != "built" || img.Prepare < 200*time.Millisecond || img.Build <= 0 {
		t.Errorf("built image %+v: want its prepare (at least the 200ms it slept) and build times", img)
	}
	if img = stack.EnsureImage(context.Background(), e, svc, nil, nil); img.Source != "local" || img.Prepare != 0 || img.Build != 0 {
		t.Errorf("local image %+v: want no build times", img)
	}
}

// TestWaitReadyStopsOnDefinitive: a gateway that answers the readiness
// request with a refusal (a wrong key's 401) fails at once, saying what
// came back, instead of being retried for the whole timeout; a refusal
// that does not repeat three times (a gateway still loading) is waited out.
func TestWaitReadyStopsOnDefinitive(t *testing.T) {
	m, c := started(t, &fake.Engine{})
	refused := fmt.Errorf("%w: status 401: \"invalid api key\"", stack.ErrDefinitive)
	start := time.Now()
	_, err := m.WaitReady(context.Background(), c, func(context.Context) (time.Time, error) { return time.Time{}, refused }, time.Minute)
	if !errors.Is(err, stack.ErrNotReady) || !strings.Contains(err.Error(), "invalid api key") || time.Since(start) > 30*time.Second {
		t.Fatalf("after %s: %v", time.Since(start), err)
	}
	n := 0
	_, err = m.WaitReady(context.Background(), c, func(context.Context) (time.Time, error) {
		if n++; n <= 2 {
			return time.Time{}, refused
		}
		return time.Now(), nil
	}, time.Minute)
	if err != nil {
		t.Errorf("two refusals, then an answer: %v", err)
	}
}

// TestSweepKeepsOtherHostsRuns: a sweep removes what this host's runs (and
// older ones without a host label) left and leaves containers of another
// host's run on a shared engine, which it cannot know to be dead (the
// sweep removed every labelled container, a live run's included), and a
// container that inherited a run label from its image (issue 48).
func TestSweepKeepsOtherHostsRuns(t *testing.T) {
	ctx := context.Background()
	e := &fake.Engine{}
	mk := func(name string, labels map[string]string) string {
		id, err := e.Create(ctx, stack.ContainerSpec{Name: name, Labels: labels})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	mine := mk("gatewaybench-a-portkey", map[string]string{stack.LabelRun: "a", stack.LabelRole: "gateway", stack.LabelHost: stack.ThisHost()})
	old := mk("gatewaybench-b-mock", map[string]string{stack.LabelRun: "b", stack.LabelRole: "mock"})
	theirs := mk("gatewaybench-c-portkey", map[string]string{stack.LabelRun: "c", stack.LabelRole: "gateway", stack.LabelHost: "elsewhere"})
	// started by hand from an image built before images lost the run
	// label: it inherited that label, and no runner made it
	byHand := mk("by-hand", map[string]string{stack.LabelRun: "d"})
	// started by hand from an image committed from one of this host's
	// containers (docker commit): every label of it, but not its name
	committed := mk("quirky_name", map[string]string{stack.LabelRun: "a", stack.LabelRole: "gateway", stack.LabelHost: stack.ThisHost()})
	other := mk("app", map[string]string{"app": "not ours"})
	s, err := stack.Sweep(ctx, e)
	if err != nil || s.Removed != 2 || s.Foreign != 1 || s.NotOurs != 2 || !slices.Equal(s.Runs, []string{"a", "b"}) {
		t.Fatalf("swept %+v, %v; want 2 removed (runs a and b), 1 foreign, 2 not a runner's", s, err)
	}
	left, _ := e.Containers(ctx, stack.LabelRun, "")
	if !slices.Equal(left, []string{theirs, byHand, committed}) {
		t.Errorf("left %v, want only %s, %s and %s (mine %s, old %s)", left, theirs, byHand, committed, mine, old)
	}
	if all, _ := e.Containers(ctx, "app", ""); !slices.Equal(all, []string{other}) {
		t.Errorf("a container not of this project went: %v", all)
	}
}

// TestCountLogs: lines holding each text are counted once per text, a line
// longer than the read buffer is one line, and a container's log is read
// only over the window asked.
func TestCountLogs(t *testing.T) {
	e := &fake.Engine{LogFunc: func(stack.ContainerSpec) string {
		return "database is locked\nok\n" + strings.Repeat("x", 200<<10) + " database is locked\nSQLITE_BUSY: database is locked (busy)\nno newline at the end database is locked"
	}}
	m, c := started(t, e)
	got, err := m.CountLogs(context.Background(), c, time.Now(), time.Now(), []string{"database is locked", "SQLITE_BUSY", "absent"})
	if err != nil || !slices.Equal(got, []int64{4, 1, 0}) {
		t.Errorf("counts %v, %v; want [4 1 0]", got, err)
	}
}
