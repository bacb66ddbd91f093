package apply

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestUnreadableResultsRefused: a results directory whose CSV cannot be
// read back (corrupt, or naming a manifest newer than this code reads) or
// holds columns this code would drop on rewriting it is
// refused before anything starts, with the reason, and no file in it is
// replaced (apply once replaced such a CSV, losing every other arm's rows).
func TestUnreadableResultsRefused(t *testing.T) {
	for _, c := range []struct {
		name  string
		spoil func(t *testing.T, dir, csv string)
		want  string
	}{
		{"corrupt csv", func(t *testing.T, dir, csv string) {
			writeFile(t, csv, "run_id,scenario,gateway\n\"unterminated,overhead,nginx\n")
		}, "cannot be read back"},
		{"newer manifest", func(t *testing.T, dir, csv string) {
			writeFile(t, csv, "run_id,scenario,gateway,trial,status\nr1,overhead,portkey,1,ok\n")
			writeFile(t, filepath.Join(dir, "manifests", "r1.json"), `{"schema_version": 999, "run_id": "r1"}`)
		}, "newer than this code reads"},
		{"columns of a newer runner", func(t *testing.T, dir, csv string) {
			writeFile(t, csv, "run_id,scenario,gateway,trial,status,gateway_future_metric\nr1,overhead,portkey,1,ok,3.5\n")
		}, "does not know (gateway_future_metric)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ps := newPorts(t)
			p, o := testPlan(t, ps, 200*time.Millisecond)
			o.Engine = inProcess(t, ps, p)
			path := filepath.Join(p.Dir, p.Scenarios[0].CSV)
			dir := filepath.Dir(path)
			c.spoil(t, dir, path)
			before := snapshot(t, dir)
			_, err := Run(context.Background(), context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "nothing was changed") {
				t.Fatalf("err %v, want a refusal saying %q", err, c.want)
			}
			if after := snapshot(t, dir); !maps.Equal(before, after) {
				t.Errorf("the results directory changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshot is every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(path)
			out[path] = string(b)
		}
		return nil
	})
	return out
}

// TestManifestNamesTheCodeGiven: a process that runs several plans (apply
// --repeat) names the code it read when it started in every run's
// manifest, not the checkout's state when each run began: a repeat an hour
// later once named commits made meanwhile, which it did not run.
func TestManifestNamesTheCodeGiven(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 200*time.Millisecond)
	o.Engine = inProcess(t, ps, p)
	o.Code = &results.Code{Commit: "0123456789abcdef0123456789abcdef01234567", Clean: true}
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	m, err := results.ReadManifest(results.ManifestPath(filepath.Join(p.Dir, "results"), out.RunID))
	if err != nil {
		t.Fatal(err)
	}
	if m.Code.Commit != o.Code.Commit || !m.Code.Clean || len(m.Code.Modified) != 0 {
		t.Errorf("manifest code %+v, want %+v", m.Code, *o.Code)
	}
}

