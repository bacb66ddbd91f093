package summary

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/gatewaybench/gatewaybench/runner/stats"
)

// Change is one arm's added p50 at one load point in two result sets.
type Change struct {
	Scenario, Point, Arm string
	Old, New             Arm
	Verdict              string // regressed, improved, same, or why it cannot be said
}

// Regressed says whether a change fails the gate.
func (c Change) Regressed() bool { return c.Verdict == "regressed" }

// Compare matches old and new gateway by gateway, scenario and load point
// (whatever their run ids) and judges what each adds over direct: regressed
// when it grew by more than maxRegression of the old value and the two
// intervals do not overlap; improved likewise the other way; same
// otherwise.
func Compare(old, new []Table, maxRegression float64) []Change {
	type key struct{ scenario, point, arm string }
	index := func(tables []Table) (map[key]Arm, []key) {
		m := map[key]Arm{}
		var order []key
		for _, t := range tables {
			for _, a := range t.Arms {
				if a.Name == "direct" {
					continue
				}
				k := key{t.Point.Scenario, t.Point.String(), a.Name}
				if _, seen := m[k]; !seen {
					order = append(order, k)
				}
				m[k] = a
			}
		}
		return m, order
	}
	om, _ := index(old)
	nm, order := index(new)
	var out []Change
	for _, k := range order {
		n := nm[k]
		o, found := om[k]
		c := Change{Scenario: k.scenario, Point: k.point, Arm: k.arm, Old: o, New: n}
		switch {
		case !found:
			c.Verdict = "new: not in the old results"
		case !o.AddedP50.Set || !n.AddedP50.Set || !o.HasCI || !n.HasCI:
			c.Verdict = "not measured in both"
		case n.AddedP50.V > o.AddedP50.V+maxRegression*abs(o.AddedP50.V) && !stats.Overlap(o.AddedP50CI.Estimate, n.AddedP50CI.Estimate):
			c.Verdict = "regressed"
		case n.AddedP50.V < o.AddedP50.V-maxRegression*abs(o.AddedP50.V) && !stats.Overlap(o.AddedP50CI.Estimate, n.AddedP50CI.Estimate):
			c.Verdict = "improved"
		default:
			c.Verdict = "same"
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

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// WriteChanges prints the comparison.
func WriteChanges(w io.Writer, changes []Change) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tpoint\tarm\told +p50 ms\tinterval\tnew +p50 ms\tinterval\tverdict")
	for _, c := range changes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Scenario, c.Point, c.Arm,
			Signed(c.Old.AddedP50), CI(c.Old), Signed(c.New.AddedP50), CI(c.New), c.Verdict)
	}
	tw.Flush()
}
