package summary

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestReproduce: a repeat whose added p50 lies inside the first run's
// interval reproduces it (each way, or one way); one outside does not and
// says how far it moved; an arm without a 95% interval on either side is
// not judged.
func TestReproduce(t *testing.T) {
	arm := func(name string, v, lo, hi float64, enough bool) Figures {
		d := stats.Delta{Estimate: stats.Estimate{Median: v, Lo: lo, Hi: hi, Enough: enough, N: 6}}
		return Figures{Name: name, AddedP50: vocab.Some(v), AddedP50CI: d, HasCI: true}
	}
	table := func(arms ...Figures) []Table {
		return []Table{{Point: Point{Scenario: "overhead", Mode: vocab.Closed, Concurrency: 1, Prompt: 100},
			Arms: append([]Figures{{Name: "direct"}}, arms...)}}
	}
	first := table(arm("nginx", 0.022, 0.016, 0.030, true), arm("portkey", 2.37, 1.98, 2.63, true),
		arm("litellm", 25.5, 16.5, 26.5, true), arm("one-api", 4.68, 3.48, 4.87, true), arm("caddy", 0.11, 0.1, 0.2, false))
	second := table(arm("nginx", 0.025, 0.018, 0.031, true), arm("portkey", 1.42, 1.2, 1.6, true),
		arm("litellm", 17.0, 16.6, 17.4, true), arm("one-api", 4.7, 4.69, 4.8, true), arm("caddy", 0.12, 0.1, 0.2, true))
	first[0].Arms = append(first[0].Arms, Figures{Name: "bifrost"})
	second[0].Arms = append(second[0].Arms, Figures{Name: "bifrost"})
	want := map[string]ReproVerdict{"nginx": Reproduced, "portkey": NotReproduced, "litellm": OneWay, "one-api": OneWay, "caddy": NoInterval, "bifrost": NotMeasured}
	rs := Reproduce(first, second)
	if len(rs) != len(want) {
		t.Fatalf("%d reproductions, want %d", len(rs), len(want))
	}
	for _, r := range rs {
		if r.Verdict != want[r.Arm] {
			t.Errorf("%s: %s, want %s", r.Arm, r.Verdict, want[r.Arm])
		}
		if r.Arm == "portkey" && (r.Moved > -0.949 || r.Moved < -0.951) {
			t.Errorf("portkey moved %v, want -0.95", r.Moved)
		}
	}
	var b bytes.Buffer
	WriteReproduction(&b, rs, true)
	if !strings.Contains(b.String(), "| overhead | c=1 prompt=100 | portkey | +2.370 |") || !strings.Contains(b.String(), "-0.950 ms (-40%) | not reproduced |") {
		t.Errorf("markdown:\n%s", b.String())
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