// TestKeptStacks: with stacks = "kept", a warmed stack serves the next
// scenario that runs its container (kept, re-checked, its earlier requests
// counted), frozen between; a scenario's second start runs after every
// scenario's first, on a stack of its own; a cold start neither takes a
// kept stack nor leaves one.
func TestKeptStacks(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 100*time.Millisecond)
	p.Stacks, p.Isolation = config.KeptStacks, config.Freeze
	first := &p.Scenarios[0]
	first.Starts, first.Trials = 2, 1
	for i := range first.Runs {
		first.Runs[i].Start = first.Runs[i].Trial
	}
	first.Arm("proxy").Steady = plan.Steady{Requests: 300, Max: plan.Duration(time.Minute), Clients: plan.WarmClients}
	scenario := func(name string, fresh bool) plan.Scenario {
		sc := *first
		sc.Name, sc.CSV, sc.Starts, sc.FreshStacks = name, filepath.Join("results", name+".csv"), 1, fresh
		sc.Arms = slices.Clone(first.Arms)
		if fresh {
			sc.Arm("proxy").Steady = plan.Steady{}
		}
		sc.Runs = nil
		for _, run := range first.Runs {
			if run.Start == 1 {
				sc.Runs = append(sc.Runs, run)
			}
		}
		return sc
	}
	// Declared before the kept one, the failover-like scenario (it takes
	// the kept stack and leaves none) and the fresh one still run after it:
	// either would remove the stack the second then warms again.
	fails := scenario("fails", false)
	fails.DiscardsStacks = true
	p.Scenarios = append(p.Scenarios, fails, scenario("cold", true), scenario("second", false))
	e := inProcess(t, ps, p)
	o.Engine = e
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, c := range e.Calls {
		if f := strings.Fields(c); strings.Contains(c, "proxy") && (f[0] == "create" || f[0] == "remove") {
			calls = append(calls, f[0])
		}
	}
	// overhead 1 creates, second and fails take it, fails removes it, cold
	// starts its own, overhead 2 starts a third, removed at the end.
	if want := []string{"create", "remove", "create", "remove", "create", "remove"}; !slices.Equal(calls, want) {
		t.Errorf("the proxy's containers: %v, want %v", calls, want)
	}
	type life struct {
		start, stack string
		before       float64
		warmState    string
	}
	got := map[string][]life{}
	for _, f := range out.Files {
		for _, r := range readCSV(t, f) {
			if r.Str(results.ColGateway) == "proxy" {
				sc := r.Str(results.ColScenario)
				got[sc] = append(got[sc], life{r.Str(results.ColStart), r.Str(results.ColStack), r.Num(results.ColStackBefore).V, r.Str(results.ColWarmupState)})
			}
		}
	}
	ov, second, cold, failed := got["overhead"], got["second"], got["cold"], got["fails"]
	if len(ov) != 2 || ov[0].stack != "fresh" || ov[0].before != 0 || ov[1].stack != "fresh" || ov[1].before != 0 || ov[1].start != "2" {
		t.Errorf("overhead's proxy rows %+v: want two fresh stacks, starts 1 and 2", ov)
	}
	if len(second) != 1 || second[0].stack != "kept" || second[0].before < 300 || second[0].warmState == "" {
		t.Errorf("second's proxy row %+v: want the kept stack, with its 300 warm-up requests and more before, re-checked", second)
	}
	if len(failed) != 1 || len(second) != 1 || failed[0].stack != "kept" || failed[0].before <= second[0].before {
		t.Errorf("fails's proxy row %+v: want the stack kept through second, after it", failed)
	}
	if len(cold) != 1 || cold[0].stack != "fresh" || cold[0].warmState != "" {
		t.Errorf("cold's proxy row %+v: want a fresh stack, not warmed", cold)
	}
}

// TestLoadLeftByPass: the load left counts the runs not measured yet, not
// those from an index on: in pass order a scenario's second start comes
// after later scenarios' first, whose runs have higher indices and are
// done (the ETA once counted them again).
func TestLoadLeftByPass(t *testing.T) {
	second := plan.Duration(time.Second)
	run := func(index int, arm string) plan.Run {
		return plan.Run{Index: index, Arm: arm, Duration: second}
	}
	p := &plan.Plan{Scenarios: []plan.Scenario{
		{Name: "a", Runs: []plan.Run{run(1, "x"), run(2, "x")}}, // start 1, start 2
		{Name: "b", Runs: []plan.Run{run(3, "x"), run(4, "gone")}},
	}}
	r := &execution{o: Options{Plan: p}, out: Outcome{Unavailable: map[string]string{"gone": "no image"}}, ran: map[int]bool{1: true, 3: true}}
	if got := r.loadLeft(); got != time.Second {
		t.Errorf("load left after a's first start and b: %s, want 1s (a's second start only)", got)
	}
}

// TestImagesBeforeStacks: a gateway image the run must build is built
// before any container starts, the mock's included, so no started stack
// idles through the build and no cold start is measured beside it (a
// quick look once left every stack idle while litellm-rs compiled for 26
// minutes). Each image is obtained once, however many scenarios run it.
func TestImagesBeforeStacks(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 100*time.Millisecond)
	ctxDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(ctxDir, "Dockerfile"), []byte("FROM scratch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	second := p.Scenarios[0]
	second.Name, second.CSV = "second", filepath.Join("results", "second.csv")
	p.Scenarios = append(p.Scenarios, second)
	for i := range p.Scenarios {
		for j := range p.Scenarios[i].Arms {
			if a := &p.Scenarios[i].Arms[j]; a.Name == "proxy" {
				svc := *a.Replicas[0].Container
				svc.Image, svc.Build = "example/built:1", &stack.Build{Context: ctxDir, Dockerfile: "Dockerfile"}
				a.Replicas = []plan.Replica{{Port: a.Port, CPUs: a.Replicas[0].CPUs, Project: "proxy", Container: &svc, ConfigHash: svc.Hash()}}
			}
		}
	}
	e := inProcess(t, ps, p)
	var mu sync.Mutex
	built := false
	e.BuildFunc = func(string) error { mu.Lock(); built = true; mu.Unlock(); return nil }
	e.ImageFunc = func(ref string) (stack.ImageInfo, error) {
		mu.Lock()
		defer mu.Unlock()
		return stack.ImageInfo{ID: "sha256:" + ref, Size: 1 << 20, Found: ref != "example/built:1" || built}, nil
	}
	o.Engine = e
	if _, err := Run(context.Background(), context.Background(), o); err != nil {
		t.Fatal(err)
	}
	build, create, builds := -1, -1, 0
	for i, c := range e.Calls {
		switch {
		case c == "build example/built:1":
			build, builds = i, builds+1
		case strings.HasPrefix(c, "create ") && create < 0:
			create = i
		}
	}
	if builds != 1 || create < 0 || build > create {
		t.Errorf("%d builds, the last at call %d; the first container created at call %d: want one build, before any container", builds, build, create)
	}
}

