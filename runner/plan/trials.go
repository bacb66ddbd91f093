package plan

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// NextTrials is what runs after runs[i], the runs done so far being
// runs[:i+1] with the rows they gave: nothing, unless runs[i] ends its
// point's trial and that point needs one more (moreTrial); then the next
// trial's runs, and why. A pure function of the plan's scenario and the
// rows: the executor queues what it returns, the plan is not changed.
func (s *Scenario) NextTrials(runs []Run, i int, rows []results.Row) ([]Run, string) {
	if !endOfTrial(runs, i) {
		return nil, ""
	}
	why, more := moreTrial(s, rows, &runs[i])
	if !more {
		return nil, ""
	}
	return nextTrial(s.Seed, s.Name, runs, &runs[i]), why
}

// endOfTrial reports whether runs[i] is the last run of its point's trial.
func endOfTrial(runs []Run, i int) bool {
	return i+1 == len(runs) || runs[i+1].Key != runs[i].Key || runs[i+1].Trial != runs[i].Trial
}

// moreTrial decides, once last's trial is done, whether its point needs
// one more (docs/method.md, "Trials until the interval is narrow"): some
// gateway arm's added p50 (its per-trial differences from direct) has no
// 95% interval yet, or one wider than the scenario's bound, and the
// scenario allows more trials. It says which arm and why.
func moreTrial(sc *Scenario, rows []results.Row, last *Run) (string, bool) {
	// Trials are numbered across starts; more come only after the last.
	if !sc.CIWidth.Set() || last.Trial < sc.Trials*max(sc.Starts, 1) || last.Trial >= sc.MaxTrials {
		return "", false
	}
	type key struct{ arm, variant string }
	type round struct {
		variant string
		trial   int
	}
	direct := map[round]float64{}
	diffs := map[key][]float64{}
	var order []key
	at := func(r *results.Row) bool {
		return r.Point == last.Key && r.Status == vocab.StatusOK && r.Latency.P50.Set
	}
	for i := range rows {
		if r := &rows[i]; at(r) && r.Gateway == vocab.Direct {
			direct[round{r.Variant(), r.Trial}] = r.Latency.P50.V
		}
	}
	for i := range rows {
		r := &rows[i]
		if !at(r) || r.Gateway == vocab.Direct {
			continue
		}
		if base, ok := direct[round{r.Variant(), r.Trial}]; ok {
			k := key{r.Gateway, r.Variant()}
			if _, seen := diffs[k]; !seen {
				order = append(order, k)
			}
			diffs[k] = append(diffs[k], r.Latency.P50.V-base)
		}
	}
	for _, k := range order {
		e, ok := stats.MedianCI(diffs[k])
		if !ok {
			continue
		}
		bound := float64(sc.CIWidth.Abs.Microseconds()) / 1000
		if sc.CIWidth.Share > 0 {
			bound = sc.CIWidth.Share * math.Abs(e.Centre)
		}
		switch {
		case !e.Enough:
			return fmt.Sprintf("%s's added p50 has no 95%% interval from %d trials yet", k.arm, e.N), true
		case e.Hi-e.Lo > bound:
			return fmt.Sprintf("%s's added p50 interval [%+.3f, %+.3f] ms is wider than %.3f ms", k.arm, e.Lo, e.Hi, bound), true
		}
	}
	return "", false
}

// nextTrial is one more trial of last's point: the runs of last's trial,
// each arm's runs (its variants) kept together, the arms in a fresh random
// order drawn as the plan draws every round's (RoundOrder).
func nextTrial(planSeed uint64, scenario string, runs []Run, last *Run) []Run {
	var arms []string
	byArm := map[string][]Run{}
	for _, r := range runs {
		if r.Key == last.Key && r.Trial == last.Trial {
			if !slices.Contains(arms, r.Arm) {
				arms = append(arms, r.Arm)
			}
			byArm[r.Arm] = append(byArm[r.Arm], r)
		}
	}
	trial := last.Trial + 1
	seed := RoundSeed(planSeed, scenario, last.Key, trial)
	var out []Run
	for _, i := range RoundOrder(len(arms), seed) {
		for _, r := range byArm[arms[i]] {
			r.Trial, r.RoundSeed, r.Position = trial, seed, len(out)+1
			out = append(out, r)
		}
	}
	return out
}

// NewSeed is a fresh plan seed (never 0, which the flags read as "draw
// one"), from math/rand/v2's randomly seeded source.
func NewSeed() uint64 {
	for {
		if s := rand.Uint64(); s != 0 {
			return s
		}
	}
}

// RoundSeed is the seed of one round's arm order: a hash of the plan's
// seed, the scenario, the point and the trial, so a plan made again with
// its seed draws the same orders, and every round a different one.
func RoundSeed(planSeed uint64, scenario string, key vocab.PointKey, trial int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s\x00%d", planSeed, scenario, key, trial)
	return h.Sum64()
}

// RoundOrder is a random permutation of n arms' indexes drawn from seed
// (Fisher-Yates, math/rand/v2's PCG).
func RoundOrder(n int, seed uint64) []int {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)).Perm(n)
}

// WarmOrder is the order, a permutation of the scenario's arms' indexes,
// in which a start warms its arms: drawn afresh for every start from the
// plan's seed, the scenario and the start, so no arm is always warmed
// first (and idle longest before its first round; issue 62), and a plan
// made again with its seed draws the same orders.
func (s *Scenario) WarmOrder(start int) []int {
	return s.startDraw("warm-up", start)
}

// StartOrder is the order in which a start brings its arms' stacks up,
// drawn as WarmOrder is but apart from it. Started in the file's order,
// the first of two identical LiteLLMs (its cgroup 4 MiB fuller when idle,
// its cold start 0.2 s longer) read 1.5% slower than its copy over 40
// starts (issue 62): whatever the cause, an order the gate would read as
// a change.
func (s *Scenario) StartOrder(start int) []int {
	return s.startDraw("start-up", start)
}

// startDraw is a permutation of the arms for one purpose and start.
func (s *Scenario) startDraw(purpose string, start int) []int {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s\x00%d", s.Seed, s.Name, purpose, start)
	return RoundOrder(len(s.Arms), h.Sum64())
}
