package summary

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Change is one arm's figure in two result sets: its added p50 at one load
// point, or its cold start over every start of the run.
type Change struct {
	Scenario, Point, Arm string
	Old, New             Figure
	Verdict              string // regressed, improved, same, or why it cannot be said
}

// Figure is one side of a change: a median and its interval.
type Figure struct {
	V   vocab.Optional
	CI  stats.Delta
	Has bool // CI holds an interval
}

// ColdStartPoint is the Point of a cold-start change: every start the
// run's scenarios made of the arm.
const ColdStartPoint = "every start in the run"

// ColdStarts is each arm's cold starts in the tables, one per start: every
// scenario starts each gateway afresh, and its rows all carry that start's
// time, so each (run, scenario, start) of an arm counts once.
func ColdStarts(tables []Table) map[string][]float64 {
	starts := map[string][]float64{}
	seen := map[[4]string]bool{}
	for _, t := range tables {
		for _, a := range t.Arms {
			for _, r := range a.Rows {
				k := [4]string{a.Name, r.Str(results.ColRunID), r.Str(results.ColScenario), r.Str(results.ColStart)}
				if v := r.Num(results.ColColdStartMS); v.Set && !seen[k] {
					seen[k] = true
					starts[a.Name] = append(starts[a.Name], v.V)
				}
			}
		}
	}
	return starts
}

// Regressed says whether a change fails the gate.
func (c Change) Regressed() bool { return c.Verdict == "regressed" }

// Compare matches old and new gateway by gateway, scenario and load point
// (whatever their run ids) and judges what each adds over direct: regressed
// when it grew by more than maxRegression of the old value and the two
// intervals do not overlap; improved likewise the other way; same
// otherwise.
func Compare(old, new []Table, maxRegression float64) []Change {
	om, _ := gatewayArms(old)
	nm, order := gatewayArms(new)
	var out []Change
	for _, k := range order {
		o, found := om[k]
		c := Change{Scenario: k.scenario, Point: k.point, Arm: k.arm, Old: o.added(), New: nm[k].added()}
		if !found {
			c.Verdict = "new: not in the old results"
		} else {
			c.Verdict = judge(c.Old, c.New, maxRegression)
		}
		out = append(out, c)
	}
	// Cold start: one change per arm over all its starts in each set.
	oldStarts, newStarts := ColdStarts(old), ColdStarts(new)
	for _, arm := range slices.Sorted(maps.Keys(newStarts)) {
		c := Change{Scenario: "cold start", Point: ColdStartPoint, Arm: arm, Old: startsFigure(oldStarts[arm]), New: startsFigure(newStarts[arm])}
		if len(oldStarts[arm]) == 0 {
			c.Verdict = "new: not in the old results"
		} else {
			c.Verdict = judge(c.Old, c.New, maxRegression)
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b Change) int {
		if a.Scenario != b.Scenario {
			if a.Scenario < b.Scenario {
				return -1
			}
			return 1
		}
		return 0
	})
	return out
}

// armKey names a gateway arm at a load point across result sets, whatever
// their run ids: the point's key and variant, and its words (the last
// follow from the first).
type armKey struct {
	scenario string
	key      vocab.PointKey
	variant  string
	point    string
	arm      string
}

// gatewayArms indexes the tables' gateway arms (direct left out) and says
// their order.
func gatewayArms(tables []Table) (map[armKey]Figures, []armKey) {
	m := map[armKey]Figures{}
	var order []armKey
	for _, t := range tables {
		if t.Uncontrolled != "" {
			continue // the controlled-baseline rule drops it from every reading
		}
		for _, a := range t.Arms {
			if a.Name == vocab.Direct {
				continue
			}
			k := armKey{t.Point.Scenario, t.Point.Key, t.Point.Variant, t.Point.String(), a.Name}
			if _, seen := m[k]; !seen {
				order = append(order, k)
			}
			m[k] = a
		}
	}
	return m, order
}

// added is an arm's added p50 as one side of a comparison.
func (a Figures) added() Figure { return Figure{a.AddedP50, a.AddedP50CI, a.HasCI} }

// startsFigure is the median of starts with its distribution-free
// interval (ok for 6 starts or more; fewer give their range at what
// confidence it has, and the change is not judged).
func startsFigure(starts []float64) Figure {
	e, ok := stats.MedianCI(starts)
	if !ok {
		return Figure{}
	}
	return Figure{V: vocab.Some(e.Median), CI: stats.Delta{Estimate: e}, Has: e.Enough}
}

// judge calls a change: regressed when the figure grew by more than
// maxRegression of the old value with the two intervals apart, improved
// likewise the other way, same otherwise.
func judge(o, n Figure, maxRegression float64) string {
	switch {
	case !o.V.Set || !n.V.Set || !o.Has || !n.Has:
		return "not measured in both"
	case n.V.V > o.V.V+maxRegression*abs(o.V.V) && !stats.Overlap(o.CI.Estimate, n.CI.Estimate):
		return "regressed"
	case n.V.V < o.V.V-maxRegression*abs(o.V.V) && !stats.Overlap(o.CI.Estimate, n.CI.Estimate):
		return "improved"
	}
	return "same"
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// WriteChanges prints the comparison.
func WriteChanges(w io.Writer, changes []Change) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tpoint\tarm\told ms\tinterval\tnew ms\tinterval\tverdict")
	for _, c := range changes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Scenario, c.Point, c.Arm,
			Signed(c.Old.V), Interval(c.Old.CI, c.Old.Has), Signed(c.New.V), Interval(c.New.CI, c.New.Has), c.Verdict)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nold and new ms: what each arm adds to the direct arm's p50 (the mean of its starts' medians; one start: its median round), or, for cold start, the median start")
}
