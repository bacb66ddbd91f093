package apply

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/dockertest"
	"github.com/gatewaybench/gatewaybench/internal/runlock"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/kinds"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// inspecting records what the real engine says about each container right
// after it starts: the declared cpuset, memory limit and host network.
type inspecting struct {
	stack.Engine
	mu      sync.Mutex
	started map[string]time.Time
	state   map[string]stack.ContainerState
	labels  map[string]map[string]string
}

func (e *inspecting) Create(ctx context.Context, spec stack.ContainerSpec) (string, error) {
	id, err := e.Engine.Create(ctx, spec)
	e.mu.Lock()
	e.labels[id] = spec.Labels
	e.mu.Unlock()
	return id, err
}

func (e *inspecting) Start(ctx context.Context, id string) error {
	err := e.Engine.Start(ctx, id)
	st, _ := e.Engine.Inspect(ctx, id)
	e.mu.Lock()
	name := e.labels[id][stack.LabelStack]
	e.started[name], e.state[name] = time.Now(), st
	e.mu.Unlock()
	return err
}

// timedLog stamps when each progress line was written (the first time,
// when a line is written twice).
type timedLog struct {
	t       *testing.T
	mu      sync.Mutex
	partial []byte
	lines   []timedLine
}

type timedLine struct {
	at   time.Time
	text string
}

func (w *timedLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(w.partial[:i])
		w.partial = w.partial[i+1:]
		w.lines = append(w.lines, timedLine{time.Now(), strings.TrimSpace(line)})
		w.t.Log(line)
	}
}

func (w *timedLog) when(prefix string) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range w.lines {
		if strings.HasPrefix(l.text, prefix) {
			return l.at, true
		}
	}
	return time.Time{}, false
}

func loadPlan(t *testing.T, path, resultsDir string) (*config.Config, Options) {
	t.Helper()
	cfg, _, diags := config.Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	cfg.Defaults.ResultsDir = resultsDir
	mod, _ := filepath.Abs("../..")
	return cfg, Options{Plan: mustPlan(t, cfg), ModuleDir: mod, ReadyTimeout: 30 * time.Second}
}

// mustPlan is cfg's plan, its compose files loaded, failing the test on an
// error diagnostic.
func mustPlan(t *testing.T, cfg *config.Config) *plan.Plan {
	t.Helper()
	projects, diags := config.LoadCompose(context.Background(), cfg)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := plan.Build(cfg, projects, kinds.Planner, 1)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p
}

// holdHost takes the host's run lock for a test that runs on the real
// engine: Run sweeps every labelled container, and the lock keeps this test
// from sweeping a real run's (and a real run from sweeping the test's).
func holdHost(t *testing.T) {
	lock, err := runlock.Acquire(runlock.Path(), "go test "+t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lock.Release)
}

