// Package measure is measuring one run into a row, the part every scenario
// kind shares: drive the load with the containers' cgroups sampled over
// exactly the driver's window, fill the row from the driver's result and
// the readings, and judge the rig (saturation). runner/kinds holds what
// differs by kind.
package measure

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gatewaybench/gatewaybench/mock/counters"
	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/cost"
	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/usage"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Meter is what the executor hands a kind for one run: the plan, the arm it
// brought up, where the containers' usage is read, and the row's provenance.
type Meter struct {
	Plan     *plan.Plan
	Scenario *plan.Scenario
	Arm      *plan.Arm
	Gateway  usage.Source // the arm's containers read as one; nil for the direct arm and hosted arms
	// Replicas: each replica's container, when the arm has several;
	// Balancer: its declared balancer's (both are in Gateway too).
	Replicas []usage.Source
	Balancer usage.Source
	Mock     usage.Source
	// Drive runs a run's load: nil runs it in this process (load.Run); the
	// executor sets it to run drivers in containers (docs/scale.md).
	Drive func(ctx context.Context, cfg load.Config) (*load.Result, error)
	Key   string // a hosted arm's key, read from its environment variable
	// Abort, when done, cuts off requests in flight at once (the second
	// Ctrl-C); the ctx given to Measure only stops new ones.
	Abort context.Context
	// Base is the row with identity and provenance filled by the executor.
	Base results.Row
	// WindowStart and WindowEnd are when the last measured window began
	// and ended (the executor counts log lines between them).
	WindowStart, WindowEnd time.Time
}

// Run drives cfg as the executor says: in this process unless Drive is set.
func (m *Meter) Run(ctx context.Context, cfg load.Config) (*load.Result, error) {
	if m.Drive != nil {
		return m.Drive(ctx, cfg)
	}
	return load.Run(ctx, cfg)
}

// sampleEvery is how often memory is sampled inside a window, for its peak
// and growth.
const sampleEvery = 100 * time.Millisecond

// memMeasure names what the memory columns hold (docs/method.md, "Memory").
const memMeasure = "working_set_sampled_100ms"

// Drive runs the load of one run, with what a kind changes in its
// configuration, and samples the gateway's and the mock's cgroups over
// exactly the driver's measured window: every kind's row starts here.
func Drive(ctx context.Context, m *Meter, run *plan.Run, tweak func(*load.Config)) (results.Row, *load.Result, error) {
	u := newSamplers(m)
	cfg := driveConfig(m, run)
	cfg.Window = u.window
	if tweak != nil {
		tweak(&cfg)
	}
	u.streams = cfg.Shape.Stream && !m.Arm.Hosted
	res, err := m.Run(ctx, cfg)
	if err != nil {
		return results.Row{}, nil, err
	}
	row := m.Base
	Fill(&row, res, cfg.Shape.Stream)
	if u.streamsRead && row.Stream != nil && u.closed.Completed >= u.opened.Completed && u.closed.Aborted >= u.opened.Aborted {
		row.Stream.MockCompleted = vocab.Some(float64(u.closed.Completed - u.opened.Completed))
		row.Stream.MockAborted = vocab.Some(float64(u.closed.Aborted - u.opened.Aborted))
	}
	row.Drivers = max(res.Drivers, 1) // a point with fewer connections than drivers runs on fewer
	if res.Partial && row.Status == vocab.StatusOK {
		row.Status = vocab.StatusPartial
	}
	verdict := slices.Clone(res.Verdict)
	row.DriverCPUCores = vocab.Some(results.Round3(res.DriverCPU.Cores()))
	if n := res.RequestsOK + res.Errored(); n > 0 {
		row.DriverCPUUsPerReq = vocab.Some(results.Round3(float64(res.DriverCPU.Time.Microseconds()) / float64(n)))
	}
	if u.mockErr == nil && u.mockS != nil {
		row.MockCPUCores = vocab.Some(results.Round3(u.mockW.Cores()))
	}
	// One client in a closed loop keeps the rig's CPUs busy without queueing
	// anything behind them: the guard is for points with more in flight.
	if run.Point.Mode == vocab.Open || run.Point.Concurrency > 1 {
		verdict.Add(Saturation(RigOf(m.Plan, m.Arm), res.DriverCPU.Cores(), u.mockW.Cores(), u.gwW.Cores(), m.Gateway != nil))
	}
	if m.Gateway != nil {
		if u.gwErr != nil {
			verdict.Add(vocab.Reason{Finding: vocab.VNoUsage, Detail: u.gwErr.Error()})
		} else if u.gwS != nil {
			fillGateway(&row, u.gwW, res, m.Plan.Cost)
			if m.Scenario.Trend {
				fillTrend(&row, u.gwW.Times, u.gwW.RSSSeries)
			}
			n := len(m.Replicas)
			fillReplicas(&row, u.repS[:n], u.repW[:n])
			if m.Balancer != nil && u.repS[n] != nil {
				if row.PerReplica == nil {
					row.PerReplica = &results.ReplicaPart{}
				}
				row.PerReplica.BalancerCPUCores = vocab.Some(results.Round3(u.repW[n].Cores()))
				row.PerReplica.BalancerMemPeakMiB = vocab.Some(results.Round3(MiB(u.repW[n].Peak)))
			}
		}
	}
	row.Verdict = verdict
	return row, res, nil
}

