package summary

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
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

// RoundTrend is whether what the arms add moves with the round index
// inside starts: per arm and start, the log of its last round's added p50
// over its first's (Moves), how many fell (Falls), and the sign-flip
// test's p over all of them that they are centred on 0. A warm-up that
// left arms still warming shows as falls beyond chance (issue 62).
type RoundTrend struct {
	Moves []float64
	Falls int
	P     float64
	OK    bool // at least one arm with two rounds in a start, not every move 0
}

// TrendInStarts is the table's RoundTrend.
func TrendInStarts(t Table) RoundTrend {
	type key struct {
		arm   string
		start int
	}
	first, last := map[key]float64{}, map[key]float64{}
	for _, rd := range Rounds(t) { // in trial order
		for arm, v := range rd.Added {
			k := key{arm, rd.Start}
			if _, seen := first[k]; !seen {
				first[k] = v
				continue
			}
			last[k] = v
		}
	}
	var tr RoundTrend
	for _, k := range slices.SortedFunc(maps.Keys(last), func(a, b key) int {
		return cmp.Or(cmp.Compare(a.arm, b.arm), cmp.Compare(a.start, b.start))
	}) {
		if f, l := first[k], last[k]; f > 0 && l > 0 {
			m := math.Log(l / f)
			tr.Moves = append(tr.Moves, m)
			if m < 0 {
				tr.Falls++
			}
		}
	}
	tr.P, tr.OK = stats.SignFlipP(tr.Moves)
	return tr
}
