package summary

import (
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

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

// ArmKey names a gateway arm at a load point across result sets, whatever
// their run ids: the point's key and variant, and its words (the last
// follow from the first).
type ArmKey struct {
	Scenario string
	Key      vocab.PointKey
	Variant  string
	Point    string
	Arm      string
}

// GatewayArms indexes the tables' gateway arms (direct left out) and says
// their order.
func GatewayArms(tables []Table) (map[ArmKey]Figures, []ArmKey) {
	m := map[ArmKey]Figures{}
	var order []ArmKey
	for _, t := range tables {
		if t.Uncontrolled != "" {
			continue // the controlled-baseline rule drops it from every reading
		}
		for _, a := range t.Arms {
			if a.Name == vocab.Direct {
				continue
			}
			k := ArmKey{t.Point.Scenario, t.Point.Key, t.Point.Variant, t.Point.String(), a.Name}
			if _, seen := m[k]; !seen {
				order = append(order, k)
			}
			m[k] = a
		}
	}
	return m, order
}

// Figure is one side of a comparison: a median and its interval.
type Figure struct {
	V   vocab.Optional
	CI  stats.Delta
	Has bool // CI holds an interval
}

// Added is an arm's added p50 as one side of a comparison.
func (a Figures) Added() Figure { return a.AddedP50 }