// driveConfig is the load of run as the scenario and the arm shape it.
func driveConfig(m *Meter, run *plan.Run) load.Config {
	cfg := RequestConfig(run, m.Scenario.Knobs)
	cfg.Conns, cfg.Duration, cfg.Warmup = run.Point.Concurrency, run.Duration.D(), run.Warmup.D()
	cfg.MinSamples, cfg.MaxDuration = run.MinSamples, run.MaxDuration.D()
	cfg.Fidelity, cfg.MaxErrorRate, cfg.Abort = true, run.MaxErrorRate, m.Abort
	cfg.SLO = load.SLO{Latency: run.SLO.Latency.D(), TTFT: run.SLO.TTFT.D(), ITL: run.SLO.ITL.D()}
	if m.Arm.Hosted {
		// A real API's answers are not the mock's script, and its key lives
		// in memory only, for the requests.
		cfg.Fidelity = false
		if m.Key != "" {
			cfg.Shape.Keys = []string{m.Key}
		}
	}
	if run.Point.Mode == vocab.Open {
		cfg.Rate, cfg.Poisson, cfg.Seed = run.Point.Rate, run.Point.Arrival == plan.Poisson, uint64(run.Trial)
	}
	return cfg
}

// samplers read the gateway's, each replica's and the balancer's (apart)
// and the mock's cgroups over the driver's window.
type samplers struct {
	m          *Meter
	mu         sync.Mutex
	parts      []usage.Source
	gwS, mockS *usage.Sampler
	gwW, mockW usage.Window
	gwErr      error
	mockErr    error
	repS       []*usage.Sampler
	repW       []usage.Window
	// streams: the mock's stream counters at the window's open and close
	// (read only for streamed runs), and whether both reads worked.
	streams        bool
	opened, closed counters.StreamCounts
	streamsRead    bool
}

func newSamplers(m *Meter) *samplers {
	// Each replica, then the balancer, sampled apart over the same window.
	parts := slices.Clone(m.Replicas)
	if m.Balancer != nil {
		parts = append(parts, m.Balancer)
	}
	return &samplers{m: m, parts: parts, repS: make([]*usage.Sampler, len(parts)), repW: make([]usage.Window, len(parts))}
}

