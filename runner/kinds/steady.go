package kinds

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/cost"
	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/usage"
)

// steady is steady load of one request shape at each load point, closed or
// open loop: the kinds whose differences are in their scenario's settings
// (API, streaming, tools, prompt sizes, load points, window), not in how a
// run is driven.
type steady struct{}

func (steady) Plan(*plan.Plan, *plan.Scenario) {}

func (steady) Finish(p *plan.Plan, _ *plan.Scenario, rows []results.Row) {
	markUncontrolled(rows, p.BaselineK)
}

// sampleEvery is how often memory is sampled inside a window, for its peak
// and growth.
const sampleEvery = 100 * time.Millisecond

// memMeasure names what the memory columns hold (docs/method.md, "Memory").
const memMeasure = "working_set_sampled_100ms"

// Measure drives one run of steady load.
func (steady) Measure(ctx context.Context, m *Meter, run *plan.Run) (results.Row, error) {
	row, _, err := drive(ctx, m, run, nil)
	return row, err
}

// drive runs the load of one run, with what a kind changes in its
// configuration, and samples the gateway's and the mock's cgroups over
// exactly the driver's measured window: every kind's row starts here.
func drive(ctx context.Context, m *Meter, run *plan.Run, tweak func(*load.Config)) (results.Row, *load.Result, error) {
	var mu sync.Mutex
	var gwS, mockS *usage.Sampler
	var gwW, mockW usage.Window
	var gwErr, mockErr error
	// Each replica, then the balancer, sampled apart over the same window.
	parts := slices.Clone(m.Replicas)
	if m.Balancer != nil {
		parts = append(parts, m.Balancer)
	}
	repS := make([]*usage.Sampler, len(parts))
	repW := make([]usage.Window, len(parts))
	window := func(begin bool) {
		mu.Lock()
		defer mu.Unlock()
		if begin {
			if m.Gateway != nil {
				gwS, gwErr = usage.Begin(m.Gateway, sampleEvery)
			}
			for i, src := range parts {
				repS[i], _ = usage.Begin(src, sampleEvery)
			}
			mockS, mockErr = usage.Begin(m.Mock, sampleEvery)
			return
		}
		if gwS != nil {
			gwW, gwErr = gwS.End()
		}
		for i, s := range repS {
			if s != nil {
				repW[i], _ = s.End()
			}
		}
		if mockS != nil {
			mockW, mockErr = mockS.End()
		}
	}
	cfg := load.Config{
		URL: run.Request.URL, URLs: run.Request.URLs, Shape: Shape(run.Request), Conns: run.Point.Concurrency,
		Duration: run.Duration.D(), Warmup: run.Warmup.D(), Timeout: run.Timeout.D(),
		Knobs: m.Scenario.Knobs, Fidelity: true, Window: window, MaxErrorRate: run.MaxErrorRate, Abort: m.Abort,
		SLO: load.SLO{Latency: run.SLO.Latency.D(), TTFT: run.SLO.TTFT.D(), ITL: run.SLO.ITL.D()},
	}
	if m.Arm.Hosted {
		// A real API's answers are not the mock's script, and its key lives
		// in memory only, for the requests.
		cfg.Fidelity = false
		if m.Key != "" {
			cfg.Shape.Keys = []string{m.Key}
		}
	}
	if run.Point.Mode == results.Open {
		cfg.Rate, cfg.Poisson, cfg.Seed = run.Point.Rate, run.Point.Arrival == plan.Poisson, uint64(run.Trial)
	}
	if tweak != nil {
		tweak(&cfg)
	}
	res, err := m.run(ctx, cfg)
	if err != nil {
		return results.Row{}, nil, err
	}
	row := m.Base
	fill(&row, res)
	row.Drivers = max(res.Drivers, 1) // a point with fewer connections than drivers runs on fewer
	if res.Partial && row.Status == results.OK {
		row.Status = results.Partial
	}
	verdict := slices.Clone(res.Verdict)
	row.DriverCPUCores = results.Some(results.Round3(res.DriverCPU.Cores()))
	if n := res.OK + res.Errored(); n > 0 {
		row.DriverCPUUsPerReq = results.Some(results.Round3(float64(res.DriverCPU.Time.Microseconds()) / float64(n)))
	}
	if mockErr == nil && mockS != nil {
		row.MockCPUCores = results.Some(results.Round3(mockW.Cores()))
	}
	// One client in a closed loop keeps the rig's CPUs busy without queueing
	// anything behind them: the guard is for points with more in flight.
	if run.Point.Mode == results.Open || run.Point.Concurrency > 1 {
		verdict.Add(Saturation(RigOf(m.Plan, m.Arm), res.DriverCPU.Cores(), mockW.Cores(), gwW.Cores(), m.Gateway != nil))
	}
	if m.Gateway != nil {
		if gwErr != nil {
			verdict.Add(results.Reason{Kind: results.VNoUsage, Detail: gwErr.Error()})
		} else if gwS != nil {
			fillGateway(&row, gwW, res, m.Plan.Cost)
			n := len(m.Replicas)
			fillReplicas(&row, repS[:n], repW[:n])
			if m.Balancer != nil && repS[n] != nil {
				row.BalancerCPUCores = results.Some(results.Round3(repW[n].Cores()))
				row.BalancerMemPeakMiB = results.Some(results.Round3(MiB(repW[n].Peak)))
			}
		}
	}
	row.Verdict = verdict
	return row, res, nil
}

