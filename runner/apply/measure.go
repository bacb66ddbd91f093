package apply

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/usage"
)

// sampleEvery is how often memory is sampled inside a window, for its peak
// and growth.
const sampleEvery = 100 * time.Millisecond

// memMeasure names what the memory columns hold (docs/method.md, "Memory").
const memMeasure = "working_set_sampled_100ms"

// measure drives one run and samples the gateway's and the mock's cgroups
// over exactly the driver's measured window.
func (r *runner) measure(ctx context.Context, sc *plan.Scenario, run *plan.Run, a *arm, mockSrc usage.Source) (results.Row, error) {
	var mu sync.Mutex
	var gwS, mockS *usage.Sampler
	var gwW, mockW usage.Window
	var gwErr, mockErr error
	window := func(begin bool) {
		mu.Lock()
		defer mu.Unlock()
		if begin {
			if a != nil && a.source != nil {
				gwS, gwErr = usage.Begin(a.source, sampleEvery)
			}
			mockS, mockErr = usage.Begin(mockSrc, sampleEvery)
			return
		}
		if gwS != nil {
			gwW, gwErr = gwS.End()
		}
		if mockS != nil {
			mockW, mockErr = mockS.End()
		}
	}
	cfg := load.Config{
		URL: run.Request.URL, Shape: shapeOf(run.Request), Conns: run.Point.Concurrency,
		Duration: run.Duration, Warmup: run.Warmup, Timeout: 30 * time.Second,
		Knobs: run.Knobs, Fidelity: true, Window: window, MaxErrorRate: run.MaxErrorRate,
	}
	if a != nil && a.container == nil {
		// Hosted: a real API's answers are not the mock's script, and its key
		// lives in memory only, for the requests.
		cfg.Fidelity = false
		if a.key != "" {
			cfg.Shape.Keys = []string{a.key}
		}
	}
	if run.Point.Open {
		cfg.Rate, cfg.Poisson, cfg.Seed = run.Point.Rate, run.Point.Arrival == "poisson", uint64(run.Trial)
	}
	res, err := load.Run(ctx, cfg)
	if err != nil {
		return results.Row{}, err
	}
	row := r.baseRow(sc, run.Arm, run.Trial, run.Point)
	fill(&row, res)
	if res.Partial && row.Status == "ok" {
		row.Status = "partial"
	}
	verdicts := []string{}
	if res.Verdict != "ok" {
		verdicts = append(verdicts, res.Verdict)
	}
	row.DriverCPUCores = results.Some(round3(res.DriverCPU.Cores()))
	if n := res.OK + res.Errored(); n > 0 {
		row.DriverCPUUsPerReq = results.Some(round3(float64(res.DriverCPU.Time.Microseconds()) / float64(n)))
	}
	if mockErr == nil && mockS != nil {
		row.MockCPUCores = results.Some(round3(mockW.Cores()))
	}
	// One client in a closed loop keeps the rig's CPUs busy without queueing
	// anything behind them: the guard is for points with more in flight.
	if v := saturation(r.o.Config.CPUs, res.DriverCPU.Cores(), mockW.Cores(), gwW.Cores(), a != nil && a.container != nil); v != "" && (run.Point.Open || run.Point.Concurrency > 1) {
		verdicts = append(verdicts, v)
	}
	if a != nil && a.container != nil {
		if a.image.Ref != "" {
			row.Image, row.ImageID, row.ImageSizeMiB = a.image.Ref, a.image.ID, mib(uint64(a.image.Size))
		}
		row.ConfigHash = a.container.Spec.Labels["gatewaybench.config-hash"]
		row.ColdStartMS = results.Some(round3(float64(a.coldStart.Microseconds()) / 1000))
		row.GatewayMemIdleMiB = results.Some(round3(mib(a.idleMem)))
		if gwErr != nil {
			verdicts = append(verdicts, "no gateway usage: "+gwErr.Error())
		} else if gwS != nil {
			r.fillGateway(&row, gwW, res)
		}
	} else if a == nil {
		row.Image, row.ImageID, row.ImageSizeMiB = r.mock.Ref, r.mock.ID, mib(uint64(r.mock.Size))
	}
	row.Verdict = "ok"
	if len(verdicts) > 0 {
		row.Verdict = strings.Join(verdicts, "; ")
	}
	return row, nil
}