// TestApplyDocker: the real pipeline on the real engine: mock, direct,
// nginx, and two gateways that fail at start (exit, OOM kill), which are
// reported within seconds with their logs while the others still run,
// and a key flood that tells a proxy passing invalid keys on from one
// that checks them.
func TestApplyDocker(t *testing.T) {
	real := dockertest.Engine(t)
	holdHost(t)
	resultsDir := t.TempDir()
	cfg, o := loadPlan(t, "testdata/docker.hcl", resultsDir)
	e := &inspecting{Engine: real, started: map[string]time.Time{}, state: map[string]stack.ContainerState{}, labels: map[string]map[string]string{}}
	log := &timedLog{t: t}
	o.Engine, o.Progress = e, &Progress{W: log}
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := real.Containers(context.Background(), stack.LabelRun, out.RunID); len(left) != 0 {
		t.Errorf("%d containers left after the run", len(left))
	}
	for name, st := range e.state {
		want := cfg.CPUs.Gateway.Text
		mem := cfg.Memory.Gateway
		if name == "mock" || name == "mock-fallback" {
			want, mem = cfg.CPUs.Mock.Text, cfg.Memory.Mock
		}
		if st.CPUSet != want || st.Memory != mem || !st.HostNet {
			t.Errorf("%s: engine says cpuset %q memory %d host network %v; declared %q, %d", name, st.CPUSet, st.Memory, st.HostNet, want, mem)
		}
	}
	for _, g := range []string{"crash", "oom"} {
		failedAt, ok := log.when(g + " failed")
		if !ok {
			t.Errorf("%s was not reported as failed", g)
			continue
		}
		if d := failedAt.Sub(e.started[g]); d > 10*time.Second {
			t.Errorf("%s failed %s after its start; want within seconds", g, d)
		}
	}
	rows := readCSV(t, filepath.Join(resultsDir, "overhead.csv"))
	count := map[string]int{}
	for _, r := range rows {
		count[r.Str(results.ColGateway)+"/"+r.Str(results.ColStatus)]++
		switch r.Str(results.ColGateway) {
		case "crash":
			if !strings.Contains(r.Str(results.ColReason), "exited with code 3") || !strings.Contains(r.Str(results.ColReason), "configuration file not found") {
				t.Errorf("crash reason lacks the exit code or the log: %q", r.Str(results.ColReason))
			}
		case "oom":
			if !strings.Contains(r.Str(results.ColReason), "out of memory") {
				t.Errorf("oom reason: %q", r.Str(results.ColReason))
			}
		case "nginx":
			if r.Str(results.ColGatewayCPUUsPerReq) == "" || r.Str(results.ColMemPeakMiB) == "" || r.Str(results.ColColdStartMS) == "" || r.Str(results.ColErrFidelity) != "0" {
				t.Errorf("nginx row lacks measurements: %v", r)
			}
			// The resident set, read through /proc: nginx's two processes hold a
			// few MiB (not zero, not the 2 GiB limit).
			for _, c := range []results.Col{results.ColRSSIdleMiB, results.ColRSSPeakMiB, results.ColRSSRecoveredMiB} {
				if v := r.Num(c); !v.Set || v.V < 0.5 || v.V > 256 {
					t.Errorf("nginx %s = %q", c.Name(), r.Str(c))
				}
			}
			// A starved driver may read two events 2 ms apart at once now and
			// then (17 streams of 270 in one run under load): the verdict's
			// 10% rule is what must hold, not zero bursts.
			if strings.Contains(r.Str(results.ColVerdict), "buffering") {
				t.Errorf("the honest nginx was called a buffer: %s (bursty %s of %s)", r.Str(results.ColVerdict), r.Str(results.ColBurstyStreams), r.Str(results.ColStreams))
			}
			t.Logf("nginx c=%s: p50 %sms p99 %sms ttft p50 %sms, cpu %sµs/req, peak %s MiB (rss %s MiB), cold start %sms",
				r.Str(results.ColConcurrency), r.Str(results.ColLatency.P50), r.Str(results.ColLatency.P99), r.Str(results.ColTTFT.P50), r.Str(results.ColGatewayCPUUsPerReq), r.Str(results.ColMemPeakMiB), r.Str(results.ColRSSPeakMiB), r.Str(results.ColColdStartMS))
		case "nginx-buffering":
			if !strings.Contains(r.Str(results.ColVerdict), "buffering") || r.Str(results.ColBurstyStreams) == "0" {
				t.Errorf("the buffering nginx was not flagged: verdict %q, bursty %s of %s, %s events per read",
					r.Str(results.ColVerdict), r.Str(results.ColBurstyStreams), r.Str(results.ColStreams), r.Str(results.ColEventsPerRead))
			}
		case "nginx-rewrite":
			if r.Str(results.ColStatus) != "failed" || !strings.Contains(r.Str(results.ColReason), "fidelity") || r.Str(results.ColLatency.P50) != "" {
				t.Errorf("the rewriting nginx was not failed with its percentiles withheld: status %q reason %q p50 %q",
					r.Str(results.ColStatus), r.Str(results.ColReason), r.Str(results.ColLatency.P50))
			}
		}
	}
	if count["direct/ok"] != 2 || count["nginx/ok"] != 2 || count["nginx-buffering/ok"] != 2 || count["nginx-rewrite/failed"] != 2 ||
		count["crash/failed"] != 1 || count["oom/failed"] != 1 || count["nginx-keycheck/ok"] != 2 {
		t.Errorf("rows by gateway/status = %v", count)
	}
	// Head of line: each arm's small turns alone and beside a long stream
	// that overlapped the whole window.
	variants := map[string]int{}
	for _, r := range readCSV(t, filepath.Join(resultsDir, "head_of_line.csv")) {
		t.Logf("head_of_line %s %s: %s, ttft p99 %sms; %s", r.Str(results.ColGateway), r.Str(results.ColVariant), r.Str(results.ColStatus), r.Str(results.ColTTFT.P99), r.Str(results.ColReason))
		if r.Str(results.ColStatus) != "ok" || r.Str(results.ColPromptTokens) != "100" {
			t.Errorf("head_of_line %s %s: status %s, prompt %s, %s", r.Str(results.ColGateway), r.Str(results.ColVariant), r.Str(results.ColStatus), r.Str(results.ColPromptTokens), r.Str(results.ColReason))
		}
		variants[r.Str(results.ColVariant)]++
	}
	if variants["alone"] != 2 || variants["beside a 100000-token stream"] != 2 {
		t.Errorf("head_of_line rows by variant: %v", variants)
	}
	// Cancellation: clients leave after 4 of 40 events; the honest nginx
	// stops the mock's stream, the one ignoring client aborts does not.
	for _, r := range readCSV(t, filepath.Join(resultsDir, "cancellation.csv")) {
		t.Logf("cancellation %s: %s; upstream streams completed %s, aborted %s, events after leaving %s; verdict %s", r.Str(results.ColGateway),
			r.Str(results.ColStatus), r.Str(results.ColStreamsCompleted), r.Str(results.ColStreamsAborted), r.Str(results.ColEventsAfterLeave), r.Str(results.ColVerdict))
		stops := !strings.Contains(r.Str(results.ColVerdict), "does not stop the upstream")
		if r.Str(results.ColStatus) != "ok" || stops != (r.Str(results.ColGateway) != "nginx-ignore-abort") {
			t.Errorf("cancellation %s: status %s, verdict %q", r.Str(results.ColGateway), r.Str(results.ColStatus), r.Str(results.ColVerdict))
		}
	}
	// Sessions: whole 30-turn sessions through nginx and directly, streamed
	// and not, every turn passing the fidelity check.
	sessionVariants := map[string]bool{}
	for _, r := range readCSV(t, filepath.Join(resultsDir, "session.csv")) {
		t.Logf("session %s (%s): %s, %s sessions, p50 %sms per session, turn p50 %sms", r.Str(results.ColGateway), r.Str(results.ColVariant), r.Str(results.ColStatus),
			r.Str(results.ColRequestsOK), r.Str(results.ColLatency.P50), r.Str(results.ColService.P50))
		sessionVariants[r.Str(results.ColVariant)] = true
		if r.Str(results.ColStatus) != "ok" || r.Str(results.ColRequestsOK) == "0" || r.Str(results.ColErrFidelity) != "0" {
			t.Errorf("session %s (%s): status %s, %s sessions, %s fidelity errors: %s", r.Str(results.ColGateway), r.Str(results.ColVariant), r.Str(results.ColStatus),
				r.Str(results.ColRequestsOK), r.Str(results.ColErrFidelity), r.Str(results.ColReason))
		}
	}
	if len(sessionVariants) != 2 {
		t.Errorf("session variants %v, want streamed and not", sessionVariants)
	}
	// Failover: the direct arm gets the primary's failures; the nginx with a
	// fallback turns them into good answers the fallback mock served; the
	// nginx that answers 200 in their place is failed.
	for _, r := range readCSV(t, filepath.Join(resultsDir, "failover.csv")) {
		t.Logf("failover %s: %s, ok %s, http errors %s, fidelity errors %s, primary %s (failed %s), fallback %s, retries %s; %s %s",
			r.Str(results.ColGateway), r.Str(results.ColStatus), r.Str(results.ColRequestsOK), r.Str(results.ColErrHTTP), r.Str(results.ColErrFidelity), r.Str(results.ColUpstreamHits),
			r.Str(results.ColUpstreamErrors), r.Str(results.ColFallbackHits), r.Str(results.ColRetries), r.Str(results.ColReason), r.Str(results.ColVerdict))
		switch r.Str(results.ColGateway) {
		case "direct":
			if r.Str(results.ColStatus) != "ok" || r.Str(results.ColErrHTTP) == "0" || r.Str(results.ColFallbackHits) != "0" ||
				r.Str(results.ColAbsorbed) != "0" || r.Str(results.ColErrorPath.N) != "0" || !strings.Contains(r.Str(results.ColVerdict), string(vocab.VBaseline)) {
				t.Errorf("direct: status %s, http errors %s, fallback %s, absorbed %s, error path n %s, verdict %q", r.Str(results.ColStatus), r.Str(results.ColErrHTTP),
					r.Str(results.ColFallbackHits), r.Str(results.ColAbsorbed), r.Str(results.ColErrorPath.N), r.Str(results.ColVerdict))
			}
		case "nginx":
			// Every failure absorbed, each rescued request timed on the
			// error path, the others on the clean path.
			t.Logf("nginx: error path p50 %sms (n %s), clean path p50 %sms (n %s)", r.Str(results.ColErrorPath.P50), r.Str(results.ColErrorPath.N),
				r.Str(results.ColCleanPath.P50), r.Str(results.ColCleanPath.N))
			if r.Str(results.ColStatus) != "ok" || r.Str(results.ColErrHTTP) != "0" || r.Str(results.ColFallbackHits) == "0" || r.Str(results.ColUpstreamErrors) == "0" ||
				r.Str(results.ColAbsorbed) != r.Str(results.ColUpstreamErrors) || r.Str(results.ColErrorPath.N) == "0" || r.Str(results.ColErrorPath.P50) == "" || r.Str(results.ColCleanPath.P50) == "" {
				t.Errorf("the nginx with a fallback: status %s, http errors %s, fallback %s, primary failed %s, absorbed %s, error path n %s p50 %s, clean path p50 %s",
					r.Str(results.ColStatus), r.Str(results.ColErrHTTP), r.Str(results.ColFallbackHits), r.Str(results.ColUpstreamErrors), r.Str(results.ColAbsorbed),
					r.Str(results.ColErrorPath.N), r.Str(results.ColErrorPath.P50), r.Str(results.ColCleanPath.P50))
			}
		case "nginx-hide-errors":
			if r.Str(results.ColStatus) != "failed" || !strings.Contains(r.Str(results.ColReason), "hides upstream errors") {
				t.Errorf("the nginx that hides errors: status %s, reason %q", r.Str(results.ColStatus), r.Str(results.ColReason))
			}
		}
	}
	// The key flood: refusals timed for every arm; the proxy that passes
	// invalid keys on is failed with the mock's count, the one that checks
	// them is not, and no invalid key was ever served.
	for _, r := range readCSV(t, filepath.Join(resultsDir, "key_flood.csv")) {
		t.Logf("key_flood %s: %s, %s refusals, p50 %sms, upstream hits %s, accepted %s; %s", r.Str(results.ColGateway), r.Str(results.ColStatus),
			r.Str(results.ColRequestsOK), r.Str(results.ColLatency.P50), r.Str(results.ColUpstreamHits), r.Str(results.ColErrAccepted), r.Str(results.ColReason))
		if r.Str(results.ColErrAccepted) != "0" || r.Str(results.ColRequestsOK) == "0" {
			t.Errorf("%s: %s refusals, %s invalid keys served", r.Str(results.ColGateway), r.Str(results.ColRequestsOK), r.Str(results.ColErrAccepted))
		}
		switch r.Str(results.ColGateway) {
		case "nginx":
			if r.Str(results.ColStatus) != "failed" || !strings.Contains(r.Str(results.ColReason), "cannot check keys") || r.Str(results.ColUpstreamHits) == "0" {
				t.Errorf("the nginx that passes keys on: status %s, hits %s, reason %q", r.Str(results.ColStatus), r.Str(results.ColUpstreamHits), r.Str(results.ColReason))
			}
		case "nginx-keycheck":
			if r.Str(results.ColStatus) != "ok" || r.Str(results.ColUpstreamHits) != "0" {
				t.Errorf("the nginx that checks keys: status %s, hits %s, reason %q", r.Str(results.ColStatus), r.Str(results.ColUpstreamHits), r.Str(results.ColReason))
			}
		}
	}
}

