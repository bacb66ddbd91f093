package gate

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestStabilities: over four runs an arm's figures spread max/min, each
// run's figure is set against the other runs' intervals (12 ordered
// pairs) beside the rate chance predicts, and an arm measured in no run is
// left out. Over the runs: their mean with its interval, where the next
// run falls (wider), and the run on a moved host outside the prediction
// the three others give; from two runs, no interval at all.
func TestStabilities(t *testing.T) {
	arm := func(name string, sys float64, starts ...[]float64) summary.Figures {
		d, _ := stats.StartsDelta(starts)
		return summary.Figures{Name: name, AddedP50: summary.Figure{V: vocab.Some(d.Centre), CI: d, Has: true}, SyscallsPerReq: vocab.Some(sys)}
	}
	run := func(arms ...summary.Figures) []summary.Table {
		return []summary.Table{{Point: summary.Point{Scenario: "overhead", Mode: vocab.Closed, Concurrency: 1, Prompt: 100},
			Arms: append([]summary.Figures{{Name: "direct"}, {Name: "bifrost"}}, arms...)}}
	}
	runs := [][]summary.Table{
		run(arm("litellm", 100, []float64{10, 10.2}, []float64{10.4, 10.1}, []float64{9.9, 10})),
		run(arm("litellm", 102, []float64{10.1, 10.3}, []float64{10.2, 10.0}, []float64{10.1, 10.2})),
		run(arm("litellm", 104, []float64{15, 15.2}, []float64{15.1, 14.9}, []float64{15.3, 15})), // the host moved
		run(arm("litellm", 101, []float64{10.0, 10.1}, []float64{10.3, 10.0}, []float64{9.9, 10.1})),
	}
	ss := Stabilities(runs)
	if len(ss) != 1 || ss[0].Arm != "litellm" {
		t.Fatalf("%+v: want litellm alone (bifrost never measured)", ss)
	}
	s := ss[0]
	if s.Pairs != 12 || s.Inside != 6 || s.Predicted < 0.83 || s.Predicted > 0.95 || !s.Spread.Set || s.Spread.V < 1.4 || s.SyscallSpread.V != 1.04 {
		t.Errorf("%+v", s)
	}
	if !s.HasAcross || s.Across.Over != stats.OverRuns || s.Across.Starts != 4 || s.Across.Lo > 10.1 || s.Across.Hi < 15.1 ||
		s.Next.N != 4 || s.Next.Lo >= s.Across.Lo || s.Next.Hi <= s.Across.Hi ||
		!s.BetweenRuns.Set || s.BetweenRuns.V < 2.2 || s.WithinRuns.V > 0.3 || s.Predictions != 4 || s.InPrediction != 3 {
		t.Errorf("across runs: %+v", s)
	}
	var b bytes.Buffer
	WriteStability(&b, []string{"a/d1", "a/d2", "a/d3", "a/d4"}, runs, ss)
	for _, want := range []string{"| overhead | c=1 prompt=100 | litellm | 1.5x | 1.04x | 6 of 12 | 91% |",
		"| overhead | c=1 prompt=100 | litellm | +11.4 | [+7.4, +15.3] 95%, mean of 4 runs | 35% | [+2.5, +20.2] 95% prediction, 4 runs | 2.489 | 0.096 | 3 of 4 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
	two := Stabilities(runs[:2])
	if len(two) != 1 || two[0].HasAcross || two[0].Predictions != 0 || RunFigures(two[0]) != "+10.10 and +10.15" || NextRun(two[0]) != "-" {
		t.Errorf("from two runs: %+v, figures %q: want the runs' figures and no interval", two, RunFigures(two[0]))
	}
	b.Reset()
	WriteStability(&b, []string{"a/d1", "a/d2"}, runs[:2], two)
	if strings.Contains(b.String(), "mean of 2 runs") {
		t.Errorf("an interval over two runs:\n%s", b.String())
	}
}

// TestNormalised: a figure that follows the gateway's own CPU per request
// is steady once divided by it, and a probe that moves while the figure
// holds makes the normalised spread wider, not narrower.
func TestNormalised(t *testing.T) {
	arm := func(fig, cpu, probe float64) summary.Figures {
		d, _ := stats.StartsDelta([][]float64{{fig}, {fig * 1.01}, {fig * 0.99}})
		rec := results.NewRecord(map[results.Col]string{results.ColStatus: string(vocab.StatusOK), results.ColProbePyNs: strconv.FormatFloat(probe, 'f', 1, 64)})
		return summary.Figures{Name: "litellm", AddedP50: summary.Figure{V: vocab.Some(d.Centre), CI: d, Has: true}, CPUUsPerReq: vocab.Some(cpu),
			Rows: []results.Record{rec}}
	}
	n := normalised([]summary.Figures{arm(10, 1000, 140), arm(12, 1200, 140), arm(11, 1100, 230), {}})
	if n.N != 3 || n.Figure < 0.08 || n.ByCPU > 0.001 || n.ByProbe <= n.Figure {
		t.Errorf("%+v: want 3 runs, the figure's spread gone by CPU, widened by the probe", n)
	}
	if n := normalised([]summary.Figures{arm(10, 1000, 140), arm(12, 1200, 140)}); n.N != 0 {
		t.Errorf("%+v from two runs", n)
	}
}
