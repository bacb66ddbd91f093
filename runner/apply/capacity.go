package apply

import (
	"fmt"
	"math"

	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// p99Window is how many requests a window at a share of capacity is sized
// for: a p99 rests on 500 samples (docs/method.md, "Percentiles need
// samples"), and a Poisson window of 550 expected holds 500 nearly always.
const p99Window = 550

// capacities are each arm's closed-loop throughput in a finished scenario:
// the highest median req/s over its closed-loop points with ok rows.
func capacities(rows []results.Row) map[string]float64 {
	rps := map[string]map[int][]float64{}
	for _, r := range rows {
		if r.Mode != vocab.Closed || r.Status != vocab.StatusOK || r.RPS <= 0 {
			continue
		}
		if rps[r.Gateway] == nil {
			rps[r.Gateway] = map[int][]float64{}
		}
		rps[r.Gateway][r.Concurrency] = append(rps[r.Gateway][r.Concurrency], r.RPS)
	}
	out := map[string]float64{}
	for arm, points := range rps {
		for _, v := range points {
			out[arm] = math.Max(out[arm], stats.Median(v))
		}
	}
	return out
}

// atCapacity resolves a run at a share of its arm's capacity: its rate,
// and a window long enough for a p99 at that rate (within max_duration,
// where the scenario sets one). It says why when the capacity is unknown.
func (r *execution) atCapacity(sc *plan.Scenario, run plan.Run) (plan.Run, string) {
	if run.Point.Share <= 0 {
		return run, ""
	}
	c := r.capacity[sc.CapacityFrom][run.Arm]
	if c <= 0 {
		return run, fmt.Sprintf("no capacity to take a share of: scenario %s measured no ok closed-loop row for %s in this run (run it in the same apply)", sc.CapacityFrom, run.Arm)
	}
	run.Point.Rate = math.Round(run.Point.Share*c*10) / 10
	need := plan.Duration(float64(p99Window) / run.Point.Rate * 1e9)
	if run.MaxDuration > 0 {
		need = min(need, run.MaxDuration)
	}
	run.Duration = max(run.Duration, need)
	return run, ""
}
