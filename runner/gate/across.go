package gate

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Change is one arm's figure in two runs made apart: its added p50 at one
// load point, or its cold start over every start of the run.
type Change struct {
	Scenario, Point, Arm string
	Old, New             summary.Figure
	Diff                 stats.Delta // new less old, Welch's interval over both runs' starts
	HasDiff              bool
	Verdict              Verdict
	Why                  string
	// Absent: the arm has no figure in either run (not measured, or
	// new in the second): no verdict on a change.
	Absent bool
}

// ColdStartPoint is the Point of a cold-start change: every start the
// run's scenarios made of the arm.
const ColdStartPoint = "every start in the run"

// Host is how far the host's probes moved between two runs: each probe's
// median over the run's rounds, old and new. Missing names what one run
// does not carry.
type Host struct {
	Moves   []Move
	Missing string
	// Elsewhere: the runs name two different hosts (results.HostKey): a
	// change between them is the machine's as much as the code's, whatever
	// the probes read.
	Elsewhere bool
}

// Move is one probe (a fixed loop in one runtime) in two runs.
type Move struct {
	Probe    results.Col
	Old, New float64
}

// Share is how far the probe moved, as a share of the old reading.
func (m Move) Share() float64 { return m.New/m.Old - 1 }

// Steady says whether every probe moved less than limit, and none is
// missing: only then may a change between the runs be laid on the code.
func (h Host) Steady(limit float64) bool {
	if h.Missing != "" || len(h.Moves) == 0 || h.Elsewhere {
		return false
	}
	for _, m := range h.Moves {
		if math.Abs(math.Log(m.New/m.Old)) >= math.Log1p(limit) {
			return false
		}
	}
	return true
}

func (h Host) String() string {
	if h.Elsewhere {
		return "the runs ran on two hosts (their CPU, kernel or memory differ: docs/method.md, \"Hour to hour\")"
	}
	if h.Missing != "" {
		return h.Missing
	}
	var parts []string
	for _, m := range h.Moves {
		parts = append(parts, fmt.Sprintf("%s %.1f -> %.1f ns (%+.0f%%)", m.Probe.Name(), m.Old, m.New, 100*m.Share()))
	}
	return strings.Join(parts, ", ")
}

// ProbeMoves reads how far the probes moved between two runs' rows, and
// whether the runs name two hosts.
func ProbeMoves(old, new []results.Record) Host {
	po, pn := probes(old), probes(new)
	var h Host
	for _, c := range summary.ProbeCols {
		o, okO := po[c]
		n, okN := pn[c]
		switch {
		case okO && okN:
			h.Moves = append(h.Moves, Move{Probe: c, Old: o, New: n})
		case okO != okN:
			h.Missing = fmt.Sprintf("only one run carries %s", c.Name())
		}
	}
	if len(h.Moves) == 0 && h.Missing == "" {
		h.Missing = "the runs carry no host probes (probe_*_ns columns, from before the probes were taken)"
	}
	ko, kn := results.HostKey(old), results.HostKey(new)
	h.Elsewhere = ko != "" && kn != "" && ko != kn
	return h
}

// probes is each probe's median over the distinct rounds of the rows.
func probes(recs []results.Record) map[results.Col]float64 {
	type round struct{ run, scenario, trial string }
	seen := map[results.Col]map[round]float64{}
	for _, r := range recs {
		k := round{r.Str(results.ColRunID), r.Str(results.ColScenario), r.Str(results.ColTrial)}
		for _, c := range summary.ProbeCols {
			if v := r.Num(c); v.Set && v.V > 0 {
				if seen[c] == nil {
					seen[c] = map[round]float64{}
				}
				seen[c][k] = v.V
			}
		}
	}
	out := map[results.Col]float64{}
	for c, m := range seen {
		out[c] = stats.Median(slices.Collect(maps.Values(m)))
	}
	return out
}

