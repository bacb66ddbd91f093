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
func Saturation(r Rig, driver, mock, gateway float64, gatewayArm bool) results.Reason {
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
	shares := [3][3]bool{{false, dm, dg}, {dm, false, mg}, {dg, mg, false}}
	// Groups of roles that share CPUs, directly or through another.
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
			return results.Reason{Kind: results.VRigSaturated, Detail: fmt.Sprintf("%s used %.2f of %d cpus", names[0], used, n)}
		case names[0] != "driver" && gatewayArm:
			return results.Reason{Kind: results.VContended, Detail: fmt.Sprintf("gateway and mock share cpus and used %.2f of %d (mock %.2f)", used, n, mock)}
		default:
			return results.Reason{Kind: results.VRigSaturated, Detail: fmt.Sprintf("%s share cpus and used %.2f of %d", joinAnd(names), used, n)}
		}
	}
	return results.Reason{}
}

// joinAnd joins names as a sentence does: "a and b", "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
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
	row.Errors = res.Errors
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
		if r.Gateway != config.DirectArm || r.Mode != results.Closed || r.Status != results.OK || !r.Latency.P99.Set {
			continue
		}
		p99s[key{r.Concurrency, r.PromptTokens}] = append(p99s[key{r.Concurrency, r.PromptTokens}], r.Latency.P99.V)
		if l, ok := lowest[r.PromptTokens]; !ok || r.Concurrency < l {
			lowest[r.PromptTokens] = r.Concurrency
		}
	}
	for i := range rows {
		r := &rows[i]
		if r.Mode != results.Closed || r.Status == results.Unavailable || r.Status == results.Failed {
			continue
		}
		base, point := median(p99s[key{lowest[r.PromptTokens], r.PromptTokens}]), median(p99s[key{r.Concurrency, r.PromptTokens}])
		if base > 0 && point > k*base {
			r.Verdict.Add(results.Reason{Kind: results.VUncontrolled,
				Detail: fmt.Sprintf("direct p99 %.3fms > %g x %.3fms at c=%d", point, k, base, lowest[r.PromptTokens])})
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