// TestQuickLookSkipsSlowBuilds: a quick look builds no image whose build
// takes longer than QuickBuildMax here (the last build on this machine,
// else the HCL's build_time): the arm is not measured, and its rows and
// the progress say so with the command that builds it; a short build is
// made and its arm measured, and the estimate is said before any build.
func TestQuickLookSkipsSlowBuilds(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 100*time.Millisecond)
	p.QuickLook, p.Source = true, "bench.hcl"
	ctxDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(ctxDir, "Dockerfile"), []byte("FROM scratch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for j := range p.Scenarios[0].Arms {
		a := &p.Scenarios[0].Arms[j]
		if a.Direct {
			continue
		}
		svc := *a.Replicas[0].Container
		svc.Image, svc.Build = "example/"+a.Name+":1", &stack.Build{Context: ctxDir, Dockerfile: "Dockerfile"}
		a.Replicas = []plan.Replica{{Port: a.Port, CPUs: a.Replicas[0].CPUs, Project: a.Name, Container: &svc, ConfigHash: svc.Hash()}}
		a.BuildTime = plan.Duration(20 * time.Second)
		if a.Name == "broken" {
			a.BuildTime = plan.Duration(17 * time.Minute)
		}
	}
	e := inProcess(t, ps, p)
	var mu sync.Mutex
	built := map[string]bool{}
	e.BuildFunc = func(ref string) error { mu.Lock(); built[ref] = true; mu.Unlock(); return nil }
	e.ImageFunc = func(ref string) (stack.ImageInfo, error) {
		mu.Lock()
		defer mu.Unlock()
		return stack.ImageInfo{ID: "sha256:" + ref, Size: 1 << 20, Found: !strings.HasPrefix(ref, "example/") || built[ref]}, nil
	}
	var log strings.Builder
	o.Engine, o.Progress = e, &Progress{W: &log}
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	hint := "image not built (about 17m0s here): `runner build --gateway broken bench.hcl`"
	if built["example/broken:1"] || !built["example/proxy:1"] {
		t.Errorf("built %v: want the proxy's image alone", built)
	}
	// Said once, before the builds; the arm's start says "as said above".
	if n := strings.Count(log.String(), hint); n != 1 || !strings.Contains(log.String(), "broken unavailable: no image example/broken:1, as said above") {
		t.Errorf("the hint said %d times; progress:\n%s", n, log.String())
	}
	if !strings.Contains(out.Unavailable["broken"], hint) || !strings.Contains(log.String(), "broken: "+hint) ||
		!strings.Contains(log.String(), "1 image(s) to build before any stack starts, about 20s here in all: proxy (about 20s)") {
		t.Errorf("unavailable %q; progress:\n%s", out.Unavailable["broken"], log.String())
	}
	recs, err := results.Read(filepath.Join(p.Dir, "results", "overhead.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if gw := r.Str(results.ColGateway); gw == "broken" && (r.Status() != vocab.StatusUnavailable || !strings.Contains(r.Str(results.ColReason), hint)) ||
			gw == "proxy" && r.Status() != vocab.StatusOK {
			t.Errorf("%s: %s (%s)", gw, r.Status(), r.Str(results.ColReason))
		}
	}
}