// built is the CLI, built once for the tests that run it as a process.
var built struct {
	once sync.Once
	bin  string
	out  []byte
	err  error
}

// runnerBinary returns the CLI built into the test process's directory.
func runnerBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.bin = filepath.Join(testDir, "runner")
		built.out, built.err = exec.Command("go", "build", "-o", built.bin, "../../runner").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("build runner: %v\n%s", built.err, built.out)
	}
	return built.bin
}

// startApply runs `runner apply` and returns it with a channel of its output lines.
func startApply(t *testing.T, bin, resultsDir string) (*exec.Cmd, <-chan string) {
	t.Helper()
	return startApplyIn(t, bin, resultsDir, filepath.Dir(resultsDir))
}

// startApplyIn is startApply with TMPDIR set to tmp.
func startApplyIn(t *testing.T, bin, resultsDir, tmp string) (*exec.Cmd, <-chan string) {
	t.Helper()
	cmd := exec.Command(bin, "apply", "--results", resultsDir, "testdata/signals.hcl")
	// Its temporary directories in a TMPDIR of its own; the run lock is the
	// host's whatever TMPDIR says, so this test waits for no benchmark
	// running beside it: it fails rather than sweep a live run's containers.
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			t.Log(sc.Text())
			lines <- sc.Text()
		}
		close(lines)
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, lines
}

