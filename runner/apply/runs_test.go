package apply

import (
	"context"
	"fmt"
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

// TestTrialsUntilNarrow: with ci_width set, trials continue past the
// planned ones while an arm's added p50 has no 95% interval (fewer than 6
// trials) or a wider one, up to max_trials; extra trials rotate the arms.
func TestTrialsUntilNarrow(t *testing.T) {
	for _, c := range []struct {
		width time.Duration
		want  int
	}{
		{time.Hour, 6},       // met as soon as 6 trials give a 95% interval
		{time.Nanosecond, 7}, // never met: up to max_trials
	} {
		ps := newPorts(t)
		p, o := testPlan(t, ps, 150*time.Millisecond)
		sc := &p.Scenarios[0]
		sc.MaxTrials, sc.CIWidth = 7, config.CIWidth{Abs: c.width}
		o.Engine = inProcess(t, ps, p)
		if _, err := Run(context.Background(), context.Background(), o); err != nil {
			t.Fatal(err)
		}
		trials := map[string]int{}
		for _, r := range readCSV(t, filepath.Join(p.Dir, "results", "overhead.csv")) {
			if r.Str(results.ColStatus) == "ok" {
				trials[r.Str(results.ColGateway)]++
			}
		}
		if trials["direct"] != c.want || trials["proxy"] != c.want {
			t.Errorf("ci_width %s, max_trials 7: trials %v, want %d each", c.width, trials, c.want)
		}
	}
}

// TestContainersChangedUnderARun: a gateway container that restarted (or
// was removed, or replaced: another run's sweep did it) while its runs were
// measured makes those rows failed, never ok; the direct arm's rows, whose
// containers (the mock) held, stay ok.
func TestContainersChangedUnderARun(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 200*time.Millisecond)
	e := inProcess(t, ps, p)
	var mu sync.Mutex
	seen := 0
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	prev := e.InspectFunc
	e.InspectFunc = func(spec stack.ContainerSpec, st *stack.ContainerState) {
		if prev != nil {
			prev(spec, st)
		}
		st.StartedAt = t0
		if spec.Labels[stack.LabelStack] == "proxy" {
			mu.Lock()
			if seen++; seen > 1 { // after WaitReady saw it: a restart
				st.StartedAt = t0.Add(time.Second)
			}
			mu.Unlock()
		}
	}
	o.Engine = e
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, r := range readCSV(t, out.Files[0]) {
		got[r.Str(results.ColGateway)] = append(got[r.Str(results.ColGateway)], r.Str(results.ColStatus)+": "+r.Str(results.ColReason))
	}
	for _, s := range got["proxy"] {
		if !strings.HasPrefix(s, "failed: container ") || !strings.Contains(s, "restarted during the run") {
			t.Errorf("proxy row %q, want failed: restarted", s)
		}
	}
	for _, s := range got["direct"] {
		if s != "ok: " {
			t.Errorf("direct row %q, want ok", s)
		}
	}
	if len(got["proxy"]) == 0 || len(got["direct"]) == 0 {
		t.Fatalf("rows %v", got)
	}
}

// TestNarrowedRunKeepsOtherArms: a run that measures some arms of a
// scenario keeps the rows of the others already in its CSV, with the direct
// rows of their run (their figures are relative to it), and replaces the
// rows of the arms it measured (a narrowed re-run replaced a CSV of 13 arms
// with its own few). The rows of an arm the plan now skips in the scenario
// (its scenarios list dropped it) go, with their run's direct rows: a full
// run once kept MLflow's key_flood rows from the run before.
func TestNarrowedRunKeepsOtherArms(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 200*time.Millisecond)
	o.Engine = inProcess(t, ps, p)
	p.Scenarios[0].Skipped = append(p.Scenarios[0].Skipped, plan.Skip{Arm: "retired", Reason: "not in the gateway's scenarios list"})
	path := filepath.Join(p.Dir, p.Scenarios[0].CSV)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var old []results.Row
	for run, gws := range map[string][]string{"20261130t000000-aaaaaa": {"direct", "proxy", "portkey"}, "20261129t000000-bbbbbb": {"direct", "retired"}} {
		for _, gw := range gws {
			for trial := 1; trial <= 2; trial++ {
				old = append(old, results.Row{RunID: run, Scenario: "overhead", Kind: vocab.KindOverhead, Gateway: gw,
					Trial: trial, Mode: vocab.Closed, Concurrency: 1, PromptTokens: 100, Status: vocab.StatusOK, RequestsOK: 10})
			}
		}
	}
	if err := results.Write(path, old); err != nil {
		t.Fatal(err)
	}
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range readCSV(t, path) {
		count[r.Str(results.ColRunID)[:9]+" "+r.Str(results.ColGateway)]++
	}
	newRun := out.RunID[:9]
	want := map[string]int{"20261130t portkey": 2, "20261130t direct": 2, newRun + " direct": 2, newRun + " proxy": 2, newRun + " broken": 1}
	if !maps.Equal(count, want) {
		t.Errorf("rows by run and arm %v, want %v (the old run's proxy rows replaced, its portkey and direct kept, the retired arm's run gone)", count, want)
	}
}

