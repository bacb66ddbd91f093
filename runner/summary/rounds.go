package summary

import (
	"maps"
	"slices"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Round is one round of a point, in the order the run measured them: when
// it began, the host's probes just before it (rig.Prober, the same for
// every row of the round), and each measured gateway arm's added p50 in it.
// It is what a figure over the run's time is drawn from: whether the
// figures move with the host's speed for a runtime, round by round.
type Round struct {
	Trial, Start int
	Began        time.Time // the earliest row's; zero in CSVs older than the column
	Probes       map[results.Col]vocab.Optional
	Added        map[string]float64 // arm -> its p50 less direct's in this round
}

// ProbeCols are the host's probes a round records, one per runtime.
var ProbeCols = []results.Col{results.ColProbePyNs, results.ColProbeNodeNs, results.ColProbeGoNs}

// Rounds are the table's rounds in trial order (trials are numbered across
// starts, so this is the run's order), each with the arms measured in it
// against direct's row of the same round.
func Rounds(t Table) []Round {
	byTrial := map[int]*Round{}
	direct := map[int]float64{}
	for _, a := range t.Arms {
		for _, r := range a.Rows {
			n := r.Int(results.ColTrial)
			if !ok(r) || n == 0 {
				continue
			}
			rd := byTrial[n]
			if rd == nil {
				rd = &Round{Trial: n, Start: r.Int(results.ColStart), Probes: map[results.Col]vocab.Optional{}, Added: map[string]float64{}}
				byTrial[n] = rd
			}
			if b := r.Time(results.ColBegan); !b.IsZero() && (rd.Began.IsZero() || b.Before(rd.Began)) {
				rd.Began = b
			}
			for _, c := range ProbeCols {
				if v := r.Num(c); v.Set {
					rd.Probes[c] = v
				}
			}
			if a.Name == vocab.Direct {
				if v := r.Num(results.ColLatency.P50); v.Set {
					direct[n] = v.V
				}
			}
		}
	}
	var out []Round
	for _, n := range slices.Sorted(maps.Keys(byTrial)) {
		rd := byTrial[n]
		base, found := direct[n]
		for _, a := range t.Arms {
			if a.Name == vocab.Direct || !found {
				continue
			}
			for _, r := range a.Rows {
				if v := r.Num(results.ColLatency.P50); ok(r) && r.Int(results.ColTrial) == n && v.Set {
					rd.Added[a.Name] = v.V - base
				}
			}
		}
		out = append(out, *rd)
	}
	return out
}