// window is the driver's Window: it begins and ends every sampler.
func (u *samplers) window(begin bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	m := u.m
	if begin {
		m.WindowStart = time.Now()
		if m.Gateway != nil {
			u.gwS, u.gwErr = usage.Begin(m.Gateway, sampleEvery)
		}
		for i, src := range u.parts {
			u.repS[i], _ = usage.Begin(src, sampleEvery)
		}
		u.mockS, u.mockErr = usage.Begin(m.Mock, sampleEvery)
		u.streamsRead = false
		if u.streams {
			snap, err := counters.Read(context.Background(), m.Plan.Mock.URL)
			u.opened, u.streamsRead = snap.Streams, err == nil
		}
		return
	}
	m.WindowEnd = time.Now()
	if u.streamsRead {
		snap, err := counters.Read(context.Background(), m.Plan.Mock.URL)
		u.closed, u.streamsRead = snap.Streams, err == nil
	}
	if u.gwS != nil {
		u.gwW, u.gwErr = u.gwS.End()
	}
	for i, s := range u.repS {
		if s != nil {
			u.repW[i], _ = s.End()
		}
	}
	if u.mockS != nil {
		u.mockW, u.mockErr = u.mockS.End()
	}
}

func fillGateway(row *results.Row, w usage.Window, res *load.Result, c config.Cost) {
	cores := w.Cores()
	row.GatewayCPUCores = vocab.Some(results.Round3(cores))
	if n := res.RequestsOK + res.Errored(); n > 0 {
		row.GatewayCPUUsPerReq = vocab.Some(results.Round3(float64(w.CPU.Microseconds()) / float64(n)))
		if w.HasWork {
			per := func(c uint64) vocab.Optional { return vocab.Some(results.Round3(float64(c) / float64(n))) }
			row.GatewaySyscallsPerReq, row.GatewayCtxSwitchesPerReq, row.GatewayPageFaultsPerReq = per(w.Syscalls), per(w.CtxSwitches), per(w.PageFaults)
		}
	}
	row.GatewayThrottledPeriods = vocab.Some(float64(w.ThrottledPeriods))
	row.GatewayThrottledMS = vocab.Some(results.Round3(float64(w.Throttled.Microseconds()) / 1000))
	row.GatewayMemPeakMiB = vocab.Some(results.Round3(MiB(w.Peak)))
	row.GatewayMemPeakMeasure, row.GatewayMemSamples = memMeasure, vocab.Some(float64(w.Samples))
	row.GatewayMemAnonMiB = vocab.Some(results.Round3(MiB(w.PeakRSS)))
	if w.HasProcRSS {
		row.GatewayRSSPeakMiB = vocab.Some(results.Round3(MiB(w.PeakProcRSS)))
	}
	row.GatewayMemGrowthMiBPerMin = vocab.Some(results.Round3(w.GrowthPerSec * 60 / (1 << 20)))
	// Cost (docs/method.md), from the same window: the gateway's cores and peak working set.
	if usd, perHour, ok := cost.PerMillion(c, cores, float64(w.Peak)/(1<<30), res.RPS); ok {
		row.CostUSDPer1M = vocab.Some(results.Round6(usd))
		row.RPSPerUSDHour = vocab.Some(results.Round3(perHour))
	}
	if usd, ok := cost.Instance(c, res.RPS); ok {
		row.InstanceUSDPer1M = vocab.Some(results.Round6(usd))
	}
}