// TestWarmupAndLogPatterns: an arm that asks for a warm-up serves the
// scenario's request in blocks before its first measured round, and its
// rows say how many, how long, how it ended and each block's p50; its log
// patterns are counted over each run's window, summed over its containers
// (one-api's "database is locked" lines, which no row counted).
func TestWarmupAndLogPatterns(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 200*time.Millisecond)
	sc := &p.Scenarios[0]
	pa := sc.Arm("proxy")
	pa.Steady = plan.Steady{Requests: 300, Max: plan.Duration(time.Minute), Clients: plan.WarmClients}
	pa.LogPatterns = []config.LogPattern{{Name: "db_locked", Text: "database is locked"}}
	e := inProcess(t, ps, p)
	e.LogFunc = func(spec stack.ContainerSpec) string {
		if spec.Labels[stack.LabelStack] == "proxy" {
			return "database is locked\nserved\ndatabase is locked\n"
		}
		return ""
	}
	o.Engine = e
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range readCSV(t, out.Files[0]) {
		switch r.Str(results.ColGateway) {
		case "proxy":
			blocks := r.List(results.ColWarmupP50s)
			state := vocab.WarmupState(r.Str(results.ColWarmupState))
			// At least 300 requests in blocks of 100 (3 blocks at least); a
			// bounded one is allowed on a slow machine, never a failed one.
			if r.Num(results.ColWarmupRequests).V < 300 || len(blocks) < 3 || (state != vocab.WarmSteady && state != vocab.WarmBounded) ||
				!(r.Num(results.ColWarmupSeconds).V > 0) {
				t.Errorf("proxy row: warm-up %q requests, %q s, %q, blocks %q", r.Str(results.ColWarmupRequests), r.Str(results.ColWarmupSeconds), state, blocks)
			}
			if !slices.Equal(r.List(results.ColLogPatterns), []string{"db_locked"}) || !slices.Equal(r.List(results.ColLogMatches), []string{"2"}) {
				t.Errorf("proxy row: patterns %q, matches %q", r.Str(results.ColLogPatterns), r.Str(results.ColLogMatches))
			}
		case "direct":
			if r.Str(results.ColWarmupRequests) != "" || r.Str(results.ColLogMatches) != "" {
				t.Errorf("direct row: warm-up %q, matches %q", r.Str(results.ColWarmupRequests), r.Str(results.ColLogMatches))
			}
		}
	}
}

// TestNearCeiling: an open-loop rate past the share of the lower ceiling
// is flagged, naming which; closed-loop points and an unqualified rig
// are not.
func TestNearCeiling(t *testing.T) {
	q := &results.Rig{DriverCeilingRPS: 40000, MockCeilingRPS: 20000, Share: 0.5}
	for _, tc := range []struct {
		q    *results.Rig
		p    plan.LoadPoint
		want string
	}{
		{q, plan.LoadPoint{Mode: vocab.Open, Rate: 9000}, ""},
		{q, plan.LoadPoint{Mode: vocab.Open, Rate: 16000}, "80% of the mock's ceiling"},
		{&results.Rig{DriverCeilingRPS: 40000, Share: 0.5}, plan.LoadPoint{Mode: vocab.Open, Rate: 30000}, "75% of the driver's ceiling"},
		{q, plan.LoadPoint{Mode: vocab.Closed, Concurrency: 256}, ""},
		{nil, plan.LoadPoint{Mode: vocab.Open, Rate: 1e9}, ""},
	} {
		got := nearCeiling(tc.q, tc.p)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%+v at %+v: %q, want %q", tc.q, tc.p, got, tc.want)
		}
	}
}

