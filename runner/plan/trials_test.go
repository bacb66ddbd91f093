package plan

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestNextTrials: a pure function of the scenario and the rows so far;
// nothing after a run that does not end its trial, nor without ci_width;
// with it, one more trial while an arm's added p50 has no 95% interval,
// its arms in the order drawn from the round's seed.
func TestNextTrials(t *testing.T) {
	s := &Scenario{Trials: 2, MaxTrials: 9, CIWidth: config.CIWidth{Abs: time.Hour}, Seed: 42}
	pt := LoadPoint{Mode: vocab.Closed, Concurrency: 1, PromptTokens: 100}
	runs := []Run{{Arm: "direct", Trial: 2, Point: pt}, {Arm: "proxy", Trial: 2, Point: pt}}
	var rows []results.Row
	for trial := 1; trial <= 2; trial++ {
		for _, arm := range []string{"direct", "proxy"} {
			rows = append(rows, results.Row{Gateway: arm, Trial: trial, Mode: "closed", Concurrency: 1, PromptTokens: 100,
				Status: vocab.StatusOK, Latency: results.Percentiles{P50: vocab.Some(1 + float64(len(arm))/10)}})
		}
	}
	if extra, _ := s.NextTrials(runs, 0, rows); extra != nil {
		t.Errorf("mid-trial: %+v", extra)
	}
	extra, why := s.NextTrials(runs, 1, rows)
	seed := RoundSeed(42, "", runs[1].Key, 3)
	if len(extra) != 2 || extra[0].Arm == extra[1].Arm || extra[0].Trial != 3 || extra[0].RoundSeed != seed || extra[1].Position != 2 ||
		extra[0].Arm != []string{"direct", "proxy"}[RoundOrder(2, seed)[0]] || !strings.Contains(why, "no 95% interval") {
		t.Errorf("next trial %+v (%s)", extra, why)
	}
	s.CIWidth = config.CIWidth{}
	if extra, _ := s.NextTrials(runs, 1, rows); extra != nil {
		t.Errorf("without ci_width: %+v", extra)
	}
}

// TestWarmOrder: every start draws its own warm-up and start-up orders,
// the same each time the plan is made with its seed; over 30 starts each
// of three arms is warmed first, and started first, at least once (the file's first arm is not always
// first); and plans of other seeds draw other orders, so runs of one file
// do not share them (ten runs with one seed warmed the A/A copy first in
// the same 5 of 8 starts each: issue 62).
func TestWarmOrder(t *testing.T) {
	s := &Scenario{Name: "gate", Arms: make([]Arm, 3), Seed: 7}
	for _, c := range []struct {
		what string
		draw func(int) []int
	}{{"warmed", s.WarmOrder}, {"started", s.StartOrder}} {
		first := map[int]int{}
		for start := 1; start <= 30; start++ {
			o := c.draw(start)
			if !slices.Equal(o, c.draw(start)) {
				t.Fatalf("%s, start %d: two draws differ", c.what, start)
			}
			if s := slices.Sorted(slices.Values(o)); !slices.Equal(s, []int{0, 1, 2}) {
				t.Fatalf("%s, start %d: %v is no permutation of three arms", c.what, start, o)
			}
			first[o[0]]++
		}
		if len(first) != 3 {
			t.Errorf("arms %s first over 30 starts: %v; want each of the three", c.what, first)
		}
	}
	// The start-up order is its own draw: one arm started first is not
	// always the one warmed first.
	same := 0
	for start := 1; start <= 30; start++ {
		if s.StartOrder(start)[0] == s.WarmOrder(start)[0] {
			same++
		}
	}
	if same == 0 || same == 30 {
		t.Errorf("the arm started first was warmed first in %d of 30 starts", same)
	}
	// Eight starts under 20 seeds: a fixed order set would repeat.
	sets := map[string]bool{}
	for seed := range uint64(20) {
		o := &Scenario{Name: "gate", Arms: make([]Arm, 3), Seed: seed + 1}
		var key []int
		for start := 1; start <= 8; start++ {
			key = append(key, o.WarmOrder(start)...)
		}
		sets[fmt.Sprint(key)] = true
		if RoundSeed(seed+1, "gate", "k", 1) == RoundSeed(seed+2, "gate", "k", 1) {
			t.Fatalf("seeds %d and %d give one round seed", seed+1, seed+2)
		}
	}
	if len(sets) < 19 {
		t.Errorf("20 seeds drew %d distinct sets of 8 starts' warm-up orders", len(sets))
	}
	if a, b := NewSeed(), NewSeed(); a == 0 || a == b {
		t.Errorf("NewSeed: %d then %d", a, b)
	}
}