// fillTrend calls the resident set's shape over the window from its
// one-second medians (readings 100 ms apart are not independent; their
// medians a second apart are closer to it): a range within the noise
// floor is flat; else a Mann-Kendall trend at p < 0.05 whose Theil-Sen
// interval leaves out 0 is climbing or falling; else it is unsteady.
func fillTrend(row *results.Row, times, rss []float64) {
	if len(rss) != len(times) || len(rss) == 0 {
		return // the resident set was not read at every reading, or at all
	}
	var x, y []float64
	for i := 0; i < len(times); {
		j, sec := i, math.Floor(times[i])
		var sumT float64
		for j < len(times) && math.Floor(times[j]) == sec {
			sumT += times[j]
			j++
		}
		block := slices.Sorted(slices.Values(rss[i:j]))
		x = append(x, sumT/float64(j-i))
		y = append(y, block[len(block)/2]/(1<<20))
		i = j
	}
	g := &results.GrowthPart{}
	row.Growth = g
	for _, v := range y {
		g.RSSSeconds = append(g.RSSSeconds, vocab.Some(results.Round3(v)))
	}
	t, ok := stats.TrendOf(x, y)
	if !ok {
		return
	}
	perMin := func(v float64) vocab.Optional { return vocab.Some(results.Round3(v * 60)) }
	g.RSSTrend, g.RSSTrendLo, g.RSSTrendHi = perMin(t.Slope), perMin(t.Lo), perMin(t.Hi)
	g.RSSTrendP = vocab.Some(results.Round(t.P, 4))
	lo, hi := slices.Min(y), slices.Max(y)
	g.RSSRangeMiB = vocab.Some(results.Round3(hi - lo))
	floor := max(flatMiB, flatShare*slices.Sorted(slices.Values(y))[len(y)/2])
	last := y[len(y)-1]
	switch {
	case hi-lo <= floor:
		g.MemShape = vocab.ShapeFlat
	// A trend must hold to the window's end: a set that steps up with the
	// load and falls back has a significant slope and is no leak.
	case t.Enough && t.P < 0.05 && t.Lo > 0 && hi-last <= floor:
		g.MemShape = vocab.ShapeClimbing
	case t.Enough && t.P < 0.05 && t.Hi < 0 && last-lo <= floor:
		g.MemShape = vocab.ShapeFalling
	default:
		g.MemShape = vocab.ShapeUnsteady
	}
}

// flatMiB and flatShare are the noise floor of the shape call: a resident
// set whose one-second medians stay within the larger is flat.
const flatMiB, flatShare = 1.0, 0.02

// fillReplicas gives each replica's cores and peak working set, in replica
// order; a replica whose cgroup could not be read leaves its place empty.
func fillReplicas(row *results.Row, samplers []*usage.Sampler, ws []usage.Window) {
	if len(ws) == 0 {
		return
	}
	p := &results.ReplicaPart{ReplicaCPUCores: make([]vocab.Optional, len(ws)), ReplicaMemPeakMiB: make([]vocab.Optional, len(ws))}
	row.PerReplica = p
	for i, w := range ws {
		if samplers[i] != nil {
			p.ReplicaCPUCores[i], p.ReplicaMemPeakMiB[i] = vocab.Some(results.Round3(w.Cores())), vocab.Some(results.Round3(MiB(w.Peak)))
		}
	}
}

// RequestConfig is the driver's configuration for run's request against
// the mock scripted by knobs: where it goes, what it is, its timeout; the
// caller sets the load (clients, window) and the checks.
func RequestConfig(run *plan.Run, knobs script.Knobs) load.Config {
	return load.Config{URL: run.Request.URL, URLs: run.Request.URLs, Shape: Shape(run.Request), Timeout: run.Timeout.D(), Knobs: knobs}
}

// Shape is the driver's load shape of a planned request.
func Shape(req plan.Request) load.Shape {
	s := load.Shape{API: req.API, Stream: req.Stream, Tools: req.Tools, PromptTokens: req.PromptTokens, Model: req.Model, Directive: req.Directive, OverheadHeader: req.OverheadHeader}
	if req.APIKey != "" {
		s.Keys = []string{string(req.APIKey)}
	}
	for _, k := range slices.Sorted(maps.Keys(req.Headers)) {
		s.Headers = append(s.Headers, [2]string{k, req.Headers[k]})
	}
	return s
}

// Rig is the CPUs each role had in a run, as the saturation guard judges
// them: roles on different engines never share CPUs, whatever their
// cpusets say, and drivers on several engines have that many times the
// driver's cpuset.
type Rig struct {
	Driver, Mock, Gateway config.CPUSet
	DriverEngines         int  // engines the drivers ran on
	DriverBesideMock      bool // a driver ran on the mock's engine
	MockBesideGateway     bool // the mock and the gateway ran on one engine
}