// TestIsolation: with isolation = "freeze", while an arm is measured every
// other gateway arm of the scenario is paused and it is not (direct: all
// paused); everything is thawed after the rounds. With "none" nothing is
// ever paused.
func TestIsolation(t *testing.T) {
	for _, iso := range []config.Isolation{config.Freeze, config.NoIsolation} {
		t.Run(string(iso), func(t *testing.T) {
			ps := newPorts(t)
			p, o := testPlan(t, ps, 100*time.Millisecond)
			p.Isolation = iso
			e := inProcess(t, ps, p)
			start := e.StartFunc
			e.StartFunc = func(spec stack.ContainerSpec) error {
				if spec.Labels[stack.LabelStack] != "broken" {
					return start(spec)
				}
				// a second working gateway, the first one's neighbour
				return servePipe(t, ps, p, spec, nil)
			}
			e.InspectFunc = nil
			frozen := func() map[string]bool {
				out := map[string]bool{}
				for _, spec := range e.Live() {
					if spec.Labels[stack.LabelRole] == string(stack.RoleGateway) {
						out[spec.Labels[stack.LabelStack]] = e.Paused(spec.Name)
					}
				}
				return out
			}
			var mu sync.Mutex
			var bad []string
			runs := 0
			o.Progress = &Progress{W: writerFunc(func(b []byte) (int, error) {
				line := string(b)
				if before, _, ok := strings.Cut(line, " (about"); ok && strings.Contains(line, "under way") {
					active := before[strings.LastIndex(before, " ")+1:]
					got := frozen()
					want := map[string]bool{"proxy": iso == config.Freeze && active != "proxy", "broken": iso == config.Freeze && active != "broken"}
					mu.Lock()
					runs++
					if !maps.Equal(got, want) {
						bad = append(bad, fmt.Sprintf("measuring %s: frozen %v, want %v", active, got, want))
					}
					mu.Unlock()
				}
				return len(b), nil
			})}
			o.Engine = e
			out, err := Run(context.Background(), context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if runs != 6 || len(bad) > 0 {
				t.Errorf("%d runs seen (want 6): %v", runs, bad)
			}
			for _, r := range readCSV(t, out.Files[0]) {
				if !r.Measured() {
					t.Errorf("%s: %s %s", r.Str(results.ColGateway), r.Str(results.ColStatus), r.Str(results.ColReason))
				}
			}
			pauses := 0
			for _, c := range e.Calls {
				if strings.HasPrefix(c, "pause ") {
					pauses++
				}
			}
			if (iso == config.Freeze) != (pauses > 0) {
				t.Errorf("isolation %s: %d pauses", iso, pauses)
			}
		})
	}
}

// TestStarts: a scenario of two starts removes every gateway container
// after the first start's runs and starts it again before the second's;
// each row says its start, and a gateway that never came up has one row.
// A start brings its stacks up in its own drawn order, recorded in the
// rows: here a seed whose first start brings "broken" up before "proxy",
// against the file's order (which once put two identical LiteLLMs' cold
// reads on the first declared, start after start: issue 62).
func TestStarts(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 100*time.Millisecond)
	sc := &p.Scenarios[0]
	sc.Starts, sc.Trials = 2, 1
	place := func(o []int, name string) int {
		return slices.Index(o, slices.IndexFunc(sc.Arms, func(a plan.Arm) bool { return a.Name == name }))
	}
	for sc.Seed = 1; place(sc.StartOrder(1), "broken") > place(sc.StartOrder(1), "proxy"); {
		sc.Seed++
	}
	for i := range sc.Runs {
		sc.Runs[i].Start = sc.Runs[i].Trial // trial 1 in start 1, trial 2 in start 2
	}
	// Each round's order puts the arm that never comes up first: the round
	// is probed all the same, before its first measured run (it once kept
	// the round before's probe).
	slices.SortStableFunc(sc.Runs, func(a, b plan.Run) int {
		if a.Trial != b.Trial {
			return a.Trial - b.Trial
		}
		return boolInt(b.Arm == "broken") - boolInt(a.Arm == "broken")
	})
	for i := range sc.Runs {
		sc.Runs[i].Index, sc.Runs[i].Position = i+1, 1+i%3
	}
	e := inProcess(t, ps, p)
	o.Engine = e
	// The host is probed once per round, before its first run, with every
	// gateway arm frozen; its figures reach each row of the round.
	p.Isolation = config.Freeze
	probes := 0
	o.Probe = func(context.Context) results.HostProbe {
		probes++
		for _, c := range e.Live() {
			if strings.Contains(c.Name, "proxy") && !e.Paused(c.Name) {
				t.Errorf("probe %d: %s runs beside it", probes, c.Name)
			}
		}
		return results.HostProbe{GoNs: float64(probes) + 0.5, PyNs: 150, Steal: 0.25, HasSteal: true} // 1.5 in round 1, 2.5 in round 2
	}
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if probes != 2 {
		t.Errorf("%d probes, want one per round (2)", probes)
	}
	var proxyCalls []string
	for _, c := range e.Calls {
		if strings.Contains(c, "proxy") && (strings.HasPrefix(c, "create ") || strings.HasPrefix(c, "remove ")) {
			proxyCalls = append(proxyCalls, strings.Fields(c)[0])
		}
	}
	if want := []string{"create", "remove", "create", "remove"}; !slices.Equal(proxyCalls, want) {
		t.Errorf("the proxy's containers: %v, want %v (removed between the starts)", proxyCalls, want)
	}
	if first := slices.IndexFunc(e.Calls, func(c string) bool {
		return strings.HasPrefix(c, "create ") && (strings.Contains(c, "proxy") || strings.Contains(c, "broken"))
	}); first < 0 || !strings.Contains(e.Calls[first], "broken") {
		t.Errorf("the first start brought up %q first, want broken (its drawn order)", e.Calls[max(first, 0)])
	}
	starts := map[string][]string{}
	for _, r := range readCSV(t, out.Files[0]) {
		gw := r.Str(results.ColGateway)
		starts[gw] = append(starts[gw], r.Str(results.ColStart)+" "+r.Str(results.ColStatus))
		// proxy came second in start 1 (after broken), first in start 2
		// (broken, down since its failure, is not started again)
		if want := map[string]string{"1": "2", "2": "1"}[r.Str(results.ColStart)]; gw == "proxy" && r.Str(results.ColStartOrder) != want {
			t.Errorf("proxy start %s: start_order %q, want %s", r.Str(results.ColStart), r.Str(results.ColStartOrder), want)
		}
		if gw != "broken" && r.Str(results.ColStatus) != string(vocab.StatusOK) {
			t.Errorf("%s start %s: %s (%s), want ok", gw, r.Str(results.ColStart), r.Str(results.ColStatus), r.Str(results.ColReason))
		}
		if gw != "broken" && (r.Str(results.ColProbeGoNs) != r.Str(results.ColStart)+".5" || r.Str(results.ColHostStealShare) != "0.25" || r.Str(results.ColProbeNodeNs) != "") {
			t.Errorf("%s start %s: probe %q %q %q", gw, r.Str(results.ColStart), r.Str(results.ColProbeGoNs), r.Str(results.ColHostStealShare), r.Str(results.ColProbeNodeNs))
		}
		if began, err := time.Parse(time.RFC3339, r.Str(results.ColBegan)); gw != "broken" && (err != nil || time.Since(began) > time.Hour) {
			t.Errorf("%s start %s: began %q (%v), want this run's time", gw, r.Str(results.ColStart), r.Str(results.ColBegan), err)
		}
	}
	// The second start's rows are ok too: its windows check the mock that
	// start created, not the first start's, which the fake forgot on its
	// removal as Docker does.
	want := map[string][]string{"direct": {"1 ok", "2 ok"}, "proxy": {"1 ok", "2 ok"}, "broken": {"0 failed"}}
	if !maps.EqualFunc(starts, want, slices.Equal) {
		t.Errorf("rows by start %v, want %v", starts, want)
	}
	if live := e.Live(); len(live) != 0 {
		t.Errorf("%d container(s) left after the run", len(live))
	}
	if len(out.LostStarts) != 0 {
		t.Errorf("starts lost: %v", out.LostStarts)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
