package kinds

import (
	"context"

	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
)

// steady is steady load of one request shape at each load point, closed or
// open loop: the kinds whose differences are in their scenario's settings
// (API, streaming, tools, prompt sizes, load points, window), not in how a
// run is driven.
type steady struct{}

func (steady) Plan(*plan.Plan, *plan.Scenario) {}

// memory is steady load whose long window also gives the resident set's
// trend (growth per minute).
type memory struct{ steady }

func (memory) Plan(_ *plan.Plan, sc *plan.Scenario) { sc.Trend = true }

func (steady) Finish(p *plan.Plan, _ *plan.Scenario, rows []results.Row) {
	markUncontrolled(rows, p.BaselineK)
}

// Measure drives one run of steady load.
func (steady) Measure(ctx context.Context, m *measure.Meter, run *plan.Run) (results.Row, error) {
	row, _, err := measure.Drive(ctx, m, run, nil)
	return row, err
}