// RigOf is the rig of arm a's runs in plan p: the gateway's CPUs are
// those of all its replicas.
func RigOf(p *plan.Plan, a *plan.Arm) Rig {
	l := p.Layout
	r := Rig{Driver: l.Driver.CPUs, Mock: l.Mock.CPUs, Gateway: l.Gateway.CPUs, MockBesideGateway: l.Mock.Engine == l.Gateway.Engine}
	engines := p.Drivers.Engines[:min(len(p.Drivers.Engines), max(p.Drivers.Instances, 1))]
	if len(engines) == 0 {
		engines = []string{l.Driver.Engine}
	}
	seen := map[string]bool{}
	for _, e := range engines {
		seen[e] = true
	}
	r.DriverEngines, r.DriverBesideMock = len(seen), seen[l.Mock.Engine]
	if len(a.Replicas) > 1 || a.Balancer != nil {
		var all []int
		for _, rep := range a.Replicas {
			all = append(all, rep.CPUs.CPUs...)
		}
		if a.Balancer != nil {
			all = append(all, a.Balancer.CPUs.CPUs...)
		}
		slices.Sort(all)
		r.Gateway = config.CPUSet{CPUs: slices.Compact(all)}
	}
	return r
}

// Saturation is the rig's guard (docs/method.md, "Saturation"): a point
// where the driver or the mock used nearly all of its CPUs cannot tell the
// gateway's cost from the rig's. Roles that share CPUs (on one engine) are
// judged together, over the CPUs of them all. Where the mock shares the
// gateway's CPUs but the driver does not (the 2-core default layout), a
// gateway arm that fills them is "contended": its figures hold for that
// layout, but part of the CPU went to the mock (its share is given).
func Saturation(r Rig, driver, mock, gateway float64, gatewayArm bool) vocab.Reason {
	full := func(used float64, n int) bool { return used > 0.9*float64(n) }
	// Driver and mock share where one driver engine holds both on shared
	// CPUs; drivers spread over engines are judged alone. Likewise the
	// driver and the gateway (a replica on the driver's cores).
	one := r.DriverEngines <= 1
	dm := one && r.DriverBesideMock && len(r.Driver.Overlap(r.Mock)) > 0
	dg := one && r.DriverBesideMock && r.MockBesideGateway && len(r.Driver.Overlap(r.Gateway)) > 0
	mg := r.MockBesideGateway && len(r.Mock.Overlap(r.Gateway)) > 0
	if !gatewayArm { // the direct arm: the gateway idles, the mock is judged on its own CPUs
		gateway, dg, mg = 0, false, false
	}
	type role struct {
		name string
		cpus config.CPUSet
		used float64
	}
	roles := []role{{"driver", r.Driver, driver}, {"mock", r.Mock, mock}, {"gateway", r.Gateway, gateway}}
	group := sharingGroups([3][3]bool{{false, dm, dg}, {dm, false, mg}, {dg, mg, false}})
	for g := range 3 {
		var names []string
		var used float64
		seen := map[int]bool{}
		for i, ro := range roles {
			if group[i] != g {
				continue
			}
			names, used = append(names, ro.name), used+ro.used
			for _, c := range ro.cpus.CPUs {
				seen[c] = true
			}
		}
		n := len(seen)
		if g == 0 && len(names) == 1 {
			n = len(r.Driver.CPUs) * max(r.DriverEngines, 1) // drivers on several engines
		}
		if len(names) == 0 || !full(used, n) {
			continue
		}
		switch {
		case len(names) == 1 && names[0] == "gateway":
			// the gateway filling its own CPUs is what is measured
		case len(names) == 1:
			return vocab.Reason{Finding: vocab.VRigSaturated, Detail: fmt.Sprintf("%s used %.2f of %d cpus", names[0], used, n)}
		case names[0] != "driver" && gatewayArm:
			return vocab.Reason{Finding: vocab.VContended, Detail: fmt.Sprintf("gateway and mock share cpus and used %.2f of %d (mock %.2f)", used, n, mock)}
		default:
			return vocab.Reason{Finding: vocab.VRigSaturated, Detail: fmt.Sprintf("%s share cpus and used %.2f of %d", joinAnd(names), used, n)}
		}
	}
	return vocab.Reason{}
}