func (r *runner) fillGateway(row *results.Row, w usage.Window, res *load.Result) {
	cores := w.Cores()
	row.GatewayCPUCores = results.Some(round3(cores))
	if n := res.OK + res.Errored(); n > 0 {
		row.GatewayCPUUsPerReq = results.Some(round3(float64(w.CPU.Microseconds()) / float64(n)))
	}
	row.GatewayThrottledPeriods = results.Some(float64(w.ThrottledPeriods))
	row.GatewayThrottledMS = results.Some(round3(float64(w.Throttled.Microseconds()) / 1000))
	row.GatewayMemPeakMiB = results.Some(round3(mib(w.Peak)))
	row.GatewayMemPeakMeasure = memMeasure
	row.GatewayMemRSSMiB = results.Some(round3(mib(w.PeakRSS)))
	row.GatewayMemGrowthMiBPerMin = results.Some(round3(w.GrowthPerSec * 60 / (1 << 20)))
	// Cost (docs/method.md), from the same window: the gateway's cores and peak working set.
	c := r.o.Config.Cost
	hourly := cores*c.USDPerVCPUHour + float64(w.Peak)/(1<<30)*c.USDPerGBHour
	if res.RPS > 0 && hourly > 0 {
		row.CostUSDPer1M = results.Some(round6(hourly / (res.RPS * 3600) * 1e6))
		row.RPSPerUSDHour = results.Some(round3(res.RPS / hourly))
	}
}

// saturation is the rig's guard (docs/method.md, "Saturation"): a point
// where the driver or the mock used nearly all of its CPUs cannot tell the
// gateway's cost from the rig's. Roles that share CPUs are judged together.
// Where the mock shares the gateway's CPUs (the 2-core default layout), a
// gateway arm that fills them is "contended": its figures hold for that
// layout, but part of the CPU went to the mock (its share is given).
func saturation(cpus config.Roles[config.CPUSet], driver, mock, gateway float64, gatewayArm bool) string {
	union := func(sets ...config.CPUSet) int {
		seen := map[int]bool{}
		for _, s := range sets {
			for _, c := range s.CPUs {
				seen[c] = true
			}
		}
		return len(seen)
	}
	full := func(used float64, n int) bool { return used > 0.9*float64(n) }
	dm, mg := len(cpus.Driver.Overlap(cpus.Mock)) > 0, len(cpus.Mock.Overlap(cpus.Gateway)) > 0
	switch {
	case dm:
		if n := union(cpus.Driver, cpus.Mock); full(driver+mock, n) {
			return fmt.Sprintf("rig saturated: driver and mock share cpus and used %.2f of %d", driver+mock, n)
		}
	case full(driver, len(cpus.Driver.CPUs)):
		return fmt.Sprintf("rig saturated: driver used %.2f of %d cpus", driver, len(cpus.Driver.CPUs))
	}
	if mg {
		n := union(cpus.Mock, cpus.Gateway)
		switch {
		case !gatewayArm && full(mock, n):
			return fmt.Sprintf("rig saturated: mock used %.2f of %d cpus", mock, n)
		case gatewayArm && full(mock+gateway, n):
			return fmt.Sprintf("contended: gateway and mock share cpus and used %.2f of %d (mock %.2f)", mock+gateway, n, mock)
		}
		return ""
	}
	if !dm && full(mock, len(cpus.Mock.CPUs)) {
		return fmt.Sprintf("rig saturated: mock used %.2f of %d cpus", mock, len(cpus.Mock.CPUs))
	}
	return ""
}

func (r *runner) baseRow(sc *plan.Scenario, armName string, trial int, pt plan.LoadPoint) results.Row {
	row := results.Row{
		RunID: r.runID, Scenario: sc.Config.Name, Kind: sc.Config.Kind, Gateway: armName, ArmLabel: "direct",
		Trial: trial, Mode: "closed", Concurrency: pt.Concurrency, RateRPS: pt.Rate, PromptTokens: pt.PromptTokens,
		HostCPU: r.host.cpu, Kernel: r.host.kernel, Status: "ok", Floor: r.o.Plan.Floor,
		CPUsDriver: r.o.Config.CPUs.Driver.Text, CPUsMock: r.o.Config.CPUs.Mock.Text, CPUsGateway: r.o.Config.CPUs.Gateway.Text,
		RigRTTSameUs: r.topo.same, RigRTTCrossUs: r.topo.cross,
	}
	if armName != config.DirectArm {
		row.TopologyUs = r.topo.excess
	}
	if pt.Open {
		row.Mode = "open"
	}
	for _, a := range r.o.Plan.Arms {
		if a.Name == armName && !a.Direct {
			row.ArmLabel, row.GatewayVersion = a.Label, a.Version
			if a.Hosted {
				row.TopologyUs = results.Optional{} // its path leaves this machine's layout
			}
		}
	}
	return row
}

