package summary

import (
	"fmt"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/results"
)

// TestRounds: rounds come in trial order (across starts), each with the
// time its first row began, the probes its rows carry, and every arm's
// p50 less direct's in that same round; a failed row and a round without
// direct give no figure.
func TestRounds(t *testing.T) {
	csv := `run_id,scenario,kind,gateway,trial,start,began,mode,concurrency,rate_rps,prompt_tokens,status,latency_p50_ms,probe_python_ns,probe_go_ns
r1,s,overhead,gw,2,1,2026-12-04T17:41:10Z,closed,1,0,100,ok,3.5,150,2
r1,s,overhead,direct,2,1,2026-12-04T17:41:05Z,closed,1,0,100,ok,1.25,150,2
r1,s,overhead,direct,1,1,2026-12-04T17:40:00Z,closed,1,0,100,ok,1,140,2
r1,s,overhead,gw,1,1,2026-12-04T17:40:04Z,closed,1,0,100,ok,3,140,2
r1,s,overhead,gw,3,2,2026-12-04T17:50:04Z,closed,1,0,100,failed,9,210,2.1
r1,s,overhead,direct,3,2,2026-12-04T17:50:00Z,closed,1,0,100,ok,1,210,2.1
r1,s,overhead,gw,4,2,2026-12-04T17:51:04Z,closed,1,0,100,ok,4,,
`
	rounds := Rounds(Build(recordsOf(t, "s.csv", csv))[0])
	if len(rounds) != 4 {
		t.Fatalf("%d rounds, want 4: %+v", len(rounds), rounds)
	}
	want := []struct {
		trial, start int
		began        string
		py           float64
		added        float64
		has          bool
	}{
		{1, 1, "17:40:00", 140, 2, true},
		{2, 1, "17:41:05", 150, 2.25, true},
		{3, 2, "17:50:00", 210, 0, false}, // the gateway's row failed
		{4, 2, "17:51:04", 0, 0, false},   // no direct row in the round, no probe
	}
	for i, w := range want {
		r := rounds[i]
		added, has := r.Added["gw"]
		if r.Trial != w.trial || r.Start != w.start || r.Began.Format(time.TimeOnly) != w.began ||
			r.Probes[results.ColProbePyNs].V != w.py || has != w.has || added != w.added {
			t.Errorf("round %d: %+v, want %+v", i, r, w)
		}
	}
}

// TestTrendInStarts: arms that fall from a start's first round to its last
// in every start are a trend beyond chance; the same figures with the
// rounds in a random order within each start are not; one round per start
// gives nothing to judge.
func TestTrendInStarts(t *testing.T) {
	csvOf := func(added func(arm, start, round int) float64, rounds int) string {
		s := "run_id,scenario,kind,gateway,trial,start,mode,concurrency,rate_rps,prompt_tokens,status,latency_p50_ms\n"
		trial := 0
		for start := 1; start <= 4; start++ {
			for round := 0; round < rounds; round++ {
				trial++
				s += fmt.Sprintf("r,s,overhead,direct,%d,%d,closed,1,0,100,ok,1\n", trial, start)
				for arm := range 4 {
					s += fmt.Sprintf("r,s,overhead,gw%d,%d,%d,closed,1,0,100,ok,%g\n", arm, trial, start, 1+added(arm, start, round))
				}
			}
		}
		return s
	}
	warming := func(arm, start, round int) float64 { return (1 + 0.1*float64(arm)) * (1.3 - 0.1*float64(round)) }
	tr := TrendInStarts(Build(recordsOf(t, "s.csv", csvOf(warming, 3)))[0])
	if !tr.OK || len(tr.Moves) != 16 || tr.Falls != 16 || tr.P >= 0.01 {
		t.Errorf("warming arms: %+v, want 16 falls and p under 1%%", tr)
	}
	// the same sizes, the first round higher in half the arm-starts, lower in the other half
	mixed := func(arm, start, round int) float64 {
		if (arm+start)%2 == 0 {
			round = 2 - round
		}
		return warming(arm, start, round)
	}
	if tr := TrendInStarts(Build(recordsOf(t, "s.csv", csvOf(mixed, 3)))[0]); !tr.OK || tr.Falls != 8 || tr.P < 0.5 {
		t.Errorf("no trend: %+v, want 8 falls of 16 and a large p", tr)
	}
	if tr := TrendInStarts(Build(recordsOf(t, "s.csv", csvOf(warming, 1)))[0]); tr.OK || len(tr.Moves) != 0 {
		t.Errorf("one round per start: %+v, want nothing to judge", tr)
	}
}
