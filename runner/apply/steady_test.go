package apply

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestSteadyAfter: a warm-up is steady when its last two blocks agree
// within 5% and the last blocks show no trend; a run of agreeing pairs on
// a slow climb (one-api's growing log table) is not.
func TestSteadyAfter(t *testing.T) {
	climb := []float64{}
	for i := range 12 {
		climb = append(climb, 4+0.15*float64(i)) // +3.7% a block, +26% over 8
	}
	for _, c := range []struct {
		name string
		p50s []float64
		want bool
	}{
		{"too few blocks", []float64{1, 1}, false},
		{"flat", []float64{1, 1.01, 0.99, 1, 1.02}, true},
		{"cold then flat", []float64{9, 4, 2, 1.5, 1.01, 1, 1.02, 0.99, 1, 1.01, 1, 0.99}, true},
		{"cold, the fall still in the last blocks", []float64{9, 4, 2, 1.5, 1.01, 1, 1.02, 0.99, 1, 1.01}, false},
		{"still falling", []float64{9, 6, 4, 3, 2.5}, false},
		{"last two apart", []float64{1, 1, 1, 1.2}, false},
		{"slow climb", climb, false},
		{"zero p50", []float64{0, 0, 0}, false},
	} {
		if got := steadyAfter(c.p50s); got != c.want {
			t.Errorf("%s %v: steady %v, want %v", c.name, c.p50s, got, c.want)
		}
	}
}

// TestCheckBeforeWindow: an arm that is slow for its first requests after
// every thaw (a JIT's code cooled while frozen, planted here as a plateau:
// 40 requests each held 40 ms, blocks that agree with each other) is
// brought back to the level it settled at before each window, so no
// window sees the cold requests. Without the check the 100 ms warm-up
// before the window held a few of them and every window opened cold; with
// a check that stopped at three agreeing blocks, it stopped on the plateau.
// The rows say how each check ended, the warm-up's part at the measured
// load, and where the arm came in its start's warm-up order.
func TestCheckBeforeWindow(t *testing.T) {
	t.Run("checked", func(t *testing.T) { checkBeforeWindow(t, false) })
	// steady_at_load = false: no warm-up at the measured load, the window
	// opens on the thaw, and the rows say neither ran.
	t.Run("steady_at_load off", func(t *testing.T) { checkBeforeWindow(t, true) })
}

func checkBeforeWindow(t *testing.T, off bool) {
	const cold, delay = 40, 40 * time.Millisecond
	ps := newPorts(t)
	p, o := testPlan(t, ps, 200*time.Millisecond)
	p.Isolation = config.Freeze
	sc := &p.Scenarios[0]
	sc.Arm("proxy").Steady = plan.Steady{Requests: 100, Max: plan.Duration(time.Minute), Clients: plan.WarmClients}
	sc.NoSteadyAtLoad = off
	e := inProcess(t, ps, p)
	var left atomic.Int64
	start := e.StartFunc
	e.StartFunc = func(spec stack.ContainerSpec) error {
		if spec.Labels[stack.LabelStack] != "proxy" {
			return start(spec)
		}
		return servePipe(t, ps, p, spec, func() {
			if left.Add(-1) >= 0 {
				time.Sleep(delay) // a plateau: blocks that agree, at the cold figure
			}
		})
	}
	e.PauseFunc = func(spec stack.ContainerSpec, paused bool) {
		if spec.Labels[stack.LabelStack] == "proxy" && !paused {
			left.Store(cold)
		}
	}
	o.Engine = e
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, r := range readCSV(t, out.Files[0]) {
		if r.Str(results.ColGateway) != "proxy" || !r.Measured() {
			continue
		}
		rows++
		if off {
			if n := r.Num(results.ColCheckRequests); n.Set || r.Str(results.ColCheckState) != "" {
				t.Errorf("trial %d: a check of %v requests (%s) with steady_at_load off", r.Int(results.ColTrial), n, r.Str(results.ColCheckState))
			}
			if b := r.List(results.ColWarmupAtLoadP50s); len(b) > 0 {
				t.Errorf("trial %d: a warm-up at the measured load (%d blocks) with steady_at_load off", r.Int(results.ColTrial), len(b))
			}
			continue
		}
		p50 := r.Num(results.ColLatency.P50)
		// A cold request takes the delay on top of the stream's 8 ms, a
		// warm one none: the bound is well below the one, above the other.
		if !p50.Set || p50.V >= float64(delay/time.Millisecond)/2+8 {
			t.Errorf("trial %d: p50 %v ms: the window saw the cold requests", r.Int(results.ColTrial), p50)
		}
		if n := r.Num(results.ColCheckRequests); !(n.V >= cold) || len(r.List(results.ColCheckP50s)) == 0 {
			t.Errorf("trial %d: check of %v requests, blocks %q; want at least the %d cold ones", r.Int(results.ColTrial), n, r.List(results.ColCheckP50s), cold)
		}
		if s := vocab.WarmupState(r.Str(results.ColCheckState)); s != vocab.WarmSteady && s != vocab.WarmBounded {
			t.Errorf("trial %d: check %q", r.Int(results.ColTrial), s)
		}
		// the warm-up's second part, at the window's one client: at least
		// eight blocks before the rule is judged, or its bound
		if b := r.List(results.ColWarmupAtLoadP50s); len(b) < 8 && r.Str(results.ColWarmupAtLoadState) != string(vocab.WarmBounded) {
			t.Errorf("trial %d: the warm-up at the measured load gave %d blocks (%s)", r.Int(results.ColTrial), len(b), r.Str(results.ColWarmupAtLoadState))
		}
		if o := r.Num(results.ColWarmupOrder); !o.Set || o.V < 1 || o.V > 3 {
			t.Errorf("trial %d: warm-up order %v", r.Int(results.ColTrial), o)
		}
	}
	if rows != 2 {
		t.Errorf("%d measured proxy rows, want 2", rows)
	}
}