// pcts are h's percentiles in ms, each only where enough samples support it.
func pcts(h *hdrhistogram.Histogram) results.Percentiles {
	q := func(p float64) results.Optional {
		if v, ok := load.Percentile(h, p); ok {
			return results.Some(float64(v) / 1000)
		}
		return results.Optional{}
	}
	out := results.Percentiles{P50: q(50), P90: q(90), P99: q(99), P999: q(99.9), N: h.TotalCount()}
	if out.N > 0 {
		out.Max = results.Some(float64(h.Max()) / 1000)
	}
	return out
}

func fill(row *results.Row, res *load.Result) {
	row.WindowS, row.OK, row.RPS = res.Window.Seconds(), res.OK, res.RPS
	row.ErrHTTP, row.ErrTransport, row.ErrTimeout = res.Errors[load.ErrHTTP], res.Errors[load.ErrTransport], res.Errors[load.ErrTimeout]
	row.ErrFidelity, row.ErrMidstream, row.ErrUnsent = res.Errors[load.ErrFidelity], res.Errors[load.ErrMidstream], res.Errors[load.ErrUnsent]
	row.ErrOversize = res.Errors[load.ErrOversize]
	row.CapDelayed = res.CapDelayed
	f := res.Fidelity
	row.FramesExpected, row.FramesMissing, row.FramesAltered = f.Expected, f.Missing, f.Altered
	row.FramesReordered, row.FramesCoalesced = f.Reordered, f.Coalesced
	d := res.Delivery
	row.Streams, row.BurstyStreams, row.Stalls = d.Streams, d.Bursty, d.Stalls
	if d.Streams > 0 {
		row.EventsPerRead, row.SameReadShare = results.Some(round3(d.EventsPerRead())), results.Some(round3(d.SameReadShare()))
	}
	if res.Failed != "" {
		// The survivors' percentiles are not the gateway's latency: only the
		// counts are kept (docs/method.md, "Failed runs").
		row.Status, row.Reason = "failed", res.Failed
		return
	}
	row.Latency, row.Service, row.TTFB = pcts(res.Latency), pcts(res.Service), pcts(res.TTFB)
	row.TTFT, row.ITL = pcts(res.TTFT), pcts(res.ITL)
	if res.Open {
		row.SendLag = pcts(res.SendLag)
	}
	if v, ok := load.Percentile(res.Lead, 50); ok {
		row.TTFTMinusTTFBP50 = results.Some(float64(v) / 1000)
	}
}

// markUncontrolled applies the controlled-baseline rule (docs/method.md) to a
// scenario's closed-loop rows: a load point whose median direct p99 exceeds
// k x the median direct p99 at the lowest concurrency is not controlled, and
// every arm's rows there say so.
func markUncontrolled(rows []results.Row, k float64) {
	type key struct {
		c, prompt int
	}
	p99s := map[key][]float64{}
	lowest := map[int]int{}
	for _, r := range rows {
		if r.Gateway != config.DirectArm || r.Mode != "closed" || r.Status != "ok" || !r.Latency.P99.Set {
			continue
		}
		p99s[key{r.Concurrency, r.PromptTokens}] = append(p99s[key{r.Concurrency, r.PromptTokens}], r.Latency.P99.V)
		if l, ok := lowest[r.PromptTokens]; !ok || r.Concurrency < l {
			lowest[r.PromptTokens] = r.Concurrency
		}
	}
	for i := range rows {
		r := &rows[i]
		if r.Mode != "closed" || r.Status == "unavailable" || r.Status == "failed" {
			continue
		}
		base, point := median(p99s[key{lowest[r.PromptTokens], r.PromptTokens}]), median(p99s[key{r.Concurrency, r.PromptTokens}])
		if base > 0 && point > k*base {
			note := fmt.Sprintf("uncontrolled: direct p99 %.3fms > %g x %.3fms at c=%d", point, k, base, lowest[r.PromptTokens])
			if r.Verdict == "ok" || r.Verdict == "" {
				r.Verdict = note
			} else if !strings.Contains(r.Verdict, "uncontrolled") {
				r.Verdict += "; " + note
			}
		}
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }
func round6(f float64) float64 { return float64(int64(f*1e6+0.5)) / 1e6 }

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

type hostInfo struct{ cpu, kernel string }

func readHost() hostInfo {
	var h hostInfo
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				h.cpu = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		b := make([]byte, 0, len(u.Release))
		for _, c := range u.Release {
			if c == 0 {
				break
			}
			b = append(b, byte(c))
		}
		h.kernel = string(b)
	}
	return h
}