func waitLine(t *testing.T, lines <-chan string, prefix string, limit time.Duration) {
	t.Helper()
	deadline := time.After(limit)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("runner exited before printing %q", prefix)
			}
			if strings.Contains(l, prefix) {
				return
			}
		case <-deadline:
			t.Fatalf("no %q within %s", prefix, limit)
		}
	}
}

func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("runner did not exit within %s", limit)
	}
}

// TestApplySignals: after SIGINT in the middle of a run, and after SIGKILL
// followed by a new start, no container with the project's labels remains.
func TestApplySignals(t *testing.T) {
	e := dockertest.Engine(t)
	ctx := context.Background()
	bin := runnerBinary(t)
	resultsDir := t.TempDir()

	cmd, lines := startApply(t, bin, resultsDir)
	// The event that makes a run in flight: its start line (a clock here
	// sent SIGINT before the first run began on a busy machine).
	waitLine(t, lines, "trial 1 direct (about", 3*time.Minute)
	cmd.Process.Signal(syscall.SIGINT)
	waitExit(t, cmd, 30*time.Second)
	if left, _ := e.Containers(ctx, stack.LabelRun, ""); len(left) != 0 {
		t.Errorf("%d containers left after SIGINT", len(left))
	}
	partial := 0
	runs, _ := filepath.Glob(filepath.Join(resultsDir, "runs", "*", "overhead.csv"))
	for _, f := range runs {
		for _, r := range readCSV(t, f) {
			if r.Str(results.ColStatus) == "partial" {
				partial++
			}
		}
	}
	if partial != 1 {
		t.Errorf("after SIGINT the run in flight must be written as partial; %d partial rows", partial)
	}

	// A closed terminal (SIGHUP) tears down as Ctrl-C does: it left the
	// containers and the temporary directory with the gateways' configs.
	cmd, lines = startApply(t, bin, resultsDir)
	waitLine(t, lines, "nginx up", 2*time.Minute)
	cmd.Process.Signal(syscall.SIGHUP)
	waitExit(t, cmd, 30*time.Second)
	if left, _ := e.Containers(ctx, stack.LabelRun, ""); len(left) != 0 {
		t.Errorf("%d containers left after SIGHUP", len(left))
	}
	if tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(resultsDir), stack.TempPrefix+"*")); len(tmps) != 0 {
		t.Errorf("temporary directories left after SIGHUP: %v", tmps)
	}

	cmd, lines = startApply(t, bin, resultsDir)
	waitLine(t, lines, "nginx up", 2*time.Minute)
	cmd.Process.Signal(syscall.SIGKILL)
	waitExit(t, cmd, 10*time.Second)
	left, _ := e.Containers(ctx, stack.LabelRun, "")
	if len(left) == 0 {
		t.Fatal("SIGKILL left no container: the test proves nothing")
	}
	cmd, lines = startApply(t, bin, resultsDir)
	waitLine(t, lines, "of this host, no longer running", time.Minute) // says whose: "left by run ID of this host"
	waitLine(t, lines, "nginx up", 2*time.Minute)
	cmd.Process.Signal(syscall.SIGINT)
	waitExit(t, cmd, 30*time.Second)
	if left, _ := e.Containers(ctx, stack.LabelRun, ""); len(left) != 0 {
		t.Errorf("%d containers left after SIGKILL and a new run", len(left))
	}
	os.RemoveAll(resultsDir)
}