// sharingGroups numbers the groups of roles (driver, mock, gateway) that
// share CPUs, directly or through another: each role's group is the
// lowest role index it is joined to.
func sharingGroups(shares [3][3]bool) [3]int {
	group := [3]int{0, 1, 2}
	for changed := true; changed; {
		changed = false
		for i := range 3 {
			for j := range 3 {
				if shares[i][j] && group[j] != group[i] {
					group[i], group[j] = min(group[i], group[j]), min(group[i], group[j])
					changed = true
				}
			}
		}
	}
	return group
}

// joinAnd joins names as a sentence does: "a and b", "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Percentiles are h's percentiles in ms, each only where enough samples support it.
func Percentiles(h *hdrhistogram.Histogram) results.Percentiles {
	q := func(p float64) vocab.Optional {
		if v, ok := load.Percentile(h, p); ok {
			return vocab.Some(float64(v) / 1000)
		}
		return vocab.Optional{}
	}
	out := results.Percentiles{P50: q(50), P90: q(90), P99: q(99), P999: q(99.9), N: h.TotalCount()}
	if out.N > 0 {
		out.Max = vocab.Some(float64(h.Max()) / 1000)
	}
	return out
}

func Fill(row *results.Row, res *load.Result, stream bool) {
	row.WindowS, row.RequestsOK, row.RPS = res.Window.Seconds(), res.RequestsOK, res.RPS
	row.Errors = res.Errors
	if g, ok := res.Goodput(); ok {
		ms := func(d time.Duration) vocab.Optional {
			if d <= 0 {
				return vocab.Optional{}
			}
			return vocab.Some(results.Round3(float64(d.Microseconds()) / 1000))
		}
		row.SLO = &results.SLOPart{Goodput: vocab.Some(results.Round(g, 4)), LatencyMS: ms(res.SLO.Latency), TTFTMS: ms(res.SLO.TTFT), ITLMS: ms(res.SLO.ITL)}
	}
	if res.Open {
		// A part of its own: the base row's is shared with every row made from it.
		var o results.OpenLoopPart
		if row.OpenLoop != nil {
			o = *row.OpenLoop
		}
		o.CapDelayed = res.CapDelayed
		row.OpenLoop = &o
	}
	var st *results.StreamPart
	if stream {
		st = &results.StreamPart{}
		row.Stream = st
		f, d := res.Fidelity, res.Delivery
		st.FramesExpected, st.FramesMissing, st.FramesAltered = f.Expected, f.Missing, f.Altered
		st.FramesReordered, st.FramesCoalesced = f.Reordered, f.Coalesced
		st.Streams, st.BurstyStreams, st.Stalls = d.Streams, d.Bursty, d.Stalls
		if d.Streams > 0 {
			st.EventsPerRead, st.SameReadShare = vocab.Some(results.Round3(d.EventsPerRead())), vocab.Some(results.Round3(d.SameReadShare()))
		}
	}
	if res.Failed != "" {
		// The survivors' percentiles are not the gateway's latency: only the
		// counts are kept (docs/method.md, "Failed runs").
		row.Status, row.Reason = vocab.StatusFailed, res.Failed
		return
	}
	row.Latency, row.Service, row.TTFB = Percentiles(res.Latency), Percentiles(res.Service), Percentiles(res.TTFB)
	if st != nil {
		st.TTFT, st.ITL = Percentiles(res.TTFT), Percentiles(res.ITL)
		if v, ok := load.Percentile(res.Lead, 50); ok {
			st.TTFTMinusTTFBP50 = vocab.Some(float64(v) / 1000)
		}
	}
	if res.Open {
		row.OpenLoop.SendLag = Percentiles(res.SendLag)
	}
	if v, ok := load.Percentile(res.Reported, 50); ok {
		row.GatewayReportedP50 = vocab.Some(float64(v) / 1000)
	}
}

// MiB converts bytes.
func MiB(b uint64) float64 { return float64(b) / (1 << 20) }
