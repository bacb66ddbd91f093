package summary

import (
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
