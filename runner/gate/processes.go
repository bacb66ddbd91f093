package gate

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// FarShare is how far from its arm's others a process must settle to be
// counted apart: a start's added p50 over the arm's median over the run's
// starts, above 1 + FarShare or below 1 / (1 + FarShare).
const FarShare = 0.20

// Processes is what the validation's starts read, arm by arm: each start
// is a new process of every arm, and a process that settled far from the
// others moves its start's ratio more than the rounds' noise does (issue
// 62: JIT gateways settle process by process). With it, how the check
// before each window ended.
type Processes struct {
	N            int     // processes (an arm in a start) with an added p50
	Above, Below int     // settled beyond FarShare above / below their arm's median
	High, Low    float64 // the largest and smallest start over its arm's median
	// Checks windows had a check before them; Bounded of them ended on
	// the bound, not steady, BoundedFirst of those in a start's first round.
	Checks, Bounded, BoundedFirst int
}

// ProcessesOf reads the processes of the pairs' arms in every run.
func ProcessesOf(runs []Run, pairs []Pair) Processes {
	var arms []string
	for _, p := range pairs {
		for _, a := range []string{p.Baseline, p.Candidate} {
			if !slices.Contains(arms, a) {
				arms = append(arms, a)
			}
		}
	}
	var ps Processes
	for _, r := range runs {
		direct, firstTrial := directRounds(r.Recs)
		for _, arm := range arms {
			byStart := ps.armStarts(r.Recs, arm, direct, firstTrial)
			var starts []float64
			for _, s := range slices.Sorted(maps.Keys(byStart)) {
				starts = append(starts, stats.Median(byStart[s]))
			}
			if len(starts) < 2 {
				continue
			}
			mid := stats.Median(starts)
			for _, x := range starts {
				ps.add(x / mid)
			}
		}
	}
	return ps
}

// directRounds is direct's p50 by round and each start's first round.
func directRounds(recs []results.Record) (direct map[int]float64, firstTrial map[int]int) {
	direct, firstTrial = map[int]float64{}, map[int]int{}
	for _, rec := range recs {
		t, s := rec.Int(results.ColTrial), rec.Int(results.ColStart)
		if t <= 0 || !rec.Measured() {
			continue
		}
		if f, ok := firstTrial[s]; !ok || t < f {
			firstTrial[s] = t
		}
		if rec.Str(results.ColGateway) == vocab.Direct {
			if v := rec.Num(results.ColLatency.P50); v.Set {
				direct[t] = v.V
			}
		}
	}
	return direct, firstTrial
}

// armStarts is an arm's added p50 by start, round by round; it counts the
// checks before its windows and how they ended.
func (ps *Processes) armStarts(recs []results.Record, arm string, direct map[int]float64, firstTrial map[int]int) map[int][]float64 {
	byStart := map[int][]float64{}
	for _, rec := range recs {
		t, s := rec.Int(results.ColTrial), rec.Int(results.ColStart)
		if rec.Str(results.ColGateway) != arm || t <= 0 || !rec.Measured() {
			continue
		}
		if st := vocab.WarmupState(rec.Str(results.ColCheckState)); st != "" {
			ps.Checks++
			if st == vocab.WarmBounded {
				ps.Bounded++
				if t == firstTrial[s] {
					ps.BoundedFirst++
				}
			}
		}
		d, ok := direct[t]
		if v := rec.Num(results.ColLatency.P50); ok && v.Set && v.V > d {
			byStart[s] = append(byStart[s], v.V-d)
		}
	}
	return byStart
}

// add counts one process settled at f times its arm's median.
func (ps *Processes) add(f float64) {
	if ps.N == 0 {
		ps.High, ps.Low = f, f
	}
	ps.N++
	ps.High, ps.Low = max(ps.High, f), min(ps.Low, f)
	switch {
	case f > 1+FarShare:
		ps.Above++
	case f < 1/(1+FarShare):
		ps.Below++
	}
}

// WriteProcesses prints the processes' spread and the checks' endings.
func WriteProcesses(w io.Writer, ps Processes) {
	if ps.N == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Processes\n\nEach start is a new process of every arm. Of the %d processes of the pairs' arms (an arm in a start, "+
		"its added p50 the median of its rounds), %d settled more than %.0f%% above their arm's median over their run's starts and %d more than "+
		"%.0f%% below it; the highest read %.2fx that median, the lowest %.2fx.\n",
		ps.N, ps.Above, 100*FarShare, ps.Below, 100*FarShare, ps.High, ps.Low)
	if ps.Checks > 0 {
		fmt.Fprintf(w, "\nThe check before a window (docs/method.md, \"Steady state\") ended on its bound, not steady, before %d of %d windows, "+
			"%d of them in a start's first round.\n", ps.Bounded, ps.Checks, ps.BoundedFirst)
	}
}
