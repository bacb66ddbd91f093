package kinds

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
)

// Saturation is the rig's guard (docs/method.md, "Saturation"): a point
// where the driver or the mock used nearly all of its CPUs cannot tell the
// gateway's cost from the rig's. Roles that share CPUs are judged together.
// Where the mock shares the gateway's CPUs (the 2-core default layout), a
// gateway arm that fills them is "contended": its figures hold for that
// layout, but part of the CPU went to the mock (its share is given).
func Saturation(l plan.Layout, driver, mock, gateway float64, gatewayArm bool) string {
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
	cpus := config.Roles[config.CPUSet]{Driver: l.Driver.CPUs, Mock: l.Mock.CPUs, Gateway: l.Gateway.CPUs}
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
	row.ErrOversize, row.ErrMalformed, row.ErrAccepted = res.Errors[load.ErrOversize], res.Errors[load.ErrMalformed], res.Errors[load.ErrAccepted]
	if g, ok := res.Goodput(); ok {
		row.Goodput = results.Some(results.Round(g, 4))
		ms := func(d time.Duration) results.Optional {
			if d <= 0 {
				return results.Optional{}
			}
			return results.Some(results.Round3(float64(d.Microseconds()) / 1000))
		}
		row.SLOLatencyMS, row.SLOTTFTMS, row.SLOITLMS = ms(res.SLO.Latency), ms(res.SLO.TTFT), ms(res.SLO.ITL)
	}
	row.CapDelayed = res.CapDelayed
	f := res.Fidelity
	row.FramesExpected, row.FramesMissing, row.FramesAltered = f.Expected, f.Missing, f.Altered
	row.FramesReordered, row.FramesCoalesced = f.Reordered, f.Coalesced
	d := res.Delivery
	row.Streams, row.BurstyStreams, row.Stalls = d.Streams, d.Bursty, d.Stalls
	if d.Streams > 0 {
		row.EventsPerRead, row.SameReadShare = results.Some(results.Round3(d.EventsPerRead())), results.Some(results.Round3(d.SameReadShare()))
	}
	if res.Failed != "" {
		// The survivors' percentiles are not the gateway's latency: only the
		// counts are kept (docs/method.md, "Failed runs").
		row.Status, row.Reason = results.Failed, res.Failed
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
		if r.Gateway != config.DirectArm || r.Mode != string(plan.Closed) || r.Status != results.OK || !r.Latency.P99.Set {
			continue
		}
		p99s[key{r.Concurrency, r.PromptTokens}] = append(p99s[key{r.Concurrency, r.PromptTokens}], r.Latency.P99.V)
		if l, ok := lowest[r.PromptTokens]; !ok || r.Concurrency < l {
			lowest[r.PromptTokens] = r.Concurrency
		}
	}
	for i := range rows {
		r := &rows[i]
		if r.Mode != string(plan.Closed) || r.Status == results.Unavailable || r.Status == results.Failed {
			continue
		}
		base, point := median(p99s[key{lowest[r.PromptTokens], r.PromptTokens}]), median(p99s[key{r.Concurrency, r.PromptTokens}])
		if base > 0 && point > k*base {
			note := fmt.Sprintf("uncontrolled: direct p99 %.3fms > %g x %.3fms at c=%d", point, k, base, lowest[r.PromptTokens])
			if r.Verdict == results.VerdictOK || r.Verdict == "" {
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

// MiB converts bytes.
func MiB(b uint64) float64 { return float64(b) / (1 << 20) }
