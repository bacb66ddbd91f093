package gate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/internal/golden"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestReproduce: each added p50 is judged by the difference between the
// runs with its own interval over both runs' starts: holding 0 is "same",
// leaving it out "moved", with how far; a side measured in one start has no
// start-level interval and is not judged; the tally states how many moved
// verdicts chance alone gives.
func TestReproduce(t *testing.T) {
	arm := func(name string, starts ...[]float64) summary.Figures {
		d, _ := stats.StartsDelta(starts)
		return summary.Figures{Name: name, AddedP50: summary.Figure{V: vocab.Some(d.Centre), CI: d, Has: true}}
	}
	table := func(arms ...summary.Figures) []summary.Table {
		return []summary.Table{{Point: summary.Point{Scenario: "overhead", Mode: vocab.Closed, Concurrency: 1, Prompt: 100},
			Arms: append([]summary.Figures{{Name: "direct"}}, arms...)}}
	}
	first := table(arm("nginx", []float64{0.02, 0.03}, []float64{0.025, 0.02}, []float64{0.03, 0.02}),
		arm("portkey", []float64{2.3, 2.4}, []float64{2.35, 2.4}, []float64{2.4, 2.3}),
		arm("litellm", []float64{18.4, 18}, []float64{14.0, 14.5}), // the start effect the audit measured
		arm("caddy", []float64{0.1, 0.2, 0.15}))
	second := table(arm("nginx", []float64{0.022, 0.03}, []float64{0.02, 0.025}, []float64{0.03, 0.028}),
		arm("portkey", []float64{1.4, 1.45}, []float64{1.42, 1.38}, []float64{1.44, 1.4}),
		arm("litellm", []float64{12.0, 12.5}, []float64{11.5, 11.9}),
		arm("caddy", []float64{0.1, 0.2}, []float64{0.15, 0.12}))
	first[0].Arms = append(first[0].Arms, summary.Figures{Name: "bifrost"})
	second[0].Arms = append(second[0].Arms, summary.Figures{Name: "bifrost"})
	want := map[string]string{"nginx": "same", "portkey": "moved", "litellm": "same", "caddy": "no interval over starts", "bifrost": "not measured"}
	rs := Reproduce(first, second)
	if len(rs) != len(want) {
		t.Fatalf("%d reproductions, want %d", len(rs), len(want))
	}
	for _, r := range rs {
		if got := reproWords(r); got != want[r.Arm] {
			t.Errorf("%s: %s (%+v), want %s", r.Arm, got, r.Diff, want[r.Arm])
		}
		if moved := r.New.V.V - r.Old.V.V; r.Arm == "portkey" && (moved > -0.942 || moved < -0.944) {
			t.Errorf("portkey moved %v, want -0.943", moved)
		}
	}
	// One verdict type: a move is gate.Moved, a side with no interval not
	// comparable, an arm measured in neither absent (no verdict).
	for _, r := range rs {
		if (r.Arm == "portkey") != (r.Verdict == Moved) || (r.Arm == "bifrost") != r.Absent || (r.Arm == "caddy" && r.Verdict != NotComparable) {
			t.Errorf("%s: verdict %v, absent %v", r.Arm, r.Verdict, r.Absent)
		}
	}
	var b bytes.Buffer
	WriteReproduction(&b, rs, true)
	if !strings.Contains(b.String(), "| overhead | c=1 prompt=100 | portkey | +2.358 |") || !strings.Contains(b.String(), "-0.943 ms (-40%) | [") ||
		!strings.Contains(b.String(), "95%, 3 starts | moved |") {
		t.Errorf("markdown:\n%s", b.String())
	}
	if got, want := ReproTally(rs), "2 same, 1 moved, 1 no interval over starts, 1 not measured, with nothing changed, about 0.2 of the 3 tested would be called moved by chance (5% each)"; got != want {
		t.Errorf("tally %q, want %q", got, want)
	}
}

// TestReproduceShareOfNothing: a move is not a share of a first figure that
// is 0 to its printed decimals or whose interval holds 0 (REPRODUCTION.md
// once read "+1097752409171500%" for an arm adding a float's residue).
func TestReproduceShareOfNothing(t *testing.T) {
	arm := func(v, lo, hi float64) summary.Figures {
		d := stats.Delta{Estimate: stats.Estimate{Centre: v, Lo: lo, Hi: hi, Enough: true, N: 6}}
		return summary.Figures{Name: "nginx", AddedP50: summary.Figure{V: vocab.Some(v), CI: d, Has: true}}
	}
	for _, tc := range []struct {
		first, lo, hi float64
		want          string
	}{
		{9.1e-17, -0.01, 0.01, "+0.020 ms | "},
		{0.0001, 0.00005, 0.0002, "+0.020 ms | "},
		{0.004, -0.002, 0.01, "+0.020 ms | "},
		{0.04, 0.03, 0.05, "+0.020 ms (+50%) | "},
	} {
		first := []summary.Table{{Point: summary.Point{Scenario: "overhead", Mode: vocab.Closed, Concurrency: 1, Prompt: 100},
			Arms: []summary.Figures{{Name: "direct"}, arm(tc.first, tc.lo, tc.hi)}}}
		second := []summary.Table{{Point: first[0].Point, Arms: []summary.Figures{{Name: "direct"}, arm(tc.first+0.02, tc.first, tc.first+0.04)}}}
		var b bytes.Buffer
		WriteReproduction(&b, Reproduce(first, second), true)
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("first %g [%g, %g]: want %q in\n%s", tc.first, tc.lo, tc.hi, tc.want, b.String())
		}
	}
}

// TestReproductionGolden: REPRODUCTION.md as this code writes it for the
// two runs kept in results/reproduction/ (whose own REPRODUCTION.md is the
// one their code wrote, before the test of the difference), held to a
// golden file: a change to the words or the judgement is a reviewed diff
// (UPDATE_GOLDEN=1 rewrites it).
func TestReproductionGolden(t *testing.T) {
	dirs := summary.RepeatDirs("../../results/reproduction")
	tables, err := summary.ReadRepeats(dirs)
	if err != nil || len(dirs) < 2 {
		t.Fatalf("%d repeats: %v", len(dirs), err)
	}
	var b bytes.Buffer
	WriteRepeats(&b, dirs, tables)
	golden.Check(t, "testdata/reproduction.golden", b.Bytes())
}