// Across matches two runs' gateway arms by scenario and load point (and
// cold starts by arm) and judges each change: the difference with Welch's
// interval over both runs' starts (stats.DiffDelta), a change only where
// that interval leaves out 0 and the change is at least the rule's minimum
// effect of the old figure. Under rule.SteadyHost such a change is laid on
// the code (regressed, improved) only when the host held still between the
// runs (every probe within the minimum effect); otherwise it is
// inconclusive, with how far the host moved.
func Across(old, new []summary.Table, host Host, rule Rule) []Change {
	om, _ := summary.GatewayArms(old)
	nm, order := summary.GatewayArms(new)
	var out []Change
	for _, k := range order {
		o, found := om[k]
		c := Change{Scenario: k.Scenario, Point: k.Point, Arm: k.Arm, Old: o.Added(), New: nm[k].Added()}
		switch {
		case !found:
			c.Verdict, c.Why, c.Absent = NotComparable, "not in the old run", true
		case !c.Old.V.Set && !c.New.V.Set:
			c.Verdict, c.Why, c.Absent = NotComparable, "measured in neither run", true
		default:
			judgeAcross(&c, host, rule)
		}
		out = append(out, c)
	}
	// An arm the old run measured and the new one did not is no pass: the
	// candidate lost its figure (it counts, as not comparable).
	var gone []summary.ArmKey
	for k, o := range om {
		if _, in := nm[k]; !in && o.Added().V.Set {
			gone = append(gone, k)
		}
	}
	slices.SortFunc(gone, func(a, b summary.ArmKey) int {
		return strings.Compare(a.Scenario+"\x00"+a.Point+"\x00"+a.Arm, b.Scenario+"\x00"+b.Point+"\x00"+b.Arm)
	})
	for _, k := range gone {
		out = append(out, Change{Scenario: k.Scenario, Point: k.Point, Arm: k.Arm, Old: om[k].Added(), Verdict: NotComparable,
			Why: "in the old run only: the new run has no row of it here"})
	}
	oldStarts, newStarts := summary.ColdStarts(old), summary.ColdStarts(new)
	for _, a := range slices.Sorted(maps.Keys(newStarts)) {
		c := Change{Scenario: "cold start", Point: ColdStartPoint, Arm: a, Old: startsFigure(oldStarts[a]), New: startsFigure(newStarts[a])}
		if len(oldStarts[a]) == 0 {
			c.Verdict, c.Why, c.Absent = NotComparable, "not in the old run", true
		} else {
			judgeAcross(&c, host, rule)
		}
		out = append(out, c)
	}
	for _, a := range slices.Sorted(maps.Keys(oldStarts)) {
		if _, in := newStarts[a]; !in {
			out = append(out, Change{Scenario: "cold start", Point: ColdStartPoint, Arm: a, Old: startsFigure(oldStarts[a]), Verdict: NotComparable,
				Why: "in the old run only: the new run never started it"})
		}
	}
	slices.SortStableFunc(out, func(a, b Change) int { return strings.Compare(a.Scenario, b.Scenario) })
	return out
}

// Judged is the verdicts of the changes measured on both sides or lost
// by the new run: an arm new in it, or measured in neither, is no verdict.
func Judged(cs []Change) []Verdict {
	var out []Verdict
	for _, c := range cs {
		if !c.Absent {
			out = append(out, c.Verdict)
		}
	}
	return out
}

// startsFigure is the mean of an arm's cold starts with Student's t
// interval over them: each start is its own draw.
func startsFigure(starts []float64) summary.Figure {
	groups := make([][]float64, len(starts))
	for i, v := range starts {
		groups[i] = []float64{v}
	}
	d, ok := stats.StartsDelta(groups)
	if !ok {
		return summary.Figure{}
	}
	return summary.Figure{V: vocab.Some(d.Centre), CI: d, Has: d.Enough}
}

func judgeAcross(c *Change, host Host, rule Rule) {
	if !c.Old.V.Set || !c.New.V.Set || !c.Old.Has || !c.New.Has {
		c.Verdict, c.Why = NotComparable, "not measured in both"
		return
	}
	d, ok := stats.DiffDelta(c.Old.CI, c.New.CI)
	if !ok {
		c.Verdict, c.Why = NotComparable, "an interval over one start only: its rounds are not independent draws"
		return
	}
	c.Diff, c.HasDiff = d, true
	if c.Old.V.V == 0 {
		c.Verdict, c.Why = NotComparable, "the old figure is 0: no share to judge a change by"
		return
	}
	// The change as a ratio new/old, so one rule judges both gates.
	old := math.Abs(c.Old.V.V)
	r := Ratio{Est: 1 + d.Centre/old, Lo: 1 + d.Lo/old, Hi: 1 + d.Hi/old, Over: d.Over, Starts: d.Starts, P: d.P, HasP: d.HasP}
	c.Verdict = judge(r, rule.MinEffect)
	c.Why = fmt.Sprintf("%+.0f%% [%+.0f%%, %+.0f%%], p = %.2g", 100*(r.Est-1), 100*(r.Lo-1), 100*(r.Hi-1), d.P)
	if (c.Verdict == Regressed || c.Verdict == Improved) && rule.SteadyHost && !host.Steady(rule.MinEffect) {
		c.Why += fmt.Sprintf(": %s, but the host moved between the runs: %s", c.Verdict, host)
		c.Verdict = Inconclusive
	} else if (c.Verdict == Regressed || c.Verdict == Improved) && rule.SteadyHost {
		c.Why += ", host steady: " + host.String()
	}
}