// TestSecondApplyRefused: a second apply while one runs, with another
// TMPDIR, is refused and touches nothing: with a lock under $TMPDIR it took
// a lock of its own, swept the live run's containers and started on its
// ports, while the first went on writing ok rows.
func TestSecondApplyRefused(t *testing.T) {
	e := dockertest.Engine(t)
	bin := runnerBinary(t)
	first := t.TempDir()
	cmd, lines := startApply(t, bin, first)
	waitLine(t, lines, "[1/2]", 2*time.Minute) // the direct run measured; nginx's under way
	second := exec.Command(bin, "apply", "--results", t.TempDir(), "testdata/signals.hcl")
	second.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	out, err := second.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(string(out), "another gatewaybench run holds this host") {
		t.Errorf("the second apply: %v\n%s", err, out)
	}
	waitExit(t, cmd, 3*time.Minute)
	rows := readCSV(t, filepath.Join(first, "overhead.csv"))
	for _, r := range rows {
		if !r.Measured() {
			t.Errorf("%s: %s (%s): the first run was disturbed", r.Str(results.ColGateway), r.Str(results.ColStatus), r.Str(results.ColReason))
		}
	}
	if len(rows) != 2 {
		t.Errorf("%d rows, want direct and nginx", len(rows))
	}
	if left, _ := e.Containers(context.Background(), stack.LabelRun, ""); len(left) != 0 {
		t.Errorf("%d containers left", len(left))
	}
}

