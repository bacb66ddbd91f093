package apply

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

func optionalShare(s float64) vocab.Optional {
	if s > 0 {
		return vocab.Some(s)
	}
	return vocab.Optional{}
}

// baseRow is a row's identity and layout: what the executor knows of a run
// before a kind measures it (its provenance is in the run's manifest).
// run is nil for the row of an arm that never came up (trial 0, no point).
func (r *execution) baseRow(sc *plan.Scenario, a *plan.Arm, run *plan.Run) results.Row {
	l := r.o.Plan.Layout
	var pt plan.LoadPoint
	var trial, position int
	var seed uint64
	var key vocab.PointKey
	if run != nil {
		pt, trial, key, seed, position = run.Point, run.Trial, run.Key, run.RoundSeed, run.Position
	}
	row := results.Row{
		RunID: r.runID, Scenario: sc.Name, Kind: sc.Kind, Gateway: a.Name, ArmLabel: a.Label, GatewayClass: a.Class, ReleaseOf: a.ReleaseOf, GateBaseline: a.GateBaseline,
		Trial: trial, RoundSeed: seed, Position: position, Mode: pt.Mode, Point: key, Concurrency: pt.Concurrency, RateRPS: pt.Rate, PromptTokens: pt.PromptTokens,
		Status: vocab.StatusOK, Floor: r.o.Plan.Floor,
		CPUsDriver: l.Driver.CPUs.Text, CPUsMock: l.Mock.CPUs.Text, CPUsGateway: []string{l.Gateway.CPUs.Text},
		RigRTTSameUs: usOf(r.topo.Same, r.topo.Err == nil), RigRTTCrossUs: usOf(r.topo.Cross, r.topo.HasCross),
		Engines: r.enginesText(), Hosts: r.hostsText(), Drivers: max(r.o.Plan.Drivers.Instances, 1),
	}
	if run != nil {
		row.OverheadHeader = run.Request.OverheadHeader
	}
	if len(a.Replicas) > 0 {
		var cpus []string
		cores := map[int]bool{}
		for _, rep := range a.Replicas {
			cpus = append(cpus, rep.CPUs.Text)
			for _, c := range rep.CPUs.CPUs {
				cores[c] = true
			}
		}
		row.Replicas, row.GatewayCores = vocab.Some(float64(len(a.Replicas))), vocab.Some(float64(len(cores)))
		row.CPUsGateway = cpus
	}
	if row.Mode == "" {
		row.Mode = vocab.Closed // a row for an arm that never ran
	}
	if pt.Mode == vocab.Open {
		row.OpenLoop = &results.OpenLoopPart{CapacityShare: optionalShare(pt.Share)}
		if len(sc.P99Bounds) > 0 {
			row.Frontier = &results.FrontierPart{}
			for _, d := range sc.P99Bounds {
				row.Frontier.P99BoundsMS = append(row.Frontier.P99BoundsMS, vocab.Some(float64(d)/1e6))
			}
		}
	}
	// A hosted arm's path leaves this machine's layout: no topology excess.
	if !a.Direct && !a.Hosted {
		row.TopologyUs = usOf(r.topo.Excess, r.topo.HasExcess)
	}
	return row
}

// probeGet is a readiness probe: GET url answers 200.
func probeGet(url string) stack.Probe {
	return func(ctx context.Context) (time.Time, error) {
		req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
		if err != nil {
			return time.Time{}, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return time.Time{}, err
		}
		at := time.Now()
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return time.Time{}, fmt.Errorf("status %d", resp.StatusCode)
		}
		return at, nil
	}
}

// usOf is a duration in µs for a row (three decimals), when it was measured.
func usOf(d time.Duration, measured bool) vocab.Optional {
	if !measured {
		return vocab.Optional{}
	}
	return vocab.Some(results.Round3(float64(d.Nanoseconds()) / 1000))
}
