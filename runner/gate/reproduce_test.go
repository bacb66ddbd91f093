package summary

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestReproduce: each added p50 is judged by the difference between the
// runs with its own interval over both runs' starts: holding 0 is "same",
// leaving it out "moved", with how far; a side measured in one start has no
// start-level interval and is not judged; the tally states how many moved
// verdicts chance alone gives.
func TestReproduce(t *testing.T) {
	arm := func(name string, starts ...[]float64) Figures {
		d, _ := stats.StartsDelta(starts)
		return Figures{Name: name, AddedP50: vocab.Some(d.Median), AddedP50CI: d, HasCI: true}
	}
	table := func(arms ...Figures) []Table {
		return []Table{{Point: Point{Scenario: "overhead", Mode: vocab.Closed, Concurrency: 1, Prompt: 100},
			Arms: append([]Figures{{Name: "direct"}}, arms...)}}
	}
	first := table(arm("nginx", []float64{0.02, 0.03}, []float64{0.025, 0.02}, []float64{0.03, 0.02}),
		arm("portkey", []float64{2.3, 2.4}, []float64{2.35, 2.4}, []float64{2.4, 2.3}),
		arm("litellm", []float64{18.4, 18}, []float64{14.0, 14.5}), // the start effect the audit measured
		arm("caddy", []float64{0.1, 0.2, 0.15}))
	second := table(arm("nginx", []float64{0.022, 0.03}, []float64{0.02, 0.025}, []float64{0.03, 0.028}),
		arm("portkey", []float64{1.4, 1.45}, []float64{1.42, 1.38}, []float64{1.44, 1.4}),
		arm("litellm", []float64{12.0, 12.5}, []float64{11.5, 11.9}),
		arm("caddy", []float64{0.1, 0.2}, []float64{0.15, 0.12}))
	first[0].Arms = append(first[0].Arms, Figures{Name: "bifrost"})
	second[0].Arms = append(second[0].Arms, Figures{Name: "bifrost"})
	want := map[string]ReproVerdict{"nginx": Same, "portkey": Moved, "litellm": Same, "caddy": NoInterval, "bifrost": NotMeasured}
	rs := Reproduce(first, second)
	if len(rs) != len(want) {
		t.Fatalf("%d reproductions, want %d", len(rs), len(want))
	}
	for _, r := range rs {
		if r.Verdict != want[r.Arm] {
			t.Errorf("%s: %s (%+v), want %s", r.Arm, r.Verdict, r.Diff, want[r.Arm])
		}
		if r.Arm == "portkey" && (r.Moved > -0.942 || r.Moved < -0.944) {
			t.Errorf("portkey moved %v, want -0.943", r.Moved)
		}
	}
	var b bytes.Buffer
	WriteReproduction(&b, rs, true)
	if !strings.Contains(b.String(), "| overhead | c=1 prompt=100 | portkey | +2.358 |") || !strings.Contains(b.String(), "-0.943 ms (-40%) | [") ||
		!strings.Contains(b.String(), "95%, 3 starts | moved |") {
		t.Errorf("markdown:\n%s", b.String())
	}
	if got, want := Tally(rs), "2 same, 1 moved, 1 no interval over starts, 1 not measured, with nothing changed, about 0.2 of the 3 tested would be called moved by chance (5% each)"; got != want {
		t.Errorf("tally %q, want %q", got, want)
	}
}

// TestReproduceShareOfNothing: a move is not a share of a first figure that
// is 0 to its printed decimals or whose interval holds 0 (REPRODUCTION.md
// once read "+1097752409171500%" for an arm adding a float's residue).
func TestReproduceShareOfNothing(t *testing.T) {
	arm := func(v, lo, hi float64) Figures {
		d := stats.Delta{Estimate: stats.Estimate{Median: v, Lo: lo, Hi: hi, Enough: true, N: 6}}
		return Figures{Name: "nginx", AddedP50: vocab.Some(v), AddedP50CI: d, HasCI: true}
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
		first := []Table{{Point: Point{Scenario: "overhead", Mode: vocab.Closed, Concurrency: 1, Prompt: 100},
			Arms: []Figures{{Name: "direct"}, arm(tc.first, tc.lo, tc.hi)}}}
		second := []Table{{Point: first[0].Point, Arms: []Figures{{Name: "direct"}, arm(tc.first+0.02, tc.first, tc.first+0.04)}}}
		var b bytes.Buffer
		WriteReproduction(&b, Reproduce(first, second), true)
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("first %g [%g, %g]: want %q in\n%s", tc.first, tc.lo, tc.hi, tc.want, b.String())
		}
	}
}