// TestAIGatewaysDocker: Portkey and one-api (default and tuned) are built
// from the registries this machine reaches by their own prepare steps and
// pass the mock's streams through unchanged. A broken recipe fails here.
func TestAIGatewaysDocker(t *testing.T) {
	o, out, resultsDir := runAIGateways(t, "testdata/ai.hcl")
	if len(out.Unavailable) != 0 {
		t.Fatalf("not measured: %v", out.Unavailable)
	}
	checkFaithful(t, resultsDir, []string{"chat", "chat_stream", "messages_stream"}, nil)
	leftNothing(t, o, out)
}

// runAIGateways runs a test HCL of gateways built from registries on the
// real engine, with time for their first builds, and returns its options,
// outcome and resultsDir directory.
func runAIGateways(t *testing.T, hcl string) (Options, Outcome, string) {
	t.Helper()
	real := dockertest.Engine(t)
	holdHost(t)
	resultsDir := t.TempDir()
	_, o := loadPlan(t, hcl, resultsDir)
	o.Engine, o.Progress = real, &Progress{W: &timedLog{t: t}}
	o.ReadyTimeout = 2 * time.Minute
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return o, out, resultsDir
}

// checkFaithful fails every row of the scenarios that is not ok or that
// lost, altered or failed to check a frame, and returns the scenario and
// gateway of each row seen; gateways in skip are passed over.
func checkFaithful(t *testing.T, resultsDir string, scenarios []string, skip map[string]bool) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	for _, sc := range scenarios {
		for _, r := range readCSV(t, filepath.Join(resultsDir, sc+".csv")) {
			if skip[r.Str(results.ColGateway)] {
				continue
			}
			seen[sc+" "+r.Str(results.ColGateway)] = true
			t.Logf("%s %s: %s ok, p50 %sms, ttft p50 %sms, %s events per read, verdict %s",
				sc, r.Str(results.ColGateway), r.Str(results.ColRequestsOK), r.Str(results.ColLatency.P50), r.Str(results.ColTTFT.P50), r.Str(results.ColEventsPerRead), r.Str(results.ColVerdict))
			if r.Str(results.ColStatus) != "ok" || r.Str(results.ColRequestsOK) == "0" || r.Str(results.ColErrFidelity) != "0" || r.Num(results.ColFramesMissing).V != 0 || r.Num(results.ColFramesAltered).V != 0 {
				t.Errorf("%s %s: status %s (%s), %s ok, fidelity errors %s, missing %s, altered %s", sc, r.Str(results.ColGateway), r.Str(results.ColStatus),
					r.Str(results.ColReason), r.Str(results.ColRequestsOK), r.Str(results.ColErrFidelity), r.Str(results.ColFramesMissing), r.Str(results.ColFramesAltered))
			}
		}
	}
	return seen
}