// TestInterruptStopsBuilds: interrupted during an image build (the first
// Ctrl-C), a run finishes that build and starts no other; it used to go on
// through every remaining build, some 20 minutes each.
func TestInterruptStopsBuilds(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 100*time.Millisecond)
	ctxDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(ctxDir, "Dockerfile"), []byte("FROM scratch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	arms := 0
	for j := range p.Scenarios[0].Arms {
		a := &p.Scenarios[0].Arms[j]
		if a.Direct {
			continue
		}
		arms++
		svc := *a.Replicas[0].Container
		svc.Image, svc.Build = "example/"+a.Name+":1", &stack.Build{Context: ctxDir, Dockerfile: "Dockerfile"}
		a.Replicas = []plan.Replica{{Port: a.Port, CPUs: a.Replicas[0].CPUs, Project: a.Name, Container: &svc, ConfigHash: svc.Hash()}}
	}
	if arms < 2 {
		t.Fatalf("%d arms with an image to build: the test needs two", arms)
	}
	loadCtx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	e := inProcess(t, ps, p)
	var mu sync.Mutex
	var built []string
	e.BuildFunc = func(ref string) error {
		mu.Lock()
		built = append(built, ref)
		mu.Unlock()
		interrupt() // Ctrl-C while this build runs
		return nil
	}
	e.ImageFunc = func(ref string) (stack.ImageInfo, error) {
		mu.Lock()
		defer mu.Unlock()
		return stack.ImageInfo{ID: "sha256:" + ref, Size: 1 << 20, Found: !strings.HasPrefix(ref, "example/") || slices.Contains(built, ref)}, nil
	}
	var log strings.Builder
	o.Engine, o.Progress = e, &Progress{W: &log}
	if _, err := Run(loadCtx, context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if len(built) != 1 || !strings.Contains(log.String(), fmt.Sprintf("interrupted: %d image(s) left unobtained", arms-1)) {
		t.Errorf("built %v after an interrupt during the first build: want that one alone; progress:\n%s", built, log.String())
	}
}

// TestLostStarts: a start whose every row failed for one reason is
// reported; a start with an ok row, or failures for different reasons, or
// an arm that never came up (start 0), is not.
func TestLostStarts(t *testing.T) {
	row := func(gw string, start int, st vocab.Status, why string) results.Row {
		return results.Row{Gateway: gw, Start: start, Status: st, Reason: why}
	}
	gone := "container x-mock went away during the run"
	for _, c := range []struct {
		name string
		rows []results.Row
		want []LostStart
	}{
		{"all ok", []results.Row{row("direct", 1, vocab.StatusOK, ""), row("nginx", 1, vocab.StatusOK, "")}, nil},
		{"second start lost", []results.Row{
			row("direct", 1, vocab.StatusOK, ""), row("nginx", 1, vocab.StatusOK, ""),
			row("direct", 2, vocab.StatusFailed, gone), row("nginx", 2, vocab.StatusFailed, gone), row("nginx", 2, vocab.StatusFailed, gone),
			row("broken", 0, vocab.StatusUnavailable, "no image"),
		}, []LostStart{{Scenario: "s", Start: 2, Rows: 3, Reason: gone}}},
		{"one arm failed", []results.Row{row("direct", 1, vocab.StatusOK, ""), row("nginx", 1, vocab.StatusFailed, gone)}, nil},
		{"different reasons", []results.Row{row("direct", 1, vocab.StatusFailed, "a"), row("nginx", 1, vocab.StatusFailed, "b")}, nil},
		{"partial is not failed", []results.Row{row("direct", 1, vocab.StatusPartial, "")}, nil},
		{"only unavailable arms", []results.Row{row("broken", 0, vocab.StatusUnavailable, "no image")}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := lostStarts("s", c.rows); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestPanicTearsDown: a panic in the middle of a run (here in the host
// probe, once the stacks are up) comes back as an error carrying its
// stack, after every container the run created was removed.
func TestPanicTearsDown(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 100*time.Millisecond)
	e := inProcess(t, ps, p)
	o.Engine = e
	o.Probe = func(context.Context) results.HostProbe {
		if len(e.Live()) == 0 {
			t.Error("the probe ran before any container was up: the test misses what it is for")
		}
		panic("a bug, injected")
	}
	_, err := Run(context.Background(), context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "internal error") || !strings.Contains(err.Error(), "outputs_test.go") {
		t.Fatalf("err = %v, want the panic with its stack", err)
	}
	if live := e.Live(); len(live) != 0 {
		t.Errorf("%d containers left after the panic: %v", len(live), live)
	}
}