func fillGateway(row *results.Row, w usage.Window, res *load.Result, c config.Cost) {
	cores := w.Cores()
	row.GatewayCPUCores = results.Some(results.Round3(cores))
	if n := res.OK + res.Errored(); n > 0 {
		row.GatewayCPUUsPerReq = results.Some(results.Round3(float64(w.CPU.Microseconds()) / float64(n)))
	}
	row.GatewayThrottledPeriods = results.Some(float64(w.ThrottledPeriods))
	row.GatewayThrottledMS = results.Some(results.Round3(float64(w.Throttled.Microseconds()) / 1000))
	row.GatewayMemPeakMiB = results.Some(results.Round3(MiB(w.Peak)))
	row.GatewayMemPeakMeasure, row.GatewayMemSamples = memMeasure, results.Some(float64(w.Samples))
	row.GatewayMemRSSMiB = results.Some(results.Round3(MiB(w.PeakRSS)))
	row.GatewayMemGrowthMiBPerMin = results.Some(results.Round3(w.GrowthPerSec * 60 / (1 << 20)))
	// Cost (docs/method.md), from the same window: the gateway's cores and peak working set.
	if usd, perHour, ok := cost.PerMillion(c, cores, float64(w.Peak)/(1<<30), res.RPS); ok {
		row.CostUSDPer1M = results.Some(results.Round6(usd))
		row.RPSPerUSDHour = results.Some(results.Round3(perHour))
	}
}

// fillReplicas gives each replica's cores and peak working set, in replica
// order; a replica whose cgroup could not be read leaves its place empty.
func fillReplicas(row *results.Row, samplers []*usage.Sampler, ws []usage.Window) {
	if len(ws) == 0 {
		return
	}
	cores, peaks := make([]string, len(ws)), make([]string, len(ws))
	for i, w := range ws {
		if samplers[i] != nil {
			cores[i], peaks[i] = results.Some(results.Round3(w.Cores())).String(), results.Some(results.Round3(MiB(w.Peak))).String()
		}
	}
	row.ReplicaCPUCores, row.ReplicaMemPeakMiB = strings.Join(cores, ";"), strings.Join(peaks, ";")
}

// Shape is the driver's load shape of a planned request.
func Shape(req plan.Request) load.Shape {
	s := load.Shape{API: req.API, Stream: req.Stream, Tools: req.Tools, PromptTokens: req.PromptTokens, Model: req.Model, Directive: req.Directive}
	if req.APIKey != "" {
		s.Keys = []string{string(req.APIKey)}
	}
	for _, k := range slices.Sorted(maps.Keys(req.Headers)) {
		s.Headers = append(s.Headers, [2]string{k, req.Headers[k]})
	}
	return s
}