// leftNothing fails the test when the run left a container behind.
func leftNothing(t *testing.T, o Options, out Outcome) {
	t.Helper()
	if left, _ := o.Engine.Containers(context.Background(), stack.LabelRun, out.RunID); len(left) != 0 {
		t.Errorf("%d containers left after the run", len(left))
	}
}

// TestIsolationDocker: with isolation = "freeze", a neighbour that burns
// about 20% of the gateway's core while idle takes no CPU while nginx is
// measured; with "none" it takes its share (its cgroup's CPU time, read
// by the engine around each of nginx's runs). nginx's added p50 in each
// mode is logged, not judged: on a busy machine it moves for other reasons.
func TestIsolationDocker(t *testing.T) {
	real := dockertest.Engine(t)
	holdHost(t)
	for _, iso := range []config.Isolation{config.Freeze, config.NoIsolation} {
		t.Run(string(iso), func(t *testing.T) {
			resultsDir := t.TempDir()
			_, o := loadPlan(t, "testdata/isolation.hcl", resultsDir)
			o.Plan.Isolation = iso
			ctx := context.Background()
			cpu := func() time.Duration {
				ids, err := real.Containers(ctx, stack.LabelStack, "neighbour")
				if err != nil || len(ids) != 1 {
					t.Fatalf("the neighbour's container: %v %v", ids, err)
				}
				st, err := real.Stats(ctx, ids[0])
				if err != nil {
					t.Fatalf("the neighbour's CPU: %v", err)
				}
				return st.CPUTotal
			}
			var mu sync.Mutex
			var before time.Duration
			var used []time.Duration
			log := &timedLog{t: t}
			o.Engine = real
			o.Progress = &Progress{W: writerFunc(func(b []byte) (int, error) {
				line := string(b)
				if strings.Contains(line, " nginx ") && strings.HasPrefix(line, "[") {
					mu.Lock()
					if strings.Contains(line, "under way") {
						before = cpu()
					} else {
						used = append(used, cpu()-before)
					}
					mu.Unlock()
				}
				return log.Write(b)
			})}
			out, err := Run(ctx, ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			leftNothing(t, o, out)
			if len(used) != 1 {
				t.Fatalf("%d of nginx's runs seen, want 1", len(used))
			}
			for _, u := range used {
				// Frozen, the neighbour runs nothing at all; running, it
				// burns about 300 ms of the 1.75 s warmup and window (a
				// fifth of that is the bound, for a starved machine).
				if iso == config.Freeze && u > 10*time.Millisecond || iso == config.NoIsolation && u < 60*time.Millisecond {
					t.Errorf("isolation %s: the neighbour used %s of CPU while nginx was measured", iso, u)
				}
			}
			added := ""
			for _, tab := range summary.Build(readCSV(t, filepath.Join(resultsDir, "overhead.csv"))) {
				for _, a := range tab.Arms {
					added += fmt.Sprintf(" %s %s", a.Name, summary.Signed(a.AddedP50.V))
				}
			}
			t.Logf("isolation %s: the neighbour used %v while nginx was measured; added p50:%s", iso, used, added)
		})
	}
}

// TestTwoStartsDocker: every level a real run has, through the CLI as a
// user runs it: two scenarios on one kept nginx stack, two starts each,
// --repeat 2. Every row of both starts is ok, in both repeats: the second
// start once checked the first start's mock, removed by then, and every
// row of it failed with "went away during the run".
func TestTwoStartsDocker(t *testing.T) {
	e := dockertest.Engine(t)
	bin := runnerBinary(t)
	base := t.TempDir()
	// A container someone started by hand from a project image built before
	// images lost the run label: it inherits that label, and no run made it,
	// so no run's sweep may take it (issue 48).
	ctx := context.Background()
	dockertest.HelloImage(ctx, t, e, "gatewaybench/smoke:by-hand", map[string]string{stack.LabelRun: "an-older-run"})
	byHand, err := e.Create(ctx, stack.ContainerSpec{Name: fmt.Sprintf("by-hand-%d", time.Now().UnixNano()), Image: "gatewaybench/smoke:by-hand",
		Cmd: []string{"-addr", "127.0.0.1:0"}, NetworkMode: stack.HostNetwork})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Remove(context.Background(), byHand) })
	if err := e.Start(ctx, byHand); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "apply", "--repeat", "2", "--results", base, "testdata/starts.hcl")
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Errorf("runner apply: %v", err)
	}
	if !strings.Contains(string(out), "nginx kept from earlier scenarios") {
		t.Error("no scenario took the kept nginx stack: the test misses a level of a real run")
	}
	for _, run := range []string{"run-1", "run-2"} {
		for _, sc := range []string{"overhead", "streaming_turn"} {
			starts := map[string]int{}
			for _, r := range readCSV(t, filepath.Join(base, run, sc+".csv")) {
				key := r.Str(results.ColGateway) + " start " + r.Str(results.ColStart)
				starts[key]++
				if r.Str(results.ColStatus) != string(vocab.StatusOK) {
					t.Errorf("%s %s %s trial %s: %s (%s)", run, sc, key, r.Str(results.ColTrial), r.Str(results.ColStatus), r.Str(results.ColReason))
				}
				// The gateway's kernel work per request is counted (perf_event
				// on its cgroup; scripts/docker-up.sh mounts tracefs): a proxy
				// makes a few system calls per request at least.
				if v := r.Num(results.ColGatewaySyscallsPerReq); r.Str(results.ColGateway) == "nginx" && (!v.Set || v.V < 2) {
					t.Errorf("%s %s %s: syscalls per request %v", run, sc, key, v)
				}
			}
			for _, key := range []string{"direct start 1", "direct start 2", "nginx start 1", "nginx start 2"} {
				if starts[key] != 2 {
					t.Errorf("%s %s: %d rows of %s, want 2: %v", run, sc, starts[key], key, starts)
				}
			}
		}
	}
	if left, _ := e.Containers(ctx, stack.LabelRole, ""); len(left) != 0 {
		t.Errorf("%d containers left", len(left))
	}
	if st, err := e.Inspect(ctx, byHand); err != nil || !st.Running {
		t.Errorf("the container started by hand: %+v, %v; want it still running", st, err)
	}
}

// TestPanicTearsDownDocker: a bug that panics once the stacks are up on
// the real engine (here in the host probe) fails the run with its stack,
// and no container of the run is left.
func TestPanicTearsDownDocker(t *testing.T) {
	real := dockertest.Engine(t)
	holdHost(t)
	_, o := loadPlan(t, "testdata/isolation.hcl", t.TempDir())
	o.Engine, o.Progress = real, &Progress{W: &timedLog{t: t}}
	o.Probe = func(ctx context.Context) results.HostProbe {
		if ids, _ := real.Containers(ctx, stack.LabelStack, "nginx"); len(ids) == 0 {
			t.Error("the probe ran before nginx was up: the test misses what it is for")
		}
		panic("a bug, injected")
	}
	out, err := Run(context.Background(), context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Fatalf("err = %v, want the panic", err)
	}
	if out.RunID == "" {
		t.Fatal("no run id after the panic")
	}
	leftNothing(t, o, out)
}
